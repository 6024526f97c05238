// FanOut (master/src/fan_out.h): every unit gets its command before any reply is
// awaited; the commands are prepared and sent, the proxies flushed and the replies awaited in
// scenario order (callers may count on it). The order on the wire is the proxies' (RemoteUnit's
// SendOrder, tests/orchestrator/send_order_test.cc).
#include "master/src/fan_out.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace cosimo::master {
namespace {

using ::testing::ElementsAre;

// Logs every call, of every unit, into one log.
class OrderProxy final : public UnitProxy {
 public:
  OrderProxy(std::string name, std::vector<std::string>* log) : name_(std::move(name)), log_(log) {}
  const std::string& name() const override { return name_; }
  const UnitDescription& description() const override { return description_; }
  IterativeMode iterative_mode() const override { return IterativeMode::kRollback; }
  UnitLocation location() const override { return {"test", ""}; }
  void Send(const UnitCommand&) override { log_->push_back("send " + name_); }
  void Flush() override { log_->push_back("flush " + name_); }
  absl::Status Await(UnitResponse*) override {
    log_->push_back("await " + name_);
    return absl::OkStatus();
  }

 private:
  std::string name_;
  std::vector<std::string>* log_;
  UnitDescription description_;
};

TEST(FanOutTest, PrepareSendFlushAndAwaitFollowTheScenariosOrder) {
  std::vector<std::string> log;
  std::vector<std::unique_ptr<OrderProxy>> proxies;
  std::vector<UnitSlot> slots(3);
  for (size_t u = 0; u < slots.size(); ++u) {
    proxies.push_back(std::make_unique<OrderProxy>("u" + std::to_string(u), &log));
    slots[u].proxy = proxies.back().get();
  }
  const absl::Status status = FanOut(
      slots,
      [&](UnitSlot& s) {
        log.push_back("prepare " + s.proxy->name());
        return s.proxy->name() != "u1";  // u1 takes no part in this round
      },
      [](UnitSlot&, absl::Status s) { return s; });
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_THAT(log, ElementsAre("prepare u0", "prepare u1", "prepare u2", "send u0", "send u2",
                               "flush u0", "flush u2", "await u0", "await u2"));
}

}  // namespace
}  // namespace cosimo::master
