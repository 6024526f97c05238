// What a succeeded simulation job stores beside its results table (v1::ResultsMetadata): the
// scenario's digest and the artifacts it named, each unit's report and where it ran, the step
// and iteration counts, the times, and each recorded column's variable as its unit describes it.
// Pure functions of their arguments (no clock, no store): the job runner passes the times.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cosimo/common/csv.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/master/master.h"
#include "cosimo/v1/job_service.pb.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::orchestrator {

// The SHA-256 digest ("sha256:<hex>") of a message serialised deterministically.
std::string DeterministicDigest(const google::protobuf::Message& message);

// One RecordedVariable per recorded column ("<unit>.<variable>", after "time"), from the loaded
// units' descriptions (`descriptions[u]` of scenario.units(u); fewer than the units is fine).
// The first description that names a variable wins: an output that is also a state is an output.
// A column no description names has its name only.
std::vector<v1::RecordedVariable> RecordedVariables(
    const v1::Scenario& scenario, const ResultTable& table,
    const std::vector<const UnitDescription*>& descriptions);

// When the job ran (its first start, when a resumed job first started).
struct RunTimes {
  int64_t started_unix_ms = 0;
  int64_t finished_unix_ms = 0;
  double wall_seconds = 0.0;
};

// The metadata of `result`, the run of `scenario`. Artifacts are keyed by the unit's name for its
// first file and "<unit>.<field>" for further ones (a hybrid unit's weights).
v1::ResultsMetadata BuildResultsMetadata(const v1::Scenario& scenario,
                                         const master::MasterResult& result,
                                         std::vector<v1::RecordedVariable> variables,
                                         const RunTimes& times);

}  // namespace cosimo::orchestrator
