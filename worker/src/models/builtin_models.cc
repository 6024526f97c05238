// The registry of built-in models and the functions of builtin_models.h.
#include "worker/src/models/builtin_models.h"

#include <memory>
#include <string>
#include <utility>

#include "cosimo/common/status.h"
#include "worker/src/models/model_factories.h"
#include "worker/src/models/model_parameters.h"
#include "worker/src/models/model_unit.h"
#include "worker/src/solvers/solver.h"

namespace cosimo::worker {
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

}  // namespace

absl::StatusOr<std::unique_ptr<Model>> CreateBuiltinModel(const v1::Unit& spec) {
  if (!spec.has_builtin()) {
    return absl::InvalidArgumentError("unit '" + spec.name() + "': builtin is required");
  }
  const std::string& name = spec.builtin().model();
  for (const ModelEntry& entry : kModels) {
    if (name != entry.name) continue;
    ModelParameters parameters(spec, name);
    return entry.factory(parameters);
  }
  return absl::InvalidArgumentError("unit '" + spec.name() + "': builtin.model '" + name +
                                    "' is not a built-in model (known: " + KnownNames() + ")");
}

absl::StatusOr<std::unique_ptr<Unit>> CreateBuiltinUnit(const v1::Unit& spec) {
  COSIMO_ASSIGN_OR_RETURN(std::unique_ptr<Model> model, CreateBuiltinModel(spec));
  COSIMO_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver,
                          CreateSolver(spec.solver(), *model, spec.name()));
  return std::unique_ptr<Unit>(
      std::make_unique<ModelUnit>(spec.name(), std::move(model), std::move(solver)));
}

std::vector<std::string> BuiltinModelNamesList() {
  std::vector<std::string> names;
  for (const ModelEntry& entry : kModels) names.emplace_back(entry.name);
  return names;
}

}  // namespace cosimo::worker
