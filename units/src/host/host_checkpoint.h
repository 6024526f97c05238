// A hosted unit's checkpoint (issue 18; cosimo/units/unit_host.h, Checkpoint): the unit's
// serialised snapshot and what the host keeps across steps (the last recorded values estimates
// answer with, the counters of the report), as bytes, and back. Private to the worker.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "units/src/host/hosted_unit.h"

namespace cosimo::units::host {

// Saves and serialises the unit; errors name the unit and why it cannot be checkpointed.
[[nodiscard]] absl::StatusOr<std::string> WriteCheckpoint(HostedUnit& host);
// Restores the unit and the host's counters from `bytes` (written by WriteCheckpoint for a host
// of the same unit); errors name the unit. The snapshot of Save / rollback is dropped.
[[nodiscard]] absl::Status ReadCheckpoint(std::string_view bytes, HostedUnit& host);

}  // namespace cosimo::units::host
