#include "orchestrator/src/job_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cosimo/common/job_state.h"
#include "cosimo/common/status.h"
#include "orchestrator/src/fit_runner.h"
#include "orchestrator/src/job_access.h"
#include "orchestrator/src/simulation_runner.h"
#include "orchestrator/src/sweep_runner.h"
#include "orchestrator/src/training_runner.h"

namespace cosimo::orchestrator {
namespace {

std::string NewJobId() {
  static std::mt19937_64 rng(std::random_device{}());
  static absl::Mutex mutex;
  absl::MutexLock lock(&mutex);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id = "job-";
  uint64_t bits = rng();
  for (int i = 0; i < 10; ++i, bits >>= 4) id.push_back(kHex[bits & 15]);
  return id;
}

}  // namespace

JobManager::JobManager(WorkerPool* pool, JobStore* store, ArtifactStore* artifacts,
                       std::chrono::seconds unschedulable_timeout,
                       std::chrono::milliseconds command_timeout, Metrics* metrics, Clock* clock,
                       JobLimits limits)
    : pool_(pool),
      store_(store),
      artifacts_(artifacts),
      clock_(clock),
      recorder_(store, clock, [this] { return ShuttingDown(); }),
      worker_source_(pool),
      scheduler_(&worker_source_, &recorder_, unschedulable_timeout),
      command_timeout_(command_timeout),
      metrics_(metrics),
      limits_(limits),
      ticks_(unschedulable_timeout.count() > 0) {
  pool_->SetOnChange([this] { Schedule(); });
  pool_->SetLogSink([this](const v1::UnitLogs& logs) { StoreLogs(logs); });
  if (ticks_) ticker_ = std::thread([this] { Tick(); });
}

void JobManager::Tick() {
  while (true) {
    {
      absl::MutexLock lock(&mutex_);
      if (!shutdown_) ticker_cv_.WaitWithTimeout(&mutex_, absl::Seconds(1));
      if (shutdown_) return;
    }
    Schedule();
  }
}

JobManager::~JobManager() { Shutdown(); }

void JobManager::StoreLogs(const v1::UnitLogs& logs) {
  // Consecutive lines of one job in one write.
  auto line = logs.entries().begin();
  while (line != logs.entries().end()) {
    const std::string& job_id = line->job_id();
    std::vector<v1::LogEntry> lines;
    for (; line != logs.entries().end() && line->job_id() == job_id; ++line) {
      lines.push_back(*line);
    }
    if (absl::Status s = store_->AppendLogs(job_id, lines); !s.ok()) {
      spdlog::warn("job {}: {} log lines not stored: {}", job_id, lines.size(), s.message());
    }
  }
}

void JobManager::Shutdown() {
  pool_->SetOnChange(nullptr);
  pool_->SetLogSink(nullptr);
  ThreadGroup threads;
  std::vector<std::shared_ptr<Job>> jobs;
  {
    absl::MutexLock lock(&mutex_);
    shutdown_ = true;
    for (auto& [id, job] : jobs_) {
      job->cancel = true;
      jobs.push_back(job);
    }
    threads = std::exchange(threads_, ThreadGroup());
  }
  for (const std::shared_ptr<Job>& job : jobs) job->Close();
  ticker_cv_.SignalAll();
  if (ticker_.joinable()) ticker_.join();
  threads.JoinAll();
}

absl::Status JobManager::Recover() {
  absl::StatusOr<std::vector<StoredJob>> stored = store_->LoadAll();
  if (!stored.ok()) return stored.status();
  int requeued = 0, failed = 0;
  {
    absl::MutexLock lock(&mutex_);
    for (StoredJob& s : *stored) {
      auto job = std::make_shared<Job>(std::move(s.status), s.scenario);
      jobs_[job->id] = job;
      Recovered(job, &requeued, &failed);
    }
  }
  spdlog::info("recovered {} jobs from the store ({} queued or resuming, {} marked failed)",
               stored->size(), requeued, failed);
  Schedule();
  return absl::OkStatus();
}

void JobManager::Recovered(const std::shared_ptr<Job>& job, int* requeued, int* failed) {
  absl::MutexLock lock(&job->mutex);
  const v1::JobState state = job->status.state();
  absl::StatusOr<v1::JobCheckpoint> checkpoint =
      state == v1::RUNNING ? store_->LoadCheckpoint(job->id) : absl::NotFoundError("");
  if (state == v1::RUNNING && job->kind == JobKind::kFit) {
    // Its finished batches are in its checkpoint (if any finished): the fit is run again from its
    // start, the stored batches answered from the store (fit_runner.h).
    job->resuming = true;
    job->status.set_message(
        "the orchestrator restarted; the fit resumes once workers attach (its finished batches "
        "are kept)");
    recorder_.Record(*job);
    scheduler_.Add(job);
    ++*requeued;
  } else if (state == v1::RUNNING && job->kind == JobKind::kSweep) {
    // Its finished variants' rows are in its checkpoint (if any finished): the rest run again.
    job->resuming = true;
    job->status.set_message("the orchestrator restarted; the sweep resumes once workers attach (" +
                            std::to_string(job->status.sweep().variants_done()) +
                            " variants done are kept, the others run again)");
    recorder_.Record(*job);
    scheduler_.Add(job);
    ++*requeued;
  } else if (checkpoint.ok()) {
    // Its workers re-attach (or others do): it goes on from its checkpoint.
    job->resuming = true;
    job->status.set_message("the orchestrator restarted; resuming from the checkpoint at t=" +
                            std::to_string(checkpoint->time()) + " once workers attach");
    recorder_.Record(*job);
    scheduler_.Add(job);
    ++*requeued;
  } else if (state == v1::RUNNING) {
    job->status.set_state(v1::FAILED);
    job->status.set_finished_unix_ms(clock_->UnixMs());
    job->status.set_message("the orchestrator restarted while the job was running (at t=" +
                            std::to_string(job->status.time()) +
                            "); its workers and unit states were lost, and it had no "
                            "checkpoint to resume from");
    recorder_.Record(*job);
    ++*failed;
  } else if (state == v1::QUEUED) {
    scheduler_.Add(job);
    ++*requeued;
  }
}

absl::StatusOr<std::string> JobManager::Submit(const v1::Scenario& scenario, const Caller& caller,
                                               const v1::TrainingRequest* training,
                                               const v1::Sweep* sweep,
                                               const v1::CalibrationJob* fit) {
  if (absl::Status s = CheckLimits(scenario, limits_); !s.ok()) return s;
  if (training != nullptr && sweep != nullptr) {
    return absl::InvalidArgumentError("sweep: a job trains or sweeps, not both (training is set)");
  }
  if (fit != nullptr && (training != nullptr || sweep != nullptr)) {
    return absl::InvalidArgumentError(
        "calibration: a calibration job neither trains nor sweeps (training or sweep is set)");
  }
  // Held until the job is recorded: no artifact it names is removed meanwhile.
  absl::ReaderMutexLock use(&artifact_use_);
  if (absl::Status s = CheckSubmission(scenario, training, artifacts_); !s.ok()) return s;
  if (sweep != nullptr) {
    if (absl::Status s = CheckSweepSubmission(*sweep, scenario, limits_, artifacts_); !s.ok()) {
      return s;
    }
  }
  if (fit != nullptr) {
    if (absl::Status s = CheckFitSubmission(*fit, scenario, artifacts_); !s.ok()) return s;
  }
  v1::JobStatus st;
  st.set_job_id(NewJobId());
  if (training != nullptr) *st.mutable_training()->mutable_request() = *training;
  if (sweep != nullptr) *st.mutable_sweep() = NewSweepStatus(*sweep);
  if (fit != nullptr) {
    // Its samples are stored apart, once (below): every status update stays small.
    *st.mutable_fit()->mutable_calibration()->mutable_calibration() = fit->calibration();
    st.mutable_fit()->set_best_objective(std::numeric_limits<double>::infinity());
  }
  // A sweep or a calibration is named by its own `name`, else by its base scenario's.
  std::string name = sweep != nullptr && !sweep->name().empty() ? sweep->name() : scenario.name();
  if (fit != nullptr && !fit->calibration().name().empty()) name = fit->calibration().name();
  st.set_name(name);
  st.set_state(v1::QUEUED);
  st.set_start_time(scenario.start_time());
  st.set_stop_time(scenario.stop_time());
  st.set_time(scenario.start_time());
  st.set_workers_needed(static_cast<int>(WorkerLabelsOf(st, scenario).size()));
  st.set_submitted_unix_ms(clock_->UnixMs());
  st.set_owner(caller.name);
  if (absl::Status s = ReserveQueueSlot(caller.name); !s.ok()) return s;
  // The store is written outside the lock, which watchers and the jobs' threads need; a
  // calibration's samples before the job, which runs from them.
  absl::Status stored = absl::OkStatus();
  if (fit != nullptr) {
    v1::CalibrationJob samples;
    *samples.mutable_samples() = fit->samples();
    stored = store_->PutCalibrationSamples(st.job_id(), samples);
  }
  if (stored.ok()) stored = store_->Put(st, scenario);
  auto job = std::make_shared<Job>(std::move(st), scenario);
  {
    absl::MutexLock lock(&mutex_);
    if (--submitting_[caller.name] == 0) submitting_.erase(caller.name);
    if (!stored.ok()) return stored;
    if (shutdown_) return absl::UnavailableError("the orchestrator is shutting down");
    jobs_[job->id] = job;
    scheduler_.Add(job);
  }
  spdlog::info("job {} ('{}') queued: {} units{}", job->id, name, scenario.units_size(),
               caller.name.empty() ? "" : ", for " + caller.name);
  Schedule();
  return job->id;
}

absl::Status JobManager::ReserveQueueSlot(const std::string& owner) {
  // Counted with the submits still writing theirs, so that concurrent submits cannot pass the
  // limit.
  absl::MutexLock lock(&mutex_);
  if (shutdown_) return absl::UnavailableError("the orchestrator is shutting down");
  const auto pending = submitting_.find(owner);
  const int queued =
      scheduler_.QueuedBy(owner) + (pending == submitting_.end() ? 0 : pending->second);
  if (queued >= limits_.max_queued_per_client) {
    return absl::ResourceExhaustedError(
        (owner.empty() ? std::string("this orchestrator has ") : "client '" + owner + "' has ") +
        std::to_string(queued) + " jobs queued, as many as this orchestrator queues per client (" +
        "cosimo-orchestrator --max-queued-jobs-per-client raises it): wait for some to start, "
        "or cancel some");
  }
  ++submitting_[owner];
  return absl::OkStatus();
}

void JobManager::Schedule() {
  absl::MutexLock lock(&mutex_);
  if (shutdown_) return;
  threads_.JoinEnded();
  for (Scheduler::Start& start : scheduler_.Pass()) {
    start.job->run_active = true;
    threads_.Start([this, job = std::move(start.job), lease = std::move(start.lease)]() mutable {
      RunJob(job, std::move(lease));
      job->run_active = false;
      Schedule();  // it may have been resumed while it ended
    });
  }
}

bool JobManager::ShuttingDown() const {
  absl::ReaderMutexLock lock(&mutex_);
  return shutdown_;
}

void JobManager::RunJob(const std::shared_ptr<Job>& job, WorkerLease lease) {
  if (job->cancel) {  // canceled (or its record failed, or a shutdown) since it was scheduled
    lease.Release();
    // A shutdown that came before this thread got here fails the job, as one that comes later
    // does (JobRecorder::FinishUnsuccessful): a client saw it RUNNING.
    const double reached = job->Status().time();
    if (ShuttingDown()) {
      recorder_.Finish(*job, v1::FAILED,
                       std::string(kShutDownWhileRunning) +
                           " (simulated time reached: t=" + std::to_string(reached) + ")");
    } else {
      recorder_.Finish(*job, v1::CANCELED, "canceled");
    }
    return;
  }
  absl::StatusOr<v1::Scenario> loaded = store_->LoadScenario(job->id);
  if (!loaded.ok()) {
    lease.Release();
    recorder_.Finish(
        *job, v1::FAILED,
        "the job's scenario could not be read back: " + std::string(loaded.status().message()));
    return;
  }
  // A running sweep has a share of the pool (ShareOf).
  const bool sweep = job->kind == JobKind::kSweep || job->kind == JobKind::kFit;
  if (sweep) {
    absl::MutexLock lock(&mutex_);
    sweeps_.push_back(job);
  }
  RunnerFor(*job)->Run(job, *loaded, std::move(lease));
  if (sweep) {
    absl::MutexLock lock(&mutex_);
    sweeps_.erase(std::remove(sweeps_.begin(), sweeps_.end(), job), sweeps_.end());
  }
}

int JobManager::ShareOf(const Job& job) {
  int pool = 0;  // idle workers, then those the sweeps hold
  int max_slots = 1;
  for (const WorkerInfo& w : pool_->List()) {
    pool += w.busy ? 0 : 1;
    max_slots = std::max(max_slots, w.slots);
  }
  absl::ReaderMutexLock lock(&mutex_);
  std::vector<ShareClaim> claims;
  size_t mine = sweeps_.size();
  for (const std::shared_ptr<Job>& sweep : sweeps_) {
    if (sweep.get() == &job) mine = claims.size();
    absl::ReaderMutexLock job_lock(&sweep->mutex);
    claims.push_back(sweep->pool_claim);
    pool += sweep->pool_claim.holds;
  }
  if (mine == sweeps_.size()) return 0;  // not a running sweep: no share
  for (const auto& [queued, claim] : scheduler_.Claims(max_slots)) claims.push_back(claim);
  return DecideShare(pool, claims)[mine];
}

std::unique_ptr<JobRunner> JobManager::RunnerFor(const Job& job) {
  RunnerEnv env;
  env.recorder = &recorder_;
  env.metrics = metrics_;
  env.running_units = &running_units_;
  env.command_timeout = command_timeout_;
  env.limits = limits_;
  env.checkpoint_interval = checkpoint_interval_;
  env.max_resumptions = max_resumptions_;
  env.master_in_worker = master_in_worker_;
  env.checkpoint_part_bytes = checkpoint_part_bytes_;
  env.resume = [this](const std::shared_ptr<Job>& resumed, const std::string& message) {
    return Resume(resumed, message);
  };
  env.workers = &worker_source_;
  env.check_scenario = ScenarioCheckFor(artifacts_);
  env.share = [this](const Job& asking) { return ShareOf(asking); };
  switch (job.kind) {
    case JobKind::kTraining:
      return std::make_unique<TrainingRunner>(std::move(env));
    case JobKind::kSweep:
      return std::make_unique<SweepRunner>(std::move(env));
    case JobKind::kFit:
      return std::make_unique<FitRunner>(std::move(env));
    case JobKind::kSimulation:
      break;
  }
  return std::make_unique<SimulationRunner>(std::move(env));
}

std::string JobManager::Resume(const std::shared_ptr<Job>& job, const std::string& message) {
  {
    absl::MutexLock lock(&mutex_);
    if (shutdown_) return "the orchestrator is shutting down";
    absl::MutexLock job_lock(&job->mutex);
    ++job->resumptions;
    job->resuming = true;
    job->unschedulable_since.reset();
    job->status.set_message(message);
    recorder_.Record(*job);
    job->Touch();
    scheduler_.AddFirst(job);  // before jobs that have not started
  }
  spdlog::warn("job {}: {}", job->id, job->Status().message());
  Schedule();
  return "";
}

absl::StatusOr<v1::JobStatus> JobManager::ResumeEnded(const std::string& job_id,
                                                      const Caller& caller) {
  v1::JobStatus resumed;
  {
    absl::MutexLock lock(&mutex_);
    if (shutdown_) return absl::UnavailableError("the orchestrator is shutting down");
    std::shared_ptr<Job> job = Find(job_id);
    if (!job) return UnknownJob(job_id);
    absl::MutexLock job_lock(&job->mutex);
    if (!MayChange(job->status, caller)) return NotYours(job->status, caller, "resume");
    const v1::JobState state = job->status.state();
    if (job->kind != JobKind::kSweep && job->kind != JobKind::kFit) {
      return absl::FailedPreconditionError(
          "job " + job_id +
          " is neither a sweep nor a calibration: only those resume from their finished variants "
          "or batches (submit the scenario again)");
    }
    const char* const kind = job->kind == JobKind::kSweep ? "a sweep" : "a calibration";
    if (state != v1::FAILED && state != v1::CANCELED) {
      return absl::FailedPreconditionError("job " + job_id + " is " + v1::JobState_Name(state) +
                                           ": only " + kind +
                                           " that failed or was canceled resumes");
    }
    job->cancel = false;
    job->resumptions = 0;
    job->resuming = false;
    job->store_error.clear();
    job->unschedulable_since.reset();
    job->status.set_state(v1::QUEUED);
    job->status.set_finished_unix_ms(0);
    job->status.set_message(
        job->kind == JobKind::kSweep
            ? "resumed: " + std::to_string(job->status.sweep().variants_done()) +
                  " variants done are kept, the others run"
            : "resumed: its finished batches (" + std::to_string(job->status.fit().iteration()) +
                  " iterations) are answered from the store, the rest runs");
    if (!recorder_.Record(*job)) return absl::InternalError(job->store_error);
    job->Touch();
    scheduler_.Add(job);
    resumed = job->status;
  }
  spdlog::info("job {}: {} by {}", job_id, resumed.message(),
               caller.name.empty() ? "a client" : caller.name);
  Schedule();
  return resumed;
}

absl::StatusOr<v1::JobStatus> JobManager::Cancel(const std::string& job_id, const Caller& caller) {
  absl::MutexLock lock(&mutex_);
  std::shared_ptr<Job> job = Find(job_id);
  if (!job) return UnknownJob(job_id);
  absl::MutexLock job_lock(&job->mutex);
  if (!MayChange(job->status, caller)) return NotYours(job->status, caller, "cancel");
  if (IsFinished(job->status.state())) return job->status;
  job->cancel = true;
  // A job waiting to resume is in the queue too, though RUNNING.
  const bool waiting = scheduler_.Remove(*job);
  if (job->status.state() == v1::QUEUED || waiting) {
    job->status.set_state(v1::CANCELED);
    job->status.set_message(job->resuming ? "canceled while it waited to resume"
                                          : "canceled before it started");
    job->status.set_finished_unix_ms(clock_->UnixMs());
    recorder_.Record(*job);
    job->Touch();
    if (job->resuming) recorder_.DropCheckpoint(*job, v1::CANCELED);
    job->resuming = false;
  }
  return job->status;
}

}  // namespace cosimo::orchestrator
