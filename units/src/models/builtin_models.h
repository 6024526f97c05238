// The catalogue of built-in models (cosimo_models): models from the co-simulation tutorial and a
// generic linear state-space unit, built from a unit's parameters, and their variables, known
// without a solver (the scenario checks). The units made of them, each combined with the solver
// the scenario chooses, and the table source unit are cosimo_units' (model_unit.cc,
// table_unit.cc). docs/models.md documents every model's variables, parameters and units.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/units/unit.h"
#include "cosimo/v1/scenario.pb.h"
#include "units/src/models/model.h"

namespace cosimo::units {

// A built-in model and the values its unit's `parameters` give to its inputs (by index in
// model->inputs()): held while the input is unconnected (ModelUnit::SetConnectedInputs).
struct BuiltinModel {
  std::unique_ptr<Model> model;
  std::vector<std::pair<int, double>> held_inputs;
};
[[nodiscard]] absl::StatusOr<BuiltinModel> MakeBuiltinModel(const v1::Unit& spec);

// Builds the Model named by spec.builtin().model() from the unit's parameters. Errors name the
// unit and the parameter (missing, wrong size, unknown model with the list of known ones).
[[nodiscard]] absl::StatusOr<std::unique_ptr<Model>> CreateBuiltinModel(const v1::Unit& spec);

// The variables of a model's unit: its inputs, outputs, states and their der(<state>).
UnitDescription DescribeModel(const Model& model);
// The variables of the unit `spec` makes, its parameters and solver fields checked (the errors
// CreateBuiltinUnit would give), without building a solver.
[[nodiscard]] absl::StatusOr<UnitDescription> DescribeBuiltinUnit(const v1::Unit& spec);

// A Model with the solver from spec.solver(): the Unit for built-in models (model_unit.cc).
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateBuiltinUnit(const v1::Unit& spec);

// A unit that replays a CSV table (table_unit.cc) (first column time, the others outputs).
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateTableUnit(const v1::Unit& spec,
                                                                    const std::string& csv_path);

std::vector<std::string> BuiltinModelNamesList();

}  // namespace cosimo::units
