// JobObserver: what a running job's master run reports to the job manager. Progress into the
// job's status (throttled), every accepted step into the metrics (may be null), cancellation
// (by a client, or once the job has recorded more rows than its limit),
// and checkpoints (issue 18): taken every `checkpoint_interval` of wall time (besides the
// scenario's algorithm.checkpoint_every) and written to the job store, the latest only; each
// carries the results' rows since the one stored before (Checkpointed()).
// Rows (issue 40): the master hands its rows over in chunks of row_chunk_bytes() as it records
// them (OnRows), and a job run on a worker sends them so (AppendRows): each is appended to the
// job store at once, so neither holds the whole table; a chunk the store cannot take stops the
// run (rows_error()). Remembers what a resumption needs to know: the time of the last checkpoint
// stored and why none could be taken. Used on the job's thread only.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include "cosimo/master/master.h"
#include "orchestrator/src/clock.h"
#include "orchestrator/src/job_store.h"
#include "orchestrator/src/metrics.h"

namespace cosimo::orchestrator {

// Bytes of rows the master hands over at once (about; MasterObserver::RowChunkBytes), and a
// worker running a job's master sends at once (RunJob.result_chunk_bytes). Under glibc's 128 KiB
// mmap threshold, with room for the message around them: a chunk, its message and gRPC's buffer
// come from the heap and are reused, where larger ones were each a fresh mmap whose pages all
// faulted in anew, the largest cost of a recorded row on a virtual machine (issue 40); and they
// stay in the caches.
inline constexpr size_t kRowChunkBytes = size_t{96} << 10;
// Wall time at most between two chunks of rows, fewer rows than a chunk if need be (RowsDue,
// RunJob.rows_interval_ms): a running job's rows so far lag behind its run by about this.
inline constexpr std::chrono::milliseconds kRowsInterval{1000};

class JobObserver final : public master::MasterObserver {
 public:
  // `max_rows`: the job stops (rows_exceeded()) once it has recorded more rows than this.
  // `checkpoint_interval` zero: checkpoints only by algorithm.checkpoint_every. Nothing owned.
  JobObserver(std::function<void(const master::Progress&)> publish, std::atomic<bool>* cancel,
              Metrics* metrics, std::string job_id, const Clock* clock, uint64_t max_rows,
              JobStore* store, std::chrono::seconds checkpoint_interval);

  void OnStart(double) override;
  void OnProgress(const master::Progress& progress) override;
  bool Canceled() override { return rows_exceeded_ || cancel_->load(std::memory_order_relaxed); }
  bool rows_exceeded() const { return rows_exceeded_; }
  bool CheckpointDue() override;
  void OnCheckpoint(const v1::JobCheckpoint& checkpoint) override;
  void OnCheckpointFailed(const absl::Status& why) override;
  master::CheckpointMark Checkpointed() override { return stored_; }

  const master::Progress& last() const { return last_; }
  // The time of the latest checkpoint in the store (set by the caller when the run resumes from
  // one), if any.
  const std::optional<double>& checkpoint_time() const { return checkpoint_time_; }
  // The run resumes from `checkpoint`, read back from the store (every row).
  void ResumedFrom(const v1::JobCheckpoint& checkpoint);
  // Why the job cannot resume from a checkpoint: a unit cannot serialise, or the store failed.
  const std::string& cannot_checkpoint() const { return cannot_checkpoint_; }

  size_t RowChunkBytes() override { return row_chunk_bytes_; }
  // Tests: smaller chunks (0: every row kept by the master, none streamed).
  void set_row_chunk_bytes(size_t bytes) { row_chunk_bytes_ = bytes; }
  [[nodiscard]] absl::Status OnRows(uint64_t first_row, const ResultTable& rows) override;
  // The first rows at once (they name the columns), then every kRowsInterval.
  bool RowsDue() override { return !columns_known_ || clock_->Now() - last_rows_ >= kRowsInterval; }
  // Where the table's columns go (may be empty): once per run, from its first chunk of rows.
  void set_on_columns(std::function<void(const v1::ResultsHeader&)> on_columns) {
    on_columns_ = std::move(on_columns);
  }
  // The columns and types of the run's rows (a worker's first JobRows), to on_columns.
  void OnColumns(const v1::ResultsHeader& header);
  // Rows `first_row` on, `row_count` of them, into the job's store; an error is also rows_error().
  [[nodiscard]] absl::Status AppendRows(uint64_t first_row, uint64_t row_count,
                                        const v1::ResultRows& rows);
  // Why the job's rows could not be stored (OK: they were).
  const absl::Status& rows_error() const { return rows_error_; }

 private:
  std::function<void(const master::Progress&)> publish_;
  std::atomic<bool>* cancel_;
  const uint64_t max_rows_;
  bool rows_exceeded_ = false;
  Metrics* metrics_;
  std::string job_id_;
  const Clock* clock_;
  JobStore* store_;
  const std::chrono::seconds checkpoint_interval_;
  master::Progress last_;
  std::chrono::steady_clock::time_point last_publish_;
  std::chrono::steady_clock::time_point last_step_;
  std::chrono::steady_clock::time_point last_checkpoint_;
  std::optional<double> checkpoint_time_;
  master::CheckpointMark stored_;  // what the store's checkpoint holds of this run's results
  std::string cannot_checkpoint_;
  size_t row_chunk_bytes_ = kRowChunkBytes;
  std::chrono::steady_clock::time_point last_rows_;
  std::function<void(const v1::ResultsHeader&)> on_columns_;
  bool columns_known_ = false;
  absl::Status rows_error_;
};

}  // namespace cosimo::orchestrator
