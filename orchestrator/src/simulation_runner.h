// SimulationRunner: a simulation job (JobRunner). Loads every unit on its worker at once,
// resolves and runs the master (RunMaster) from the start or from the job's checkpoint when it
// resumes, publishes its progress into the job's status, then lets the workers go and stores
// the results with their metadata (results_metadata.h). A job whose units all sit on one worker
// that runs jobs runs its master in that worker instead (RunJob, worker_run.cc), its progress,
// checkpoints and results fed to the same observer and store. A run that lost a worker is queued
// again to resume from its latest checkpoint (RunnerEnv::resume) while the job may still resume;
// otherwise the job ends saying why and how far it got.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "orchestrator/src/job_observer.h"
#include "orchestrator/src/job_runner.h"

namespace cosimo::orchestrator {

class SimulationRunner final : public JobRunner {
 public:
  explicit SimulationRunner(RunnerEnv env) : env_(std::move(env)) {}

  void Run(const std::shared_ptr<Job>& job, const v1::Scenario& scenario,
           WorkerLease lease) override;

 private:
  // The checkpoint to resume from when the job resumes (read back from the store), nullopt when
  // it starts afresh.
  absl::StatusOr<std::optional<v1::JobCheckpoint>> CheckpointToResume(const Job& job);
  // After a run that failed with `error`: the job queued to resume, or ended.
  void EndFailedRun(const std::shared_ptr<Job>& job, const absl::Status& error,
                    const JobObserver& observer, bool lost_worker);
  // After a run that lost a worker and ended with `error`: queues the job to resume from its
  // latest checkpoint and returns "", or says why it cannot.
  std::string ResumeAfterLoss(const std::shared_ptr<Job>& job, const JobObserver& observer,
                              const std::string& error);
  // Stores a succeeded run's results and ends the job.
  void StoreResults(Job& job, const v1::Scenario& scenario, master::MasterResult result,
                    std::vector<v1::RecordedVariable> variables, const std::string& master);
  // Publishes a job's progress into its status (and the store, at most once a second).
  std::function<void(const master::Progress&)> Publisher(const std::shared_ptr<Job>& job) const;
  JobObserver ObserverFor(const std::shared_ptr<Job>& job,
                          std::function<void(const master::Progress&)> publish,
                          const std::optional<v1::JobCheckpoint>& checkpoint) const;

  // worker_run.cc: whether the job runs its master in its one worker (RunJob), and that run.
  bool RunsOnOneWorker(const WorkerLease& lease) const;
  void RunOnWorker(const std::shared_ptr<Job>& job, const v1::Scenario& scenario, WorkerLease lease,
                   const std::optional<v1::JobCheckpoint>& checkpoint);

  const RunnerEnv env_;
};

}  // namespace cosimo::orchestrator
