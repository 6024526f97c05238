// The SQLite job store: results tables round-trip with their column types and string cells, in
// chunks when they are bigger than one chunk or than SQLite's blob limit, a table that cannot be
// stored is an error (never a silently empty result), and a store written before string columns,
// chunks or job owners existed still opens and reads. A job's latest checkpoint is kept. A running
// job's rows are appended as they come, each chunk continuing the last, cut back to a count (in
// the middle of a chunk too) and shown only once the results record is stored. A calibration
// job's samples are kept apart, once.
#include "orchestrator/src/sqlite_job_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <string>

#include "cosimo/common/results_proto.h"

namespace cosimo::orchestrator {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("cosimo_job_store_" + std::to_string(getpid()) + "_" + name))
      .string();
}

TEST(SqliteJobStoreTest, ResultsKeepTypesAndStrings) {
  const std::string path = TempPath("types.db");
  std::filesystem::remove(path);
  StoredResults in;
  in.columns = {"time", "f.on", "f.label"};
  in.types = {ValueType::kReal, ValueType::kBoolean, ValueType::kString};
  in.values = {0.0, 1.0, std::nan(""), 0.5, 0.0, std::nan("")};
  in.strings = {"idle", "pumping, fast"};
  in.metadata.set_algorithm("JACOBI");
  {
    absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->PutResults("job-1", in).ok());
  }
  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);  // reopened
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<StoredResults> out = (*store)->LoadResults("job-1");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->columns, in.columns);
  EXPECT_EQ(out->types, in.types);
  ASSERT_EQ(out->values.size(), in.values.size());
  EXPECT_EQ(out->values[3], 0.5);
  EXPECT_THAT(out->strings, ::testing::ElementsAre("idle", "pumping, fast"));
  EXPECT_EQ(out->metadata.algorithm(), "JACOBI");
  std::filesystem::remove(path);
}

// A table several times SQLite's blob limit (lowered here to 64 KiB, as 1e9 bytes is in
// production) is stored in chunks and reads back exactly. Before chunks, the unchecked bind
// failed with SQLITE_TOOBIG and the results were stored with no rows.
TEST(SqliteJobStoreTest, ResultsBiggerThanOneBlobAreStoredInChunks) {
  const std::string path = TempPath("chunks.db");
  std::filesystem::remove(path);
  StoredResults in;
  in.columns = {"time", "a.x", "a.label"};
  in.types = {ValueType::kReal, ValueType::kReal, ValueType::kString};
  const size_t rows = 20000;  // 320 KB of doubles, ~200 KB of texts
  for (size_t r = 0; r < rows; ++r) {
    in.values.push_back(0.001 * static_cast<double>(r));
    in.values.push_back(std::sin(static_cast<double>(r)));
    in.values.push_back(std::nan(""));
    in.strings.push_back("row " + std::to_string(r));
  }
  JobStoreOptions options;
  options.max_blob_bytes = 64 * 1024;
  options.chunk_bytes = 16 * 1024;
  {
    absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path, options);
    ASSERT_TRUE(store.ok()) << store.status();
    absl::Status put = (*store)->PutResults("big", in);
    ASSERT_TRUE(put.ok()) << put;
  }
  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path, options);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<StoredResults> out = (*store)->LoadResults("big");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->rows(), rows);
  ASSERT_EQ(out->values.size(), in.values.size());
  for (size_t i = 0; i < in.values.size(); i += 3) {
    ASSERT_EQ(out->values[i], in.values[i]) << i;
    ASSERT_EQ(out->values[i + 1], in.values[i + 1]) << i;
  }
  EXPECT_EQ(out->strings, in.strings);
  // Stored again (a recovered job run twice): the rows are replaced, not appended.
  ASSERT_TRUE((*store)->PutResults("big", in).ok());
  absl::StatusOr<StoredResults> again = (*store)->LoadResults("big");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->rows(), rows);
  std::filesystem::remove(path);
}

// A single row bigger than one blob cannot be stored: PutResults says so and nothing of the
// table is kept (the job then fails with that message instead of succeeding with no rows).
TEST(SqliteJobStoreTest, ResultsThatCannotBeStoredAreAnError) {
  JobStoreOptions options;
  options.max_blob_bytes = 4096;
  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open("", options);
  ASSERT_TRUE(store.ok()) << store.status();
  StoredResults in;
  in.columns = {"time", "a.label"};
  in.types = {ValueType::kReal, ValueType::kString};
  in.values = {0.0, std::nan(""), 1.0, std::nan("")};
  in.strings = {"short", std::string(10000, 'x')};
  absl::Status put = (*store)->PutResults("job", in);
  EXPECT_FALSE(put.ok());
  EXPECT_THAT(std::string(put.message()), ::testing::HasSubstr("rows 1 to 1"));
  EXPECT_EQ((*store)->LoadResults("job").status().code(), absl::StatusCode::kNotFound);
}

// The length SQLite takes is an int: sizes past INT_MAX are refused, where a cast wrapped them
// (2^32 + 8 bytes became 8, 3e9 became negative).
TEST(SqliteJobStoreTest, BlobLengthRefusesSizesAnIntCannotHold) {
  EXPECT_EQ(*BlobLength(0, "x"), 0);
  EXPECT_EQ(*BlobLength(1000, "x"), 1000);
  EXPECT_EQ(*BlobLength(2147483647u, "x"), 2147483647);
  for (const uint64_t bytes : {uint64_t{2147483648u}, uint64_t{3000000000u},
                               (uint64_t{1} << 32) + 8, uint64_t{5400000} * 50 * 8}) {
    absl::StatusOr<int> length = BlobLength(static_cast<size_t>(bytes), "the values");
    ASSERT_FALSE(length.ok()) << bytes;
    EXPECT_EQ(length.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_THAT(std::string(length.status().message()),
                ::testing::HasSubstr("the values is " + std::to_string(bytes) + " bytes"));
  }
}

TEST(SqliteJobStoreTest, DeleteRemovesTheRecordAndTheResultsOfOneJob) {
  const std::string path = TempPath("delete.db");
  std::filesystem::remove(path);
  StoredResults results;
  results.columns = {"time"};
  results.types = {ValueType::kReal};
  results.values = {0.0};
  {
    absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    for (const char* id : {"job-1", "job-2"}) {
      v1::JobStatus status;
      status.set_job_id(id);
      ASSERT_TRUE((*store)->Put(status, v1::Scenario()).ok());
      ASSERT_TRUE((*store)->PutResults(id, results).ok());
    }
    ASSERT_TRUE((*store)->Delete("job-1").ok());
    ASSERT_TRUE((*store)->Delete("job-unknown").ok());  // nothing to remove
  }
  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::vector<StoredJob>> jobs = (*store)->LoadAll();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].status.job_id(), "job-2");
  EXPECT_FALSE((*store)->LoadResults("job-1").ok());
  EXPECT_TRUE((*store)->LoadResults("job-2").ok());
  std::filesystem::remove(path);
}

// A calibration job's samples, stored once apart from its status: they survive a reopen and go
// with the job.
TEST(SqliteJobStoreTest, ACalibrationsSamplesAreKeptApartUntilTheJobGoes) {
  const std::string path = TempPath("samples.db");
  std::filesystem::remove(path);
  v1::CalibrationJob samples;
  v1::MeasuredSamples* s = samples.add_samples();
  s->set_column("speed");
  s->set_variable("vehicle.v");
  s->add_times(0.25);
  s->add_values(6.5);
  s->set_factor(20);
  {
    absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    v1::JobStatus status;
    status.set_job_id("fit-1");
    ASSERT_TRUE((*store)->PutCalibrationSamples("fit-1", samples).ok());
    ASSERT_TRUE((*store)->Put(status, v1::Scenario()).ok());
    absl::StatusOr<v1::CalibrationJob> none = (*store)->LoadCalibrationSamples("other");
    EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
    EXPECT_THAT(none.status().message(), HasSubstr("no calibration samples stored for job other"));
  }
  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<v1::CalibrationJob> read = (*store)->LoadCalibrationSamples("fit-1");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->SerializeAsString(), samples.SerializeAsString());
  ASSERT_TRUE((*store)->Delete("fit-1").ok());
  EXPECT_EQ((*store)->LoadCalibrationSamples("fit-1").status().code(), absl::StatusCode::kNotFound);
  std::filesystem::remove(path);
}

// A job's checkpoint: the latest replaces the one before, survives a reopen, goes with
// DeleteCheckpoint and with the job.
TEST(SqliteJobStoreTest, KeepsTheLatestCheckpointOfAJob) {
  const std::string path = TempPath("checkpoints.db");
  std::filesystem::remove(path);
  v1::JobStatus status;
  status.set_job_id("job-1");
  v1::JobCheckpoint first, second;
  first.set_time(1.0);
  second.set_time(2.0);
  second.add_units()->set_state(std::string("\0bytes\xff", 7));
  {
    absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Put(status, v1::Scenario()).ok());
    EXPECT_EQ((*store)->LoadCheckpoint("job-1").status().code(), absl::StatusCode::kNotFound);
    ASSERT_TRUE((*store)->PutCheckpoint("job-1", first).ok());
    ASSERT_TRUE((*store)->PutCheckpoint("job-1", second).ok());
  }
  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<v1::JobCheckpoint> loaded = (*store)->LoadCheckpoint("job-1");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->time(), 2.0);
  ASSERT_EQ(loaded->units_size(), 1);
  EXPECT_EQ(loaded->units(0).state(), second.units(0).state());
  ASSERT_TRUE((*store)->DeleteCheckpoint("job-1").ok());
  EXPECT_EQ((*store)->LoadCheckpoint("job-1").status().code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE((*store)->PutCheckpoint("job-1", first).ok());
  ASSERT_TRUE((*store)->Delete("job-1").ok());
  EXPECT_EQ((*store)->LoadCheckpoint("job-1").status().code(), absl::StatusCode::kNotFound);
  std::filesystem::remove(path);
}

// A checkpoint of rows_from N carries the rows after the N the store holds: they are appended,
// and the checkpoint reads back with every row. A gap is refused and changes nothing; a full
// checkpoint (rows_from 0) starts over; the rows go with DeleteCheckpoint and with the job.
TEST(SqliteJobStoreTest, CheckpointRowsAreAppendedAndReadBackWhole) {
  const std::string path = TempPath("checkpoint_rows.db");
  std::filesystem::remove(path);
  v1::JobStatus status;
  status.set_job_id("job-1");
  // Rows of 2 columns: (time, a text's index).
  auto rows = [](double t0, int n, uint64_t rows_from, uint64_t strings_from) {
    v1::JobCheckpoint c;
    c.set_time(t0 + n);
    c.add_columns("time");
    c.add_columns("mode.s");
    c.set_rows_from(rows_from);
    c.set_strings_from(strings_from);
    for (int i = 0; i < n; ++i) {
      c.add_values(t0 + i);
      c.add_values(static_cast<double>(strings_from + static_cast<uint64_t>(i)));
      c.add_strings("text " + std::to_string(strings_from + static_cast<uint64_t>(i)));
    }
    return c;
  };
  {
    absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Put(status, v1::Scenario()).ok());
    ASSERT_TRUE((*store)->PutCheckpoint("job-1", rows(0, 3, 0, 0)).ok());
    ASSERT_TRUE((*store)->PutCheckpoint("job-1", rows(3, 2, 3, 3)).ok());
    ASSERT_TRUE((*store)->PutCheckpoint("job-1", rows(5, 0, 5, 5)).ok());  // no new row
    // A gap (rows 5 and 6 missing): refused, nothing changes.
    const absl::Status gap = (*store)->PutCheckpoint("job-1", rows(7, 1, 7, 7));
    EXPECT_EQ(gap.code(), absl::StatusCode::kFailedPrecondition) << gap;
    EXPECT_THAT(std::string(gap.message()),
                HasSubstr("carries the results from row 7 (text 7) on, but the store holds 5 "
                          "rows (5 texts)"));
  }
  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<v1::JobCheckpoint> loaded = (*store)->LoadCheckpoint("job-1");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->time(), 5.0);
  EXPECT_EQ(loaded->rows_from(), 0u);
  EXPECT_EQ(loaded->strings_from(), 0u);
  ASSERT_EQ(loaded->values_size(), 10);
  ASSERT_EQ(loaded->strings_size(), 5);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(loaded->values(2 * i), i);
    EXPECT_EQ(loaded->values(2 * i + 1), i);
    EXPECT_EQ(loaded->strings(i), "text " + std::to_string(i));
  }
  // A full checkpoint starts over.
  ASSERT_TRUE((*store)->PutCheckpoint("job-1", rows(10, 1, 0, 0)).ok());
  loaded = (*store)->LoadCheckpoint("job-1");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->values_size(), 2);
  EXPECT_EQ(loaded->values(0), 10.0);
  ASSERT_TRUE((*store)->PutCheckpoint("job-1", rows(11, 1, 1, 1)).ok());
  ASSERT_TRUE((*store)->DeleteCheckpoint("job-1").ok());
  EXPECT_EQ((*store)->LoadCheckpoint("job-1").status().code(), absl::StatusCode::kNotFound);
  // Rows after a DeleteCheckpoint must start from row 0 again.
  EXPECT_EQ((*store)->PutCheckpoint("job-1", rows(12, 1, 1, 1)).code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE((*store)->PutCheckpoint("job-1", rows(0, 2, 0, 0)).ok());
  ASSERT_TRUE((*store)->Delete("job-1").ok());
  ASSERT_TRUE((*store)->PutCheckpoint("job-1", rows(0, 1, 0, 0)).ok());  // only the new row
  loaded = (*store)->LoadCheckpoint("job-1");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->values_size(), 2);
  std::filesystem::remove(path);
}

TEST(SqliteJobStoreTest, OpensAStoreWrittenBeforeStringColumns) {
  const std::string path = TempPath("old.db");
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  // The schema of the first release: no `strings` column, a header without column types.
  v1::ResultsHeader header;
  header.add_columns("time");
  header.add_columns("a.y");
  const double values[] = {0.0, 1.5};
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE results (id TEXT PRIMARY KEY, columns BLOB, "
                         "values_blob BLOB, metadata BLOB);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(db, "INSERT INTO results VALUES ('old', ?, ?, x'')", -1, &stmt, nullptr),
      SQLITE_OK);
  const std::string blob = header.SerializeAsString();
  sqlite3_bind_blob(stmt, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  sqlite3_bind_blob(stmt, 2, values, sizeof(values), SQLITE_TRANSIENT);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_DONE);
  sqlite3_finalize(stmt);
  sqlite3_close(db);

  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<StoredResults> out = (*store)->LoadResults("old");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->columns, ::testing::ElementsAre("time", "a.y"));
  EXPECT_EQ(out->type(1), ValueType::kReal);
  EXPECT_EQ(out->values[1], 1.5);
  EXPECT_TRUE(out->strings.empty());
  std::filesystem::remove(path);
}

// A data dir of a release before owners: its jobs table gains the column, its jobs load without
// an owner, and jobs stored after record theirs.
TEST(SqliteJobStoreTest, OpensAStoreWrittenBeforeOwnersAndRecordsThem) {
  const std::string path = TempPath("owners.db");
  std::filesystem::remove(path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  v1::JobStatus old;
  old.set_job_id("job-old");
  old.set_state(v1::SUCCEEDED);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TABLE jobs (id TEXT PRIMARY KEY, submitted_ms INTEGER, "
                         "status BLOB, scenario BLOB);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(
      sqlite3_prepare_v2(db, "INSERT INTO jobs VALUES ('job-old', 1, ?, x'')", -1, &stmt, nullptr),
      SQLITE_OK);
  const std::string blob = old.SerializeAsString();
  sqlite3_bind_blob(stmt, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  ASSERT_EQ(sqlite3_step(stmt), SQLITE_DONE);
  sqlite3_finalize(stmt);
  sqlite3_close(db);

  {
    absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    v1::JobStatus mine;
    mine.set_job_id("job-new");
    mine.set_submitted_unix_ms(2);
    mine.set_owner("alice");
    ASSERT_TRUE((*store)->Put(mine, v1::Scenario()).ok());
  }
  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(path);  // reopened
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::vector<StoredJob>> jobs = (*store)->LoadAll();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_EQ((*jobs)[0].status.job_id(), "job-old");
  EXPECT_EQ((*jobs)[0].status.owner(), "");
  EXPECT_EQ((*jobs)[0].status.state(), v1::SUCCEEDED);
  EXPECT_EQ((*jobs)[1].status.owner(), "alice");
  std::filesystem::remove(path);
}

// Rows `first` to `first + count - 1` of a table with a time, a number and a text column.
v1::ResultRows Rows(int first, int count) {
  v1::ResultRows rows;
  for (int r = first; r < first + count; ++r) {
    rows.add_values(r);
    rows.add_values(10.0 * r);
    rows.add_values(std::nan(""));
    rows.add_strings("row " + std::to_string(r));
  }
  return rows;
}

TEST(SqliteJobStoreTest, AppendedRowsContinueEachOtherAreCutBackAndBecomeTheResults) {
  std::unique_ptr<SqliteJobStore> store = *SqliteJobStore::Open("");
  ASSERT_TRUE(store->AppendRows("job-1", 0, 10, Rows(0, 10)).ok());
  ASSERT_TRUE(store->AppendRows("job-1", 10, 10, Rows(10, 10)).ok());
  absl::Status gap = store->AppendRows("job-1", 25, 5, Rows(25, 5));
  EXPECT_EQ(gap.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(gap.message(), HasSubstr("do not continue the 20 rows"));
  EXPECT_EQ(store->LoadResults("job-1").status().code(), absl::StatusCode::kNotFound)
      << "not results before the record";

  // Back to 15 rows: the second chunk keeps its first 5; then on from row 15.
  ASSERT_TRUE(store->TruncateRows("job-1", 15).ok());
  EXPECT_EQ(store->AppendRows("job-1", 20, 5, Rows(20, 5)).code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(store->AppendRows("job-1", 15, 5, Rows(15, 5)).ok());
  StoredResults record;
  record.columns = {"time", "x", "label"};
  record.types = {ValueType::kReal, ValueType::kReal, ValueType::kString};
  record.after_appended_rows = true;
  AppendRows(Rows(20, 2), &record);  // the rows left in the run's table follow
  ASSERT_TRUE(store->PutResults("job-1", record).ok());
  absl::StatusOr<StoredResults> loaded = store->LoadResults("job-1");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->rows(), 22u);
  for (size_t r = 0; r < 22; ++r) {
    EXPECT_EQ(loaded->values[3 * r], static_cast<double>(r));
    EXPECT_EQ(loaded->values[3 * r + 1], 10.0 * static_cast<double>(r));
    EXPECT_EQ(loaded->strings[r], "row " + std::to_string(r));
  }

  // A job that did not succeed drops them all.
  ASSERT_TRUE(store->AppendRows("job-2", 0, 4, Rows(0, 4)).ok());
  ASSERT_TRUE(store->TruncateRows("job-2", 0).ok());
  EXPECT_TRUE(store->AppendRows("job-2", 0, 1, Rows(0, 1)).ok()) << "from row 0 again";
  EXPECT_TRUE(store->TruncateRows("job-3", 7).ok()) << "nothing to drop is no error";
}

}  // namespace
}  // namespace cosimo::orchestrator
