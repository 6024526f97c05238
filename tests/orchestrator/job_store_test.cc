// The SQLite job store: results tables round-trip with their column types and string cells, and
// a store written before string columns existed still opens and reads.
#include "orchestrator/src/job_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <string>

namespace cosimo::orchestrator {
namespace {

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("cosimo_job_store_" + std::to_string(getpid()) + "_" + name))
      .string();
}

TEST(JobStoreTest, ResultsKeepTypesAndStrings) {
  const std::string path = TempPath("types.db");
  std::filesystem::remove(path);
  StoredResults in;
  in.columns = {"time", "f.on", "f.label"};
  in.types = {ValueType::kReal, ValueType::kBoolean, ValueType::kString};
  in.values = {0.0, 1.0, std::nan(""), 0.5, 0.0, std::nan("")};
  in.strings = {"idle", "pumping, fast"};
  in.metadata.set_algorithm("JACOBI");
  {
    absl::StatusOr<std::unique_ptr<JobStore>> store = JobStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->PutResults("job-1", in).ok());
  }
  absl::StatusOr<std::unique_ptr<JobStore>> store = JobStore::Open(path);  // reopened
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

TEST(JobStoreTest, DeleteRemovesTheRecordAndTheResultsOfOneJob) {
  const std::string path = TempPath("delete.db");
  std::filesystem::remove(path);
  StoredResults results;
  results.columns = {"time"};
  results.types = {ValueType::kReal};
  results.values = {0.0};
  {
    absl::StatusOr<std::unique_ptr<JobStore>> store = JobStore::Open(path);
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
  absl::StatusOr<std::unique_ptr<JobStore>> store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<std::vector<StoredJob>> jobs = (*store)->LoadAll();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 1u);
  EXPECT_EQ((*jobs)[0].status.job_id(), "job-2");
  EXPECT_FALSE((*store)->LoadResults("job-1").ok());
  EXPECT_TRUE((*store)->LoadResults("job-2").ok());
  std::filesystem::remove(path);
}

TEST(JobStoreTest, OpensAStoreWrittenBeforeStringColumns) {
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

  absl::StatusOr<std::unique_ptr<JobStore>> store = JobStore::Open(path);
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<StoredResults> out = (*store)->LoadResults("old");
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_THAT(out->columns, ::testing::ElementsAre("time", "a.y"));
  EXPECT_EQ(out->type(1), ValueType::kReal);
  EXPECT_EQ(out->values[1], 1.5);
  EXPECT_TRUE(out->strings.empty());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cosimo::orchestrator
