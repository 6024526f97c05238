#include "orchestrator/src/sqlite_job_store.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "cosimo/common/results_proto.h"
#include "cosimo/common/status.h"

namespace cosimo::orchestrator {
namespace {

std::string ColumnBlob(sqlite3_stmt* stmt, int index) {
  const void* data = sqlite3_column_blob(stmt, index);
  const int size = sqlite3_column_bytes(stmt, index);
  return data ? std::string(static_cast<const char*>(data), static_cast<size_t>(size))
              : std::string();
}

// The end of the chunk of rows that starts at `first`: rows are added while the chunk stays
// within `chunk_bytes` (8 bytes per value plus the texts of its string cells), at least one.
size_t ChunkEnd(const ResultTable& table, size_t first, size_t chunk_bytes) {
  const size_t width = table.columns.size();
  const size_t texts = table.string_columns();
  size_t bytes = 0;
  size_t row = first;
  while (row < table.rows()) {
    size_t row_bytes = width * sizeof(double) + table.integer_columns() * 9;  // fixed64, tag
    for (size_t i = row * texts; i < (row + 1) * texts && i < table.strings.size(); ++i) {
      row_bytes += table.strings[i].size() + 8;  // with its protobuf tag and length
    }
    if (row > first && bytes + row_bytes > chunk_bytes) break;
    bytes += row_bytes;
    ++row;
  }
  return row;
}

}  // namespace

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt); }

absl::StatusOr<int> BlobLength(size_t bytes, const std::string& what) {
  if (bytes > static_cast<size_t>(std::numeric_limits<int>::max())) {
    return absl::ResourceExhaustedError("job store: " + what + " is " + std::to_string(bytes) +
                                        " bytes, more than one blob can hold");
  }
  return static_cast<int>(bytes);
}

absl::StatusOr<std::unique_ptr<SqliteJobStore>> SqliteJobStore::Open(
    const std::string& path, const JobStoreOptions& options) {
  sqlite3* db = nullptr;
  const std::string file = path.empty() ? ":memory:" : path;
  if (sqlite3_open_v2(file.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return absl::UnavailableError("cannot open job store '" + file + "': " + message);
  }
  if (options.max_blob_bytes > 0) sqlite3_limit(db, SQLITE_LIMIT_LENGTH, options.max_blob_bytes);
  JobStoreOptions effective = options;
  // A chunk stays well below the blob limit (its serialization adds a few bytes per value).
  effective.chunk_bytes = std::min(
      effective.chunk_bytes, static_cast<size_t>(sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1)) / 2);
  std::unique_ptr<SqliteJobStore> store(new SqliteJobStore(db, effective));
  absl::MutexLock lock(&store->mutex_);  // no other thread has it yet: for the analysis
  const char* schema =
      "PRAGMA journal_mode=WAL;"
      "PRAGMA synchronous=NORMAL;"
      "CREATE TABLE IF NOT EXISTS jobs ("
      "  id TEXT PRIMARY KEY, submitted_ms INTEGER, status BLOB, scenario BLOB, owner TEXT);"
      "CREATE TABLE IF NOT EXISTS results ("
      "  id TEXT PRIMARY KEY, columns BLOB, values_blob BLOB, metadata BLOB, strings BLOB);"
      // Rows of results, in order of `seq`: each chunk a serialized ResultRows, `seq` its first
      // row and row_count its rows. Results stored before chunks existed have their rows in
      // results.values_blob / strings instead.
      "CREATE TABLE IF NOT EXISTS result_chunks ("
      "  id TEXT, seq INTEGER, rows BLOB, PRIMARY KEY (id, seq));"
      // The latest checkpoint of a running job: a serialized JobCheckpoint without its rows
      // (those written before checkpoint_rows existed hold them), ...
      "CREATE TABLE IF NOT EXISTS checkpoints (id TEXT PRIMARY KEY, checkpoint BLOB);"
      // ... and its results' rows, each checkpoint's new ones a serialized JobCheckpoint of
      // values and strings only, in order of first_row.
      "CREATE TABLE IF NOT EXISTS checkpoint_rows ("
      "  id TEXT, first_row INTEGER, row_count INTEGER, first_string INTEGER,"
      "  string_count INTEGER, chunk BLOB, PRIMARY KEY (id, first_row));"
      // A succeeded training job's result: a serialized TrainingResult (the weights file).
      "CREATE TABLE IF NOT EXISTS training_results (id TEXT PRIMARY KEY, result BLOB);"
      // A calibration job's measured samples: a serialized CalibrationJob of its samples alone.
      "CREATE TABLE IF NOT EXISTS calibration_samples (id TEXT PRIMARY KEY, samples BLOB);"
      // A job's log, one serialized LogEntry a line, in the order of rowid (sqlite_job_logs.cc).
      "CREATE TABLE IF NOT EXISTS job_logs (id TEXT NOT NULL, unit TEXT, line BLOB);"
      "CREATE INDEX IF NOT EXISTS job_logs_id ON job_logs (id);";
  if (absl::Status s = store->Exec(schema); !s.ok()) return s;
  // Stores written before string columns existed lack results.strings, and those written before
  // jobs had owners lack jobs.owner: add them (NULL for old rows: a job without an owner, which
  // only an admin may cancel or delete).
  if (absl::Status s = store->AddColumnIfMissing("results", "strings BLOB"); !s.ok()) return s;
  if (absl::Status s = store->AddColumnIfMissing("jobs", "owner TEXT"); !s.ok()) return s;
  // Chunks stored before rows were appended as they came have no row_count (NULL): their seq
  // counts chunks, not rows, and they belong to results already complete.
  if (absl::Status s = store->AddColumnIfMissing("result_chunks", "row_count INTEGER"); !s.ok()) {
    return s;
  }
  return store;
}

absl::Status SqliteJobStore::AddColumnIfMissing(const std::string& table,
                                                const std::string& column) {
  const std::string name = column.substr(0, column.find(' '));
  sqlite3_stmt* probe = nullptr;
  const bool has =
      sqlite3_prepare_v2(db_, ("SELECT " + name + " FROM " + table + " LIMIT 0").c_str(), -1,
                         &probe, nullptr) == SQLITE_OK;
  sqlite3_finalize(probe);
  if (has) return absl::OkStatus();
  return Exec("ALTER TABLE " + table + " ADD COLUMN " + column + ";");
}

SqliteJobStore::~SqliteJobStore() { sqlite3_close(db_); }

absl::Status SqliteJobStore::Error(const std::string& what) const {
  return absl::InternalError("job store: " + what + ": " + sqlite3_errmsg(db_));
}

absl::Status SqliteJobStore::TransactionLocked(const std::string& what,
                                               absl::FunctionRef<absl::Status()> body) {
  if (sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) return Error("begin");
  absl::Status s = body();
  if (s.ok() && sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) {
    s = Error("commit " + what);
  }
  if (!s.ok()) (void)sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  return s;
}

absl::Status SqliteJobStore::RunForJobLocked(const char* sql, const std::string& job_id,
                                             const std::string& what) {
  SqliteStatement s;
  if (sqlite3_prepare_v2(db_, sql, -1, &s.stmt, nullptr) != SQLITE_OK ||
      sqlite3_bind_text(s.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK ||
      sqlite3_step(s.stmt) != SQLITE_DONE) {
    return Error(what);
  }
  return absl::OkStatus();
}

absl::Status SqliteJobStore::BindBlob(sqlite3_stmt* stmt, int index, const std::string& bytes,
                                      const std::string& what) const {
  absl::StatusOr<int> length = BlobLength(bytes.size(), what);
  if (!length.ok()) return length.status();
  if (sqlite3_bind_blob(stmt, index, bytes.data(), *length, SQLITE_TRANSIENT) != SQLITE_OK) {
    return Error("store " + what + " (" + std::to_string(bytes.size()) + " bytes)");
  }
  return absl::OkStatus();
}

absl::Status SqliteJobStore::Exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    return absl::InternalError("job store: " + message);
  }
  return absl::OkStatus();
}

absl::Status SqliteJobStore::Put(const v1::JobStatus& status, const v1::Scenario& scenario) {
  absl::MutexLock lock(&mutex_);
  SqliteStatement s;
  if (sqlite3_prepare_v2(db_,
                         "INSERT OR REPLACE INTO jobs (id, submitted_ms, status, scenario, owner) "
                         "VALUES (?, ?, ?, ?, ?)",
                         -1, &s.stmt, nullptr) != SQLITE_OK) {
    return Error("prepare insert");
  }
  if (sqlite3_bind_text(s.stmt, 1, status.job_id().c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK ||
      sqlite3_bind_int64(s.stmt, 2, status.submitted_unix_ms()) != SQLITE_OK ||
      sqlite3_bind_text(s.stmt, 5, status.owner().c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
    return Error("bind job " + status.job_id());
  }
  if (absl::Status b = BindBlob(s.stmt, 3, status.SerializeAsString(), "the job's status");
      !b.ok()) {
    return b;
  }
  if (absl::Status b = BindBlob(s.stmt, 4, scenario.SerializeAsString(), "the job's scenario");
      !b.ok()) {
    return b;
  }
  if (sqlite3_step(s.stmt) != SQLITE_DONE) return Error("insert job " + status.job_id());
  return absl::OkStatus();
}

absl::Status SqliteJobStore::UpdateStatus(const v1::JobStatus& status) {
  absl::MutexLock lock(&mutex_);
  SqliteStatement s;
  if (sqlite3_prepare_v2(db_, "UPDATE jobs SET status = ? WHERE id = ?", -1, &s.stmt, nullptr) !=
      SQLITE_OK) {
    return Error("prepare update");
  }
  if (absl::Status b = BindBlob(s.stmt, 1, status.SerializeAsString(), "the job's status");
      !b.ok()) {
    return b;
  }
  if (sqlite3_bind_text(s.stmt, 2, status.job_id().c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
    return Error("bind job " + status.job_id());
  }
  if (sqlite3_step(s.stmt) != SQLITE_DONE) return Error("update job " + status.job_id());
  return absl::OkStatus();
}

absl::Status SqliteJobStore::Delete(const std::string& job_id) {
  absl::MutexLock lock(&mutex_);
  return TransactionLocked("the deletion of " + job_id, [&]() -> absl::Status {
    mutex_.AssertHeld();  // TransactionLocked runs the body with it
    for (const char* sql :
         {"DELETE FROM result_chunks WHERE id = ?", "DELETE FROM results WHERE id = ?",
          "DELETE FROM training_results WHERE id = ?", "DELETE FROM checkpoints WHERE id = ?",
          "DELETE FROM calibration_samples WHERE id = ?",
          "DELETE FROM checkpoint_rows WHERE id = ?", "DELETE FROM job_logs WHERE id = ?",
          "DELETE FROM jobs WHERE id = ?"}) {
      COSIMO_RETURN_IF_ERROR(RunForJobLocked(sql, job_id, "delete job " + job_id));
    }
    // A sweep job's variants' results, "<job>/variant-K" ('/' sorts just before '0').
    for (const char* sql : {"DELETE FROM result_chunks WHERE id > ?1 || '/' AND id < ?1 || '0'",
                            "DELETE FROM results WHERE id > ?1 || '/' AND id < ?1 || '0'"}) {
      COSIMO_RETURN_IF_ERROR(RunForJobLocked(sql, job_id, "delete job " + job_id));
    }
    return absl::OkStatus();
  });
}

absl::Status SqliteJobStore::PutResults(const std::string& job_id, const StoredResults& results) {
  absl::MutexLock lock(&mutex_);
  return TransactionLocked("results of " + job_id, [&] {
    mutex_.AssertHeld();  // TransactionLocked runs the body with it
    return PutResultsLocked(job_id, results);
  });
}

absl::Status SqliteJobStore::PutResultsLocked(const std::string& job_id,
                                              const StoredResults& results) {
  uint64_t stored = 0;
  if (results.after_appended_rows) {
    COSIMO_ASSIGN_OR_RETURN(stored, StoredRowsLocked(job_id));
  } else {
    COSIMO_RETURN_IF_ERROR(RunForJobLocked("DELETE FROM result_chunks WHERE id = ?", job_id,
                                           "replace results of " + job_id));
  }
  {
    SqliteStatement s;
    if (sqlite3_prepare_v2(db_,
                           "INSERT OR REPLACE INTO results (id, columns, values_blob, metadata, "
                           "strings) VALUES (?, ?, NULL, ?, NULL)",
                           -1, &s.stmt, nullptr) != SQLITE_OK) {
      return Error("prepare results");
    }
    v1::ResultsHeader header;
    ToProto(results, &header);
    if (sqlite3_bind_text(s.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
      return Error("bind results of " + job_id);
    }
    if (absl::Status b = BindBlob(s.stmt, 2, header.SerializeAsString(), "the results' columns");
        !b.ok()) {
      return b;
    }
    if (absl::Status b =
            BindBlob(s.stmt, 3, results.metadata.SerializeAsString(), "the results' metadata");
        !b.ok()) {
      return b;
    }
    if (sqlite3_step(s.stmt) != SQLITE_DONE) return Error("store results of " + job_id);
  }
  v1::ResultRows rows;
  for (size_t first = 0; first < results.rows();) {
    const size_t end = ChunkEnd(results, first, options_.chunk_bytes);
    RowsToProto(results, first, end - first, &rows);
    const std::string what = "rows " + std::to_string(stored + first) + " to " +
                             std::to_string(stored + end - 1) + " of the results of " + job_id;
    COSIMO_RETURN_IF_ERROR(InsertChunkLocked(job_id, stored + first, end - first, rows, what));
    first = end;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<StoredJob>> SqliteJobStore::LoadAll() {
  absl::MutexLock lock(&mutex_);
  SqliteStatement s;
  if (sqlite3_prepare_v2(db_, "SELECT status, scenario, owner FROM jobs ORDER BY submitted_ms, id",
                         -1, &s.stmt, nullptr) != SQLITE_OK) {
    return Error("prepare select");
  }
  std::vector<StoredJob> jobs;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW) {
    StoredJob job;
    if (!job.status.ParseFromString(ColumnBlob(s.stmt, 0)) ||
        !job.scenario.ParseFromString(ColumnBlob(s.stmt, 1))) {
      return absl::DataLossError("job store: a job record is corrupt");
    }
    // The column is the owner's record (NULL for a job stored before owners were).
    const unsigned char* owner = sqlite3_column_text(s.stmt, 2);
    job.status.set_owner(owner != nullptr ? reinterpret_cast<const char*>(owner) : "");
    jobs.push_back(std::move(job));
  }
  if (rc != SQLITE_DONE) return Error("read the jobs");
  return jobs;
}

absl::StatusOr<v1::Scenario> SqliteJobStore::LoadScenario(const std::string& job_id) {
  v1::Scenario scenario;
  COSIMO_RETURN_IF_ERROR(LoadMessage("jobs", "scenario", job_id, "the scenario",
                                     "no job " + job_id + " in the job store", &scenario));
  return scenario;
}

absl::Status SqliteJobStore::PutMessage(const char* table, const char* column,
                                        const std::string& job_id,
                                        const google::protobuf::MessageLite& message,
                                        const std::string& what) {
  absl::MutexLock lock(&mutex_);
  return PutMessageLocked(table, column, job_id, message, what);
}

absl::Status SqliteJobStore::PutMessageLocked(const char* table, const char* column,
                                              const std::string& job_id,
                                              const google::protobuf::MessageLite& message,
                                              const std::string& what) {
  SqliteStatement s;
  const std::string sql =
      absl::StrCat("INSERT OR REPLACE INTO ", table, " (id, ", column, ") VALUES (?, ?)");
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s.stmt, nullptr) != SQLITE_OK ||
      sqlite3_bind_text(s.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
    return Error("prepare to store " + what + " of " + job_id);
  }
  if (absl::Status b = BindBlob(s.stmt, 2, message.SerializeAsString(), what); !b.ok()) return b;
  if (sqlite3_step(s.stmt) != SQLITE_DONE) return Error("store " + what + " of " + job_id);
  return absl::OkStatus();
}

absl::Status SqliteJobStore::LoadMessage(const char* table, const char* column,
                                         const std::string& job_id, const std::string& what,
                                         const std::string& missing,
                                         google::protobuf::MessageLite* message) {
  absl::MutexLock lock(&mutex_);
  return LoadMessageLocked(table, column, job_id, what, missing, message);
}

absl::Status SqliteJobStore::LoadMessageLocked(const char* table, const char* column,
                                               const std::string& job_id, const std::string& what,
                                               const std::string& missing,
                                               google::protobuf::MessageLite* message) {
  SqliteStatement s;
  const std::string sql = absl::StrCat("SELECT ", column, " FROM ", table, " WHERE id = ?");
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &s.stmt, nullptr) != SQLITE_OK ||
      sqlite3_bind_text(s.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
    return Error("prepare to read " + what + " of " + job_id);
  }
  const int rc = sqlite3_step(s.stmt);
  if (rc == SQLITE_DONE) return absl::NotFoundError(missing);
  if (rc != SQLITE_ROW) return Error("read " + what + " of " + job_id);
  if (!message->ParseFromString(ColumnBlob(s.stmt, 0))) {
    return absl::DataLossError("job store: " + what + " of " + job_id + " is corrupt");
  }
  return absl::OkStatus();
}

absl::Status SqliteJobStore::PutCalibrationSamples(const std::string& job_id,
                                                   const v1::CalibrationJob& samples) {
  return PutMessage("calibration_samples", "samples", job_id, samples,
                    "the calibration's measured samples");
}

absl::StatusOr<v1::CalibrationJob> SqliteJobStore::LoadCalibrationSamples(
    const std::string& job_id) {
  v1::CalibrationJob samples;
  COSIMO_RETURN_IF_ERROR(LoadMessage("calibration_samples", "samples", job_id,
                                     "the calibration's measured samples",
                                     "no calibration samples stored for job " + job_id, &samples));
  return samples;
}

absl::Status SqliteJobStore::PutTrainingResult(const std::string& job_id,
                                               const v1::TrainingResult& result) {
  return PutMessage("training_results", "result", job_id, result, "the training result");
}

absl::StatusOr<v1::TrainingResult> SqliteJobStore::LoadTrainingResult(const std::string& job_id) {
  v1::TrainingResult result;
  COSIMO_RETURN_IF_ERROR(LoadMessage("training_results", "result", job_id, "the training result",
                                     "no training result stored for job " + job_id, &result));
  return result;
}

absl::StatusOr<StoredResults> SqliteJobStore::LoadResultsHead(const std::string& job_id) {
  absl::MutexLock lock(&mutex_);
  return LoadResultsHeadLocked(job_id);
}

absl::StatusOr<StoredResults> SqliteJobStore::LoadResultsHeadLocked(const std::string& job_id) {
  SqliteStatement s;
  if (sqlite3_prepare_v2(db_,
                         "SELECT columns, values_blob, metadata, strings FROM results WHERE id = ?",
                         -1, &s.stmt, nullptr) != SQLITE_OK ||
      sqlite3_bind_text(s.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
    return Error("prepare results select");
  }
  if (sqlite3_step(s.stmt) != SQLITE_ROW) {
    return absl::NotFoundError("no results stored for job " + job_id);
  }
  StoredResults results;
  v1::ResultsHeader header;
  v1::ResultRows strings;
  if (!header.ParseFromString(ColumnBlob(s.stmt, 0)) ||
      !results.metadata.ParseFromString(ColumnBlob(s.stmt, 2)) ||
      !strings.ParseFromString(ColumnBlob(s.stmt, 3))) {
    return absl::DataLossError("job store: results of " + job_id + " are corrupt");
  }
  FromProto(header, &results);
  // Rows stored in the results record itself (before chunks existed).
  results.strings.assign(strings.strings().begin(), strings.strings().end());
  const std::string values = ColumnBlob(s.stmt, 1);
  results.values.resize(values.size() / sizeof(double));
  std::memcpy(results.values.data(), values.data(), results.values.size() * sizeof(double));
  return results;
}

absl::StatusOr<StoredResults> SqliteJobStore::LoadResults(const std::string& job_id) {
  absl::MutexLock lock(&mutex_);
  COSIMO_ASSIGN_OR_RETURN(StoredResults results, LoadResultsHeadLocked(job_id));
  SqliteStatement chunks;
  if (sqlite3_prepare_v2(db_, "SELECT rows FROM result_chunks WHERE id = ? ORDER BY seq", -1,
                         &chunks.stmt, nullptr) != SQLITE_OK ||
      sqlite3_bind_text(chunks.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
    return Error("prepare result chunks select");
  }
  v1::ResultRows rows;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(chunks.stmt)) == SQLITE_ROW) {
    if (!rows.ParseFromString(ColumnBlob(chunks.stmt, 0))) {
      return absl::DataLossError("job store: a chunk of the results of " + job_id + " is corrupt");
    }
    cosimo::AppendRows(rows, &results);
  }
  if (rc != SQLITE_DONE) return Error("read the results of " + job_id);
  if (!results.columns.empty() && results.values.size() % results.columns.size() != 0) {
    return absl::DataLossError("job store: the results of " + job_id + " end in a partial row");
  }
  return results;
}

absl::Status SqliteJobStore::PutCheckpoint(const std::string& job_id,
                                           const v1::JobCheckpoint& checkpoint) {
  const auto columns = static_cast<uint64_t>(checkpoint.columns_size());
  const auto values = static_cast<uint64_t>(checkpoint.values_size());
  if (columns == 0 ? values != 0 : values % columns != 0) {
    return absl::InvalidArgumentError("job store: the checkpoint of " + job_id +
                                      " ends in a partial row");
  }
  const uint64_t rows = columns == 0 ? 0 : values / columns;
  const auto strings = static_cast<uint64_t>(checkpoint.strings_size());
  // The state without the rows, and the rows alone (moved over, not copied twice).
  v1::JobCheckpoint state = checkpoint;
  v1::JobCheckpoint chunk;
  chunk.mutable_values()->Swap(state.mutable_values());
  chunk.mutable_strings()->Swap(state.mutable_strings());
  state.clear_rows_from();
  state.clear_strings_from();

  absl::MutexLock lock(&mutex_);
  return TransactionLocked("the checkpoint of " + job_id, [&]() -> absl::Status {
    mutex_.AssertHeld();  // TransactionLocked runs the body with it
    if (checkpoint.rows_from() == 0 && checkpoint.strings_from() == 0) {
      COSIMO_RETURN_IF_ERROR(RunForJobLocked("DELETE FROM checkpoint_rows WHERE id = ?", job_id,
                                             "remove the checkpoint rows of " + job_id));
    } else {
      // The rows continue those stored: the end of the last chunk.
      SqliteStatement q;
      if (sqlite3_prepare_v2(db_,
                             "SELECT first_row + row_count, first_string + string_count FROM "
                             "checkpoint_rows WHERE id = ? ORDER BY first_row DESC LIMIT 1",
                             -1, &q.stmt, nullptr) != SQLITE_OK ||
          sqlite3_bind_text(q.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
        return Error("prepare to read the checkpoint rows of " + job_id);
      }
      const int rc = sqlite3_step(q.stmt);
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
        return Error("read the checkpoint rows of " + job_id);
      }
      const auto held_rows =
          rc == SQLITE_ROW ? static_cast<uint64_t>(sqlite3_column_int64(q.stmt, 0)) : 0;
      const auto held_strings =
          rc == SQLITE_ROW ? static_cast<uint64_t>(sqlite3_column_int64(q.stmt, 1)) : 0;
      if (held_rows != checkpoint.rows_from() || held_strings != checkpoint.strings_from()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "job store: the checkpoint of ", job_id, " carries the results from row ",
            checkpoint.rows_from(), " (text ", checkpoint.strings_from(),
            ") on, but the store holds ", held_rows, " rows (", held_strings, " texts)"));
      }
    }
    if (rows > 0 || strings > 0) {
      SqliteStatement i;
      if (sqlite3_prepare_v2(db_,
                             "INSERT INTO checkpoint_rows (id, first_row, row_count, first_string, "
                             "string_count, chunk) VALUES (?, ?, ?, ?, ?, ?)",
                             -1, &i.stmt, nullptr) != SQLITE_OK ||
          sqlite3_bind_text(i.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK ||
          sqlite3_bind_int64(i.stmt, 2, static_cast<sqlite3_int64>(checkpoint.rows_from())) !=
              SQLITE_OK ||
          sqlite3_bind_int64(i.stmt, 3, static_cast<sqlite3_int64>(rows)) != SQLITE_OK ||
          sqlite3_bind_int64(i.stmt, 4, static_cast<sqlite3_int64>(checkpoint.strings_from())) !=
              SQLITE_OK ||
          sqlite3_bind_int64(i.stmt, 5, static_cast<sqlite3_int64>(strings)) != SQLITE_OK) {
        return Error("prepare to store the checkpoint rows of " + job_id);
      }
      COSIMO_RETURN_IF_ERROR(
          BindBlob(i.stmt, 6, chunk.SerializeAsString(), "the checkpoint's rows"));
      if (sqlite3_step(i.stmt) != SQLITE_DONE) {
        return Error("store the checkpoint rows of " + job_id);
      }
    }
    return PutMessageLocked("checkpoints", "checkpoint", job_id, state, "the checkpoint");
  });
}

absl::StatusOr<v1::JobCheckpoint> SqliteJobStore::LoadCheckpoint(const std::string& job_id) {
  // The state and its rows under one lock, so that no checkpoint stored meanwhile mixes in.
  absl::MutexLock lock(&mutex_);
  v1::JobCheckpoint checkpoint;
  COSIMO_RETURN_IF_ERROR(LoadMessageLocked("checkpoints", "checkpoint", job_id, "the checkpoint",
                                           "job " + job_id + " has no checkpoint", &checkpoint));
  SqliteStatement s;
  if (sqlite3_prepare_v2(db_,
                         "SELECT first_row, row_count, first_string, string_count, chunk FROM "
                         "checkpoint_rows WHERE id = ? ORDER BY first_row",
                         -1, &s.stmt, nullptr) != SQLITE_OK ||
      sqlite3_bind_text(s.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
    return Error("prepare to read the checkpoint rows of " + job_id);
  }
  const auto columns = static_cast<uint64_t>(checkpoint.columns_size());
  v1::JobCheckpoint chunk;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(s.stmt)) == SQLITE_ROW) {
    const auto first_row = static_cast<uint64_t>(sqlite3_column_int64(s.stmt, 0));
    const auto row_count = static_cast<uint64_t>(sqlite3_column_int64(s.stmt, 1));
    const auto first_string = static_cast<uint64_t>(sqlite3_column_int64(s.stmt, 2));
    const auto string_count = static_cast<uint64_t>(sqlite3_column_int64(s.stmt, 3));
    const uint64_t rows =
        columns == 0 ? 0 : static_cast<uint64_t>(checkpoint.values_size()) / columns;
    if (!chunk.ParseFromString(ColumnBlob(s.stmt, 4)) || first_row != rows ||
        first_string != static_cast<uint64_t>(checkpoint.strings_size()) ||
        static_cast<uint64_t>(chunk.values_size()) != row_count * columns ||
        static_cast<uint64_t>(chunk.strings_size()) != string_count) {
      return absl::DataLossError(absl::StrCat("job store: the checkpoint rows of ", job_id,
                                              " from row ", first_row, " are corrupt"));
    }
    checkpoint.mutable_values()->Add(chunk.values().begin(), chunk.values().end());
    for (const std::string& text : chunk.strings()) checkpoint.add_strings(text);
  }
  if (rc != SQLITE_DONE) return Error("read the checkpoint rows of " + job_id);
  return checkpoint;
}

absl::Status SqliteJobStore::DeleteCheckpoint(const std::string& job_id) {
  absl::MutexLock lock(&mutex_);
  for (const char* sql :
       {"DELETE FROM checkpoint_rows WHERE id = ?", "DELETE FROM checkpoints WHERE id = ?"}) {
    COSIMO_RETURN_IF_ERROR(RunForJobLocked(sql, job_id, "delete the checkpoint of " + job_id));
  }
  return absl::OkStatus();
}

}  // namespace cosimo::orchestrator
