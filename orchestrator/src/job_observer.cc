#include "orchestrator/src/job_observer.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "cosimo/common/results_proto.h"
#include "cosimo/common/status.h"

namespace cosimo::orchestrator {

JobObserver::JobObserver(std::function<void(const master::Progress&)> publish,
                         std::atomic<bool>* cancel, Metrics* metrics, std::string job_id,
                         const Clock* clock, uint64_t max_rows, JobStore* store,
                         std::chrono::seconds checkpoint_interval)
    : publish_(std::move(publish)),
      cancel_(cancel),
      max_rows_(max_rows),
      metrics_(metrics),
      job_id_(std::move(job_id)),
      clock_(clock),
      store_(store),
      checkpoint_interval_(checkpoint_interval),
      last_step_(clock->Now()),
      last_checkpoint_(clock->Now()),
      last_rows_(clock->Now()) {}

void JobObserver::OnStart(double) {
  last_step_ = clock_->Now();
  last_checkpoint_ = last_step_;
}

void JobObserver::OnProgress(const master::Progress& progress) {
  last_ = progress;
  // A row at the start and one per accepted step.
  if (progress.steps_accepted + 1 > max_rows_) rows_exceeded_ = true;
  const auto now = clock_->Now();
  if (metrics_ != nullptr) {
    metrics_->OnAcceptedStep(job_id_, progress.steps_accepted, progress.steps_rejected,
                             progress.iterations,
                             std::chrono::duration<double>(now - last_step_).count());
    last_step_ = now;
  }
  if (now - last_publish_ < std::chrono::milliseconds(50)) return;
  last_publish_ = now;
  publish_(progress);
}

bool JobObserver::CheckpointDue() {
  return checkpoint_interval_.count() > 0 &&
         clock_->Now() - last_checkpoint_ >= checkpoint_interval_;
}

void JobObserver::ResumedFrom(const v1::JobCheckpoint& checkpoint) {
  checkpoint_time_ = checkpoint.time();
  const auto columns = static_cast<uint64_t>(checkpoint.columns_size());
  stored_.rows = columns == 0 ? 0 : static_cast<uint64_t>(checkpoint.values_size()) / columns;
  stored_.strings = static_cast<uint64_t>(checkpoint.strings_size());
}

void JobObserver::OnCheckpoint(const v1::JobCheckpoint& checkpoint) {
  last_checkpoint_ = clock_->Now();
  if (absl::Status s = store_->PutCheckpoint(job_id_, checkpoint); !s.ok()) {
    // The job goes on; it cannot resume past the checkpoint stored before, if any. Rows are
    // appended only after rows the store holds: when it holds others, the next checkpoint
    // carries every row again.
    spdlog::error("job {}: the checkpoint at t={} could not be stored: {}", job_id_,
                  checkpoint.time(), s.message());
    if (s.code() == absl::StatusCode::kFailedPrecondition) stored_ = {};
    return;
  }
  const auto columns = static_cast<uint64_t>(checkpoint.columns_size());
  stored_.rows = checkpoint.rows_from() +
                 (columns == 0 ? 0 : static_cast<uint64_t>(checkpoint.values_size()) / columns);
  stored_.strings = checkpoint.strings_from() + static_cast<uint64_t>(checkpoint.strings_size());
  checkpoint_time_ = checkpoint.time();
  spdlog::debug("job {}: checkpoint at t={}", job_id_, checkpoint.time());
}

void JobObserver::OnColumns(const v1::ResultsHeader& header) {
  columns_known_ = true;
  if (on_columns_) on_columns_(header);
}

absl::Status JobObserver::OnRows(uint64_t first_row, const ResultTable& rows) {
  if (!columns_known_) {
    v1::ResultsHeader header;
    ToProto(rows, &header);
    OnColumns(header);
  }
  v1::ResultRows chunk;
  RowsToProto(rows, 0, rows.rows(), &chunk);
  return AppendRows(first_row, rows.rows(), chunk);
}

absl::Status JobObserver::AppendRows(uint64_t first_row, uint64_t row_count,
                                     const v1::ResultRows& rows) {
  absl::Status s = store_->AppendRows(job_id_, first_row, row_count, rows);
  last_rows_ = clock_->Now();
  if (!s.ok()) {
    spdlog::error("job {}: rows {} to {} could not be stored: {}", job_id_, first_row,
                  first_row + row_count, s.message());
    if (rows_error_.ok()) rows_error_ = s;
  }
  return s;
}

void JobObserver::OnCheckpointFailed(const absl::Status& why) {
  cannot_checkpoint_ = std::string(why.message());
  spdlog::warn("job {}: no checkpoints, it cannot resume after losing a worker: {}", job_id_,
               cannot_checkpoint_);
}

}  // namespace cosimo::orchestrator
