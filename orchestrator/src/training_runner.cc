#include "orchestrator/src/training_runner.h"

#include <spdlog/spdlog.h>

#include <string>

#include "cosimo/common/unit_api_proto.h"
#include "orchestrator/src/training_job.h"

namespace cosimo::orchestrator {

void TrainingRunner::Run(const std::shared_ptr<Job>& job, const v1::Scenario& scenario,
                         WorkerLease lease) {
  WorkerConnection& worker = *lease.workers().front();
  v1::Train train;
  train.set_job_id(job->id);
  *train.mutable_scenario() = scenario;
  {
    absl::ReaderMutexLock lock(&job->mutex);
    *train.mutable_request() = job->status.training().request();
  }
  train.set_progress_interval_ms(200);
  spdlog::info("job {} training unit '{}' on {}", job->id, train.request().unit(),
               worker.Describe());
  JobRecorder* const recorder = env_.recorder;
  auto stored_at = recorder->clock()->Now();
  absl::StatusOr<v1::TrainingDone> done = TrainOnWorker(
      worker, train, {env_.command_timeout, &job->cancel}, [&](const v1::TrainingProgress& p) {
        absl::MutexLock lock(&job->mutex);
        v1::TrainingStatus* t = job->status.mutable_training();
        if (p.epoch() == 1) t->set_first_loss(p.loss());
        t->set_epoch(p.epoch());
        t->set_loss(p.loss());
        t->set_seconds(p.seconds());
        recorder->Progressed(*job, &stored_at);
      });
  if (!done.ok()) {
    recorder->FinishUnsuccessful(*job, done.status(), std::string(done.status().message()), "");
    return;
  }
  if (done->has_error()) {
    const absl::Status error = FromProto(done->error());
    const std::string message(error.message());
    recorder->FinishUnsuccessful(
        *job, error,
        message.find("unit '") == std::string::npos
            ? "unit '" + train.request().unit() + "' (" + worker.Describe() + "): " + message
            : message,
        "");
    return;
  }
  StoreResult(*job, train, *done, worker);
}

void TrainingRunner::StoreResult(Job& job, const v1::Train& train, const v1::TrainingDone& done,
                                 const WorkerConnection& worker) {
  v1::TrainingResult result;
  result.set_unit(train.request().unit());
  result.set_weights_json(done.weights_json());
  result.set_epochs(done.epochs());
  result.set_first_loss(done.first_loss());
  result.set_final_loss(done.final_loss());
  result.set_seconds(done.seconds());
  result.set_worker(worker.id());
  result.set_host(worker.host());
  {
    absl::MutexLock lock(&job.mutex);
    v1::TrainingStatus* t = job.status.mutable_training();
    t->set_epoch(done.epochs());
    t->set_first_loss(done.first_loss());
    t->set_loss(done.final_loss());
    t->set_seconds(done.seconds());
  }
  if (absl::Status s = env_.recorder->store()->PutTrainingResult(job.id, result); !s.ok()) {
    env_.recorder->Finish(job, v1::FAILED,
                          "the training result could not be stored: " + std::string(s.message()));
    return;
  }
  env_.recorder->Finish(job, v1::SUCCEEDED, "");
}

}  // namespace cosimo::orchestrator
