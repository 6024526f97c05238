// Training jobs on the orchestrator's side (docs/hybrid.md): the checks of a SubmitJob with
// `training`, and the exchange with the one worker that trains: a Train command, its
// TrainingProgress messages, its TrainingDone. The orchestrator links no unit code; the worker
// trains. Stateless functions; the exchange runs on the job's thread.
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/v1/job_service.pb.h"
#include "cosimo/v1/worker_service.pb.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {

// The index of the unit a training request names; InvalidArgument naming `training.unit` when
// the scenario has no such unit or it is not a hybrid unit.
[[nodiscard]] absl::StatusOr<int> TrainedUnit(const v1::Scenario& scenario,
                                              const v1::TrainingRequest& request);

// Checks a training request against its (validated) scenario and its data, the CSV at
// `data_path`: epochs and learning rate in range, the unit a hybrid unit, the data a CSV with the
// columns the loss compares (the variables the scenario records of the unit, or at least one
// column of the unit when it records none), each a finite number in every row. Errors are
// InvalidArgument naming the field, or the data file and its column.
[[nodiscard]] absl::Status CheckTrainingRequest(const v1::Scenario& scenario,
                                                const v1::TrainingRequest& request,
                                                const std::string& data_path);

// Sends `train` to `worker` and waits for its TrainingDone; `on_progress` gets every
// TrainingProgress. `wait`'s timeout applies to each message (progress is the sign of life of a
// long training); its cancel ends the wait at once and gives the worker up (it then stops
// training after its current epoch). Errors name the worker; a TrainingDone with an error is
// returned as it is.
[[nodiscard]] absl::StatusOr<v1::TrainingDone> TrainOnWorker(
    WorkerConnection& worker, const v1::Train& train, const ReplyWaitOptions& wait,
    const std::function<void(const v1::TrainingProgress&)>& on_progress);

}  // namespace cosimo::orchestrator
