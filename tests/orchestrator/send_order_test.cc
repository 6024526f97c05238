// SendOrder (orchestrator/src/remote_unit.h): the messages of a round are written together,
// first to the workers whose latest reply left from the writing thread's own CPU, then to the
// others, each group in the order they became ready; a message marked ready twice is written
// once.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>

#include <string>
#include <thread>
#include <vector>

#include "cosimo/common/process.h"
#include "orchestrator/src/remote_unit.h"

namespace cosimo::orchestrator {
namespace {

using ::testing::ElementsAre;

class FakeWriter final : public SendOrder::Writer {
 public:
  FakeWriter(std::string name, int cpu, std::vector<std::string>* log)
      : name_(std::move(name)), cpu_(cpu), log_(log) {}
  int cpu() const override { return cpu_; }
  void Write() override { log_->push_back(name_); }

 private:
  std::string name_;
  int cpu_;
  std::vector<std::string>* log_;
};

// The writes of one round of writers that last answered from `cpus` (kHere: the writing
// thread's CPU), marked ready in order (w1 twice), on a thread held on one CPU.
constexpr int kHere = -100;
std::vector<std::string> Round(const std::vector<int>& cpus) {
  std::vector<std::string> log;
  std::thread([&] {
    const absl::Status pinned = PinToCpus({sched_getcpu()}, "test");
    ASSERT_TRUE(pinned.ok()) << pinned;
    const int here = sched_getcpu();
    std::vector<FakeWriter> writers;
    writers.reserve(cpus.size());
    for (size_t w = 0; w < cpus.size(); ++w) {
      writers.emplace_back("w" + std::to_string(w), cpus[w] == kHere ? here : cpus[w], &log);
    }
    SendOrder order;
    for (FakeWriter& w : writers) order.Ready(&w);
    if (writers.size() > 1) order.Ready(&writers[1]);
    order.WriteReady();
    order.WriteReady();  // nothing ready any more
  }).join();
  return log;
}

TEST(SendOrderTest, WorkersOnTheWritersCpuGetTheirMessagesFirst) {
  const int elsewhere = 4096;  // no machine's CPU
  EXPECT_THAT(Round({elsewhere, kHere, -1, kHere}), ElementsAre("w1", "w3", "w0", "w2"));
}

TEST(SendOrderTest, WithoutCpusKnownTheOrderIsTheOneTheyBecameReadyIn) {
  EXPECT_THAT(Round({-1, -1, -1}), ElementsAre("w0", "w1", "w2"));
}

}  // namespace
}  // namespace cosimo::orchestrator
