// JobManager without workers: listing a page at a time and ids that name no job. Jobs stay queued
// (the pool is empty), so no master runs here.
#include "orchestrator/src/job_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include "orchestrator/src/sqlite_job_store.h"

namespace cosimo::orchestrator {
namespace {

using ::testing::HasSubstr;

v1::Scenario OneUnit() {
  v1::Scenario s;
  s.set_name("one");
  s.set_stop_time(1.0);
  v1::Unit* unit = s.add_units();
  unit->set_name("car");
  unit->mutable_builtin()->set_model("car");
  s.mutable_algorithm()->set_step_size(0.1);
  return s;
}

class JobManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open("");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    dir_ = (std::filesystem::temp_directory_path() /
            ("cosimo_job_manager_" + std::to_string(getpid())))
               .string();
    artifacts_ = std::make_unique<ArtifactStore>(dir_);
    jobs_ = std::make_unique<JobManager>(&pool_, store_.get(), artifacts_.get());
  }
  void TearDown() override {
    jobs_.reset();
    std::filesystem::remove_all(dir_);
  }

  WorkerPool pool_{std::chrono::milliseconds(10000)};
  std::unique_ptr<JobStore> store_;
  std::string dir_;
  std::unique_ptr<ArtifactStore> artifacts_;
  std::unique_ptr<JobManager> jobs_;
};

// 250 jobs come in pages of 100, 100 and 50, newest first, each job once (many share their
// submission millisecond: ties are ordered by id).
TEST_F(JobManagerTest, ListsAPageAtATimeNewestFirst) {
  for (int i = 0; i < 250; ++i) ASSERT_TRUE(jobs_->Submit(OneUnit()).ok());
  std::set<std::string> seen;
  std::vector<size_t> sizes;
  std::string token;
  int64_t previous_ms = std::numeric_limits<int64_t>::max();
  do {
    absl::StatusOr<JobManager::JobPage> page = jobs_->List(0, token);
    ASSERT_TRUE(page.ok()) << page.status();
    sizes.push_back(page->jobs.size());
    for (const v1::JobStatus& st : page->jobs) {
      EXPECT_TRUE(seen.insert(st.job_id()).second) << st.job_id() << " listed twice";
      EXPECT_LE(st.submitted_unix_ms(), previous_ms);
      previous_ms = st.submitted_unix_ms();
    }
    token = page->next_page_token;
  } while (!token.empty());
  EXPECT_THAT(sizes, ::testing::ElementsAre(100, 100, 50));
  EXPECT_EQ(seen.size(), 250u);
  // A page size over the maximum is held to it; a token not given by the server is refused.
  EXPECT_EQ(jobs_->List(100000, "")->jobs.size(), 250u);
  EXPECT_EQ(jobs_->List(7, "")->jobs.size(), 7u);
  EXPECT_EQ(jobs_->List(0, "garbage").status().code(), absl::StatusCode::kInvalidArgument);
}

// An id that names no job is quoted only in part (a 60 MB id was echoed back whole).
TEST_F(JobManagerTest, UnknownIdsAreQuotedInPart) {
  absl::StatusOr<v1::JobStatus> status = jobs_->Get("job-nope");
  EXPECT_EQ(status.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(status.status().message(), "unknown job id 'job-nope'");
  const std::string huge(1 << 20, 'j');
  for (const absl::Status& s : {jobs_->Get(huge).status(), jobs_->Cancel(huge).status(),
                                jobs_->Delete(huge), jobs_->Results(huge).status()}) {
    EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
    EXPECT_LT(s.message().size(), 200u);
    EXPECT_THAT(std::string(s.message()), HasSubstr("(1048576 bytes)"));
  }
}

}  // namespace
}  // namespace cosimo::orchestrator
