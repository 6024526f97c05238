// Process-wide settings Cosimo's programs (cosimo, cosimo-orchestrator, cosimo-worker and the
// benchmark) make once, from main, before they start threads.
#pragma once

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cosimo {

// Debian's Abseil is built without NDEBUG, so by default every absl::Mutex lock, gRPC's own
// included, runs Abseil's debug deadlock detector: the lock is recorded in a process-wide graph
// under a process-wide spin lock. On a step's path (a few dozen gRPC locks per message) that is
// about 2 % of a worker's and of the orchestrator's CPU (docs/benchmarks.md). The programs turn
// it off; the tests keep it (they do not call this), and clang's -Wthread-safety checks Cosimo's
// own lock annotations at build time (thread_safety_check). It also keeps malloc from mapping and
// unmapping a block of a chunk of rows each time (process.cc).
void SetUpProcess();

// A CPU list as taskset -c takes it ("0", "2-3", "0,2-3"): the CPUs, ascending, each once. An
// error names `what` (the flag) and the part that is not a CPU number or a range.
[[nodiscard]] absl::StatusOr<std::vector<int>> ParseCpuList(absl::string_view list,
                                                            absl::string_view what);

// The CPUs the calling thread may run on (its affinity: this machine's, within its container's
// cpuset), ascending; empty if the kernel does not say.
std::vector<int> AllowedCpus();

// Pins this process to `cpus` (sched_setaffinity): the calling thread, and every thread it starts
// afterwards, so call it from main before any other thread starts. A CPU this process may not run
// on (not on this machine, outside its container's cpuset) is an error naming `what` and the
// CPUs it may use.
[[nodiscard]] absl::Status PinToCpus(const std::vector<int>& cpus, absl::string_view what);

}  // namespace cosimo
