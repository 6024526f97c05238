// What a built-in unit's solver fields must satisfy against its model (solver.method, step,
// tolerance, max_iterations, iteration), checked without building the solver: the scenario
// checks (no solver linked) and CreateSolver share it. Errors name the unit and the field.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"
#include "units/src/models/model.h"

namespace cosimo::units {

// The method the unit will use (METHOD_UNSPECIFIED resolved: EXACT for linear time-invariant
// models, else RK45), or why the fields cannot be used with this model.
[[nodiscard]] absl::StatusOr<v1::Solver::Method> CheckSolverSpec(const v1::Solver& spec,
                                                                 const Model& model,
                                                                 const std::string& unit_name);

// True when the model's states are [positions; velocities] with positions' = velocities
// (probed at a few states), as CENTRAL_DIFFERENCE needs.
bool IsSecondOrderModel(const Model& model);

// "%.9g" of a double, for messages.
std::string FormatNumber(double value);

}  // namespace cosimo::units
