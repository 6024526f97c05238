#include "orchestrator/src/sweep_run.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/common/crash.h"
#include "cosimo/common/sweep_design.h"
#include "cosimo/common/version.h"
#include "orchestrator/src/sweep_runner.h"
#include "orchestrator/src/sweep_variant.h"
#include "orchestrator/src/thread_group.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {
namespace {

// The order in which sweeps take leases (ShareClaim::served).
std::atomic<int64_t> leases_taken{0};

}  // namespace

// The rows of the variants sweep job `job_id` finished (its checkpoint: none before the first)
// into `rows` (its columns set), and which of its `variants` they are. DataLoss when the stored
// rows are not those of its table.
absl::StatusOr<std::vector<bool>> LoadFinishedRows(JobStore& store, const std::string& job_id,
                                                   size_t variants, ResultTable* rows) {
  std::vector<bool> finished(variants, false);
  absl::StatusOr<v1::JobCheckpoint> checkpoint = store.LoadCheckpoint(job_id);
  if (checkpoint.status().code() == absl::StatusCode::kNotFound) return finished;
  if (!checkpoint.ok()) return checkpoint.status();
  const size_t columns = rows->columns.size();
  if (std::vector<std::string>(checkpoint->columns().begin(), checkpoint->columns().end()) !=
          rows->columns ||
      checkpoint->strings_size() * columns != 2 * static_cast<size_t>(checkpoint->values_size())) {
    return absl::DataLossError("the stored rows are not those of this sweep's table");
  }
  rows->values.assign(checkpoint->values().begin(), checkpoint->values().end());
  rows->strings.assign(checkpoint->strings().begin(), checkpoint->strings().end());
  for (size_t r = 0; r * columns < rows->values.size(); ++r) {
    const auto k = static_cast<size_t>(rows->values[r * columns]);
    if (k < finished.size()) finished[k] = true;
  }
  return finished;
}

// `table`'s rows (the sweep's, in the order they finished) in index order, with the metadata
// every sweep table has; `failed` counts the FAILED rows.
StoredResults SortedSweepTable(const v1::Sweep& sweep, const v1::Scenario& base,
                               const ResultTable& table, uint64_t* failed) {
  const size_t columns = table.columns.size();
  const size_t rows = table.values.size() / columns;
  std::vector<size_t> order(rows);
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return table.values[a * columns] < table.values[b * columns];
  });
  StoredResults stored;
  static_cast<ResultTable&>(stored) = SweepTableColumns(sweep);
  *failed = 0;
  for (size_t r : order) {
    stored.values.insert(stored.values.end(),
                         table.values.begin() + static_cast<std::ptrdiff_t>(r * columns),
                         table.values.begin() + static_cast<std::ptrdiff_t>((r + 1) * columns));
    stored.strings.insert(stored.strings.end(), {table.strings[2 * r], table.strings[2 * r + 1]});
    *failed += table.strings[2 * r] == v1::JobState_Name(v1::FAILED) ? 1 : 0;
  }
  stored.metadata.set_start_time(base.start_time());
  stored.metadata.set_stop_time(base.stop_time());
  stored.metadata.set_cosimo_version(kVersion);
  return stored;
}

SweepRun::SweepRun(const RunnerEnv& env, std::shared_ptr<Job> job, const v1::Scenario& base,
                   v1::Sweep sweep)
    : env_(env), job_(std::move(job)), base_(base), sweep_(std::move(sweep)), feed_(true) {}

void SweepRun::FillContext() {
  context_.job_id = job_->id;
  context_.cancel = &job_->cancel;
  context_.command_timeout = env_.command_timeout;
  context_.max_recorded_rows = env_.limits.max_recorded_rows;
  context_.metrics = env_.metrics;
  context_.running_units = env_.running_units;
  context_.check = env_.check_scenario;
}

void SweepRun::PrepareFeed() {
  FillContext();
  keep_context_ = context_;
  keep_context_.keep_results = true;
  absl::MutexLock lock(&mutex_);
  rows_ = SweepTableColumns(sweep_);
}

std::vector<uint64_t> SweepRun::AddVariants(const std::vector<std::vector<double>>& values,
                                            FeedKind kind) {
  std::vector<uint64_t> ks;
  absl::MutexLock lock(&mutex_);
  for (const std::vector<double>& v : values) {
    ks.push_back(values_.size());
    values_.push_back(v);
    pending_.push_back(ks.back());
    if (kind != FeedKind::kPoint) kinds_[ks.back()] = kind;
  }
  UpdateClaim();
  feed_changed_.SignalAll();
  lane_ended_.SignalAll();  // RunLanes looks for more workers
  return ks;
}

absl::StatusOr<std::vector<VariantOutcome>> SweepRun::AwaitVariants(
    const std::vector<uint64_t>& ks) {
  absl::MutexLock lock(&mutex_);
  while (true) {
    bool all = true;
    for (uint64_t k : ks) all = all && feed_outcomes_.contains(k);
    if (all) break;
    if (job_->cancel) return absl::CancelledError("canceled");
    if (lanes_over_) return absl::UnavailableError("every worker of the job was lost");
    feed_changed_.WaitWithTimeout(&mutex_, absl::Milliseconds(250));
  }
  std::vector<VariantOutcome> out;
  for (uint64_t k : ks) {
    out.push_back(std::move(feed_outcomes_[k]));
    feed_outcomes_.erase(k);
  }
  return out;
}

void SweepRun::CloseFeed() {
  absl::MutexLock lock(&mutex_);
  feed_open_ = false;
  feed_changed_.SignalAll();
  lane_ended_.SignalAll();
}

absl::Status SweepRun::Prepare() {
  values_ = DesignValues(sweep_);
  FillContext();
  context_.keep_results = sweep_.keep_results() == v1::Sweep::ALL;
  stored_at_ = env_.recorder->clock()->Now();
  absl::MutexLock lock(&mutex_);
  rows_ = SweepTableColumns(sweep_);
  absl::StatusOr<std::vector<bool>> finished =
      LoadFinishedRows(*env_.recorder->store(), job_->id, values_.size(), &rows_);
  if (!finished.ok()) return finished.status();
  for (size_t s = 0; s < rows_.strings.size(); s += 2) {
    if (rows_.strings[s] == v1::JobState_Name(v1::FAILED)) ++failed_;
  }
  stored_rows_ = rows_.values.size() / rows_.columns.size();
  stored_strings_ = rows_.strings.size();
  for (uint64_t k = 0; k < values_.size(); ++k) {
    if (!(*finished)[k]) pending_.push_back(k);
  }
  spdlog::info("job {}: sweep of {} variants, {} to run", job_->id, values_.size(),
               pending_.size());
  Publish();
  return absl::OkStatus();
}

void SweepRun::Publish() {
  const uint64_t total = values_.size();
  const uint64_t done = rows_.values.size() / rows_.columns.size();
  absl::MutexLock lock(&job_->mutex);
  v1::SweepStatus* s = job_->status.mutable_sweep();
  s->set_variants_total(total);
  s->set_variants_done(done);
  s->set_variants_failed(failed_);
  s->set_eta_seconds(done_here_ == 0 ? 0.0
                                     : wall_here_ / static_cast<double>(done_here_) *
                                           static_cast<double>(total - done) /
                                           static_cast<double>(std::max(running_, 1)));
  env_.recorder->Progressed(*job_, &stored_at_);
}

std::vector<uint64_t> SweepRun::Next(int n, std::vector<std::vector<double>>* values,
                                     FeedKind* kind) {
  absl::MutexLock lock(&mutex_);
  while (feed_ && feed_open_ && pending_.empty() && !job_->cancel) {
    feed_changed_.WaitWithTimeout(&mutex_, absl::Milliseconds(250));
  }
  std::vector<uint64_t> ks;
  {
    absl::ReaderMutexLock job_lock(&job_->mutex);
    while (!pending_.empty() && !job_->cancel && static_cast<int>(ks.size()) < n) {
      // A variant that was running when its worker was lost (Job::variant_losses, kept across
      // the sweep's resumptions) runs again alone: if it crashed the worker, it takes no other
      // variant with it this time.
      // A variant that keeps its full results or computes sensitivities runs alone too (feed
      // mode).
      const bool suspect =
          job_->variant_losses.contains(pending_.front()) || kinds_.contains(pending_.front());
      if (suspect && !ks.empty()) break;
      ks.push_back(pending_.front());
      pending_.pop_front();
      if (suspect) break;
    }
  }
  UpdateClaim();
  const auto k = ks.empty() ? kinds_.end() : kinds_.find(ks.front());
  *kind = k == kinds_.end() ? FeedKind::kPoint : k->second;
  values->clear();
  for (uint64_t k : ks) values->push_back(values_[k]);
  return ks;
}

void SweepRun::Lane(WorkerLease lease) {
  const int at_once = VariantsAtOnce(lease.workers(), context_);
  if (at_once > 1) {
    spdlog::info("job {}: {} variants at a time on {}", job_->id, at_once,
                 lease.workers().front()->Describe());
  }
  {
    absl::MutexLock lock(&mutex_);
    running_ += at_once;
    at_once_ = at_once;
  }
  bool gave_back = false;
  std::vector<std::vector<double>> values;
  FeedKind kind = FeedKind::kPoint;
  for (std::vector<uint64_t> ks = Next(at_once, &values, &kind); !ks.empty();
       ks = Next(at_once, &values, &kind)) {
    const bool sensitivities = kind == FeedKind::kSensitivities;
    std::vector<VariantOutcome> outcomes = RunSweepVariants(
        sensitivities ? sensitivity_base_ : base_, sensitivities ? sensitivity_sweep_ : sweep_, ks,
        values, lease.workers(), kind == FeedKind::kKeep ? keep_context_ : context_);
    bool go_on = true;
    for (size_t i = 0; i < ks.size(); ++i) {
      if (outcomes[i].results && !feed_) StoreResults(ks[i], &outcomes[i]);
      go_on = Finished(ks[i], std::move(outcomes[i])) && go_on;
    }
    if (!go_on) break;
    if (GiveBack(at_once)) {
      gave_back = true;
      break;
    }
  }
  if (gave_back) {
    spdlog::info("job {}: gave {} back to the pool (other jobs wait: the pool is shared)", job_->id,
                 lease.workers().front()->Describe());
  }
  lease.Release();
  absl::MutexLock lock(&mutex_);
  if (!gave_back) {
    --lanes_;
    running_ -= at_once;
    gave_back_ = false;
    UpdateClaim();
  }
  lane_ended_.SignalAll();
}

bool SweepRun::GiveBack(int at_once) {
  if (!env_.share) return false;
  {
    absl::MutexLock lock(&mutex_);
    if (pending_.empty()) return false;  // its last variants: it gives every worker back soon
  }
  const int share = env_.share(*job_);
  absl::MutexLock lock(&mutex_);
  if (lanes_ * lease_workers_ <= share || job_->cancel) return false;
  --lanes_;
  running_ -= at_once;
  gave_back_ = true;
  UpdateClaim();
  return true;
}

void SweepRun::UpdateClaim() {
  const int lanes_wanted =
      lanes_ + static_cast<int>((pending_.size() + static_cast<size_t>(at_once_) - 1) /
                                static_cast<size_t>(at_once_));
  absl::MutexLock lock(&job_->mutex);
  job_->pool_claim.holds = lanes_ * lease_workers_;
  job_->pool_claim.lease = lease_workers_;
  job_->pool_claim.wants =
      std::min(kMaxSweepLanes, std::max(lanes_, lanes_wanted)) * lease_workers_;
}

void SweepRun::SayPaused(bool paused) {
  if (paused == paused_) return;
  paused_ = paused;
  const uint64_t done = rows_.values.size() / rows_.columns.size();
  absl::MutexLock lock(&job_->mutex);
  job_->status.set_message(
      paused
          ? "paused: it gave its workers back to jobs that wait (the pool is shared between "
            "jobs); goes on when its share of the pool has a worker free (" +
                std::to_string(done) + " of " + std::to_string(values_.size()) + " variants done)"
          : "");
  job_->Touch();
}

bool SweepRun::LostBefore(uint64_t k) {
  absl::ReaderMutexLock lock(&job_->mutex);
  return env_.max_resumptions == 0 || job_->variant_losses.contains(k);
}

std::string SweepRun::LostTwice(uint64_t k, const std::string& last) const {
  // The worker that crashed reports the signal once it is started again (its supervisor's
  // restart, with its --crash-file): wait a little for that report.
  constexpr int kPolls = 60;  // 3 s
  std::optional<v1::CrashReport> crash;
  for (int i = 0; i < kPolls && env_.workers != nullptr && !job_->cancel; ++i) {
    crash = env_.workers->CrashOf(job_->id, static_cast<int64_t>(k));
    if (crash) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const std::string what = env_.max_resumptions == 0 ? "its worker was lost while it ran"
                                                     : "its worker was lost twice while it ran";
  if (crash) return what + ": the worker crashed, " + DescribeCrash(*crash, /*with_job=*/false);
  return what + " (" + last +
         "); no crash report came back (a worker started again with the same --crash-file "
         "reports the signal)";
}

bool SweepRun::Finished(uint64_t k, VariantOutcome outcome) {
  if (outcome.lost_worker && LostBefore(k)) {
    outcome.status = v1::FAILED;  // it is the one that kills its worker: no more tries
    outcome.message = LostTwice(k, outcome.message);
    outcome.lost_worker = false;
    Finished(k, std::move(outcome));
    return false;  // the lane's worker is gone
  }
  absl::MutexLock lock(&mutex_);
  if (outcome.status == v1::CANCELED && job_->cancel) {
    pending_.push_front(k);  // not run to its end: it runs again if the sweep resumes
    return false;
  }
  if (outcome.lost_worker) {
    {
      absl::MutexLock job_lock(&job_->mutex);
      ++job_->variant_losses[k];
    }
    spdlog::warn("job {}: variant {} lost its worker ({}); it runs again, alone", job_->id, k,
                 outcome.message);
    pending_.push_front(k);
    return false;
  }
  if (feed_) {  // the caller takes it (AwaitVariants)
    ++done_here_;
    feed_outcomes_[k] = std::move(outcome);
    feed_changed_.SignalAll();
    return true;
  }
  AddSweepRow(&rows_, k, values_[k], outcome);
  if (outcome.status == v1::FAILED) ++failed_;
  ++done_here_;
  wall_here_ += outcome.wall_s;
  StoreRows();
  Publish();
  return true;
}

void SweepRun::StoreRows() {
  v1::JobCheckpoint rows;
  for (const std::string& c : rows_.columns) rows.add_columns(c);
  const size_t columns = rows_.columns.size();
  rows.mutable_values()->Add(
      rows_.values.begin() + static_cast<std::ptrdiff_t>(stored_rows_ * columns),
      rows_.values.end());
  for (size_t i = stored_strings_; i < rows_.strings.size(); ++i)
    rows.add_strings(rows_.strings[i]);
  rows.set_rows_from(stored_rows_);
  rows.set_strings_from(stored_strings_);
  if (absl::Status s = env_.recorder->store()->PutCheckpoint(job_->id, rows); !s.ok()) {
    // Kept here; a resumption would run them again.
    spdlog::warn("job {}: the sweep's rows could not be stored: {}", job_->id,
                 std::string(s.message()));
    return;
  }
  stored_rows_ = rows_.values.size() / columns;
  stored_strings_ = rows_.strings.size();
}

std::optional<WorkerLease> SweepRun::MoreWorkers() {
  {
    absl::MutexLock lock(&mutex_);
    if (pending_.size() == 0 || lanes_ >= kMaxSweepLanes || job_->cancel) return std::nullopt;
  }
  if (env_.workers == nullptr) return std::nullopt;
  if (env_.share) {
    const int share = env_.share(*job_);
    absl::MutexLock lock(&mutex_);
    if ((lanes_ + 1) * lease_workers_ > share) return std::nullopt;
  }
  return env_.workers->TryAcquire(job_->labels, job_->id);
}

void SweepRun::RunLanes(WorkerLease lease) {
  ThreadGroup lanes;  // a paused sweep ends lanes and starts others: joined as they end
  auto start = [&](WorkerLease l) {
    absl::MutexLock lock(&mutex_);
    ++lanes_;
    gave_back_ = false;
    SayPaused(false);
    UpdateClaim();
    {
      absl::MutexLock job_lock(&job_->mutex);
      job_->pool_claim.served = ++leases_taken;
    }
    lanes.Start([this, l = std::move(l)]() mutable { Lane(std::move(l)); });
  };
  {
    absl::MutexLock lock(&mutex_);
    const WorkerLease::Workers& w = lease.workers();
    std::vector<const WorkerConnection*> distinct;
    for (const auto& worker : w) {
      if (std::find(distinct.begin(), distinct.end(), worker.get()) == distinct.end()) {
        distinct.push_back(worker.get());
      }
    }
    lease_workers_ = std::max<int>(1, static_cast<int>(distinct.size()));
  }
  start(std::move(lease));
  while (true) {
    lanes.JoinEnded();
    while (std::optional<WorkerLease> more = MoreWorkers()) {
      spdlog::info("job {}: one more variant at a time, on {}", job_->id,
                   more->workers().front()->Describe());
      start(*std::move(more));
    }
    // Paused (every lane gave its workers back) while the pool still has workers for it: it
    // waits for its share; without such workers it ends, to be queued again as after a loss.
    const bool could_run = env_.workers != nullptr && env_.workers->CountMatching(job_->labels) >=
                                                          static_cast<int>(job_->labels.size());
    absl::MutexLock lock(&mutex_);
    const bool more = !pending_.empty() || (feed_ && feed_open_);
    if (lanes_ == 0 && (!gave_back_ || !more || job_->cancel || !could_run)) break;
    if (lanes_ == 0) SayPaused(true);
    lane_ended_.WaitWithTimeout(&mutex_, absl::Milliseconds(lanes_ == 0 ? 50 : 250));
  }
  lanes.JoinAll();
  absl::MutexLock lock(&mutex_);
  lanes_over_ = true;
  feed_changed_.SignalAll();
}

void SweepRun::StoreResults(uint64_t k, VariantOutcome* outcome) {
  const master::MasterResult& result = *outcome->results;
  StoredResults stored;
  static_cast<ResultTable&>(stored) = result;
  v1::ResultsMetadata& meta = stored.metadata;
  meta.set_steps_accepted(result.steps_accepted);
  meta.set_steps_rejected(result.steps_rejected);
  meta.set_iterations_mean(result.iterations_mean);
  meta.set_iterations_max(result.iterations_max);
  meta.set_algorithm(v1::Algorithm::Kind_Name(base_.algorithm().kind()));
  meta.set_start_time(base_.start_time());
  // The last row's time: the variant's stop_time, which the sweep may vary.
  meta.set_stop_time(result.rows() > 0 ? result.values[(result.rows() - 1) * result.columns.size()]
                                       : base_.stop_time());
  meta.set_wall_seconds(outcome->wall_s);
  meta.set_finished_unix_ms(env_.recorder->clock()->UnixMs());
  meta.set_cosimo_version(kVersion);
  const absl::Status s = env_.recorder->store()->PutResults(VariantResultsId(job_->id, k), stored);
  outcome->results.reset();
  if (!s.ok()) {
    outcome->status = v1::FAILED;
    outcome->message = "its results could not be stored: " + std::string(s.message());
    outcome->kpis.clear();
  }
}

void SweepRun::End() {
  ResultTable table;
  size_t pending = 0;
  {
    absl::MutexLock lock(&mutex_);
    pending = pending_.size();
    table = rows_;
  }
  const size_t done = table.values.size() / table.columns.size();
  const std::string reached =
      " (" + std::to_string(done) + " of " + std::to_string(values_.size()) + " variants done)";
  if (EndCanceledJob(env_, *job_, "sweep", reached)) return;
  if (pending > 0) {  // every lane lost its workers
    const std::string why =
        env_.resume ? env_.resume(job_, "workers were lost; " + std::to_string(pending) +
                                            " variants run again once workers are free" + reached)
                    : "no way to queue it again";
    if (why.empty()) return;
    env_.recorder->Finish(*job_, v1::FAILED,
                          "workers were lost and the sweep could not resume: " + why + reached);
    return;
  }
  Store(std::move(table));
}

void SweepRun::Store(ResultTable table) {
  const size_t rows = table.values.size() / table.columns.size();
  uint64_t failed = 0;
  StoredResults stored = SortedSweepTable(sweep_, base_, table, &failed);
  Clock* const clock = env_.recorder->clock();
  {
    absl::ReaderMutexLock lock(&job_->mutex);
    stored.metadata.set_started_unix_ms(job_->started_unix_ms);
    stored.metadata.set_wall_seconds(
        std::chrono::duration<double>(clock->Now() - job_->started).count());
  }
  stored.metadata.set_finished_unix_ms(clock->UnixMs());
  if (absl::Status s = env_.recorder->store()->PutResults(job_->id, stored); !s.ok()) {
    env_.recorder->Finish(*job_, v1::FAILED,
                          "the sweep table could not be stored: " + std::string(s.message()));
    return;
  }
  spdlog::info("job {}: sweep done, {} variants, {} failed", job_->id, rows, failed);
  env_.recorder->Finish(*job_, v1::SUCCEEDED,
                        std::to_string(rows) + " variants, " + std::to_string(failed) + " failed");
}

}  // namespace cosimo::orchestrator
