#include "orchestrator/src/simulation_runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

#include "cosimo/common/scenario.h"
#include "cosimo/master/run.h"
#include "orchestrator/src/remote_unit.h"
#include "orchestrator/src/results_metadata.h"

namespace cosimo::orchestrator {
namespace {

std::string RowsExceeded(uint64_t max_rows) {
  return "the job recorded more rows than this orchestrator keeps for one job: " +
         std::to_string(max_rows) +
         " (cosimo-orchestrator --max-recorded-rows raises it; a larger algorithm.step_size "
         "records fewer)";
}

std::vector<const UnitDescription*> DescriptionsOf(
    const std::vector<std::unique_ptr<RemoteUnit>>& units) {
  std::vector<const UnitDescription*> out;
  for (const auto& unit : units) out.push_back(&unit->description());
  return out;
}

}  // namespace

void SimulationRunner::Run(const std::shared_ptr<Job>& job, const v1::Scenario& scenario,
                           WorkerLease lease) {
  absl::StatusOr<std::optional<v1::JobCheckpoint>> resume_from = CheckpointToResume(*job);
  if (!resume_from.ok()) {
    lease.Release();
    env_.recorder->Finish(*job, v1::FAILED,
                          "could not resume: its checkpoint could not be read back: " +
                              std::string(resume_from.status().message()));
    return;
  }
  const std::optional<v1::JobCheckpoint>& checkpoint = *resume_from;
  // The rows an earlier run stored past its checkpoint are recorded again.
  if (absl::Status s = env_.recorder->store()->TruncateRows(
          job->id, checkpoint ? checkpoint->rows_streamed() : 0);
      !s.ok()) {
    lease.Release();
    env_.recorder->Finish(*job, v1::FAILED,
                          "its stored rows could not be cut back: " + std::string(s.message()));
    return;
  }
  if (RunsOnOneWorker(lease)) {
    RunOnWorker(job, scenario, std::move(lease), checkpoint);
    return;
  }
  const WorkerLease::Workers& workers = lease.workers();
  spdlog::info("job {} running on {} workers", job->id,
               std::set<std::shared_ptr<WorkerConnection>>(workers.begin(), workers.end()).size());
  std::vector<std::unique_ptr<RemoteUnit>> units = RemoteUnit::StartLoads(
      workers, LoadUnitsFor(scenario, job->id), {env_.command_timeout, &job->cancel});
  for (size_t i = 0; i < units.size() && env_.metrics != nullptr; ++i) {
    units[i]->set_round_trips(env_.metrics->WorkerRoundTrip(workers[i]->id()));
  }
  env_.running_units->Set(workers, scenario);
  const absl::Status loaded = RemoteUnit::FinishLoads(units);
  const std::function<void(const master::Progress&)> publish = Publisher(job);
  JobObserver observer = ObserverFor(job, publish, checkpoint);
  absl::StatusOr<master::MasterResult> result =
      master::RunOverUnits(scenario, RemoteUnit::Proxies(units), loaded,
                           {.observer = &observer, .resume = checkpoint ? &*checkpoint : nullptr});
  const bool lost_worker = std::any_of(units.begin(), units.end(),
                                       [](const auto& unit) { return unit->worker().lost(); });
  // The recorded columns' variables as their units describe them, while the units are here.
  std::vector<v1::RecordedVariable> variables;
  if (result.ok()) variables = RecordedVariables(scenario, *result, DescriptionsOf(units));
  units.clear();
  env_.running_units->Clear(workers);
  lease.Release();
  publish(observer.last());
  if (!result.ok()) {
    EndFailedRun(job, result.status(), observer, lost_worker);
    return;
  }
  StoreResults(*job, scenario, *std::move(result), std::move(variables), "orchestrator");
}

std::function<void(const master::Progress&)> SimulationRunner::Publisher(
    const std::shared_ptr<Job>& job) const {
  // Progress is also stored, at most once a second, so that a job failed by a restart (kill -9)
  // reports the time it reached.
  JobRecorder* const recorder = env_.recorder;
  auto stored_at =
      std::make_shared<std::chrono::steady_clock::time_point>(recorder->clock()->Now());
  return [recorder, job, stored_at](const master::Progress& p) {
    absl::MutexLock lock(&job->mutex);
    job->status.set_time(p.time);
    job->status.set_steps_accepted(p.steps_accepted);
    job->status.set_steps_rejected(p.steps_rejected);
    job->status.set_iterations(p.iterations);
    recorder->Progressed(*job, stored_at.get());
  };
}

JobObserver SimulationRunner::ObserverFor(
    const std::shared_ptr<Job>& job, std::function<void(const master::Progress&)> publish,
    const std::optional<v1::JobCheckpoint>& checkpoint) const {
  JobObserver observer(std::move(publish), &job->cancel, env_.metrics, job->id,
                       env_.recorder->clock(), env_.limits.max_recorded_rows,
                       env_.recorder->store(), env_.checkpoint_interval);
  if (checkpoint) observer.ResumedFrom(*checkpoint);
  observer.set_on_columns([job](const v1::ResultsHeader& header) {
    absl::MutexLock lock(&job->mutex);
    job->live_header = header;
  });
  return observer;
}

absl::StatusOr<std::optional<v1::JobCheckpoint>> SimulationRunner::CheckpointToResume(
    const Job& job) {
  {
    absl::ReaderMutexLock lock(&job.mutex);
    if (!job.resuming) return std::nullopt;
  }
  absl::StatusOr<v1::JobCheckpoint> stored = env_.recorder->store()->LoadCheckpoint(job.id);
  if (!stored.ok()) return stored.status();
  spdlog::info("job {} resumes from its checkpoint at t={}", job.id, stored->time());
  return std::optional<v1::JobCheckpoint>(*std::move(stored));
}

void SimulationRunner::EndFailedRun(const std::shared_ptr<Job>& job, const absl::Status& error,
                                    const JobObserver& observer, bool lost_worker) {
  const std::string reached =
      " (simulated time reached: t=" + std::to_string(observer.last().time) + ")";
  if (!observer.rows_error().ok()) {  // the store failed, not the run
    env_.recorder->Finish(
        *job, v1::FAILED,
        "results could not be stored: " + std::string(observer.rows_error().message()) + reached);
    return;
  }
  const bool stopped = error.code() == absl::StatusCode::kCancelled || job->cancel;
  std::string message(error.message());
  if (!stopped && lost_worker) {
    std::string why = ResumeAfterLoss(job, observer, message);
    if (why.empty()) return;  // queued to resume
    message += "; could not resume: " + why;
  }
  if (!job->cancel && observer.rows_exceeded()) {
    // Stopped by the orchestrator's limit on recorded rows, not by a client: failed.
    env_.recorder->Finish(*job, v1::FAILED, RowsExceeded(env_.limits.max_recorded_rows) + reached);
    return;
  }
  env_.recorder->FinishUnsuccessful(*job, error, message, reached);
}

std::string SimulationRunner::ResumeAfterLoss(const std::shared_ptr<Job>& job,
                                              const JobObserver& observer,
                                              const std::string& error) {
  if (!observer.cannot_checkpoint().empty()) return observer.cannot_checkpoint();
  if (!observer.checkpoint_time()) {
    return "no checkpoint had been taken yet (algorithm.checkpoint_every, "
           "cosimo-orchestrator --checkpoint-interval-s)";
  }
  if (env_.max_resumptions == 0) {
    return "resuming after a lost worker is off (cosimo-orchestrator --max-resumptions 0)";
  }
  int resumptions = 0;
  {
    absl::ReaderMutexLock lock(&job->mutex);
    resumptions = job->resumptions;
  }
  if (resumptions >= env_.max_resumptions) {
    return "it already resumed " + std::to_string(env_.max_resumptions) +
           " times after losing a worker (cosimo-orchestrator --max-resumptions)";
  }
  return env_.resume(job, error + "; resuming from the checkpoint at t=" +
                              std::to_string(*observer.checkpoint_time()) + " on other workers");
}

void SimulationRunner::StoreResults(Job& job, const v1::Scenario& scenario,
                                    master::MasterResult result,
                                    std::vector<v1::RecordedVariable> variables,
                                    const std::string& master) {
  Clock* const clock = env_.recorder->clock();
  RunTimes times;
  {
    absl::MutexLock lock(&job.mutex);
    times.started_unix_ms = job.started_unix_ms;
    times.finished_unix_ms = clock->UnixMs();
    times.wall_seconds = std::chrono::duration<double>(clock->Now() - job.started).count();
    job.status.set_steps_accepted(result.steps_accepted);
    job.status.set_steps_rejected(result.steps_rejected);
    job.status.set_time(scenario.stop_time());
  }
  StoredResults stored;
  stored.metadata = BuildResultsMetadata(scenario, result, std::move(variables), times);
  stored.metadata.set_master(master);
  stored.after_appended_rows = true;  // the run streamed its rows (JobObserver::OnRows)
  static_cast<ResultTable&>(stored) = std::move(static_cast<ResultTable&>(result));
  if (absl::Status s = env_.recorder->store()->PutResults(job.id, stored); !s.ok()) {
    env_.recorder->Finish(job, v1::FAILED,
                          "results could not be stored: " + std::string(s.message()));
    return;
  }
  env_.recorder->Finish(job, v1::SUCCEEDED, "");
}

}  // namespace cosimo::orchestrator
