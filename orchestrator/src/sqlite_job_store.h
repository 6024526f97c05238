// The job store in SQLite (JobStore, job_store.h): each job's status, scenario and, once it
// succeeded, its results (columns, values, metadata). With an empty path the database lives in
// memory (the embedded `cosimo run`). Thread safe (one connection, serialised by a mutex).
//
// Results are stored in chunks of whole rows (a few MiB each), all in one transaction: SQLite
// holds at most 1e9 bytes in one blob, so a table bigger than that is never one blob. A running
// job's chunks are appended as its rows come (AppendRows, sqlite_result_rows.cc: one row of
// result_chunks each, keyed by the job and its first row) and its results record, written once
// it succeeded, makes them visible. Every
// SQLite return code is checked; a table that cannot be stored is an error, never a partial or
// empty result.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "google/protobuf/message_lite.h"
#include "orchestrator/src/job_store.h"

struct sqlite3;
struct sqlite3_stmt;

namespace cosimo::orchestrator {

struct JobStoreOptions {
  // Bytes of results per stored chunk (whole rows; a single row bigger than this is one chunk).
  size_t chunk_bytes = size_t{8} << 20;
  // SQLite's limit on one blob or text (SQLITE_LIMIT_LENGTH); 0 keeps SQLite's (1e9 bytes).
  // Tests lower it to reach the limit without gigabytes of memory.
  int max_blob_bytes = 0;
};

// `bytes` as the int length SQLite's bind functions take, or an error naming `what` when it does
// not fit (a cast would wrap to a negative or small length and store the wrong bytes).
[[nodiscard]] absl::StatusOr<int> BlobLength(size_t bytes, const std::string& what);

// RAII for a prepared statement of the store's files (finalized on destruction).
struct SqliteStatement {
  SqliteStatement() = default;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();
  sqlite3_stmt* stmt = nullptr;
};

class SqliteJobStore final : public JobStore {
 public:
  // Opens (creating if needed) `path`; ":memory:" or empty for a store that lives in memory.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<SqliteJobStore>> Open(
      const std::string& path, const JobStoreOptions& options = {});
  ~SqliteJobStore() override;

  [[nodiscard]] absl::Status Put(const v1::JobStatus& status,
                                 const v1::Scenario& scenario) override;
  [[nodiscard]] absl::Status UpdateStatus(const v1::JobStatus& status) override;
  [[nodiscard]] absl::Status PutResults(const std::string& job_id,
                                        const StoredResults& results) override;
  [[nodiscard]] absl::Status AppendRows(const std::string& job_id, uint64_t first_row,
                                        uint64_t row_count, const v1::ResultRows& rows) override;
  [[nodiscard]] absl::Status TruncateRows(const std::string& job_id, uint64_t rows) override;
  [[nodiscard]] absl::Status ReadRows(const std::string& job_id, uint64_t first_row,
                                      const RowChunkSink& sink) override;
  [[nodiscard]] absl::StatusOr<uint64_t> AppendedRows(const std::string& job_id) override;
  [[nodiscard]] absl::StatusOr<std::vector<StoredJob>> LoadAll() override;
  [[nodiscard]] absl::StatusOr<v1::Scenario> LoadScenario(const std::string& job_id) override;
  [[nodiscard]] absl::StatusOr<StoredResults> LoadResults(const std::string& job_id) override;
  [[nodiscard]] absl::StatusOr<StoredResults> LoadResultsHead(const std::string& job_id) override;
  [[nodiscard]] absl::Status PutCalibrationSamples(const std::string& job_id,
                                                   const v1::CalibrationJob& samples) override;
  [[nodiscard]] absl::StatusOr<v1::CalibrationJob> LoadCalibrationSamples(
      const std::string& job_id) override;
  [[nodiscard]] absl::Status PutTrainingResult(const std::string& job_id,
                                               const v1::TrainingResult& result) override;
  [[nodiscard]] absl::StatusOr<v1::TrainingResult> LoadTrainingResult(
      const std::string& job_id) override;
  [[nodiscard]] absl::Status Delete(const std::string& job_id) override;
  [[nodiscard]] absl::Status PutCheckpoint(const std::string& job_id,
                                           const v1::JobCheckpoint& checkpoint) override;
  [[nodiscard]] absl::StatusOr<v1::JobCheckpoint> LoadCheckpoint(
      const std::string& job_id) override;
  [[nodiscard]] absl::Status DeleteCheckpoint(const std::string& job_id) override;
  // sqlite_job_logs.cc.
  [[nodiscard]] absl::Status AppendLogs(const std::string& job_id,
                                        const std::vector<v1::LogEntry>& lines) override;
  [[nodiscard]] absl::StatusOr<std::vector<v1::LogEntry>> LoadLogs(
      const std::string& job_id, const std::string& unit) override;

 private:
  SqliteJobStore(sqlite3* db, const JobStoreOptions& options) : db_(db), options_(options) {}
  [[nodiscard]] absl::Status Exec(const std::string& sql) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // Adds `column` ("name TYPE") to `table` unless the table has it (a store of an older version).
  [[nodiscard]] absl::Status AddColumnIfMissing(const std::string& table, const std::string& column)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] absl::Status Error(const std::string& what) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] absl::Status BindBlob(sqlite3_stmt* stmt, int index, const std::string& bytes,
                                      const std::string& what) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] absl::Status PutResultsLocked(const std::string& job_id,
                                              const StoredResults& results)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] absl::StatusOr<StoredResults> LoadResultsHeadLocked(const std::string& job_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // sqlite_result_rows.cc. The rows the job's result chunks hold (the end of the last one).
  [[nodiscard]] absl::StatusOr<uint64_t> StoredRowsLocked(const std::string& job_id)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // The chunk that holds row `row` (with `at_or_after`, else the first one after it); false when
  // there is none. `first` and `count`: its first row and its rows.
  [[nodiscard]] absl::StatusOr<bool> ChunkLocked(const std::string& job_id, uint64_t row,
                                                 uint64_t* first, uint64_t* count,
                                                 v1::ResultRows* rows)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // One result chunk: `row_count` rows from `first_row` on.
  [[nodiscard]] absl::Status InsertChunkLocked(const std::string& job_id, uint64_t first_row,
                                               uint64_t row_count, const v1::ResultRows& rows,
                                               const std::string& what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // One serialized message per job in `column` of `table` (keyed by id): stored in a table of
  // its own, replacing the job's earlier one (PutMessage); read back, also the scenario column
  // of jobs (LoadMessage; NotFound with `missing` when there is none). `what` names it in
  // errors ("the checkpoint").
  [[nodiscard]] absl::Status PutMessage(const char* table, const char* column,
                                        const std::string& job_id,
                                        const google::protobuf::MessageLite& message,
                                        const std::string& what);
  [[nodiscard]] absl::Status LoadMessage(const char* table, const char* column,
                                         const std::string& job_id, const std::string& what,
                                         const std::string& missing,
                                         google::protobuf::MessageLite* message);
  // The same with mutex_ held.
  [[nodiscard]] absl::Status PutMessageLocked(const char* table, const char* column,
                                              const std::string& job_id,
                                              const google::protobuf::MessageLite& message,
                                              const std::string& what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  [[nodiscard]] absl::Status LoadMessageLocked(const char* table, const char* column,
                                               const std::string& job_id, const std::string& what,
                                               const std::string& missing,
                                               google::protobuf::MessageLite* message)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // With mutex_ held: `body` in a transaction, committed when it succeeds ("commit " + `what`
  // when that fails), else rolled back.
  [[nodiscard]] absl::Status TransactionLocked(const std::string& what,
                                               absl::FunctionRef<absl::Status()> body)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  // With mutex_ held: runs `sql`, whose one parameter is the job's id, to its end; `what` names
  // it in the error.
  [[nodiscard]] absl::Status RunForJobLocked(const char* sql, const std::string& job_id,
                                             const std::string& what)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  mutable absl::Mutex mutex_;
  sqlite3* const db_ ABSL_GUARDED_BY(mutex_);
  const JobStoreOptions options_;
};

}  // namespace cosimo::orchestrator
