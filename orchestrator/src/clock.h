// The time the job manager, the worker pool and the housekeeping read: an interface, so that
// tests move time by hand (ManualClock) instead of sleeping through timeouts and retention
// periods. Only readings go through it; threads that wake periodically (the pool's watchdog, the
// job manager's ticker, the housekeeper) still wait in real time and read the clock when they
// wake, and tests call the same passes themselves after moving the clock.
//
// Thread safety: Now and UnixMs may be called from any thread; so may ManualClock::Advance.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace cosimo::orchestrator {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time, for durations: timeouts, heartbeats, wall seconds of a job.
  virtual std::chrono::steady_clock::time_point Now() const = 0;
  // Milliseconds since the Unix epoch, for what records say (submitted, finished) and what
  // retention is measured against.
  virtual int64_t UnixMs() const = 0;

  // The clocks of the system (steady_clock and system_clock); one instance for the process.
  static Clock* Real();
};

// A clock that stands still until Advance moves it (both readings by the same amount).
class ManualClock final : public Clock {
 public:
  // Starts at the real clock's readings (so UnixMs looks like a date).
  ManualClock();
  std::chrono::steady_clock::time_point Now() const override;
  int64_t UnixMs() const override;
  void Advance(std::chrono::nanoseconds by);

 private:
  const std::chrono::steady_clock::time_point steady_origin_;
  const int64_t unix_origin_ms_;
  std::atomic<int64_t> elapsed_ns_{0};
};

}  // namespace cosimo::orchestrator
