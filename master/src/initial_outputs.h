// The start of a master run: Initialize every unit at start_time, then consistent initial
// outputs (and output derivatives) by Evaluate in feedthrough order, sweeping a feedthrough loop
// until it settles. Every unit's history then holds its outputs at start_time.
#pragma once

#include "absl/status/status.h"
#include "master/src/coupled_units.h"

namespace cosimo::master {

// Initialize fanned out to every unit; their outputs at start_time (inputs not yet consistent).
[[nodiscard]] absl::Status InitializeUnits(CoupledUnits& units);
// Evaluate with the sources' outputs until the outputs are consistent; pushes them into the
// histories. A feedthrough loop that does not settle is an error naming it.
[[nodiscard]] absl::Status ResolveInitialOutputs(CoupledUnits& units);

}  // namespace cosimo::master
