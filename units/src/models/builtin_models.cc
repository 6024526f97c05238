// The registry of built-in models and the functions of builtin_models.h.
#include "units/src/models/builtin_models.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "cosimo/common/status.h"
#include "units/src/models/model_factories.h"
#include "units/src/models/model_parameters.h"
#include "units/src/models/sensitivity_model.h"
#include "units/src/models/solver_spec.h"

namespace cosimo::units {
namespace {

struct ModelEntry {
  const char* name;
  ModelResult (*factory)(ModelParameters&);
};

// Sorted by name; docs/models.md documents each.
constexpr ModelEntry kModels[] = {
    {"car", &MakeCar},
    {"car_controller", &MakeCarController},
    {"car_vehicle", &MakeCarVehicle},
    {"dual_mass_oscillator", &MakeDualMassOscillator},
    {"dual_mass_oscillator_1", &MakeDualMassOscillator1},
    {"dual_mass_oscillator_2", &MakeDualMassOscillator2},
    {"linear_state_space", &MakeLinearStateSpace},
    {"mass_spring_damper", &MakeMassSpringDamper},
    {"mass_spring_damper_coupling", &MakeMassSpringDamperCoupling},
    {"passenger", &MakePassenger},
    {"passenger_head", &MakePassengerHead},
    {"passenger_motor", &MakePassengerMotor},
    {"passenger_torso", &MakePassengerTorso},
    {"spring_pendulum", &MakeSpringPendulum},
};

std::string KnownNames() {
  std::string out;
  for (const ModelEntry& entry : kModels)
    out += (out.empty() ? "" : ", ") + std::string(entry.name);
  return out;
}

// The unit's model without its sensitivities.
absl::StatusOr<BuiltinModel> MakePlainModel(const v1::Unit& spec) {
  if (!spec.has_builtin()) {
    return absl::InvalidArgumentError("unit '" + spec.name() + "': builtin is required");
  }
  const std::string& name = spec.builtin().model();
  for (const ModelEntry& entry : kModels) {
    if (name != entry.name) continue;
    ModelParameters parameters(spec, name);
    parameters.DeferUnknown();
    BuiltinModel built;
    COSIMO_ASSIGN_OR_RETURN(built.model, entry.factory(parameters));
    // A parameter the model does not read is an error unless it names one of its inputs.
    const std::vector<VariableInfo>& inputs = built.model->inputs();
    for (const std::string& unknown : parameters.Unknown()) {
      auto input = std::find_if(inputs.begin(), inputs.end(),
                                [&](const VariableInfo& v) { return v.name == unknown; });
      if (input == inputs.end()) return parameters.UnknownError(unknown);
      COSIMO_ASSIGN_OR_RETURN(const double value, parameters.Value(unknown));
      built.held_inputs.emplace_back(static_cast<int>(input - inputs.begin()), value);
    }
    return built;
  }
  return absl::InvalidArgumentError("unit '" + spec.name() + "': builtin.model '" + name +
                                    "' is not a built-in model (known: " + KnownNames() + ")");
}

}  // namespace

absl::StatusOr<BuiltinModel> MakeBuiltinModel(const v1::Unit& spec) {
  COSIMO_ASSIGN_OR_RETURN(BuiltinModel built, MakePlainModel(spec));
  if (spec.sensitivities().empty()) return built;
  return WithSensitivities(spec, std::move(built), &MakePlainModel);
}

absl::StatusOr<std::unique_ptr<Model>> CreateBuiltinModel(const v1::Unit& spec) {
  COSIMO_ASSIGN_OR_RETURN(BuiltinModel built, MakeBuiltinModel(spec));
  if (!built.held_inputs.empty()) {
    return absl::InvalidArgumentError(
        "unit '" + spec.name() + "': parameter '" +
        built.model->inputs()[static_cast<size_t>(built.held_inputs[0].first)].name +
        "' names an input of model '" + spec.builtin().model() +
        "': a wrapped model's inputs cannot be given in parameters");
  }
  return std::move(built.model);
}

UnitDescription DescribeModel(const Model& model) {
  UnitDescription d;
  d.inputs = model.inputs();
  for (VariableInfo& v : d.inputs) v.causality = Causality::kInput;
  d.outputs = model.outputs();
  for (VariableInfo& v : d.outputs) v.causality = Causality::kOutput;
  d.others = model.states();
  for (VariableInfo& v : d.others) v.causality = Causality::kState;
  // The states' time derivatives are recordable as "der(<state>)" (docs/models.md).
  for (const VariableInfo& state : model.states()) {
    VariableInfo der = state;
    der.name = "der(" + state.name + ")";
    der.causality = Causality::kLocal;
    der.unit = state.unit.empty() ? "" : state.unit + "/s";
    der.description = "time derivative of " + state.name;
    d.others.push_back(std::move(der));
  }
  return d;
}

absl::StatusOr<UnitDescription> DescribeBuiltinUnit(const v1::Unit& spec) {
  COSIMO_ASSIGN_OR_RETURN(BuiltinModel built, MakeBuiltinModel(spec));
  absl::StatusOr<v1::Solver::Method> method =
      CheckSolverSpec(spec.solver(), *built.model, spec.name());
  if (!method.ok()) return method.status();
  return DescribeModel(*built.model);
}

std::vector<std::string> BuiltinModelNamesList() {
  std::vector<std::string> names;
  for (const ModelEntry& entry : kModels) names.emplace_back(entry.name);
  return names;
}

}  // namespace cosimo::units
