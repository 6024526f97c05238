#include "orchestrator/src/job_manager.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cosimo/common/digest.h"
#include "cosimo/common/job_state.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/unit_api_proto.h"
#include "cosimo/common/version.h"
#include "cosimo/orchestrator/master.h"
#include "cosimo/worker/scenario_check.h"
#include "orchestrator/src/job_observer.h"
#include "orchestrator/src/remote_unit.h"
#include "orchestrator/src/training_job.h"

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

std::string DeterministicDigest(const google::protobuf::Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return DigestOf(bytes);
}

// The digests of the files a unit names (FMU, table, a hybrid's FMU and weights).
std::vector<std::string> ArtifactDigests(const v1::Unit& unit) {
  std::vector<std::string> out;
  for (const UnitArtifactRef& a : UnitArtifacts(unit)) {
    if (!a.digest.empty()) out.push_back(a.digest);
  }
  return out;
}

// The error for an id that names no job. It quotes at most 64 bytes of the id: a client that
// sent 60 MB got them echoed back.
absl::Status UnknownJob(const std::string& job_id) {
  constexpr size_t kQuoted = 64;
  if (job_id.size() <= kQuoted) return absl::NotFoundError("unknown job id '" + job_id + "'");
  return absl::NotFoundError("unknown job id '" + job_id.substr(0, kQuoted) + "...' (" +
                             std::to_string(job_id.size()) + " bytes)");
}

constexpr char kNotStored[] = "its record could not be stored: ";
constexpr char kShutDownWhileRunning[] = "the orchestrator shut down while the job was running";

// The error for a client that may not change `status`'s job (`verb`: "cancel", "delete").
absl::Status NotYours(const v1::JobStatus& status, const Caller& caller, const std::string& verb) {
  const std::string rule = "a client may " + verb +
                           " only its own jobs unless its token is an admin's (admin in the "
                           "orchestrator's --tokens-file, or the shared --token-file)";
  if (status.owner().empty()) {
    return absl::PermissionDeniedError("job " + status.job_id() +
                                       " has no recorded owner (submitted before owners were "
                                       "recorded): " +
                                       rule);
  }
  return absl::PermissionDeniedError("job " + status.job_id() + " belongs to '" + status.owner() +
                                     "', not to '" + caller.name + "': " + rule);
}

bool MayChange(const v1::JobStatus& status, const Caller& caller) {
  return caller.admin || (!caller.name.empty() && caller.name == status.owner());
}

// The limits of JobLimits a scenario is over (the per-client count is checked as it queues, the
// recorded rows as it runs: a scenario may run until it is canceled).
absl::Status CheckLimits(const v1::Scenario& scenario, const JobLimits& limits) {
  const size_t bytes = scenario.ByteSizeLong();
  if (bytes > limits.max_scenario_bytes) {
    return absl::ResourceExhaustedError(
        "the scenario is " + std::to_string(bytes) +
        " bytes (serialized), more than this orchestrator accepts: " +
        std::to_string(limits.max_scenario_bytes / 1024) +
        " KiB (cosimo-orchestrator --max-scenario-kb raises it)");
  }
  if (scenario.units_size() > limits.max_units) {
    return absl::ResourceExhaustedError(
        "the scenario has " + std::to_string(scenario.units_size()) +
        " units, more than this orchestrator runs in one job: " + std::to_string(limits.max_units) +
        " (cosimo-orchestrator --max-units-per-job raises it)");
  }
  return absl::OkStatus();
}

std::string RowsExceeded(uint64_t max_rows) {
  return "the job recorded more rows than this orchestrator keeps for one job: " +
         std::to_string(max_rows) +
         " (cosimo-orchestrator --max-recorded-rows raises it; a larger algorithm.step_size "
         "records fewer)";
}

}  // namespace

struct JobManager::Job {
  std::string id;
  // The scenario itself stays in the store (read back when the job runs): only what the
  // manager needs of it is kept in memory.
  std::vector<std::string> artifacts;  // digests of the units' FMUs and tables
  // Guarded by JobManager::mutex_ (an annotation cannot name another class's member).
  v1::JobStatus status;
  uint64_t version = 1;
  std::string store_error;  // the first failed write of the status (Record)
  std::atomic<bool> cancel{false};
  std::vector<std::string> labels;  // one per unit
  std::chrono::steady_clock::time_point started;
  int64_t started_unix_ms = 0;
  // Since when the pool has had too few matching workers for it (queued jobs only).
  std::optional<std::chrono::steady_clock::time_point> unschedulable_since;
  // Queued again to resume from its checkpoint (issue 18): its state stays RUNNING. How often
  // it did: a unit that kills its worker every time does not loop for ever.
  bool resuming = false;
  int resumptions = 0;
};

void JobManager::Summarize(const v1::Scenario& scenario, Job* job) {
  const bool training = job->status.has_training();
  for (const v1::Unit& unit : scenario.units()) {
    if (!training || unit.name() == job->status.training().request().unit()) {
      job->labels.push_back(unit.worker_label());
    }
    for (std::string& digest : ArtifactDigests(unit)) job->artifacts.push_back(std::move(digest));
  }
  if (training) job->artifacts.push_back(job->status.training().request().data_digest());
}

JobManager::JobManager(WorkerPool* pool, JobStore* store, ArtifactStore* artifacts,
                       std::chrono::seconds unschedulable_timeout,
                       std::chrono::milliseconds command_timeout, Metrics* metrics, Clock* clock,
                       JobLimits limits)
    : pool_(pool),
      store_(store),
      artifacts_(artifacts),
      clock_(clock),
      unschedulable_timeout_(unschedulable_timeout),
      command_timeout_(command_timeout),
      metrics_(metrics),
      limits_(limits) {
  pool_->SetOnChange([this] { Schedule(); });
  if (unschedulable_timeout_.count() > 0) ticker_ = std::thread([this] { Tick(); });
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

void JobManager::Shutdown() {
  pool_->SetOnChange(nullptr);
  std::vector<JobThread> threads;
  {
    absl::MutexLock lock(&mutex_);
    shutdown_ = true;
    for (auto& [id, job] : jobs_) job->cancel = true;
    threads.swap(threads_);
  }
  changed_.SignalAll();
  ticker_cv_.SignalAll();
  if (ticker_.joinable()) ticker_.join();
  for (JobThread& t : threads) {
    if (t.thread.joinable()) t.thread.join();
  }
}

absl::Status JobManager::Recover() {
  absl::StatusOr<std::vector<StoredJob>> stored = store_->LoadAll();
  if (!stored.ok()) return stored.status();
  int requeued = 0, failed = 0;
  {
    absl::MutexLock lock(&mutex_);
    for (StoredJob& s : *stored) {
      auto job = std::make_shared<Job>();
      job->id = s.status.job_id();
      job->status = std::move(s.status);
      Summarize(s.scenario, job.get());
      absl::StatusOr<v1::JobCheckpoint> checkpoint = job->status.state() == v1::RUNNING
                                                         ? store_->LoadCheckpoint(job->id)
                                                         : absl::NotFoundError("");
      if (checkpoint.ok()) {
        // Its workers re-attach (or others do): it goes on from its checkpoint.
        job->resuming = true;
        job->status.set_message("the orchestrator restarted; resuming from the checkpoint at t=" +
                                std::to_string(checkpoint->time()) + " once workers attach");
        Record(*job);
        queue_.push_back(job);
        ++requeued;
      } else if (job->status.state() == v1::RUNNING) {
        job->status.set_state(v1::FAILED);
        job->status.set_finished_unix_ms(clock_->UnixMs());
        job->status.set_message("the orchestrator restarted while the job was running (at t=" +
                                std::to_string(job->status.time()) +
                                "); its workers and unit states were lost, and it had no "
                                "checkpoint to resume from");
        Record(*job);
        ++failed;
      } else if (job->status.state() == v1::QUEUED) {
        queue_.push_back(job);
        ++requeued;
      }
      jobs_[job->id] = job;
    }
  }
  spdlog::info("recovered {} jobs from the store ({} queued or resuming, {} marked failed)",
               stored->size(), requeued, failed);
  Schedule();
  return absl::OkStatus();
}

absl::StatusOr<std::string> JobManager::Submit(const v1::Scenario& scenario, const Caller& caller,
                                               const v1::TrainingRequest* training) {
  if (absl::Status s = CheckLimits(scenario, limits_); !s.ok()) return s;
  // The units against the built-in catalogue and the stored FMUs' model descriptions, as the
  // command line checks them before it submits, for every client; the platforms of the binaries
  // are the workers' to judge.
  worker::ScenarioCheckOptions check;
  check.file = [this](const std::string&, const std::string& digest) {
    return digest.empty() || !IsValidDigest(digest) ? std::string() : artifacts_->PathOf(digest);
  };
  check.binary_for_this_platform = false;
  // A structural problem comes with the units' problems, in one round.
  if (absl::Status s = ValidateScenario(scenario); !s.ok()) {
    absl::ReaderMutexLock use(&artifact_use_);
    return worker::WithUnitProblems(s, scenario, check);
  }
  if (training != nullptr) {
    if (absl::StatusOr<int> unit = TrainedUnit(scenario, *training); !unit.ok()) {
      return unit.status();
    }
  }
  absl::ReaderMutexLock use(&artifact_use_);
  for (int i = 0; i < scenario.units_size(); ++i) {
    const v1::Unit& unit = scenario.units(i);
    for (const UnitArtifactRef& artifact : UnitArtifacts(unit)) {
      const std::string& digest = artifact.digest;
      const std::string field = "units[" + std::to_string(i) + "]." + artifact.field + ".digest";
      if (digest.empty()) {
        return absl::InvalidArgumentError(
            field + " is missing for unit '" + unit.name() +
            "': upload the file first (the cosimo client does this on submit)");
      }
      if (!artifacts_->Touch(digest)) {  // a use: the retention period starts again
        return absl::FailedPreconditionError(field + ": artifact " + digest + " of unit '" +
                                             unit.name() +
                                             "' was never uploaded to this orchestrator");
      }
    }
  }
  if (absl::Status s = worker::CheckUnitsAndVariables(scenario, check); !s.ok()) return s;
  if (training != nullptr) {
    const std::string& digest = training->data_digest();
    if (digest.empty()) {
      return absl::InvalidArgumentError(
          "training.data_digest is missing: upload the data first (the cosimo client does this)");
    }
    if (!IsValidDigest(digest) || !artifacts_->Touch(digest)) {
      return absl::FailedPreconditionError("training.data_digest: the data " + digest +
                                           " was never uploaded to this orchestrator");
    }
    if (absl::Status s = CheckTrainingRequest(scenario, *training, artifacts_->PathOf(digest));
        !s.ok()) {
      return s;
    }
  }
  auto job = std::make_shared<Job>();
  job->id = NewJobId();
  v1::JobStatus& st = job->status;
  if (training != nullptr) *st.mutable_training()->mutable_request() = *training;
  Summarize(scenario, job.get());
  st.set_job_id(job->id);
  st.set_name(scenario.name());
  st.set_state(v1::QUEUED);
  st.set_start_time(scenario.start_time());
  st.set_stop_time(scenario.stop_time());
  st.set_time(scenario.start_time());
  st.set_workers_needed(static_cast<int>(job->labels.size()));
  st.set_submitted_unix_ms(clock_->UnixMs());
  st.set_owner(caller.name);
  {
    // Counted with the submits still writing theirs, so that concurrent submits cannot pass the
    // limit; the store is written outside the lock, which watchers and the jobs' threads need.
    absl::MutexLock lock(&mutex_);
    if (shutdown_) return absl::UnavailableError("the orchestrator is shutting down");
    const auto pending = submitting_.find(caller.name);
    const auto queued =
        std::count_if(queue_.begin(), queue_.end(),
                      [&](const auto& j) { return j->status.owner() == caller.name; }) +
        (pending == submitting_.end() ? 0 : pending->second);
    if (queued >= limits_.max_queued_per_client) {
      return absl::ResourceExhaustedError(
          (caller.name.empty() ? std::string("this orchestrator has ")
                               : "client '" + caller.name + "' has ") +
          std::to_string(queued) +
          " jobs queued, as many as this orchestrator queues per client (" +
          "cosimo-orchestrator --max-queued-jobs-per-client raises it): wait for some to start, "
          "or cancel some");
    }
    ++submitting_[caller.name];
  }
  const absl::Status stored = store_->Put(st, scenario);
  {
    absl::MutexLock lock(&mutex_);
    if (--submitting_[caller.name] == 0) submitting_.erase(caller.name);
    if (!stored.ok()) return stored;
    if (shutdown_) return absl::UnavailableError("the orchestrator is shutting down");
    jobs_[job->id] = job;
    queue_.push_back(job);
  }
  spdlog::info("job {} ('{}') queued: {} units{}", job->id, scenario.name(), scenario.units_size(),
               caller.name.empty() ? "" : ", for " + caller.name);
  Schedule();
  return job->id;
}

std::vector<v1::WorkerStatus> JobManager::Workers() const {
  std::vector<v1::WorkerStatus> out;
  for (const WorkerInfo& info : pool_->List()) {
    v1::WorkerStatus& w = out.emplace_back();
    w.set_worker_id(info.id);
    w.set_host(info.host);
    w.set_pid(info.pid);
    for (const std::string& label : info.labels) w.add_labels(label);
    w.set_busy(info.busy);
    w.set_job_id(info.job_id);
    w.set_slots(info.slots);
    w.set_slots_busy(info.slots_busy);
    w.set_messages(info.messages);
  }
  return out;
}

std::map<std::string, std::string> JobManager::RunningUnits() const {
  absl::ReaderMutexLock lock(&mutex_);
  return running_units_;
}

JobManager::Counts JobManager::Count() const {
  Counts counts;
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [id, job] : jobs_) {
    ++counts.by_state[job->status.state()];
    counts.job_ids.insert(id);
  }
  counts.queued = queue_.size();
  return counts;
}

void JobManager::Schedule() {
  absl::MutexLock lock(&mutex_);
  if (shutdown_) return;
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (!it->done->load()) {
      ++it;
      continue;
    }
    it->thread.join();
    it = threads_.erase(it);
  }
  for (auto it = queue_.begin(); it != queue_.end();) {
    const std::shared_ptr<Job>& job = *it;
    if (job->cancel) {
      if (job->status.state() == v1::RUNNING && !job->store_error.empty()) {
        // Waiting to resume when a write of its status failed: it ends as Finish would end it.
        job->status.set_state(v1::FAILED);
        job->status.set_message(kNotStored + job->store_error);
        job->status.set_finished_unix_ms(clock_->UnixMs());
        job->resuming = false;
        Touch(*job);
        DropCheckpoint(*job);
      }
      it = queue_.erase(it);
      continue;
    }
    auto workers = pool_->TryAcquire(job->labels, job->id);
    if (!workers) {
      const int available = pool_->CountAvailable(job->labels);
      const int needed = static_cast<int>(job->labels.size());
      const int matching = pool_->CountMatching(job->labels);
      std::string message = "waiting for workers: needs " + std::to_string(needed) + ", " +
                            std::to_string(available) + " idle and matching";
      if (matching < needed && unschedulable_timeout_.count() > 0) {
        // Busy workers will not do: the pool is too small for this job.
        const auto now = clock_->Now();
        if (!job->unschedulable_since) job->unschedulable_since = now;
        const std::string why = "needs " + std::to_string(needed) + " workers" +
                                (std::any_of(job->labels.begin(), job->labels.end(),
                                             [](const std::string& l) { return !l.empty(); })
                                     ? " (with the labels of its units)"
                                     : "") +
                                ", the pool has " + std::to_string(matching);
        if (now - *job->unschedulable_since >= unschedulable_timeout_) {
          job->status.set_state(v1::FAILED);
          job->status.set_message(std::string(job->resuming ? "could not resume: " : "") +
                                  "cannot be scheduled: " + why + " (waited " +
                                  std::to_string(unschedulable_timeout_.count()) +
                                  " s for more to attach; see --unschedulable-timeout-s)");
          job->status.set_finished_unix_ms(clock_->UnixMs());
          Record(*job);
          Touch(*job);
          spdlog::warn("job {} {}", job->id, job->status.message());
          if (job->resuming) DropCheckpoint(*job);
          job->resuming = false;
          it = queue_.erase(it);
          continue;
        }
        message = "cannot be scheduled yet: " + why + "; fails if no more attach within " +
                  std::to_string(unschedulable_timeout_.count()) + " s";
      } else {
        job->unschedulable_since.reset();
      }
      if (job->resuming) message = "resuming from its checkpoint once it has workers; " + message;
      if (job->status.message() != message) {
        job->status.set_workers_available(available);
        job->status.set_message(message);
        Touch(*job);
      }
      ++it;
      continue;
    }
    job->status.set_state(v1::RUNNING);
    job->status.set_message("");
    job->status.set_workers_available(0);
    if (!job->resuming || job->started_unix_ms == 0) {  // a resumption goes on with the job
      job->started = clock_->Now();
      job->started_unix_ms = clock_->UnixMs();
    }
    Record(*job);  // a failed write cancels the job: RunJob ends it at once
    Touch(*job);
    auto done = std::make_shared<std::atomic<bool>>(false);
    threads_.push_back({done, std::thread([this, job, done, w = std::move(*workers)]() mutable {
                          RunJob(job, std::move(w));
                          done->store(true);
                        })});
    it = queue_.erase(it);
  }
}

bool JobManager::ShuttingDown() const {
  absl::ReaderMutexLock lock(&mutex_);
  return shutdown_;
}

void JobManager::Touch(Job& job) {
  ++job.version;
  changed_.SignalAll();
}

void JobManager::Progressed(Job& job, std::chrono::steady_clock::time_point* stored_at) {
  const auto now = clock_->Now();
  job.status.set_wall_seconds(std::chrono::duration<double>(now - job.started).count());
  if (now - *stored_at >= std::chrono::seconds(1)) {
    *stored_at = now;
    Record(job);  // a failed write cancels the job, which then fails naming it
  }
  Touch(job);
}

bool JobManager::Record(Job& job) {
  const absl::Status s = store_->UpdateStatus(job.status);
  if (s.ok()) return true;
  spdlog::error("job {}: its status ({}) could not be stored: {}", job.id,
                v1::JobState_Name(job.status.state()), s.message());
  if (job.store_error.empty()) job.store_error = std::string(s.message());
  job.cancel = true;
  const std::string& message = job.status.message();
  if (IsFinished(job.status.state()) && message.rfind(kNotStored, 0) != 0) {
    job.status.set_message(kNotStored + job.store_error +
                           (message.empty() ? "" : " (" + message + ")"));
    job.status.set_state(v1::FAILED);
  }
  return false;
}

namespace {

// One RecordedVariable per recorded column ("<unit>.<variable>", after "time"), from the loaded
// units' descriptions (`units` in scenario.units() order).
std::vector<v1::RecordedVariable> RecordedVariables(
    const v1::Scenario& scenario, const ResultTable& table,
    const std::vector<std::unique_ptr<RemoteUnit>>& units) {
  std::vector<v1::RecordedVariable> variables;
  for (size_t c = 1; c < table.columns.size(); ++c) {
    v1::RecordedVariable& v = variables.emplace_back();
    v.set_name(table.columns[c]);
    for (int u = 0; u < scenario.units_size() && static_cast<size_t>(u) < units.size(); ++u) {
      const std::string prefix = scenario.units(u).name() + ".";
      if (table.columns[c].rfind(prefix, 0) != 0) continue;
      const std::string name = table.columns[c].substr(prefix.size());
      // The first description wins: an output that is also a state is an output.
      const UnitDescription& d = units[u]->description();
      const VariableInfo* found = nullptr;
      for (const auto* list : {&d.outputs, &d.inputs, &d.others}) {
        for (const VariableInfo& info : *list) {
          if (found == nullptr && info.name == name) found = &info;
        }
      }
      if (found != nullptr) {
        v.set_unit(found->unit);
        v.set_causality(CausalityName(found->causality));
        v.set_type(ValueTypeName(found->type));
      }
    }
  }
  return variables;
}

}  // namespace

void JobManager::RunJob(const std::shared_ptr<Job>& job,
                        std::vector<std::shared_ptr<WorkerConnection>> workers) {
  if (job->cancel) {  // canceled (or its record failed, or a shutdown) since it was scheduled
    pool_->Release(workers);
    // A shutdown that came before this thread got here fails the job, as one that comes later
    // does (below): a client saw it RUNNING.
    double reached = 0.0;
    {
      absl::ReaderMutexLock lock(&mutex_);
      reached = job->status.time();
    }
    if (ShuttingDown()) {
      Finish(job, v1::FAILED,
             std::string(kShutDownWhileRunning) +
                 " (simulated time reached: t=" + std::to_string(reached) + ")");
    } else {
      Finish(job, v1::CANCELED, "canceled");
    }
    return;
  }
  absl::StatusOr<v1::Scenario> loaded = store_->LoadScenario(job->id);
  if (!loaded.ok()) {
    pool_->Release(workers);
    Finish(job, v1::FAILED,
           "the job's scenario could not be read back: " + std::string(loaded.status().message()));
    return;
  }
  const v1::Scenario& scenario = *loaded;
  if (job->status.has_training()) {
    RunTraining(job, *workers.front(), scenario);
    pool_->Release(workers);
    return;
  }
  std::optional<v1::JobCheckpoint> checkpoint;
  if (job->resuming) {
    absl::StatusOr<v1::JobCheckpoint> stored = store_->LoadCheckpoint(job->id);
    if (!stored.ok()) {
      pool_->Release(workers);
      Finish(job, v1::FAILED,
             "could not resume: its checkpoint could not be read back: " +
                 std::string(stored.status().message()));
      return;
    }
    checkpoint = *std::move(stored);
    spdlog::info("job {} resumes from its checkpoint at t={}", job->id, checkpoint->time());
  }
  spdlog::info("job {} running on {} workers", job->id,
               std::set<std::shared_ptr<WorkerConnection>>(workers.begin(), workers.end()).size());
  std::vector<v1::LoadUnit> loads;
  for (int i = 0; i < scenario.units_size(); ++i)
    loads.push_back(LoadUnitFor(scenario, i, job->id));
  std::vector<std::unique_ptr<RemoteUnit>> units =
      RemoteUnit::StartLoads(workers, loads, {command_timeout_, &job->cancel});
  for (size_t i = 0; i < units.size(); ++i) {
    if (metrics_ != nullptr) {
      units[i]->set_round_trips(metrics_->WorkerRoundTrip(workers[i]->id()));
    }
  }
  {
    // A worker with slots runs several of the job's units: "a,b".
    absl::MutexLock lock(&mutex_);
    for (const auto& worker : workers) running_units_.erase(worker->id());
    for (int i = 0; i < scenario.units_size(); ++i) {
      std::string& names = running_units_[workers[static_cast<size_t>(i)]->id()];
      names += (names.empty() ? "" : ",") + scenario.units(i).name();
    }
  }
  const absl::Status status = RemoteUnit::FinishLoads(units);
  // Progress is also stored, at most once a second, so that a job failed by a restart (kill -9)
  // reports the time it reached.
  auto stored_at = clock_->Now();
  auto publish = [this, job, &stored_at](const Progress& p) {
    absl::MutexLock lock(&mutex_);
    job->status.set_time(p.time);
    job->status.set_steps_accepted(p.steps_accepted);
    job->status.set_steps_rejected(p.steps_rejected);
    job->status.set_iterations(p.iterations);
    Progressed(*job, &stored_at);
  };
  JobObserver observer(publish, &job->cancel, metrics_, job->id, clock_, limits_.max_recorded_rows,
                       store_, checkpoint_interval_);
  if (checkpoint) observer.ResumedFrom(*checkpoint);
  absl::StatusOr<MasterResult> result = [&]() -> absl::StatusOr<MasterResult> {
    if (!status.ok()) return status;
    std::vector<UnitProxy*> proxies;
    for (auto& unit : units) proxies.push_back(unit.get());
    return RunMaster(scenario, proxies, &observer, checkpoint ? &*checkpoint : nullptr);
  }();
  const bool lost_worker = std::any_of(units.begin(), units.end(),
                                       [](const auto& unit) { return unit->worker().lost(); });
  if (!result.ok()) RemoteUnit::TerminateSurvivors(units);
  // The recorded columns' variables as their units describe them, while the units are here.
  std::vector<v1::RecordedVariable> variables;
  if (result.ok()) variables = RecordedVariables(scenario, *result, units);
  units.clear();
  {
    absl::MutexLock lock(&mutex_);
    for (const auto& worker : workers) running_units_.erase(worker->id());
  }
  pool_->Release(workers);
  publish(observer.last());

  if (!result.ok()) {
    const bool stopped = result.status().code() == absl::StatusCode::kCancelled || job->cancel;
    std::string message(result.status().message());
    if (!stopped && lost_worker) {
      std::string why = ResumeAfterLoss(job, observer, message);
      if (why.empty()) return;  // queued to resume
      message += "; could not resume: " + why;
    }
    const std::string reached =
        " (simulated time reached: t=" + std::to_string(observer.last().time) + ")";
    if (!job->cancel && observer.rows_exceeded()) {
      // Stopped by the orchestrator's limit on recorded rows, not by a client: failed.
      Finish(job, v1::FAILED, RowsExceeded(limits_.max_recorded_rows) + reached);
      return;
    }
    FinishUnsuccessful(job, result.status(), message, reached);
    return;
  }
  StoredResults stored;
  static_cast<ResultTable&>(stored) = std::move(static_cast<ResultTable&>(*result));
  v1::ResultsMetadata& meta = stored.metadata;
  meta.set_scenario_digest(DeterministicDigest(scenario));
  for (const v1::Unit& unit : scenario.units()) {
    // The unit's name for its first file; "<unit>.<field>" for a hybrid's weights.
    bool first = true;
    for (const UnitArtifactRef& a : UnitArtifacts(unit)) {
      if (a.digest.empty()) continue;
      (*meta.mutable_artifact_digests())[first ? unit.name() : unit.name() + "." + a.field] =
          a.digest;
      first = false;
    }
  }
  for (const UnitSummary& u : result->units) {
    v1::UnitReport* r = meta.add_units();
    r->set_name(u.name);
    r->set_mode(UnitModeName(u.report.mode));
    r->set_real_integrations(u.report.real_integrations);
    r->set_estimates(u.report.estimates);
    r->set_worker(u.location.worker);
    r->set_host(u.location.host);
  }
  meta.set_steps_accepted(result->steps_accepted);
  meta.set_steps_rejected(result->steps_rejected);
  meta.set_iterations_mean(result->iterations_mean);
  meta.set_iterations_max(result->iterations_max);
  meta.set_algorithm(v1::Algorithm::Kind_Name(scenario.algorithm().kind()));
  meta.set_start_time(scenario.start_time());
  meta.set_stop_time(scenario.stop_time());
  meta.set_started_unix_ms(job->started_unix_ms);
  meta.set_finished_unix_ms(clock_->UnixMs());
  meta.set_wall_seconds(std::chrono::duration<double>(clock_->Now() - job->started).count());
  meta.set_cosimo_version(kVersion);
  for (v1::RecordedVariable& v : variables) *meta.add_variables() = std::move(v);
  {
    absl::MutexLock lock(&mutex_);
    job->status.set_steps_accepted(result->steps_accepted);
    job->status.set_steps_rejected(result->steps_rejected);
    job->status.set_time(scenario.stop_time());
  }
  if (absl::Status s = store_->PutResults(job->id, stored); !s.ok()) {
    Finish(job, v1::FAILED, "results could not be stored: " + std::string(s.message()));
    return;
  }
  Finish(job, v1::SUCCEEDED, "");
}

void JobManager::DropCheckpoint(const Job& job) {
  // Only a running job resumes: an ended one's checkpoint is of no more use.
  if (absl::Status s = store_->DeleteCheckpoint(job.id); !s.ok()) {
    spdlog::warn("job {}: its checkpoint could not be removed: {}", job.id, s.message());
  }
}

std::string JobManager::ResumeAfterLoss(const std::shared_ptr<Job>& job,
                                        const JobObserver& observer, const std::string& error) {
  if (!observer.cannot_checkpoint().empty()) return observer.cannot_checkpoint();
  if (!observer.checkpoint_time()) {
    return "no checkpoint had been taken yet (algorithm.checkpoint_every, "
           "cosimo-orchestrator --checkpoint-interval-s)";
  }
  if (max_resumptions_ == 0) {
    return "resuming after a lost worker is off (cosimo-orchestrator --max-resumptions 0)";
  }
  if (job->resumptions >= max_resumptions_) {
    return "it already resumed " + std::to_string(max_resumptions_) +
           " times after losing a worker (cosimo-orchestrator --max-resumptions)";
  }
  {
    absl::MutexLock lock(&mutex_);
    if (shutdown_) return "the orchestrator is shutting down";
    ++job->resumptions;
    job->resuming = true;
    job->unschedulable_since.reset();
    job->status.set_message(error + "; resuming from the checkpoint at t=" +
                            std::to_string(*observer.checkpoint_time()) + " on other workers");
    Record(*job);
    Touch(*job);
    queue_.insert(queue_.begin(), job);  // before jobs that have not started
  }
  spdlog::warn("job {}: {}", job->id, job->status.message());
  Schedule();
  return "";
}

void JobManager::FinishUnsuccessful(const std::shared_ptr<Job>& job, const absl::Status& status,
                                    std::string message, const std::string& reached) {
  const bool shutting_down = ShuttingDown();
  // Stopped by the orchestrator's shutdown, not by a client: the job failed
  // (docs/deployment.md), as it does when the orchestrator is killed.
  const bool stopped = status.code() == absl::StatusCode::kCancelled || job->cancel;
  const bool canceled = stopped && !shutting_down;
  if (stopped && shutting_down) message = kShutDownWhileRunning;
  if (!canceled && message.find("t=") == std::string::npos) message += reached;
  Finish(job, canceled ? v1::CANCELED : v1::FAILED, canceled ? "canceled" : message);
}

void JobManager::RunTraining(const std::shared_ptr<Job>& job, WorkerConnection& worker,
                             const v1::Scenario& scenario) {
  v1::Train train;
  train.set_job_id(job->id);
  *train.mutable_scenario() = scenario;
  {
    absl::MutexLock lock(&mutex_);
    *train.mutable_request() = job->status.training().request();
  }
  train.set_progress_interval_ms(200);
  spdlog::info("job {} training unit '{}' on {}", job->id, train.request().unit(),
               worker.Describe());
  auto stored_at = clock_->Now();
  absl::StatusOr<v1::TrainingDone> done = TrainOnWorker(
      worker, train, {command_timeout_, &job->cancel}, [&](const v1::TrainingProgress& p) {
        absl::MutexLock lock(&mutex_);
        v1::TrainingStatus* t = job->status.mutable_training();
        if (p.epoch() == 1) t->set_first_loss(p.loss());
        t->set_epoch(p.epoch());
        t->set_loss(p.loss());
        t->set_seconds(p.seconds());
        Progressed(*job, &stored_at);
      });
  if (!done.ok()) {
    FinishUnsuccessful(job, done.status(), std::string(done.status().message()), "");
    return;
  }
  if (done->has_error()) {
    const absl::Status error = FromProto(done->error());
    const std::string message(error.message());
    FinishUnsuccessful(
        job, error,
        message.find("unit '") == std::string::npos
            ? "unit '" + train.request().unit() + "' (" + worker.Describe() + "): " + message
            : message,
        "");
    return;
  }
  v1::TrainingResult result;
  result.set_unit(train.request().unit());
  result.set_weights_json(done->weights_json());
  result.set_epochs(done->epochs());
  result.set_first_loss(done->first_loss());
  result.set_final_loss(done->final_loss());
  result.set_seconds(done->seconds());
  result.set_worker(worker.id());
  result.set_host(worker.host());
  {
    absl::MutexLock lock(&mutex_);
    v1::TrainingStatus* t = job->status.mutable_training();
    t->set_epoch(done->epochs());
    t->set_first_loss(done->first_loss());
    t->set_loss(done->final_loss());
    t->set_seconds(done->seconds());
  }
  if (absl::Status s = store_->PutTrainingResult(job->id, result); !s.ok()) {
    Finish(job, v1::FAILED, "the training result could not be stored: " + std::string(s.message()));
    return;
  }
  Finish(job, v1::SUCCEEDED, "");
}

void JobManager::Finish(const std::shared_ptr<Job>& job, v1::JobState state,
                        const std::string& message) {
  v1::JobStatus ended;
  {
    absl::MutexLock lock(&mutex_);
    if (job->store_error.empty()) {
      job->status.set_state(state);
      job->status.set_message(message);
    } else {  // an earlier write failed: the job was stopped for it
      job->status.set_state(v1::FAILED);
      job->status.set_message(kNotStored + job->store_error);
    }
    job->status.set_finished_unix_ms(clock_->UnixMs());
    job->status.set_wall_seconds(
        std::chrono::duration<double>(clock_->Now() - job->started).count());
    job->resuming = false;
    Record(*job);
    Touch(*job);
    ended = job->status;
  }
  DropCheckpoint(*job);
  if (ended.state() == v1::SUCCEEDED) {
    spdlog::info("job {} succeeded", job->id);
  } else {
    spdlog::warn("job {} {}: {}", job->id, v1::JobState_Name(ended.state()), ended.message());
  }
}

std::shared_ptr<JobManager::Job> JobManager::Find(const std::string& job_id) const {
  auto it = jobs_.find(job_id);
  return it == jobs_.end() ? nullptr : it->second;
}

absl::StatusOr<v1::JobStatus> JobManager::Get(const std::string& job_id) const {
  absl::MutexLock lock(&mutex_);
  std::shared_ptr<Job> job = Find(job_id);
  if (!job) return UnknownJob(job_id);
  return job->status;
}

absl::StatusOr<v1::JobStatus> JobManager::Cancel(const std::string& job_id, const Caller& caller) {
  std::shared_ptr<Job> job;
  {
    absl::MutexLock lock(&mutex_);
    job = Find(job_id);
    if (!job) return UnknownJob(job_id);
    if (!MayChange(job->status, caller)) return NotYours(job->status, caller, "cancel");
    if (IsFinished(job->status.state())) return job->status;
    job->cancel = true;
    // A job waiting to resume is in the queue too, though RUNNING.
    const bool waiting = std::find(queue_.begin(), queue_.end(), job) != queue_.end();
    if (job->status.state() == v1::QUEUED || waiting) {
      queue_.erase(std::remove(queue_.begin(), queue_.end(), job), queue_.end());
      job->status.set_state(v1::CANCELED);
      job->status.set_message(job->resuming ? "canceled while it waited to resume"
                                            : "canceled before it started");
      job->status.set_finished_unix_ms(clock_->UnixMs());
      Record(*job);
      Touch(*job);
      if (job->resuming) DropCheckpoint(*job);
      job->resuming = false;
    }
    return job->status;
  }
}

absl::Status JobManager::Delete(const std::string& job_id, const Caller& caller) {
  absl::MutexLock use(&artifact_use_);
  absl::MutexLock lock(&mutex_);
  std::shared_ptr<Job> job = Find(job_id);
  if (!job) return UnknownJob(job_id);
  if (!MayChange(job->status, caller)) return NotYours(job->status, caller, "delete");
  if (!IsFinished(job->status.state())) {
    return absl::FailedPreconditionError(
        "job " + job_id + " is " + v1::JobState_Name(job->status.state()) + ": cancel it first");
  }
  if (absl::Status s = store_->Delete(job_id); !s.ok()) return s;
  jobs_.erase(job_id);
  const std::set<std::string> named = NamedArtifacts();
  for (const std::string& digest : job->artifacts) {
    if (named.count(digest) != 0 || !artifacts_->Has(digest)) continue;
    if (absl::Status s = artifacts_->Remove(digest); !s.ok()) {
      spdlog::warn("job {} deleted, but {}", job_id, s.message());
    } else {
      spdlog::info("artifact {} removed: no job names it any more", digest);
    }
  }
  return absl::OkStatus();
}

std::vector<std::string> JobManager::ExpireJobs(std::chrono::seconds older_than) {
  const int64_t cutoff_ms =
      clock_->UnixMs() - std::chrono::duration_cast<std::chrono::milliseconds>(older_than).count();
  std::vector<std::string> expired;
  {
    absl::MutexLock lock(&mutex_);
    for (const auto& [id, job] : jobs_) {
      const v1::JobStatus& st = job->status;
      // A job recorded before finish times were kept counts from its submission.
      const int64_t ended_ms =
          st.finished_unix_ms() != 0 ? st.finished_unix_ms() : st.submitted_unix_ms();
      if (IsFinished(st.state()) && ended_ms < cutoff_ms) expired.push_back(id);
    }
  }
  std::vector<std::string> deleted;
  for (const std::string& id : expired) {
    // Deleted by a client meanwhile: nothing left to do.
    if (absl::Status s = Delete(id); !s.ok()) {
      if (s.code() != absl::StatusCode::kNotFound) {
        spdlog::warn("expiring job {}: {}", id, s.message());
      }
      continue;
    }
    spdlog::info("job {} expired: it ended more than {:g} days ago", id,
                 static_cast<double>(older_than.count()) / 86400.0);
    deleted.push_back(id);
  }
  return deleted;
}

std::vector<std::string> JobManager::PruneArtifacts(std::chrono::seconds older_than) {
  absl::MutexLock use(&artifact_use_);
  std::set<std::string> named;
  {
    absl::MutexLock lock(&mutex_);
    named = NamedArtifacts();
  }
  std::vector<std::string> removed = artifacts_->Prune(named, older_than);
  for (const std::string& what : removed) {
    spdlog::info("artifact store: removed {}: no job names it and it was not used for {:g} h", what,
                 static_cast<double>(older_than.count()) / 3600.0);
  }
  return removed;
}

std::set<std::string> JobManager::NamedArtifacts() const {
  std::set<std::string> named;
  for (const auto& [id, job] : jobs_) {
    named.insert(job->artifacts.begin(), job->artifacts.end());
  }
  return named;
}

absl::StatusOr<JobManager::JobPage> JobManager::List(uint32_t page_size,
                                                     const std::string& page_token) const {
  constexpr uint32_t kDefaultPage = 100, kMaxPage = 1000;
  page_size = page_size == 0 ? kDefaultPage : std::min(page_size, kMaxPage);
  // Newest first; ties by id. A token is "<submitted_unix_ms>/<id>" of the last job of a page.
  using Key = std::pair<int64_t, std::string>;
  auto key_of = [](const v1::JobStatus& st) { return Key(st.submitted_unix_ms(), st.job_id()); };
  std::optional<Key> after;
  if (!page_token.empty()) {
    const size_t slash = page_token.find('/');
    int64_t ms = 0;
    if (slash == std::string::npos || page_token.size() > 128 ||
        !absl::SimpleAtoi(page_token.substr(0, slash), &ms)) {
      return absl::InvalidArgumentError("page_token is not one this orchestrator gave");
    }
    after = Key(ms, page_token.substr(slash + 1));
  }
  std::vector<const v1::JobStatus*> selected;
  absl::MutexLock lock(&mutex_);
  for (const auto& [id, job] : jobs_) {
    if (!after || key_of(job->status) < *after) selected.push_back(&job->status);
  }
  auto newer = [&](const v1::JobStatus* a, const v1::JobStatus* b) {
    return key_of(*a) > key_of(*b);
  };
  const size_t count = std::min<size_t>(page_size, selected.size());
  std::partial_sort(selected.begin(), selected.begin() + static_cast<std::ptrdiff_t>(count),
                    selected.end(), newer);
  JobPage page;
  for (size_t i = 0; i < count; ++i) page.jobs.push_back(*selected[i]);
  if (count < selected.size()) {
    const v1::JobStatus& last = page.jobs.back();
    page.next_page_token = std::to_string(last.submitted_unix_ms()) + "/" + last.job_id();
  }
  return page;
}

absl::StatusOr<StoredResults> JobManager::Results(const std::string& job_id) const {
  {
    absl::MutexLock lock(&mutex_);
    std::shared_ptr<Job> job = Find(job_id);
    if (!job) return UnknownJob(job_id);
    if (job->status.has_training()) {
      return absl::FailedPreconditionError(
          "job " + job_id +
          " is a training job: its result is a weights file, not a results table "
          "(GetTrainingResult; cosimo results JOB --out weights.json)");
    }
    if (job->status.state() != v1::SUCCEEDED) {
      return absl::FailedPreconditionError(
          "job " + job_id + " has no results: it is " + v1::JobState_Name(job->status.state()) +
          (job->status.message().empty() ? "" : " (" + job->status.message() + ")"));
    }
  }
  return store_->LoadResults(job_id);
}

absl::StatusOr<v1::TrainingResult> JobManager::TrainingResult(const std::string& job_id) const {
  {
    absl::MutexLock lock(&mutex_);
    std::shared_ptr<Job> job = Find(job_id);
    if (!job) return UnknownJob(job_id);
    if (!job->status.has_training()) {
      return absl::FailedPreconditionError("job " + job_id +
                                           " is not a training job: its results are a table "
                                           "(GetResults)");
    }
    if (job->status.state() != v1::SUCCEEDED) {
      return absl::FailedPreconditionError(
          "job " + job_id + " has no trained weights: it is " +
          v1::JobState_Name(job->status.state()) +
          (job->status.message().empty() ? "" : " (" + job->status.message() + ")"));
    }
  }
  return store_->LoadTrainingResult(job_id);
}

absl::StatusOr<v1::JobStatus> JobManager::WaitForChange(const std::string& job_id,
                                                        uint64_t* version,
                                                        std::chrono::milliseconds timeout) {
  absl::MutexLock lock(&mutex_);
  std::shared_ptr<Job> job = Find(job_id);
  if (!job) return UnknownJob(job_id);
  if (*version != 0) {
    const absl::Time deadline = absl::Now() + absl::FromChrono(timeout);
    while (job->version == *version && !shutdown_) {
      if (changed_.WaitWithDeadline(&mutex_, deadline)) break;  // timed out
    }
  }
  *version = job->version;
  return job->status;
}

}  // namespace cosimo::orchestrator
