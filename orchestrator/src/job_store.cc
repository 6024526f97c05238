#include "orchestrator/src/job_store.h"

#include <sqlite3.h>

#include <cstring>
#include <memory>

#include "cosimo/common/results_proto.h"

namespace cosimo::orchestrator {
namespace {

// RAII for a prepared statement.
struct Statement {
  sqlite3_stmt* stmt = nullptr;
  ~Statement() { sqlite3_finalize(stmt); }
};

void BindBlob(sqlite3_stmt* stmt, int index, const std::string& bytes) {
  sqlite3_bind_blob(stmt, index, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
}

std::string ColumnBlob(sqlite3_stmt* stmt, int index) {
  const void* data = sqlite3_column_blob(stmt, index);
  const int size = sqlite3_column_bytes(stmt, index);
  return data ? std::string(static_cast<const char*>(data), static_cast<size_t>(size))
              : std::string();
}

}  // namespace

absl::StatusOr<std::unique_ptr<JobStore>> JobStore::Open(const std::string& path) {
  sqlite3* db = nullptr;
  const std::string file = path.empty() ? ":memory:" : path;
  if (sqlite3_open_v2(file.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return absl::UnavailableError("cannot open job store '" + file + "': " + message);
  }
  std::unique_ptr<JobStore> store(new JobStore(db));
  const char* schema =
      "PRAGMA journal_mode=WAL;"
      "PRAGMA synchronous=NORMAL;"
      "CREATE TABLE IF NOT EXISTS jobs ("
      "  id TEXT PRIMARY KEY, submitted_ms INTEGER, status BLOB, scenario BLOB);"
      "CREATE TABLE IF NOT EXISTS results ("
      "  id TEXT PRIMARY KEY, columns BLOB, values_blob BLOB, metadata BLOB, strings BLOB);";
  if (absl::Status s = store->Exec(schema); !s.ok()) return s;
  // Stores written before string columns existed lack `strings`: add it (NULL for old rows).
  sqlite3_stmt* probe = nullptr;
  const bool has_strings = sqlite3_prepare_v2(db, "SELECT strings FROM results LIMIT 0", -1, &probe,
                                              nullptr) == SQLITE_OK;
  sqlite3_finalize(probe);
  if (!has_strings) {
    if (absl::Status s = store->Exec("ALTER TABLE results ADD COLUMN strings BLOB;"); !s.ok()) {
      return s;
    }
  }
  return store;
}

JobStore::~JobStore() { sqlite3_close(db_); }

absl::Status JobStore::Error(const std::string& what) const {
  return absl::InternalError("job store: " + what + ": " + sqlite3_errmsg(db_));
}

absl::Status JobStore::Exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    return absl::InternalError("job store: " + message);
  }
  return absl::OkStatus();
}

absl::Status JobStore::Put(const v1::JobStatus& status, const v1::Scenario& scenario) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s;
  if (sqlite3_prepare_v2(db_,
                         "INSERT OR REPLACE INTO jobs (id, submitted_ms, status, scenario) "
                         "VALUES (?, ?, ?, ?)",
                         -1, &s.stmt, nullptr) != SQLITE_OK) {
    return Error("prepare insert");
  }
  sqlite3_bind_text(s.stmt, 1, status.job_id().c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(s.stmt, 2, status.submitted_unix_ms());
  BindBlob(s.stmt, 3, status.SerializeAsString());
  BindBlob(s.stmt, 4, scenario.SerializeAsString());
  if (sqlite3_step(s.stmt) != SQLITE_DONE) return Error("insert job " + status.job_id());
  return absl::OkStatus();
}

absl::Status JobStore::UpdateStatus(const v1::JobStatus& status) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s;
  if (sqlite3_prepare_v2(db_, "UPDATE jobs SET status = ? WHERE id = ?", -1, &s.stmt, nullptr) !=
      SQLITE_OK) {
    return Error("prepare update");
  }
  BindBlob(s.stmt, 1, status.SerializeAsString());
  sqlite3_bind_text(s.stmt, 2, status.job_id().c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(s.stmt) != SQLITE_DONE) return Error("update job " + status.job_id());
  return absl::OkStatus();
}

absl::Status JobStore::Delete(const std::string& job_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) return Error("begin");
  for (const char* sql : {"DELETE FROM results WHERE id = ?", "DELETE FROM jobs WHERE id = ?"}) {
    Statement s;
    if (sqlite3_prepare_v2(db_, sql, -1, &s.stmt, nullptr) != SQLITE_OK) {
      (void)sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return Error("prepare delete");
    }
    sqlite3_bind_text(s.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s.stmt) != SQLITE_DONE) {
      absl::Status error = Error("delete job " + job_id);
      (void)sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
      return error;
    }
  }
  if (sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr) != SQLITE_OK) return Error("commit");
  return absl::OkStatus();
}

absl::Status JobStore::PutResults(const std::string& job_id, const StoredResults& results) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s;
  if (sqlite3_prepare_v2(db_,
                         "INSERT OR REPLACE INTO results (id, columns, values_blob, metadata, "
                         "strings) VALUES (?, ?, ?, ?, ?)",
                         -1, &s.stmt, nullptr) != SQLITE_OK) {
    return Error("prepare results");
  }
  v1::ResultsHeader header;
  ToProto(results, &header);
  v1::ResultRows strings;
  for (const std::string& text : results.strings) strings.add_strings(text);
  sqlite3_bind_text(s.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT);
  BindBlob(s.stmt, 2, header.SerializeAsString());
  sqlite3_bind_blob(s.stmt, 3, results.values.data(),
                    static_cast<int>(results.values.size() * sizeof(double)), SQLITE_TRANSIENT);
  BindBlob(s.stmt, 4, results.metadata.SerializeAsString());
  BindBlob(s.stmt, 5, strings.SerializeAsString());
  if (sqlite3_step(s.stmt) != SQLITE_DONE) return Error("store results of " + job_id);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<StoredJob>> JobStore::LoadAll() {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s;
  if (sqlite3_prepare_v2(db_, "SELECT status, scenario FROM jobs ORDER BY submitted_ms, id", -1,
                         &s.stmt, nullptr) != SQLITE_OK) {
    return Error("prepare select");
  }
  std::vector<StoredJob> jobs;
  while (sqlite3_step(s.stmt) == SQLITE_ROW) {
    StoredJob job;
    if (!job.status.ParseFromString(ColumnBlob(s.stmt, 0)) ||
        !job.scenario.ParseFromString(ColumnBlob(s.stmt, 1))) {
      return absl::DataLossError("job store: a job record is corrupt");
    }
    jobs.push_back(std::move(job));
  }
  return jobs;
}

absl::StatusOr<StoredResults> JobStore::LoadResults(const std::string& job_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  Statement s;
  if (sqlite3_prepare_v2(db_,
                         "SELECT columns, values_blob, metadata, strings FROM results WHERE id = ?",
                         -1, &s.stmt, nullptr) != SQLITE_OK) {
    return Error("prepare results select");
  }
  sqlite3_bind_text(s.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT);
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
  results.strings.assign(strings.strings().begin(), strings.strings().end());
  const std::string values = ColumnBlob(s.stmt, 1);
  results.values.resize(values.size() / sizeof(double));
  std::memcpy(results.values.data(), values.data(), results.values.size() * sizeof(double));
  return results;
}

}  // namespace cosimo::orchestrator
