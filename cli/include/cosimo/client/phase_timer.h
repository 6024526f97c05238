// Where the wall time of one `cosimo run` goes (`cosimo run --timings`, and the debug log): a
// timeline of named moments, each with the time since the timer started and since the moment
// before it. Moments the orchestrator reports in Unix milliseconds (a job's start on its worker,
// its end) are placed on the same timeline. Not thread-safe: one thread marks.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cosimo::client {

class PhaseTimer {
 public:
  PhaseTimer();  // the timeline's zero: now

  // `what` happened now; logged at debug level too.
  void Mark(std::string_view what);
  // `what` happened at `unix_ms` (ms since the Unix epoch, e.g. a job's started_unix_ms), as
  // this machine's clock says; ignored when 0.
  void MarkAt(std::string_view what, int64_t unix_ms);

  // Milliseconds since the timeline's zero.
  double ElapsedMs() const;

  // The timeline in time order, one line per moment: "  +12.3 ms  (+2.1)  what".
  std::string Report() const;

 private:
  struct Moment {
    double ms;  // since zero
    std::string what;
  };
  std::chrono::steady_clock::time_point start_;
  int64_t start_unix_us_;
  std::vector<Moment> moments_;
};

}  // namespace cosimo::client
