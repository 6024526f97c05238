// SqliteJobStore's rows of a running job (issue 40): chunks appended to result_chunks as the run
// records them, each keyed by the job and its first row (seq) with its row count, and cut back to
// a checkpoint's rows when a run resumes. PutResults (sqlite_job_store.cc) adds the results
// record that makes them the job's results.
#include <sqlite3.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "orchestrator/src/sqlite_job_store.h"

namespace cosimo::orchestrator {
namespace {

// The first `keep` rows of a chunk of `row_count` rows.
void KeepRows(uint64_t row_count, uint64_t keep, v1::ResultRows* rows) {
  auto cut = [&](auto* field) {
    const auto size = static_cast<uint64_t>(field->size());
    const uint64_t per_row = row_count == 0 ? 0 : size / row_count;
    field->Truncate(static_cast<int>(per_row * keep));
  };
  cut(rows->mutable_values());
  cut(rows->mutable_integers());
  auto* strings = rows->mutable_strings();
  const uint64_t texts = row_count == 0 ? 0 : static_cast<uint64_t>(strings->size()) / row_count;
  strings->DeleteSubrange(static_cast<int>(texts * keep),
                          strings->size() - static_cast<int>(texts * keep));
}

// Drops the first `drop` rows of a chunk of `row_count` rows.
void DropFirstRows(uint64_t row_count, uint64_t drop, v1::ResultRows* rows) {
  auto cut = [&](auto* field) {
    const auto per_row = row_count == 0 ? 0 : static_cast<uint64_t>(field->size()) / row_count;
    field->erase(field->begin(), field->begin() + static_cast<std::ptrdiff_t>(per_row * drop));
  };
  cut(rows->mutable_values());
  cut(rows->mutable_integers());
  cut(rows->mutable_strings());
}

}  // namespace

absl::StatusOr<bool> SqliteJobStore::ChunkLocked(const std::string& job_id, uint64_t row,
                                                 uint64_t* first, uint64_t* count,
                                                 v1::ResultRows* rows) {
  SqliteStatement q;
  if (sqlite3_prepare_v2(db_,
                         "SELECT seq, row_count, rows FROM result_chunks WHERE id = ? "
                         "AND seq <= ? ORDER BY seq DESC LIMIT 1",
                         -1, &q.stmt, nullptr) != SQLITE_OK ||
      sqlite3_bind_text(q.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK ||
      sqlite3_bind_int64(q.stmt, 2, static_cast<sqlite3_int64>(row)) != SQLITE_OK) {
    return Error("prepare to read the rows of " + job_id);
  }
  const int rc = sqlite3_step(q.stmt);
  if (rc == SQLITE_DONE) return false;
  if (rc != SQLITE_ROW) return Error("read the rows of " + job_id);
  if (sqlite3_column_type(q.stmt, 1) == SQLITE_NULL) {
    return absl::FailedPreconditionError("job store: " + job_id +
                                         " holds results stored whole, not appended rows");
  }
  *first = static_cast<uint64_t>(sqlite3_column_int64(q.stmt, 0));
  *count = static_cast<uint64_t>(sqlite3_column_int64(q.stmt, 1));
  if (*first + *count <= row) return false;
  if (!rows->ParseFromArray(sqlite3_column_blob(q.stmt, 2), sqlite3_column_bytes(q.stmt, 2))) {
    return absl::DataLossError(absl::StrCat("job store: the chunk of the rows of ", job_id,
                                            " at row ", row, " is corrupt"));
  }
  return true;
}

absl::Status SqliteJobStore::ReadRows(const std::string& job_id, uint64_t first_row,
                                      const RowChunkSink& sink) {
  uint64_t next = first_row;
  v1::ResultRows rows;
  while (true) {
    uint64_t first = 0, count = 0;
    {
      absl::MutexLock lock(&mutex_);  // one chunk at a time: none held while the sink runs
      COSIMO_ASSIGN_OR_RETURN(const bool found, ChunkLocked(job_id, next, &first, &count, &rows));
      if (!found) return absl::OkStatus();
    }
    DropFirstRows(count, next - first, &rows);
    if (!sink(next, first + count - next, rows)) return absl::OkStatus();
    next = first + count;
  }
}

absl::StatusOr<uint64_t> SqliteJobStore::AppendedRows(const std::string& job_id) {
  absl::MutexLock lock(&mutex_);
  return StoredRowsLocked(job_id);
}

absl::StatusOr<uint64_t> SqliteJobStore::StoredRowsLocked(const std::string& job_id) {
  SqliteStatement q;
  if (sqlite3_prepare_v2(db_,
                         "SELECT seq + row_count FROM result_chunks WHERE id = ? "
                         "ORDER BY seq DESC LIMIT 1",
                         -1, &q.stmt, nullptr) != SQLITE_OK ||
      sqlite3_bind_text(q.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK) {
    return Error("prepare to read the stored rows of " + job_id);
  }
  const int rc = sqlite3_step(q.stmt);
  if (rc == SQLITE_DONE) return 0;
  if (rc != SQLITE_ROW) return Error("read the stored rows of " + job_id);
  if (sqlite3_column_type(q.stmt, 0) == SQLITE_NULL) {
    return absl::FailedPreconditionError("job store: " + job_id +
                                         " holds results stored whole, not appended rows");
  }
  return static_cast<uint64_t>(sqlite3_column_int64(q.stmt, 0));
}

absl::Status SqliteJobStore::InsertChunkLocked(const std::string& job_id, uint64_t first_row,
                                               uint64_t row_count, const v1::ResultRows& rows,
                                               const std::string& what) {
  SqliteStatement s;
  if (sqlite3_prepare_v2(db_,
                         "INSERT OR REPLACE INTO result_chunks (id, seq, rows, row_count) "
                         "VALUES (?, ?, ?, ?)",
                         -1, &s.stmt, nullptr) != SQLITE_OK ||
      sqlite3_bind_text(s.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK ||
      sqlite3_bind_int64(s.stmt, 2, static_cast<sqlite3_int64>(first_row)) != SQLITE_OK ||
      sqlite3_bind_int64(s.stmt, 4, static_cast<sqlite3_int64>(row_count)) != SQLITE_OK) {
    return Error("prepare to store " + what);
  }
  COSIMO_RETURN_IF_ERROR(BindBlob(s.stmt, 3, rows.SerializeAsString(), what));
  if (sqlite3_step(s.stmt) != SQLITE_DONE) return Error("store " + what);
  return absl::OkStatus();
}

absl::Status SqliteJobStore::AppendRows(const std::string& job_id, uint64_t first_row,
                                        uint64_t row_count, const v1::ResultRows& rows) {
  absl::MutexLock lock(&mutex_);
  COSIMO_ASSIGN_OR_RETURN(const uint64_t stored, StoredRowsLocked(job_id));
  if (stored != first_row) {
    return absl::FailedPreconditionError(
        absl::StrCat("job store: the rows of ", job_id, " from row ", first_row,
                     " on do not continue the ", stored, " rows it holds"));
  }
  if (row_count == 0) return absl::OkStatus();
  return InsertChunkLocked(
      job_id, first_row, row_count, rows,
      absl::StrCat("rows ", first_row, " to ", first_row + row_count - 1, " of ", job_id));
}

absl::Status SqliteJobStore::TruncateRows(const std::string& job_id, uint64_t rows) {
  absl::MutexLock lock(&mutex_);
  return TransactionLocked("the rows of " + job_id, [&]() -> absl::Status {
    mutex_.AssertHeld();  // TransactionLocked runs the body with it
    const std::string what = absl::StrCat("the rows of ", job_id, " from row ", rows, " on");
    {
      SqliteStatement d;
      if (sqlite3_prepare_v2(db_, "DELETE FROM result_chunks WHERE id = ? AND seq >= ?", -1,
                             &d.stmt, nullptr) != SQLITE_OK ||
          sqlite3_bind_text(d.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK ||
          sqlite3_bind_int64(d.stmt, 2, static_cast<sqlite3_int64>(rows)) != SQLITE_OK ||
          sqlite3_step(d.stmt) != SQLITE_DONE) {
        return Error("drop " + what);
      }
    }
    // A chunk that runs past `rows` keeps its rows before it.
    SqliteStatement q;
    if (sqlite3_prepare_v2(db_,
                           "SELECT seq, row_count, rows FROM result_chunks WHERE id = ? "
                           "AND seq + row_count > ? ORDER BY seq DESC LIMIT 1",
                           -1, &q.stmt, nullptr) != SQLITE_OK ||
        sqlite3_bind_text(q.stmt, 1, job_id.c_str(), -1, SQLITE_TRANSIENT) != SQLITE_OK ||
        sqlite3_bind_int64(q.stmt, 2, static_cast<sqlite3_int64>(rows)) != SQLITE_OK) {
      return Error("prepare to cut " + what);
    }
    const int rc = sqlite3_step(q.stmt);
    if (rc == SQLITE_DONE) return absl::OkStatus();
    if (rc != SQLITE_ROW) return Error("read " + what);
    const auto first = static_cast<uint64_t>(sqlite3_column_int64(q.stmt, 0));
    const auto count = static_cast<uint64_t>(sqlite3_column_int64(q.stmt, 1));
    v1::ResultRows chunk;
    const void* data = sqlite3_column_blob(q.stmt, 2);
    if (!chunk.ParseFromArray(data, sqlite3_column_bytes(q.stmt, 2))) {
      return absl::DataLossError("job store: a chunk of " + what + " is corrupt");
    }
    sqlite3_reset(q.stmt);  // done reading before the chunk is written back
    KeepRows(count, rows - first, &chunk);
    return InsertChunkLocked(job_id, first, rows - first, chunk, what);
  });
}

}  // namespace cosimo::orchestrator
