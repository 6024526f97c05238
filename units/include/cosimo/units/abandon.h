// A process-wide request to abandon the command being computed. The worker's session sets it
// when its stream to the orchestrator ends (the orchestrator gave the worker up: a command
// timeout, a canceled job) and clears it when a new stream starts; long loops (the fixed-step
// solvers' substeps) check it and fail the command, so the worker is free again long before a
// 1e9-substep step would have ended. Thread safe.
#pragma once

#include <atomic>

namespace cosimo::units {

inline std::atomic<bool>& AbandonRequest() {
  static std::atomic<bool> requested{false};
  return requested;
}

inline bool AbandonRequested() { return AbandonRequest().load(std::memory_order_relaxed); }

}  // namespace cosimo::units
