// Process-wide settings Cosimo's programs (cosimo, cosimo-orchestrator, cosimo-worker and the
// benchmark) make once, from main, before they start threads.
#pragma once

namespace cosimo {

// Debian's Abseil is built without NDEBUG, so by default every absl::Mutex lock, gRPC's own
// included, runs Abseil's debug deadlock detector: the lock is recorded in a process-wide graph
// under a process-wide spin lock. On a step's path (a few dozen gRPC locks per message) that is
// about 2 % of a worker's and of the orchestrator's CPU (docs/benchmarks.md). The programs turn
// it off; the tests keep it (they do not call this), and clang's -Wthread-safety checks Cosimo's
// own lock annotations at build time (thread_safety_check).
void SetUpProcess();

}  // namespace cosimo
