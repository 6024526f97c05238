// A MasterObserver that timestamps every accepted macro step (and keeps the running iteration
// count), so that a RunMaster call yields one duration per step. No allocation once reserved;
// never cancels.
#pragma once

#include <cstdint>
#include <vector>

#include "cosimo/master/master.h"
#include "harness.h"

namespace cosimo::bench {

class StepTimer final : public master::MasterObserver {
 public:
  explicit StepTimer(size_t steps) {
    times_.reserve(steps + 2);
    iterations_.reserve(steps + 2);
  }
  void OnProgress(const master::Progress& progress) override {
    times_.push_back(NowNs());
    iterations_.push_back(progress.iterations);
  }
  bool Canceled() override { return false; }

  // Durations between consecutive accepted steps, ns (the first step has no start mark).
  void AppendDurations(std::vector<double>* out) const {
    for (size_t i = 1; i < times_.size(); ++i) {
      out->push_back(static_cast<double>(times_[i] - times_[i - 1]));
    }
  }
  // Duration per internal iteration of each step, ns.
  void AppendPerIteration(std::vector<double>* out) const {
    for (size_t i = 1; i < times_.size(); ++i) {
      const uint64_t iterations = iterations_[i] - iterations_[i - 1];
      if (iterations == 0) continue;
      out->push_back(static_cast<double>(times_[i] - times_[i - 1]) /
                     static_cast<double>(iterations));
    }
  }
  // Iterations and wall time over the measured steps (from the end of the first).
  uint64_t iterations() const {
    return times_.size() < 2 ? 0 : iterations_.back() - iterations_.front();
  }
  int64_t elapsed_ns() const { return times_.size() < 2 ? 0 : times_.back() - times_.front(); }
  size_t steps() const { return times_.size(); }

 private:
  std::vector<int64_t> times_;
  std::vector<uint64_t> iterations_;
};

}  // namespace cosimo::bench
