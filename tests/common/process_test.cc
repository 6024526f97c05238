#include "cosimo/common/process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace cosimo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(CpuListTest, ReadsNumbersAndRangesAsTasksetDoes) {
  EXPECT_THAT(*ParseCpuList("0", "--cpus"), ElementsAre(0));
  EXPECT_THAT(*ParseCpuList("2-4", "--cpus"), ElementsAre(2, 3, 4));
  // Sorted, each CPU once.
  EXPECT_THAT(*ParseCpuList("5,0-1,1", "--cpus"), ElementsAre(0, 1, 5));
}

TEST(CpuListTest, BadListNamesTheFlagAndThePart) {
  for (const char* bad : {"", "a", "1-", "-1", "3-1", "0,,1", "1.5", "0-9999", "0 1"}) {
    absl::StatusOr<std::vector<int>> list = ParseCpuList(bad, "--cpus");
    ASSERT_FALSE(list.ok()) << "'" << bad << "' was accepted";
    EXPECT_THAT(list.status().message(), HasSubstr("--cpus '")) << bad;
    EXPECT_THAT(list.status().message(), HasSubstr("is not a CPU number or a range")) << bad;
  }
  EXPECT_THAT(ParseCpuList("0,x", "--cpus").status().message(), HasSubstr("'x' is not"));
}

// Pinning holds for the calling thread and the threads it starts; a thread of its own, so that
// the test's other threads keep every CPU.
TEST(PinToCpusTest, PinsTheCallerAndTheThreadsItStarts) {
  const std::vector<int> allowed = AllowedCpus();
  ASSERT_FALSE(allowed.empty());
  std::vector<int> caller, child;
  absl::Status status;
  std::thread([&] {
    status = PinToCpus({allowed.back()}, "--cpus");
    caller = AllowedCpus();
    std::thread([&] { child = AllowedCpus(); }).join();
  }).join();
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(caller, ElementsAre(allowed.back()));
  EXPECT_THAT(child, ElementsAre(allowed.back()));
  EXPECT_EQ(AllowedCpus(), allowed);  // this thread is untouched
}

TEST(PinToCpusTest, CpuThisProcessMayNotUseIsRefusedNamingTheAllowedOnes) {
  const std::vector<int> allowed = AllowedCpus();
  ASSERT_FALSE(allowed.empty());
  absl::Status status;
  std::thread([&] { status = PinToCpus({allowed.back() + 1}, "--cpus"); }).join();
  // (Unless this machine has more CPUs than this process may use: then the next one may exist
  // but is still outside the process's set, and is refused all the same.)
  ASSERT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("--cpus: CPU " + std::to_string(allowed.back() + 1) + " is not one"));
  EXPECT_THAT(status.message(), HasSubstr("may run on (" + std::to_string(allowed.front())));
  EXPECT_EQ(AllowedCpus(), allowed);
}

}  // namespace
}  // namespace cosimo
