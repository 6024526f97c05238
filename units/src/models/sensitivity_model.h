// A built-in model with the forward sensitivities of its states and outputs to parameters
// (Unit.sensitivities, proto/cosimo/v1/scenario.proto; SensitivityScenario in
// cosimo/common/sensitivities.h; docs/calibration.md#the-jacobian).
//
// With the model x' = F(x, u, t), y = G(x, u, t) and parameters P_1..P_p, the model made here has
// the states [x; S_1; ..; S_p] (S_j = dx/dP_j, named "d(<state>)/d(P_j)"), the inputs
// [u; U_1; ..; U_p] (U_j = du/dP_j, "d(<input>)/d(P_j)") and the outputs [y; Y_1; ..; Y_p]
// (Y_j = dy/dP_j, "d(<output>)/d(P_j)"):
//   S_j' = dF/dx S_j + dF/du U_j + dF/dP_j,   Y_j = dG/dx S_j + dG/du U_j + dG/dP_j,
//   S_j(t0) = dx0/dP_j.
// dF/dx .. dG/du are the model's Jacobians (analytic for every built-in model but the pendulum,
// central differences otherwise); dF/dP_j, dG/dP_j and dx0/dP_j central differences of the model
// built again with P_j +- h (h = 6e-6 max(|P_j|, 1); one-sided where a side is not a valid
// value), and zero for another unit's parameter, whose effect comes in through U_j. A parameter
// that gives an unconnected input its value (a held input) has U_j = 1 in that input's row.
// The unit's solver integrates the whole, so explicit fixed-step methods give the exact
// derivative of their own discrete solution. A linear time-invariant model stays one (its
// sensitivities' Jacobians are constant): the whole is then an AffineModel, which EXACT
// integrates exactly.
//
// Not thread safe (scratch buffers): one per unit, as the unit's solver is.
#pragma once

#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"
#include "units/src/models/builtin_models.h"

namespace cosimo::units {

// Builds a unit's model from its spec, without sensitivities.
using PlainModelMaker = absl::StatusOr<BuiltinModel> (*)(const v1::Unit& spec);

// `built` (`spec`'s model made by `make`, without sensitivities) with the sensitivities to
// spec.sensitivities(); `make` builds the perturbed models. Errors name the unit and the
// parameter (not a number, no valid value near it) or the solver method that cannot integrate
// them (CENTRAL_DIFFERENCE: the states are no longer [positions; velocities]).
[[nodiscard]] absl::StatusOr<BuiltinModel> WithSensitivities(const v1::Unit& spec,
                                                             BuiltinModel built,
                                                             PlainModelMaker make);

}  // namespace cosimo::units
