// FanOut (orchestrator/src/master/fan_out.h): every unit gets its command before any reply is
// awaited, first the units whose worker last answered from the job thread's CPU, then the others,
// each group in scenario order; the commands are prepared, the proxies flushed and the replies
// awaited in scenario order (callers may count on it).
#include "orchestrator/src/master/fan_out.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cosimo/common/process.h"

namespace cosimo::orchestrator::master {
namespace {

using ::testing::ElementsAre;

// Logs every call, of every unit, into one log.
class OrderProxy final : public UnitProxy {
 public:
  OrderProxy(std::string name, int cpu, std::vector<std::string>* log)
      : name_(std::move(name)), cpu_(cpu), log_(log) {}
  const std::string& name() const override { return name_; }
  const UnitDescription& description() const override { return description_; }
  IterativeMode iterative_mode() const override { return IterativeMode::kRollback; }
  UnitLocation location() const override { return {"test", ""}; }
  int cpu() const override { return cpu_; }
  void Send(const UnitCommand&) override { log_->push_back("send " + name_); }
  void Flush() override { log_->push_back("flush " + name_); }
  absl::Status Await(UnitResponse*) override {
    log_->push_back("await " + name_);
    return absl::OkStatus();
  }

 private:
  std::string name_;
  int cpu_;
  std::vector<std::string>* log_;
  UnitDescription description_;
};

// One FanOut over units whose workers answered last from `cpus` (kHere: the calling thread's
// CPU), on a thread held on one CPU; the log of the calls.
constexpr int kHere = -100;
std::vector<std::string> Round(const std::vector<int>& cpus) {
  std::vector<std::string> log;
  std::thread([&] {
    const absl::Status pinned = PinToCpus({sched_getcpu()}, "test");
    ASSERT_TRUE(pinned.ok()) << pinned;
    const int here = sched_getcpu();
    std::vector<std::unique_ptr<OrderProxy>> proxies;
    std::vector<UnitSlot> slots(cpus.size());
    for (size_t u = 0; u < cpus.size(); ++u) {
      proxies.push_back(std::make_unique<OrderProxy>("u" + std::to_string(u),
                                                     cpus[u] == kHere ? here : cpus[u], &log));
      slots[u].proxy = proxies.back().get();
    }
    const absl::Status status = FanOut(
        slots,
        [&](UnitSlot& s) {
          log.push_back("prepare " + s.proxy->name());
          return true;
        },
        [](UnitSlot&, absl::Status s) { return s; });
    EXPECT_TRUE(status.ok()) << status;
  }).join();
  return log;
}

TEST(FanOutTest, UnitsOnTheJobThreadsCpuGetTheirCommandsFirst) {
  const int elsewhere = 4096;  // no machine's CPU
  EXPECT_THAT(Round({elsewhere, kHere, -1, kHere}),
              ElementsAre("prepare u0", "prepare u1", "prepare u2", "prepare u3", "send u1",
                          "send u3", "send u0", "send u2", "flush u0", "flush u1", "flush u2",
                          "flush u3", "await u0", "await u1", "await u2", "await u3"));
}

TEST(FanOutTest, WithoutCpusKnownTheOrderIsTheScenarios) {
  EXPECT_THAT(Round({-1, -1, -1}),
              ElementsAre("prepare u0", "prepare u1", "prepare u2", "send u0", "send u1", "send u2",
                          "flush u0", "flush u1", "flush u2", "await u0", "await u1", "await u2"));
}

}  // namespace
}  // namespace cosimo::orchestrator::master
