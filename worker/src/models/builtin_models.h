// The built-in units: models from the co-simulation tutorial and a generic linear state-space
// unit, each combined with the solver the scenario chooses; and the table source unit.
// docs/models.md documents every model's variables, parameters and units.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"
#include "cosimo/worker/unit.h"
#include "worker/src/models/model.h"

namespace cosimo::worker {

// Builds the Model named by spec.builtin().model() from the unit's parameters. Errors name the
// unit and the parameter (missing, wrong size, unknown model with the list of known ones).
[[nodiscard]] absl::StatusOr<std::unique_ptr<Model>> CreateBuiltinModel(const v1::Unit& spec);

// A Model with the solver from spec.solver(): the Unit for built-in models.
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateBuiltinUnit(const v1::Unit& spec);

// A unit that replays a CSV table (first column time, the others outputs).
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateTableUnit(const v1::Unit& spec,
                                                                    const std::string& csv_path);

std::vector<std::string> BuiltinModelNamesList();

}  // namespace cosimo::worker
