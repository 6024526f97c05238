#include "cosimo/client/phase_timer.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>

namespace cosimo::client {

PhaseTimer::PhaseTimer()
    : start_(std::chrono::steady_clock::now()),
      start_unix_us_(std::chrono::duration_cast<std::chrono::microseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count()) {}

double PhaseTimer::ElapsedMs() const {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_)
      .count();
}

void PhaseTimer::Mark(std::string_view what) {
  moments_.push_back({ElapsedMs(), std::string(what)});
  spdlog::debug("timings: +{:.1f} ms {}", moments_.back().ms, what);
}

void PhaseTimer::MarkAt(std::string_view what, int64_t unix_ms) {
  if (unix_ms == 0) return;
  const double ms = static_cast<double>(unix_ms * 1000 - start_unix_us_) * 1e-3;
  moments_.push_back({ms, std::string(what)});
  spdlog::debug("timings: +{:.0f} ms {} (the orchestrator's clock, ms)", ms, what);
}

std::string PhaseTimer::Report() const {
  std::vector<Moment> sorted = moments_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Moment& a, const Moment& b) { return a.ms < b.ms; });
  std::string out;
  double previous = 0.0;
  for (const Moment& m : sorted) {
    char line[64];
    std::snprintf(line, sizeof(line), "  %+8.1f ms  (+%6.1f)  ", m.ms, m.ms - previous);
    out += line;
    out += m.what;
    out += '\n';
    previous = m.ms;
  }
  return out;
}

}  // namespace cosimo::client
