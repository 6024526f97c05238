// Load: 200 tiny jobs submitted at once by 8 clients to 4 worker processes. Every job finishes,
// none is lost or run twice (the orchestrator's log starts and ends each once), and `cosimo list`
// (ListJobs, a page at a time) shows exactly those jobs, succeeded, with their results. The
// orchestrator's memory before and after is a figure of cosimo-bench (load.rss,
// docs/benchmarks.md), not an assertion.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "bench/job_load.h"
#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

// How many lines of `log` contain `text`.
int CountLines(const std::string& log, const std::string& text) {
  int count = 0;
  for (size_t at = log.find(text); at != std::string::npos; at = log.find(text, at + 1)) ++count;
  return count;
}

using LoadTest = testing::DistributedTest;

TEST_F(LoadTest, TwoHundredJobsAtOnceOnFourWorkersAllFinishOnceEach) {
  constexpr int kJobs = 200;
  StartWorkers(4);
  const bench::LoadRun run = bench::SubmitAtOnceAndWait(orchestrator_->address(), bench::TinyJob(),
                                                        kJobs, 8, std::chrono::seconds(300));
  EXPECT_THAT(run.errors, ::testing::IsEmpty());

  const std::set<std::string> submitted(run.ids.begin(), run.ids.end());
  EXPECT_EQ(submitted.size(), static_cast<size_t>(kJobs)) << "ids given twice";
  EXPECT_EQ(submitted.count(""), 0u) << "a submit failed";
  ASSERT_EQ(run.listed.size(), static_cast<size_t>(kJobs));
  std::set<std::string> listed;
  for (const v1::JobStatus& job : run.listed) {
    listed.insert(job.job_id());
    EXPECT_EQ(job.state(), v1::SUCCEEDED) << job.job_id() << ": " << job.message();
    EXPECT_EQ(job.steps_accepted(), 10u) << job.job_id();
  }
  EXPECT_EQ(listed, submitted);

  // Each job started on a worker and ended exactly once.
  const std::string log = orchestrator_->process().log();
  for (const std::string& id : submitted) {
    EXPECT_EQ(CountLines(log, "job " + id + " running on"), 1) << id;
    EXPECT_EQ(CountLines(log, "job " + id + " succeeded"), 1) << id;
  }
  client::Client client(orchestrator_->address());
  for (const std::string& id : submitted) {
    absl::StatusOr<client::JobResults> results = client.Results(id);
    ASSERT_TRUE(results.ok()) << id << ": " << results.status();
    EXPECT_EQ(results->rows(), 11u) << id;
  }
  absl::StatusOr<std::vector<v1::WorkerStatus>> workers = client.Workers();
  ASSERT_TRUE(workers.ok()) << workers.status();
  EXPECT_EQ(workers->size(), 4u);
  for (const v1::WorkerStatus& w : *workers) EXPECT_FALSE(w.busy()) << w.worker_id();
}

}  // namespace
}  // namespace cosimo
