// SweepRun: one run of a sweep job's variants on the pool (SweepRunner, sweep_runner.h, whose
// contract describes the lanes, the shares of the pool, the lost workers and the stored rows),
// and, in feed mode, the same lanes running the batches of variants of a calibration job
// (fit_runner.h): its variants placed, run, rerun after a lost worker exactly as a sweep's.
//
// Call order: Prepare (or PrepareFeed), RunLanes on one thread; a sweep then End; in feed mode
// another thread calls AddVariants and AwaitVariants any number of times, then CloseFeed, after
// which RunLanes returns. Thread safety: the lanes share the run's state under its mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/v1/job_service.pb.h"
#include "cosimo/v1/sweep.pb.h"
#include "orchestrator/src/job_runner.h"
#include "orchestrator/src/job_store.h"
#include "orchestrator/src/sweep_variant.h"

namespace cosimo::orchestrator {

// The rows of the variants sweep job `job_id` finished (its checkpoint: none before the first)
// into `rows` (its columns set), and which of its `variants` they are. DataLoss when the stored
// rows are not those of its table.
[[nodiscard]] absl::StatusOr<std::vector<bool>> LoadFinishedRows(JobStore& store,
                                                                 const std::string& job_id,
                                                                 size_t variants,
                                                                 ResultTable* rows);

// `table`'s rows (the sweep's, in the order they finished) in index order, with the metadata
// every sweep table has; `failed` counts the FAILED rows.
StoredResults SortedSweepTable(const v1::Sweep& sweep, const v1::Scenario& base,
                               const ResultTable& table, uint64_t* failed);

// One run of a sweep job: the variants still to run, the rows of those finished, the lanes.
class SweepRun {
 public:
  SweepRun(const RunnerEnv& env, std::shared_ptr<Job> job, const v1::Scenario& base)
      : env_(env), job_(std::move(job)), base_(base) {
    absl::ReaderMutexLock lock(&job_->mutex);
    sweep_ = job_->status.sweep().sweep();
  }
  // Feed mode (a calibration job, fit_runner.h): no design of its own, the variants come in
  // batches (AddVariants) while the lanes run, `sweep` names their parameters and KPIs. Nothing is
  // stored: the caller keeps what it needs of the outcomes.
  SweepRun(const RunnerEnv& env, std::shared_ptr<Job> job, const v1::Scenario& base,
           v1::Sweep sweep);

  // The rows of the variants finished before (the job's checkpoint), and the others queued.
  [[nodiscard]] absl::Status Prepare() ABSL_LOCKS_EXCLUDED(mutex_);
  // Feed mode's: the variants' context, nothing read back.
  void PrepareFeed() ABSL_LOCKS_EXCLUDED(mutex_);
  // Runs the lanes, the first on `lease`, until each has ended.
  void RunLanes(WorkerLease lease) ABSL_LOCKS_EXCLUDED(mutex_);
  // Ends the job: its table stored, canceled, or queued again to resume.
  void End() ABSL_LOCKS_EXCLUDED(mutex_);

  // What a fed variant is: a point (kPoint); the point whose full results are kept
  // (VariantOutcome::results; kKeep); a point with its forward sensitivities (kSensitivities: run
  // on the base and sweep of SetSensitivities). The last two run alone.
  enum class FeedKind { kPoint, kKeep, kSensitivities };
  // Feed mode, before RunLanes: the base and sweep of kSensitivities variants.
  void SetSensitivities(v1::Scenario base, v1::Sweep sweep) {
    sensitivity_base_ = std::move(base);
    sensitivity_sweep_ = std::move(sweep);
  }
  // Feed mode, from another thread than RunLanes': queues variants with these values (one per
  // sweep parameter each) of this kind; their indices.
  std::vector<uint64_t> AddVariants(const std::vector<std::vector<double>>& values, FeedKind kind)
      ABSL_LOCKS_EXCLUDED(mutex_);
  // Waits for the variants `ks`' outcomes, in their order. Cancelled once the job is canceled,
  // Unavailable once the lanes ended with variants waiting (every lane lost its workers).
  [[nodiscard]] absl::StatusOr<std::vector<VariantOutcome>> AwaitVariants(
      const std::vector<uint64_t>& ks) ABSL_LOCKS_EXCLUDED(mutex_);
  // No more variants come: the lanes end once idle, and RunLanes returns.
  void CloseFeed() ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  // Runs variants on `lease`, VariantsAtOnce at a time, until none waits, the job is canceled
  // or a worker is lost.
  void Lane(WorkerLease lease) ABSL_LOCKS_EXCLUDED(mutex_);
  // Up to `n` variants to run next and their values (none: the lane ends); `keep` when they keep
  // their full results (feed mode). In feed mode it waits for variants while the feed is open.
  std::vector<uint64_t> Next(int n, std::vector<std::vector<double>>* values, FeedKind* kind)
      ABSL_LOCKS_EXCLUDED(mutex_);
  // Variant k's outcome: its row kept (and stored), or k queued again, to run alone, after its
  // first lost worker; FAILED after its second (LostTwice). False when the lane ends.
  bool Finished(uint64_t k, VariantOutcome outcome) ABSL_LOCKS_EXCLUDED(mutex_);
  // Whether variant k lost its worker before (or resuming is off): this loss fails it.
  bool LostBefore(uint64_t k) ABSL_LOCKS_EXCLUDED(job_->mutex);
  // Its row's message after its last lost worker (`last`: why), naming the crash a restarted
  // worker reported.
  std::string LostTwice(uint64_t k, const std::string& last) const ABSL_LOCKS_EXCLUDED(mutex_);
  // Appends the rows after those stored to the job's checkpoint.
  void StoreRows() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Publish() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Takes one more lease for a lane when variants wait, the job's share of the pool allows one
  // more (RunnerEnv::share) and the pool has one.
  std::optional<WorkerLease> MoreWorkers() ABSL_LOCKS_EXCLUDED(mutex_);
  // Between variants: whether this lane (running `at_once` variants) ends to give its workers
  // back, because the job holds more than its share while others wait. If so it is counted out
  // (lanes_) at once, so that no other lane gives back the same excess.
  bool GiveBack(int at_once) ABSL_LOCKS_EXCLUDED(mutex_);
  // The job's claim on the pool (Job::pool_claim) from its lanes and its variants to run.
  void UpdateClaim() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Every lane gave its workers back and variants wait: the job says so (true: it is paused), or
  // no longer says so once a lane runs again (false).
  void SayPaused(bool paused) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Store(ResultTable table);
  // A succeeded variant's full results (keep_results ALL), under VariantResultsId; a failed
  // write fails the variant.
  void StoreResults(uint64_t k, VariantOutcome* outcome);

  const RunnerEnv& env_;
  const std::shared_ptr<Job> job_;
  const v1::Scenario base_;
  v1::Sweep sweep_;
  const bool feed_ = false;
  // [variant][parameter]; grows in feed mode (under mutex_ then).
  std::vector<std::vector<double>> values_;
  // context_'s fields from the job and the environment (Prepare, PrepareFeed).
  void FillContext();

  VariantContext context_;
  VariantContext keep_context_;    // feed mode: context_ with keep_results
  v1::Scenario sensitivity_base_;  // feed mode: SetSensitivities'
  v1::Sweep sensitivity_sweep_;

  absl::Mutex mutex_;
  std::deque<uint64_t> pending_ ABSL_GUARDED_BY(mutex_);
  ResultTable rows_ ABSL_GUARDED_BY(mutex_);  // finished variants, in the order they finished
  uint64_t stored_rows_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t stored_strings_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t failed_ ABSL_GUARDED_BY(mutex_) = 0;
  uint64_t done_here_ ABSL_GUARDED_BY(mutex_) = 0;  // finished in this run
  double wall_here_ ABSL_GUARDED_BY(mutex_) = 0.0;  // s, their wall time
  int lanes_ ABSL_GUARDED_BY(mutex_) = 0;
  int running_ ABSL_GUARDED_BY(mutex_) = 0;         // variants the lanes run at once
  int lease_workers_ ABSL_GUARDED_BY(mutex_) = 1;   // distinct workers of one lease
  int at_once_ ABSL_GUARDED_BY(mutex_) = 1;         // variants one lane runs at once
  bool gave_back_ ABSL_GUARDED_BY(mutex_) = false;  // the latest lane to end gave its workers back
  bool paused_ ABSL_GUARDED_BY(mutex_) = false;     // and it said so (SayPaused)
  absl::CondVar lane_ended_;
  std::chrono::steady_clock::time_point stored_at_;
  // Feed mode: more variants may come; the outcomes not yet taken; the variants that keep their
  // results; the lanes have ended (RunLanes returns); a change of any.
  bool feed_open_ ABSL_GUARDED_BY(mutex_) = true;
  std::map<uint64_t, VariantOutcome> feed_outcomes_ ABSL_GUARDED_BY(mutex_);
  std::map<uint64_t, FeedKind> kinds_ ABSL_GUARDED_BY(mutex_);  // feed mode: those not kPoint
  bool lanes_over_ ABSL_GUARDED_BY(mutex_) = false;
  absl::CondVar feed_changed_;
};

}  // namespace cosimo::orchestrator
