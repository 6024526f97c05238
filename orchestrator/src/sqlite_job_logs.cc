// SqliteJobStore's job logs (GetJobLogs): one row of job_logs per line, a serialized LogEntry,
// appended as the workers send them and read back in rowid order.
#include <sqlite3.h>

#include <string>
#include <vector>

#include "cosimo/common/status.h"
#include "orchestrator/src/sqlite_job_store.h"

namespace cosimo::orchestrator {

absl::Status SqliteJobStore::AppendLogs(const std::string& job_id,
                                        const std::vector<v1::LogEntry>& lines) {
  if (lines.empty()) return absl::OkStatus();
  absl::MutexLock lock(&mutex_);
  const std::string what = "the log lines of " + job_id;
  return TransactionLocked(what, [&]() -> absl::Status {
    mutex_.AssertHeld();  // TransactionLocked runs the body with it
    SqliteStatement s;
    // Only for a job the store holds: a line that comes after its deletion is dropped.
    if (sqlite3_prepare_v2(db_,
                           "INSERT INTO job_logs (id, unit, line) SELECT ?1, ?2, ?3 "
                           "WHERE EXISTS (SELECT 1 FROM jobs WHERE id = ?1)",
                           -1, &s.stmt, nullptr) != SQLITE_OK ||
        sqlite3_bind_text(s.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
      return Error("prepare to store " + what);
    }
    for (const v1::LogEntry& line : lines) {
      if (sqlite3_bind_text(s.stmt, 2, line.unit().c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
        return Error("store " + what);
      }
      COSIMO_RETURN_IF_ERROR(BindBlob(s.stmt, 3, line.SerializeAsString(), what));
      if (sqlite3_step(s.stmt) != SQLITE_DONE) return Error("store " + what);
      sqlite3_reset(s.stmt);
    }
    return absl::OkStatus();
  });
}

absl::StatusOr<std::vector<v1::LogEntry>> SqliteJobStore::LoadLogs(const std::string& job_id,
                                                                   const std::string& unit) {
  absl::MutexLock lock(&mutex_);
  const std::string what = "the log of " + job_id;
  SqliteStatement q;
  if (sqlite3_prepare_v2(db_,
                         "SELECT line FROM job_logs WHERE id = ?1 AND (?2 = '' OR unit = ?2) "
                         "ORDER BY rowid",
                         -1, &q.stmt, nullptr) != SQLITE_OK ||
      sqlite3_bind_text(q.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK ||
      sqlite3_bind_text(q.stmt, 2, unit.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
    return Error("prepare to read " + what);
  }
  std::vector<v1::LogEntry> lines;
  int rc = SQLITE_ROW;
  while ((rc = sqlite3_step(q.stmt)) == SQLITE_ROW) {
    const void* bytes = sqlite3_column_blob(q.stmt, 0);
    const int size = sqlite3_column_bytes(q.stmt, 0);
    if (!lines.emplace_back().ParseFromArray(bytes, size)) {
      return absl::DataLossError("job store: a line of " + what + " does not parse");
    }
  }
  if (rc != SQLITE_DONE) return Error("read " + what);
  return lines;
}

}  // namespace cosimo::orchestrator
