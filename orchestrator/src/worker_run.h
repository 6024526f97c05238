// The orchestrator's side of a simulation job run whole on one worker (RunJob,
// proto/cosimo/v1/worker_service.proto): the command out, then the worker's messages fed to the
// job's observer as the unit-by-unit path feeds it (progress, checkpoints stored, a checkpoint
// that cannot be taken, the results table's rows appended to the store chunk by chunk as they
// come, one chunk held at a time), and the run's end turned into the MasterResult (without rows)
// or the failure, with the worker's code and message, that RunOverUnits would have given.
// SimulationRunner::RunOnWorker (worker_run.cc) drives it. Stateless; runs on the job's thread.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/master/master.h"
#include "cosimo/v1/worker_service.pb.h"
#include "orchestrator/src/job_observer.h"
#include "orchestrator/src/worker_connection.h"

namespace cosimo::orchestrator {

struct WorkerRun {
  absl::StatusOr<master::MasterResult> result;
  std::vector<UnitDescription> descriptions;  // when it succeeded: scenario order
};

// Sends `command` to `worker` and follows the run to its JobDone. `wait`'s timeout applies to
// each message; its cancel gives the worker up at once (it abandons the run, attaches anew).
// Units' locations are the worker's.
[[nodiscard]] WorkerRun RunJobOnWorker(WorkerConnection& worker, const v1::RunJob& command,
                                       const ReplyWaitOptions& wait, JobObserver& observer);

}  // namespace cosimo::orchestrator
