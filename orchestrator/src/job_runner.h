// JobRunner: runs one kind of job, from its scenario (read back from the store) on the workers
// the scheduler gave it, to its end. One runner per kind, one file each: SimulationRunner
// (simulation_runner.h: load the units, RunMaster, store the results, resume after a lost
// worker), TrainingRunner (training_runner.h: one Train command to one worker), SweepRunner
// (sweep_runner.h: the variants of a parameter sweep) and FitRunner (fit_runner.h: a calibration,
// its batches on a sweep's lanes), chosen by JobManager::RunnerFor.
//
// A runner owns the job's WorkerLease for the run: the workers go back to the pool exactly once,
// when the runner releases them or at the latest when Run returns, on every path. It ends the
// job through the JobRecorder (Finish), unless it queued the job again (RunnerEnv::resume).
//
// Call order: Run once, on the job's own thread. Thread safety: a runner is used by that thread
// only; what it shares (the job's state, the recorder, the running units) locks itself.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "cosimo/orchestrator/server.h"
#include "cosimo/v1/scenario.pb.h"
#include "orchestrator/src/job.h"
#include "orchestrator/src/job_recorder.h"
#include "orchestrator/src/metrics.h"
#include "orchestrator/src/running_units.h"
#include "orchestrator/src/scheduler.h"
#include "orchestrator/src/worker_lease.h"

namespace cosimo::orchestrator {

// What the runners share with the job manager. Nothing owned.
struct RunnerEnv {
  JobRecorder* recorder = nullptr;  // the job's status, the store and the clock
  Metrics* metrics = nullptr;       // may be null: no per-step metrics
  RunningUnitsMap* running_units = nullptr;
  // How long a job waits for a unit's reply to one command (0: no limit).
  std::chrono::milliseconds command_timeout{0};
  JobLimits limits;
  // Wall time between checkpoints besides algorithm.checkpoint_every (0: only by steps).
  std::chrono::seconds checkpoint_interval{60};
  int max_resumptions = 3;  // resumptions after a lost worker before the job fails (0: none)
  // A simulation job whose units all sit on one worker that runs jobs (Hello.runs_jobs) runs its
  // master in that worker (RunJob); false: always unit by unit from here.
  bool master_in_worker = true;
  // A checkpoint of a job run whole on a worker bigger than this travels in parts, either way
  // (RunJob.checkpoint_part_bytes; 0: 4 MiB).
  uint64_t checkpoint_part_bytes = 0;
  // Queues the job again, first in line, to resume from its checkpoint, its message `message`;
  // returns "" once it is queued, else why it is not (the orchestrator shuts down).
  std::function<std::string(const std::shared_ptr<Job>&, const std::string& message)> resume;
  // The pool, for a runner that takes more workers as they come free (a sweep's further
  // variants at once); the runner gives them back through their leases.
  WorkerSource* workers = nullptr;
  // The scenario checks of a submission (job_admission.h, ScenarioCheckFor): a sweep's variants.
  std::function<absl::Status(const v1::Scenario&)> check_scenario;
  // The workers the job may hold now: its share of the pool (DecideShare, scheduler.h) among the
  // running sweeps and the queued jobs. A sweep takes further workers up to it and gives back
  // those above it between variants. Empty: no limit.
  std::function<int(const Job&)> share;
};

// Ends a job whose run its cancel flag stopped (a sweep's, a calibration's): while the
// orchestrator shuts down it stays RUNNING in the store, as a kill would leave it, to resume at
// the next start ("the orchestrator shut down; the <what> resumes at its next start<reached>");
// else it ends CANCELED (its message "canceled<reached>"). False, and nothing done, when the
// flag is not set.
inline bool EndCanceledJob(const RunnerEnv& env, Job& job, const std::string& what,
                           const std::string& reached) {
  if (!job.cancel) return false;
  if (env.recorder->ShuttingDown()) {
    absl::MutexLock lock(&job.mutex);
    job.status.set_message("the orchestrator shut down; the " + what +
                           " resumes at its next start" + reached);
    env.recorder->Record(job);
    job.Touch();
    return true;
  }
  env.recorder->FinishUnsuccessful(job, absl::CancelledError("canceled"), "canceled", reached);
  return true;
}

class JobRunner {
 public:
  virtual ~JobRunner() = default;
  // Runs `job` (RUNNING, its workers in `lease`) to its end or to its requeueing.
  virtual void Run(const std::shared_ptr<Job>& job, const v1::Scenario& scenario,
                   WorkerLease lease) = 0;
};

}  // namespace cosimo::orchestrator
