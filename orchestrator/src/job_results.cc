// JobManager's reads of results as GetResults streams them (job_manager.h, ReadResults): a
// running simulation job's rows so far, read from the store a chunk at a time under the columns
// its run named (issue 42), a table the store holds whole (a succeeded job's, a sweep variant's)
// read from it a chunk at a time, and any other job's table (Results) sent in pieces.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/common/results_proto.h"
#include "cosimo/common/status.h"
#include "orchestrator/src/job_access.h"
#include "orchestrator/src/job_manager.h"
#include "orchestrator/src/results_metadata.h"
#include "orchestrator/src/sweep_runner.h"

namespace cosimo::orchestrator {
namespace {

// The first row read of `rows` rows: range.first_row, or later for range.last_rows.
uint64_t FirstRowOf(const JobManager::ResultsRange& range, uint64_t rows) {
  uint64_t first = range.first_row;
  if (range.last_rows && rows > *range.last_rows) first = std::max(first, rows - *range.last_rows);
  return first;
}

// A table in memory, in pieces of about 512 KiB of doubles (whole rows).
absl::Status SendTable(const StoredResults& table, const JobManager::ResultsRange& range,
                       const std::function<bool(const v1::ResultsHeader&)>& header,
                       const RowChunkSink& rows) {
  const uint64_t first = std::min<uint64_t>(FirstRowOf(range, table.rows()), table.rows());
  v1::ResultsHeader head;
  ToProto(table, &head);
  *head.mutable_metadata() = table.metadata;
  head.set_first_row(first);
  if (!header(head)) return absl::OkStatus();
  const size_t width = std::max<size_t>(1, table.columns.size());
  const size_t rows_per_chunk = std::max<size_t>(1, (64 * 1024) / width);
  v1::ResultRows chunk;
  for (size_t row = first; row < table.rows(); row += rows_per_chunk) {
    chunk.Clear();
    const size_t count = std::min(rows_per_chunk, table.rows() - row);
    RowsToProto(table, row, count, &chunk);
    if (!rows(row, count, chunk)) break;
  }
  return absl::OkStatus();
}

// Results stored whole in `store` under `id` (a succeeded job's, a sweep variant's), whose
// columns and metadata are `head` (LoadResultsHead): the rows read from the store a chunk at a
// time, never all in memory (issue 40: reading them whole was a third of a one-FMU run's time).
absl::Status SendStored(JobStore& store, const std::string& id, StoredResults head,
                        const JobManager::ResultsRange& range,
                        const std::function<bool(const v1::ResultsHeader&)>& header,
                        const RowChunkSink& rows) {
  if (head.rows() > 0) {  // a store of an older version kept them in the record: read whole
    COSIMO_ASSIGN_OR_RETURN(const StoredResults table, store.LoadResults(id));
    return SendTable(table, range, header, rows);
  }
  COSIMO_ASSIGN_OR_RETURN(const uint64_t stored, store.AppendedRows(id));
  const uint64_t first = std::min(FirstRowOf(range, stored), stored);
  v1::ResultsHeader head_proto;
  ToProto(head, &head_proto);
  *head_proto.mutable_metadata() = std::move(head.metadata);
  head_proto.set_first_row(first);
  if (!header(head_proto)) return absl::OkStatus();
  return store.ReadRows(id, first, rows);
}

}  // namespace

absl::Status JobManager::ReadResults(const std::string& job_id, const ResultsRange& range,
                                     const std::function<bool(const v1::ResultsHeader&)>& header,
                                     const RowChunkSink& rows) const {
  std::shared_ptr<Job> job;
  {
    absl::ReaderMutexLock lock(&mutex_);
    job = Find(job_id);
    if (!job) return UnknownJob(job_id);
  }
  const v1::JobStatus status = job->Status();
  if (range.partial && !range.variant && job->kind == JobKind::kSimulation &&
      status.state() == v1::RUNNING) {
    return ReadRowsSoFar(*job, status, range, header, rows);
  }
  std::string stored_id;  // results the store holds whole
  if (range.variant) {
    COSIMO_RETURN_IF_ERROR(CheckVariantResults(status, *range.variant));
    stored_id = VariantResultsId(job_id, *range.variant);
  } else if (status.state() == v1::SUCCEEDED && job->kind != JobKind::kTraining) {
    stored_id = job_id;
  }
  if (!stored_id.empty()) {
    absl::StatusOr<StoredResults> head = store_->LoadResultsHead(stored_id);
    if (range.variant && head.status().code() == absl::StatusCode::kNotFound) {
      return absl::FailedPreconditionError(
          absl::StrCat("variant ", *range.variant, " of job ", job_id,
                       " has no results: it has not succeeded (yet)"));
    }
    if (!head.ok()) return head.status();
    return SendStored(*store_, stored_id, *std::move(head), range, header, rows);
  }
  absl::StatusOr<StoredResults> table = Results(job_id, range.partial);
  if (!table.ok()) return table.status();
  return SendTable(*table, range, header, rows);
}

absl::Status JobManager::ReadRowsSoFar(Job& job, const v1::JobStatus& status,
                                       const ResultsRange& range,
                                       const std::function<bool(const v1::ResultsHeader&)>& header,
                                       const RowChunkSink& rows) const {
  v1::ResultsHeader head;
  RunTimes times;
  {
    absl::ReaderMutexLock lock(&job.mutex);
    head = job.live_header;
    times.started_unix_ms = job.started_unix_ms;
  }
  COSIMO_ASSIGN_OR_RETURN(const v1::Scenario scenario, store_->LoadScenario(job.id));
  master::MasterResult so_far;
  FromProto(head, &so_far);
  so_far.steps_accepted = status.steps_accepted();
  so_far.steps_rejected = status.steps_rejected();
  // No unit has described its variables yet: each column's type as the run named it.
  std::vector<v1::RecordedVariable> variables = RecordedVariables(scenario, so_far, {});
  for (size_t c = 0; c < variables.size(); ++c) {
    variables[c].set_type(ValueTypeName(so_far.type(c + 1)));
  }
  *head.mutable_metadata() = BuildResultsMetadata(scenario, so_far, std::move(variables), times);
  head.mutable_metadata()->set_partial(true);
  uint64_t first = range.first_row;
  if (range.last_rows) {
    COSIMO_ASSIGN_OR_RETURN(const uint64_t stored, store_->AppendedRows(job.id));
    first = FirstRowOf(range, stored);
  }
  head.set_first_row(first);
  if (!header(head) || head.columns().empty()) return absl::OkStatus();
  return store_->ReadRows(job.id, first, rows);
}

}  // namespace cosimo::orchestrator
