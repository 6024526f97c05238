// A Model Exchange FMU unit with the forward sensitivities of its states and outputs to
// parameters (Unit.sensitivities, proto/cosimo/v1/scenario.proto;
// docs/calibration.md#the-jacobian).
//
// The FMU's equations x' = F(x, u, t), y = G(x, u, t) (the ModelExchangeEquations of a Model
// Exchange unit, fmu_units.h) carry their sensitivities as a built-in model's do
// (MakeSensitivityModel, units/src/models/sensitivity_model.h), integrated by the unit's solver
// through a ModelUnit:
// - dF/dx, dF/du, dG/dx, dG/du from fmiXGetDirectionalDerivative when the FMU provides it, central
//   differences of the FMU otherwise (ModelExchangeEquations::JacobiansAt);
// - per parameter P of this FMU, two more instances of it, with P + h and P - h (h = 6e-6
//   max(|P|, 1)), initialised as the main one: dF/dP and dG/dP are central differences of their
//   derivatives and outputs at the same (t, x, u), dx0/dP of their initial states;
// - a parameter of another unit moves this one through its inputs only.
//
// Refused, by an error naming the unit and the reason: an FMU that can be instantiated only once
// per process, one with event indicators, discrete inputs or clocks, a parameter that is not one
// of the FMU's Real parameters (causality parameter, Float64 or Float32); at run time an event
// (a time event, a step event): the sensitivities jump at events and are not carried across.
// The FMUs hold no state of their own between the solver's points (every evaluation sets time,
// states and inputs), so the unit rolls back and serialises as a built-in one; it records its
// inputs, outputs, states and der(<state>), not the FMU's other variables.
// Call order and thread safety: see cosimo/units/unit.h.
#pragma once

#include <functional>
#include <memory>

#include "absl/status/statusor.h"
#include "cosimo/fmi/model_description.h"
#include "cosimo/units/unit.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::units::fmu {

// Builds a Model Exchange unit of the FMU for a spec (without sensitivities).
using MeUnitMaker = std::function<absl::StatusOr<std::unique_ptr<Unit>>(const v1::Unit& spec)>;

// The unit `spec` (an FMU run as Model Exchange, spec.sensitivities() not empty) of the FMU
// described by `md`; `make` builds the main unit and the perturbed ones.
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateSensitivityUnit(
    const v1::Unit& spec, const fmi::ModelDescription& md, const MeUnitMaker& make);

}  // namespace cosimo::units::fmu
