// One FMU on its own (`cosimo run model.fmu`, like `fmpy simulate`), and the FMUs'
// DefaultExperiment for a scenario that leaves out its stop time or step size. Both read the
// modelDescription.xml of the FMU archives (FMI 2.0 and 3.0).
//
// Thread safety: none needed (functions).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::client {

// What the FMU's modelDescription.xml says about running it.
struct FmuExperiment {
  std::string model_name;
  double start_time = 0.0;           // DefaultExperiment startTime, else 0
  std::optional<double> stop_time;   // DefaultExperiment stopTime
  std::optional<double> step_size;   // DefaultExperiment stepSize
  std::vector<std::string> outputs;  // variables with causality "output", in their order
  std::string fmi_version;           // "2.0", "3.0"
  std::string cs_identifier;         // CoSimulation modelIdentifier; empty: no such interface
  std::string me_identifier;         // ModelExchange modelIdentifier; empty: no such interface
  // Every variable: name and causality as written ("input", "output", "parameter", "local",
  // "calculatedParameter", "independent"; FMI 2's default "local").
  std::vector<std::pair<std::string, std::string>> variables;
  std::vector<std::string> binaries;  // archive entries under binaries/
};
[[nodiscard]] absl::StatusOr<FmuExperiment> ReadFmuExperiment(const std::string& fmu_path);

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
