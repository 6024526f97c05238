// A sweep variant that crashes its worker (a segmentation fault in the FMU's fmi2DoStep: issue 41
// item 2) fails alone. Its worker runs four variants at once and a supervisor starts it again
// after each crash (as Docker's restart policy or systemd would); the variants that were running
// beside the crashing one run again, each alone, and succeed; the crashing one, alone, crashes
// its worker a second time and is a FAILED row naming the signal, the unit and the time reached,
// which the restarted worker reported from its crash file. The sweep succeeds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

#include "cosimo/client/client.h"
#include "cosimo/common/sweep.h"
#include "tests/integration/fixture.h"
#include "tests/integration/process.h"

namespace cosimo::testing {
namespace {

using ::testing::HasSubstr;

// A program started again whenever it exits, until destroyed: a restarting supervisor.
class Supervised {
 public:
  Supervised(std::vector<std::string> argv, std::string log_prefix)
      : argv_(std::move(argv)), log_prefix_(std::move(log_prefix)), thread_([this] { Loop(); }) {}
  ~Supervised() {
    stop_ = true;
    thread_.join();
  }
  Supervised(const Supervised&) = delete;
  Supervised& operator=(const Supervised&) = delete;

  int starts() const { return starts_; }

 private:
  void Loop() {
    while (!stop_) {
      Process process(argv_, log_prefix_ + std::to_string(starts_) + ".log");
      ++starts_;
      while (!stop_ && process.Wait(std::chrono::milliseconds(50)) < 0) {
      }
    }
  }

  const std::vector<std::string> argv_;
  const std::string log_prefix_;
  std::atomic<bool> stop_{false};
  std::atomic<int> starts_{0};
  std::thread thread_;  // last: it reads the members above
};

TEST_F(DistributedTest, ACrashingVariantFailsAloneNamingTheCrash) {
  // Two units a variant, eight slots: four variants at once on the one worker.
  Supervised worker({BinDir() + "/cosimo-worker", "--orchestrator", orchestrator_->address(),
                     "--cache-dir", dir_ + "/cache", "--slots", "8", "--reconnect-ms", "100",
                     "--crash-file", dir_ + "/crash-report"},
                    dir_ + "/worker");
  v1::Scenario base = MsdWithSpring(Fmu("fmi2_crash"), 0.01);
  base.set_stop_time(1.0);
  // Variants 2 and 6 reach their crash_time; the others never do.
  absl::StatusOr<v1::Sweep> sweep = ParseSweepJson(
      R"({"parameters": [{"name": "msd.crash_time",
                          "values": [100, 100, 0.5, 100, 100, 100, 0.75, 100]}],
          "kpis": [{"variable": "msd.x"}]})");
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> id = client.SubmitSweep(base, *sweep);
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<v1::JobStatus> status = client.Watch(*id, nullptr, 50);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->state(), v1::SUCCEEDED) << status->message();
  EXPECT_EQ(status->message(), "8 variants, 2 failed");
  absl::StatusOr<client::JobResults> table = client.Results(*id);
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->rows(), 8u);
  const size_t w = table->columns.size();
  const size_t kpi = w - 4;  // index, crash_time, final(msd.x), then status, wall, message
  ASSERT_EQ(table->columns[kpi], "final(msd.x)");
  double x_end = std::nan("");
  for (size_t r = 0; r < 8; ++r) {
    const std::string& state = table->strings[2 * r];
    const std::string& message = table->strings[2 * r + 1];
    if (r == 2 || r == 6) {
      EXPECT_EQ(state, "FAILED") << "variant " << r;
      EXPECT_THAT(message, HasSubstr("lost twice")) << "variant " << r;
      EXPECT_THAT(message, HasSubstr("SIGSEGV in unit 'msd'")) << "variant " << r;
      // The step that reaches crash_time starts at most one step (0.01 s) before it.
      const size_t at = message.find(" at t=");
      ASSERT_NE(at, std::string::npos) << message;
      EXPECT_NEAR(std::stod(message.substr(at + 6)), r == 2 ? 0.5 : 0.75, 0.0101) << message;
      continue;
    }
    EXPECT_EQ(state, "SUCCEEDED") << "variant " << r << ": " << message;
    // crash_time changes nothing but the crash: every healthy variant ends where the others do.
    if (std::isnan(x_end)) x_end = table->values[r * w + kpi];
    EXPECT_EQ(table->values[r * w + kpi], x_end) << "variant " << r;
  }
  EXPECT_TRUE(std::isfinite(x_end));
  // Each crashing variant crashed its worker twice: once beside others, once alone.
  EXPECT_GE(worker.starts(), 5);
  EXPECT_THAT(orchestrator_->process().log(),
              HasSubstr("started after the one before it crashed: SIGSEGV in unit 'msd'"));
}

}  // namespace
}  // namespace cosimo::testing
