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
//
// The formula is MakeSensitivityModel's, for any model and any "perturbed" models of it: the
// built-in models built again here (WithSensitivities), the perturbed instances of a Model
// Exchange FMU (units/src/fmi/fmu_sensitivity_unit.h).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"
#include "units/src/models/builtin_models.h"

namespace cosimo::units {

// How one parameter moves a model.
struct ParameterEffect {
  // The model with the parameter at value + plus_step and value - minus_step (either null: the
  // model itself, a one-sided difference). Both null: the parameter is not this model's.
  std::unique_ptr<Model> plus, minus;
  double plus_step = 0.0, minus_step = 0.0;
  int held_input = -1;  // the unconnected input whose value the parameter gives, if any
  bool moves() const { return plus != nullptr || minus != nullptr; }
};

// The step h of the central differences in a parameter of value `value`: 6e-6 max(|value|, 1).
double SensitivityStep(double value);

// `base` with the sensitivities to the parameters `names`, each moving it as `effects` says
// (same order). The perturbed models are evaluated at the same (t, x, u) as `base`. A linear
// time-invariant `base` gives an AffineModel (constant Jacobians, no per-call evaluation).
std::unique_ptr<Model> MakeSensitivityModel(std::unique_ptr<Model> base,
                                            const std::vector<std::string>& names,
                                            std::vector<ParameterEffect> effects);

// The solver methods that cannot integrate sensitivities (CENTRAL_DIFFERENCE: the states are no
// longer [positions; velocities]): an error naming the unit; OK otherwise.
[[nodiscard]] absl::Status CheckSensitivitySolver(const v1::Unit& spec);

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
