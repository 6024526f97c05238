// A fatal signal in a unit's code (issue 41 item 2): the worker's handler writes the signal, the
// job, the sweep variant, the unit and the time to its crash file before the process dies of it,
// and the next worker started with that file reads it back (once) for its Hello.
#include "cosimo/worker/crash_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "cosimo/common/crash.h"
#include "cosimo/units/crash_context.h"

namespace cosimo::worker {
namespace {

std::string CrashFile(const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name;
  std::filesystem::remove(path);
  return path;
}

TEST(CrashReportDeathTest, ASegfaultInAUnitIsReportedByTheNextWorker) {
  const std::string path = CrashFile("cosimo-crash-segv");
  EXPECT_EXIT(
      {
        InstallCrashReport(path);
        const units::ScopedVariant variant(3);
        const units::ScopedUnitCall call("job-42", "msd", 0.49);
        volatile int* volatile nowhere = nullptr;
        *nowhere = 1;
      },
      ::testing::KilledBySignal(SIGSEGV),
      "fatal signal SIGSEGV in unit 'msd' of job job-42 \\(sweep variant 3\\)");
  std::optional<v1::CrashReport> report = TakeCrashReport(path);
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->signal(), "SIGSEGV");
  EXPECT_EQ(report->job_id(), "job-42");
  EXPECT_EQ(report->variant(), 3);
  EXPECT_EQ(report->unit(), "msd");
  EXPECT_EQ(report->time(), 0.49);  // bit for bit: written as the double's bits
  EXPECT_EQ(DescribeCrash(*report),
            "SIGSEGV in unit 'msd' at t=0.49 (job job-42, sweep variant 3)");
  EXPECT_EQ(DescribeCrash(*report, /*with_job=*/false), "SIGSEGV in unit 'msd' at t=0.49");
  // Taken once: the worker after the next one has nothing to report.
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(TakeCrashReport(path).has_value());
}

TEST(CrashReportDeathTest, AnAbortOutsideAnyUnitIsReportedWithoutOne) {
  const std::string path = CrashFile("cosimo-crash-abort");
  EXPECT_EXIT(
      {
        InstallCrashReport(path);
        std::abort();
      },
      ::testing::KilledBySignal(SIGABRT), "fatal signal SIGABRT; the process ends");
  std::optional<v1::CrashReport> report = TakeCrashReport(path);
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->signal(), "SIGABRT");
  EXPECT_EQ(report->job_id(), "");
  EXPECT_EQ(report->unit(), "");
  EXPECT_EQ(report->variant(), -1);
  EXPECT_TRUE(std::isnan(report->time()));
  EXPECT_EQ(DescribeCrash(*report), "SIGABRT");
}

TEST(CrashReportTest, AnythingElseInTheFileIsNoReport) {
  EXPECT_FALSE(ParseCrashLine("").has_value());
  EXPECT_FALSE(ParseCrashLine("hello world").has_value());
  EXPECT_FALSE(ParseCrashLine("cosimo-crash SIGSEGV variant=x time=0 job= unit=").has_value());
  EXPECT_FALSE(TakeCrashReport("").has_value());
  EXPECT_FALSE(TakeCrashReport(CrashFile("cosimo-crash-none")).has_value());
}

}  // namespace
}  // namespace cosimo::worker
