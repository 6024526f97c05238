// CheckSolverSpec: a built-in unit's solver fields against its model, without building the
// solver (the scenario checks call it with no solver linked; CreateSolver calls it first).
#include "units/src/models/solver_spec.h"

#include <cmath>
#include <cstdio>
#include <string>

namespace cosimo::units {
namespace {

constexpr const char* kKnownMethods =
    "EXPLICIT_EULER, IMPLICIT_EULER, RK4, RK45, CENTRAL_DIFFERENCE, CVODE, EXACT";

absl::Status Invalid(const std::string& unit_name, const std::string& message) {
  return absl::InvalidArgumentError("unit '" + unit_name + "': " + message);
}

bool IsFixedStep(v1::Solver::Method method) {
  return method == v1::Solver::EXPLICIT_EULER || method == v1::Solver::IMPLICIT_EULER ||
         method == v1::Solver::RK4 || method == v1::Solver::CENTRAL_DIFFERENCE;
}

}  // namespace

std::string FormatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.9g", value);
  return buffer;
}

bool IsSecondOrderModel(const Model& model) {
  const int n = model.num_states();
  if (n == 0 || n % 2 != 0) return false;
  const int nq = n / 2;
  const Eigen::VectorXd u = Eigen::VectorXd::Zero(model.num_inputs());
  Eigen::VectorXd f(n);
  for (int probe = 0; probe < 3; ++probe) {
    Eigen::VectorXd x = model.InitialState();
    for (int i = 0; i < n; ++i) x[i] += 0.5 + 0.37 * probe + 0.11 * i;
    model.Derivatives(0.0, x, u, f);
    const double scale = 1.0 + x.tail(nq).lpNorm<Eigen::Infinity>();
    if ((f.head(nq) - x.tail(nq)).lpNorm<Eigen::Infinity>() > 1e-9 * scale) return false;
  }
  return true;
}

absl::StatusOr<v1::Solver::Method> CheckSolverSpec(const v1::Solver& spec, const Model& model,
                                                   const std::string& unit_name) {
  v1::Solver::Method method = spec.method();
  if (!v1::Solver::Method_IsValid(method)) {
    return Invalid(unit_name, "solver.method " + std::to_string(static_cast<int>(method)) +
                                  " is not a known method (known: " + kKnownMethods + ")");
  }
  if (method == v1::Solver::METHOD_UNSPECIFIED) {
    method = model.linear_time_invariant() ? v1::Solver::EXACT : v1::Solver::RK45;
  }
  const std::string method_name = v1::Solver::Method_Name(method);
  const double step = spec.step();
  if (!std::isfinite(step) || step < 0.0 || (step == 0.0 && IsFixedStep(method))) {
    return Invalid(unit_name, "solver.step must be > 0 for " + method_name + " (got " +
                                  FormatNumber(step) + ")");
  }
  const double tolerance = spec.tolerance();
  if (!std::isfinite(tolerance) || tolerance < 0.0) {
    return Invalid(unit_name,
                   "solver.tolerance must be >= 0 (got " + FormatNumber(tolerance) + ")");
  }
  if (spec.max_iterations() < 0) {
    return Invalid(unit_name, "solver.max_iterations must be >= 0 (got " +
                                  std::to_string(spec.max_iterations()) + ")");
  }
  if (!v1::Solver::Iteration_IsValid(spec.iteration())) {
    return Invalid(unit_name, "solver.iteration must be NEWTON or DIRECT");
  }

  switch (method) {
    case v1::Solver::EXPLICIT_EULER:
    case v1::Solver::IMPLICIT_EULER:
    case v1::Solver::RK4:
    case v1::Solver::RK45:
    case v1::Solver::CVODE:
      return method;
    case v1::Solver::CENTRAL_DIFFERENCE:
      if (!IsSecondOrderModel(model)) {
        return Invalid(unit_name,
                       "solver.method CENTRAL_DIFFERENCE needs a second-order model whose "
                       "states are [positions; velocities] with positions' = velocities");
      }
      return method;
    case v1::Solver::EXACT:
      if (!model.linear_time_invariant()) {
        return Invalid(unit_name,
                       "solver.method EXACT needs a linear time-invariant model; use RK45, "
                       "CVODE or a fixed-step method");
      }
      return method;
    default:
      break;
  }
  return Invalid(unit_name, "solver.method " + method_name +
                                " is not supported (known: " + kKnownMethods + ")");
}

}  // namespace cosimo::units
