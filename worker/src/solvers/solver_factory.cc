// CreateSolver: checks the scenario's solver fields and builds the solver.
#include <cmath>
#include <string>

#include "worker/src/solvers/solver.h"
#include "worker/src/solvers/solver_util.h"
#include "worker/src/solvers/solvers.h"

namespace cosimo::worker {
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

absl::StatusOr<std::unique_ptr<Solver>> CreateSolver(const v1::Solver& spec, const Model& model,
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
      return NewExplicitEulerSolver(step);
    case v1::Solver::IMPLICIT_EULER:
      return NewImplicitEulerSolver(
          step, spec.iteration(),
          spec.max_iterations() > 0 ? spec.max_iterations() : kDefaultMaxIterations,
          tolerance > 0.0 ? tolerance : kDefaultIterationTolerance, unit_name);
    case v1::Solver::RK4:
      return NewRk4Solver(step);
    case v1::Solver::RK45:
      return NewRk45Solver(step, tolerance > 0.0 ? tolerance : kDefaultTolerance, unit_name);
    case v1::Solver::CENTRAL_DIFFERENCE:
      if (!IsSecondOrderModel(model)) {
        return Invalid(unit_name,
                       "solver.method CENTRAL_DIFFERENCE needs a second-order model whose "
                       "states are [positions; velocities] with positions' = velocities");
      }
      return NewCentralDifferenceSolver(step);
    case v1::Solver::CVODE:
      return NewCvodeSolver(model, step, tolerance > 0.0 ? tolerance : kDefaultTolerance,
                            unit_name);
    case v1::Solver::EXACT:
      if (!model.linear_time_invariant()) {
        return Invalid(unit_name,
                       "solver.method EXACT needs a linear time-invariant model; use RK45, "
                       "CVODE or a fixed-step method");
      }
      return NewExactSolver(model);
    default:
      break;
  }
  return Invalid(unit_name, "solver.method " + method_name +
                                " is not supported (known: " + kKnownMethods + ")");
}

}  // namespace cosimo::worker
