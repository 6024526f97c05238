#include "orchestrator/src/clock.h"

namespace cosimo::orchestrator {
namespace {

class RealClock final : public Clock {
 public:
  std::chrono::steady_clock::time_point Now() const override {
    return std::chrono::steady_clock::now();
  }
  int64_t UnixMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

Clock* Clock::Real() {
  static RealClock clock;
  return &clock;
}

ManualClock::ManualClock()
    : steady_origin_(Clock::Real()->Now()), unix_origin_ms_(Clock::Real()->UnixMs()) {}

std::chrono::steady_clock::time_point ManualClock::Now() const {
  return steady_origin_ + std::chrono::nanoseconds(elapsed_ns_.load());
}

int64_t ManualClock::UnixMs() const {
  return unix_origin_ms_ + std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::nanoseconds(elapsed_ns_.load()))
                               .count();
}

void ManualClock::Advance(std::chrono::nanoseconds by) { elapsed_ns_ += by.count(); }

}  // namespace cosimo::orchestrator
