// The checks of a scenario beyond ValidateScenario that need its units: the units against the
// built-in catalogue (model and parameters), the FMUs' model descriptions (parameters,
// interfaces, optionally a binary for this platform) and the tables' headers; then every
// recorded variable and both ends of every connection against the variables those units have.
// Every problem at once, each naming the scenario field. One home for `cosimo run` / `cosimo
// submit` (before anything is uploaded) and the orchestrator's SubmitJob (for every client).
//
// Thread safety: none needed (a function; the files it reads must not change meanwhile).
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::units {

struct ScenarioCheckOptions {
  // The file to read for an FMU or a table given the scenario's path and digest of it: the
  // client reads the path, the orchestrator its stored artifact of the digest. Empty: the unit's
  // variables are not known (its references are not checked). Errors name the path as written
  // (else the digest).
  std::function<std::string(const std::string& path, const std::string& digest)> file =
      [](const std::string& path, const std::string&) { return path; };
  // An FMU must have a binary for the platform of this machine: true where its workers run here
  // (the client); the orchestrator leaves it to the workers, whose platform may not be its own.
  bool binary_for_this_platform = true;
  // The files never change (the orchestrator's artifacts, named by their SHA-256): what is read
  // of an FMU's model description, and a table's columns, is kept for the next check (a sweep
  // checks every variant's scenario, whose files are the base's).
  bool files_immutable = false;
};

// OK, or InvalidArgument listing every problem ("3 problems:" then one line each).
[[nodiscard]] absl::Status CheckUnitsAndVariables(const v1::Scenario& scenario,
                                                  const ScenarioCheckOptions& options = {});

// Every problem in one round (issue 30): `structural` (ValidateScenario's verdict, or another
// check's) and the units' and variables' problems together, as one InvalidArgument in
// CheckUnitsAndVariables' form. A unit problem about the field the structural one names is left
// out (it would say the same twice). OK when both are.
[[nodiscard]] absl::Status WithUnitProblems(const absl::Status& structural,
                                            const v1::Scenario& scenario,
                                            const ScenarioCheckOptions& options = {});
// ValidateScenario, then WithUnitProblems: what `cosimo run` and `cosimo submit` check.
[[nodiscard]] absl::Status CheckScenario(const v1::Scenario& scenario,
                                         const ScenarioCheckOptions& options = {});

}  // namespace cosimo::units
