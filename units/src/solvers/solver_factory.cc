// CreateSolver: checks the scenario's solver fields (CheckSolverSpec) and builds the solver.
#include <string>

#include "units/src/models/solver_spec.h"
#include "units/src/solvers/solver.h"
#include "units/src/solvers/solver_util.h"
#include "units/src/solvers/solvers.h"

namespace cosimo::units {

absl::StatusOr<std::unique_ptr<Solver>> CreateSolver(const v1::Solver& spec, const Model& model,
                                                     const std::string& unit_name) {
  absl::StatusOr<v1::Solver::Method> method = CheckSolverSpec(spec, model, unit_name);
  if (!method.ok()) return method.status();
  const double step = spec.step();
  const double tolerance = spec.tolerance();
  switch (*method) {
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
      return NewCentralDifferenceSolver(step);
    case v1::Solver::CVODE:
      return NewCvodeSolver(model, step, tolerance > 0.0 ? tolerance : kDefaultTolerance,
                            unit_name);
    case v1::Solver::EXACT:
      return NewExactSolver(model);
    default:
      break;
  }
  return absl::InternalError("unit '" + unit_name + "': CheckSolverSpec let solver.method " +
                             v1::Solver::Method_Name(*method) + " through");
}

}  // namespace cosimo::units
