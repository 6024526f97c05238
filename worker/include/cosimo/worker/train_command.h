// A training job on a worker (the Train command of the worker protocol, docs/hybrid.md): fit the
// networks of one hybrid unit of the command's scenario to the measured data, with the Trainer
// that `cosimo train` runs locally, and answer with the weights file. Free of gRPC: the caller
// fetches artifacts (`fetch`) and carries the progress messages (`send`).
//
// Thread safety: none needed; runs on the calling thread. Training stops after the current
// epoch when `send` returns false or the worker's abandon request is set (the stream ended).
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/v1/worker_service.pb.h"

namespace cosimo::worker {

// Returns a local path holding the artifact with this digest (fetched and verified as needed).
using TrainingArtifactFetcher = std::function<absl::StatusOr<std::string>(const std::string&)>;

// Runs `train` and fills `done` (its `error` when the data, the unit or a simulation failed).
// `send` gets the progress at most once per train.progress_interval_ms() and for the last epoch.
void RunTrainingJob(const v1::Train& train, const TrainingArtifactFetcher& fetch,
                    const std::function<bool(const v1::TrainingProgress&)>& send,
                    v1::TrainingDone* done);

}  // namespace cosimo::worker
