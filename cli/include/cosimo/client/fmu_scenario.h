// One FMU on its own (`cosimo run model.fmu`, like `fmpy simulate`), and the FMUs'
// DefaultExperiment for a scenario that leaves out its stop time or step size. Both read the
// modelDescription.xml of the FMU archives (FMI 2.0 and 3.0) with ReadFmuExperiment
// (cosimo/fmi/fmu_experiment.h).
//
// Thread safety: none needed (functions).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/fmi/fmu_experiment.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::client {

struct SingleFmuOptions {
  double stop_time = 0.0;  // > 0: instead of DefaultExperiment's stopTime
  double step_size = 0.0;  // > 0: instead of DefaultExperiment's stepSize
};

struct SingleFmuScenario {
  v1::Scenario scenario;             // one unit, every output recorded, JACOBI
  std::vector<std::string> notices;  // where the times came from, for the user
};
// The scenario that runs the FMU alone from its DefaultExperiment: start and stop time, and the
// step (stepSize; else a thousandth of the run, said in a notice). Without a stop time in the
// options or the FMU: an error that says to give --stop-time.
[[nodiscard]] absl::StatusOr<SingleFmuScenario> ScenarioForFmu(const std::string& fmu_path,
                                                               const SingleFmuOptions& options);

// A scenario without stop_time (0) or without algorithm.step_size (0) takes them from the
// DefaultExperiment of its FMUs when every FMU unit has one: the earliest stopTime, the smallest
// stepSize. Anything else is left for validation to refuse. Returns notices saying what it set.
[[nodiscard]] absl::StatusOr<std::vector<std::string>> ApplyDefaultExperiments(
    v1::Scenario* scenario);

}  // namespace cosimo::client
