// Checkpoints of a master run (issue 18): the units' states (each unit's own bytes, taken by its
// worker) and the master's copy of what it accepted (outputs, sample histories, the results
// table), at an accepted communication point, into a v1::JobCheckpoint, and back. The run
// (master.cc) adds its counters and the step control's state. Job thread only.
//
// Units that roll back carry their last commit to their next step (commit_previous); a
// checkpoint first commits those explicitly, since a unit cannot serialise while a tentative step
// is open. That changes no unit's state: the results are those of a run without checkpoints.
#pragma once

#include "absl/status/status.h"
#include "cosimo/common/csv.h"
#include "cosimo/master/master.h"
#include "cosimo/v1/checkpoint.pb.h"
#include "master/src/coupled_units.h"

namespace cosimo::master {

// Fills checkpoint->units, in the slots' order. Errors name the unit (and, from its worker, why
// it cannot serialise its state).
[[nodiscard]] absl::Status CheckpointUnits(CoupledUnits& units, v1::JobCheckpoint* checkpoint);
// Brings every unit (loaded and initialised) and its slot to `checkpoint`. Errors name the unit,
// or say how the checkpoint does not fit the scenario's units.
[[nodiscard]] absl::Status RestoreUnits(CoupledUnits& units, const v1::JobCheckpoint& checkpoint);

// The columns of `table`, and its rows and string texts after `from` (every row when `from` is
// past the table's end), into `checkpoint`, with rows_from and strings_from.
void CheckpointTable(const ResultTable& table, CheckpointMark from, v1::JobCheckpoint* checkpoint);
// The rows of `checkpoint` into `table` (columns set up by the Recorder), which must have the
// same columns.
[[nodiscard]] absl::Status RestoreTable(const v1::JobCheckpoint& checkpoint, ResultTable* table);

}  // namespace cosimo::master
