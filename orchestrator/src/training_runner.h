// TrainingRunner: a training job (JobRunner, docs/hybrid.md). Sends the one Train command to
// the job's one worker (TrainOnWorker, training_job.h), publishes each epoch's loss into the
// job's status, and stores the trained weights (v1::TrainingResult) once the worker is done.
// The worker goes back to the pool when the job has ended.
#pragma once

#include <memory>

#include "cosimo/v1/worker_service.pb.h"
#include "orchestrator/src/job_runner.h"

namespace cosimo::orchestrator {

class TrainingRunner final : public JobRunner {
 public:
  explicit TrainingRunner(RunnerEnv env) : env_(std::move(env)) {}

  void Run(const std::shared_ptr<Job>& job, const v1::Scenario& scenario,
           WorkerLease lease) override;

 private:
  // Stores what the worker trained and ends the job.
  void StoreResult(Job& job, const v1::Train& train, const v1::TrainingDone& done,
                   const WorkerConnection& worker);

  const RunnerEnv env_;
};

}  // namespace cosimo::orchestrator
