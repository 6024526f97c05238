// Durable job records: each job's status, scenario and, once it succeeded, its results (a
// training job's weights file instead); while it runs, its latest checkpoint. The job
// manager writes through this interface; SqliteJobStore (sqlite_job_store.h) is the store of the
// orchestrator, and tests use fakes (a store whose writes fail). Implementations are thread safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/common/csv.h"
#include "cosimo/v1/checkpoint.pb.h"
#include "cosimo/v1/job_service.pb.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::orchestrator {

struct StoredJob {
  v1::JobStatus status;
  v1::Scenario scenario;
};

struct StoredResults : ResultTable {
  v1::ResultsMetadata metadata;
  // PutResults: true when the job's rows were appended as they were recorded (AppendRows) and
  // these rows, if any, follow them; false when these are every row (any appended are dropped).
  bool after_appended_rows = false;
};

// Rows `first_row` to `first_row + row_count - 1` of a job's table; false stops the read.
using RowChunkSink =
    std::function<bool(uint64_t first_row, uint64_t row_count, const v1::ResultRows& rows)>;

class JobStore {
 public:
  virtual ~JobStore() = default;

  // A new job: its status and scenario.
  [[nodiscard]] virtual absl::Status Put(const v1::JobStatus& status,
                                         const v1::Scenario& scenario) = 0;
  // The job's status replaces the stored one.
  [[nodiscard]] virtual absl::Status UpdateStatus(const v1::JobStatus& status) = 0;
  // A succeeded job's results, all or nothing (with after_appended_rows, the rows appended
  // before become part of them).
  [[nodiscard]] virtual absl::Status PutResults(const std::string& job_id,
                                                const StoredResults& results) = 0;
  // A running job's results' rows as they are recorded (issue 40): `rows`, `row_count` whole
  // rows, are the job's rows from `first_row` on, which must continue the rows appended before
  // (FailedPrecondition otherwise, naming both). No results read shows them before PutResults.
  [[nodiscard]] virtual absl::Status AppendRows(const std::string& job_id, uint64_t first_row,
                                                uint64_t row_count, const v1::ResultRows& rows) = 0;
  // Keeps the first `rows` rows appended and drops the others: a run resumed from a checkpoint
  // that counts `rows` records them again; 0 drops all (a run from the start, a job that did not
  // succeed). Nothing to drop is not an error.
  [[nodiscard]] virtual absl::Status TruncateRows(const std::string& job_id, uint64_t rows) = 0;
  // The rows appended so far (AppendRows), from row `first_row` on, in order, a stored chunk at a
  // time (the first cut to begin at `first_row`) to `sink`, until it returns false or the rows
  // end (issue 42: a running job's rows so far). The store's lock is not held while `sink` runs,
  // so a slow reader holds no other call back: rows appended meanwhile are read too, and rows cut
  // back meanwhile (TruncateRows) end the read. Nothing appended: nothing read, OK.
  [[nodiscard]] virtual absl::Status ReadRows(const std::string& job_id, uint64_t first_row,
                                              const RowChunkSink& sink) = 0;
  // How many rows are appended (AppendRows; 0: none).
  [[nodiscard]] virtual absl::StatusOr<uint64_t> AppendedRows(const std::string& job_id) = 0;
  [[nodiscard]] virtual absl::StatusOr<std::vector<StoredJob>> LoadAll() = 0;
  // The scenario stored with the job (NotFound when there is no such job).
  [[nodiscard]] virtual absl::StatusOr<v1::Scenario> LoadScenario(const std::string& job_id) = 0;
  [[nodiscard]] virtual absl::StatusOr<StoredResults> LoadResults(const std::string& job_id) = 0;
  // LoadResults without the appended rows: the columns, their types, the metadata, and only the
  // rows a store written before rows were appended in chunks kept in the results record itself
  // (a job's results from a store of an older version; none otherwise). The appended rows are
  // read with ReadRows, a chunk at a time.
  [[nodiscard]] virtual absl::StatusOr<StoredResults> LoadResultsHead(
      const std::string& job_id) = 0;
  // A training job's result (the weights file), stored once it succeeded.
  [[nodiscard]] virtual absl::Status PutTrainingResult(const std::string& job_id,
                                                       const v1::TrainingResult& result) = 0;
  [[nodiscard]] virtual absl::StatusOr<v1::TrainingResult> LoadTrainingResult(
      const std::string& job_id) = 0;
  // A calibration job's measured samples (CalibrationJob.samples; the rest of it is in its
  // status), stored once before the job (Put), so that its status updates stay small; read back
  // when it runs or resumes and by GetJob with calibration_samples. NotFound when there are none.
  [[nodiscard]] virtual absl::Status PutCalibrationSamples(const std::string& job_id,
                                                           const v1::CalibrationJob& samples) = 0;
  [[nodiscard]] virtual absl::StatusOr<v1::CalibrationJob> LoadCalibrationSamples(
      const std::string& job_id) = 0;
  // Removes the job's record, results (with a sweep's variants' results, stored under
  // "<job>/variant-K"), calibration samples and checkpoint (nothing to remove is not an error).
  [[nodiscard]] virtual absl::Status Delete(const std::string& job_id) = 0;

  // A job's log lines (GetJobLogs, units/.../unit_log.h), appended in the order the workers sent
  // them, whatever the job's state; lines of a job the store does not hold are dropped. Removed
  // with the job (Delete). The defaults keep nothing (stores of tests).
  [[nodiscard]] virtual absl::Status AppendLogs(const std::string& job_id,
                                                const std::vector<v1::LogEntry>& lines) {
    (void)job_id;
    (void)lines;
    return absl::OkStatus();
  }
  // The job's lines, in order; those of `unit` alone unless it is empty.
  [[nodiscard]] virtual absl::StatusOr<std::vector<v1::LogEntry>> LoadLogs(
      const std::string& job_id, const std::string& unit) {
    (void)job_id;
    (void)unit;
    return std::vector<v1::LogEntry>{};
  }

  // A running job's checkpoint (issue 18): only the latest is kept, replaced by the next.
  [[nodiscard]] virtual absl::Status PutCheckpoint(const std::string& job_id,
                                                   const v1::JobCheckpoint& checkpoint) = 0;
  // NotFound when the job has none.
  [[nodiscard]] virtual absl::StatusOr<v1::JobCheckpoint> LoadCheckpoint(
      const std::string& job_id) = 0;
  // Once the job has ended (nothing to remove is not an error).
  [[nodiscard]] virtual absl::Status DeleteCheckpoint(const std::string& job_id) = 0;
};

}  // namespace cosimo::orchestrator
