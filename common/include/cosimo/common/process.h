// Process-wide settings Cosimo's programs (cosimo, cosimo-orchestrator, cosimo-worker and the
// benchmark) make once, from main, before they start threads.
#pragma once

#include <sys/types.h>

#include <csignal>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace cosimo {

// Debian's Abseil is built without NDEBUG, so by default every absl::Mutex lock, gRPC's own
// included, runs Abseil's debug deadlock detector: the lock is recorded in a process-wide graph
// under a process-wide spin lock. On a step's path (a few dozen gRPC locks per message) that is
// about 2 % of a worker's and of the orchestrator's CPU (docs/benchmarks.md). The programs turn
// it off; the tests keep it (they do not call this), and clang's -Wthread-safety checks Cosimo's
// own lock annotations at build time (thread_safety_check).
void SetUpProcess();

// glibc's malloc serves every block over 128 KiB with a fresh mmap and gives it back with munmap,
// so a program that handles results tables (a job's rows read from the store and sent, a client's
// table growing as they come) faulted every page of them in anew: on a virtual machine a page
// fault costs microseconds, and the faults were the largest cost of a recorded row (issue 40: a
// third of the orchestrator's CPU on a run of one cheap FMU). Blocks up to 32 MiB (glibc's largest
// threshold) then come from the heap and are reused, and up to 256 MiB of freed memory stays.
// The orchestrator and `cosimo` call it from main, the worker once it runs a job's master (RunJob:
// rows stream through it); not before, since sweep variants ran slower with it (fig8).
void KeepFreedMemory();

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

// How SpawnProcess starts a child: which of our descriptors become its 1, 2 and 3 (-1: its 1 and
// 2 are ours, it has no 3; a close-on-exec descriptor is fine), the signal it gets when this
// process dies, and whether it leads a process group of its own (then Ctrl-C on the terminal
// reaches only us).
struct SpawnOptions {
  int stdout_fd = -1;
  int stderr_fd = -1;
  int fd3 = -1;
  int death_signal = SIGTERM;
  bool own_process_group = false;
};

// Starts `argv` (argv[0]: the program's path) as a child that shares this process's memory until
// it execs (clone with CLONE_VM | CLONE_VFORK, as posix_spawn, which cannot set the parent death
// signal): a fork would copy the page tables of this process and fault on every page either
// touches before the exec (a 1-step `cosimo run` started its two children in 4 ms; a benchmark
// that forked from a large process counted that in the programs it timed). The child's signal
// handlers are back to their defaults and its signal mask empty; it inherits no other of our
// descriptors than those named (they are close-on-exec elsewhere in Cosimo's programs). An exec
// that fails ends the child with exit code 127. The caller reaps it (waitpid).
[[nodiscard]] absl::StatusOr<pid_t> SpawnProcess(std::vector<std::string> argv,
                                                 const SpawnOptions& options = {});

// Runs `body` in a child forked from this process, which then ends with body's result as its exit
// code (_exit, after stdio is flushed; an exception out of `body` ends it with 70). The child is
// this program as it is now, copy-on-write: no exec, so no second load, relocation and static
// start of the program and its libraries (`cosimo run`'s worker is ready to dial 15-20 ms
// sooner, issue 40). Prepared as SpawnProcess's child (`options`: death
// signal, process group, default signal handlers, empty signal mask, descriptors 1, 2 and 3), it
// keeps no other descriptor of ours than 0 to 3.
//
// A forked child has only the calling thread: a lock another thread held at the fork stays held
// in it for ever, and gRPC's state does not survive a fork. So call it only when
// ForkKeepsNoLocks() (and before gRPC starts: grpc_is_initialized(), which this layer does not
// know); else use SpawnProcess. The caller reaps the child (waitpid).
[[nodiscard]] absl::StatusOr<pid_t> ForkProcess(absl::FunctionRef<int()> body,
                                                const SpawnOptions& options = {});

// Notes that the calling code has started one thread that only waits for signals (sigwait), takes
// no lock while it waits, and runs no code a forked child runs (the command line's interrupt
// handler): such threads do not keep ForkKeepsNoLocks from being true.
void CountSignalWaitingThread();

// True when this process has no other threads than the calling one and those
// CountSignalWaitingThread counted (/proc/self/stat): a child forked now finds no lock held.
bool ForkKeepsNoLocks();

}  // namespace cosimo
