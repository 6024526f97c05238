// The coupling and the recording of a scenario, resolved against its loaded units'
// descriptions: which output feeds every input (ResolveCoupling) and which value fills every
// recorded column (PlanRecording). The master builds both before the first step
// (master_config.cc); a name that no unit has is an error naming the scenario field.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::master {

// The coupling resolved against the loaded units: for every input of every unit, the output it
// is connected to (or none). Indices refer to scenario.units() order and to each unit's
// description inputs/outputs order.
struct Coupling {
  struct Source {
    int unit = -1;  // -1: unconnected (the input keeps its start value, 0)
    int output = -1;
  };
  std::vector<std::vector<Source>> inputs;  // [unit][input]
};
[[nodiscard]] absl::StatusOr<Coupling> ResolveCoupling(const v1::Scenario& scenario,
                                                       const std::vector<UnitDescription>& units);

// A recorded column: unit index and either an output index or an index into the unit's
// recorded values (the order of RecordedNames, counting only the names of the same kind: kString
// variables index StepReply::recorded_strings, the others StepReply::recorded).
struct RecordColumn {
  std::string name;  // "<unit>.<variable>"
  int unit = -1;
  int output = -1;    // >= 0: an output
  int recorded = -1;  // >= 0: an extra recorded variable
  ValueType type = ValueType::kReal;
  // kInteger columns: the index of the exact value in StepReply::integers (the unit's kInteger
  // outputs, then its kInteger recorded variables).
  int integer = -1;
};
// Columns in the order of scenario.record (every output of every unit when record is empty).
// Outputs are read from the step's outputs; other variables from its recorded values.
struct RecordPlan {
  std::vector<RecordColumn> columns;
};
[[nodiscard]] absl::StatusOr<RecordPlan> PlanRecording(const v1::Scenario& scenario,
                                                       const std::vector<UnitDescription>& units);

}  // namespace cosimo::master
