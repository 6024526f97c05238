#include "cosimo/common/process.h"

#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"

namespace cosimo {
namespace {

// CPU numbers above this are refused by ParseCpuList (cpu_set_t holds CPU_SETSIZE = 1024).
constexpr int kMaxCpu = CPU_SETSIZE - 1;

bool ParseCpu(absl::string_view text, int* cpu) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *cpu);
  return !text.empty() && ec == std::errc() && ptr == end && *cpu >= 0 && *cpu <= kMaxCpu;
}

// "0-1,3": the CPUs of `set`.
std::string CpuListOf(const cpu_set_t& set) {
  std::vector<std::string> parts;
  for (int cpu = 0; cpu <= kMaxCpu; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 <= kMaxCpu && CPU_ISSET(last + 1, &set)) ++last;
    parts.push_back(last == cpu ? std::to_string(cpu) : absl::StrCat(cpu, "-", last));
    cpu = last;
  }
  return absl::StrJoin(parts, ",");
}

}  // namespace

void SetUpProcess() { absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore); }

void KeepFreedMemory() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

std::vector<int> AllowedCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return {};
  std::vector<int> cpus;
  for (int cpu = 0; cpu <= kMaxCpu; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

absl::StatusOr<std::vector<int>> ParseCpuList(absl::string_view list, absl::string_view what) {
  std::set<int> cpus;
  for (absl::string_view part : absl::StrSplit(list, ',')) {
    const std::vector<absl::string_view> range = absl::StrSplit(part, absl::MaxSplits('-', 1));
    int first = 0, last = 0;
    const bool ok = range.size() == 1 ? ParseCpu(range[0], &first) && ParseCpu(range[0], &last)
                                      : ParseCpu(range[0], &first) && ParseCpu(range[1], &last);
    if (!ok || last < first) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " '", list, "': '", part,
                       "' is not a CPU number or a range FIRST-LAST (e.g. 0, 2-3 or 0,2-3)"));
    }
    for (int cpu = first; cpu <= last; ++cpu) cpus.insert(cpu);
  }
  return std::vector<int>(cpus.begin(), cpus.end());
}

absl::Status PinToCpus(const std::vector<int>& cpus, absl::string_view what) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) {
    return absl::InternalError(
        absl::StrCat(what, ": sched_getaffinity failed: ", std::strerror(errno)));
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) {
    if (cpu < 0 || cpu > kMaxCpu || !CPU_ISSET(cpu, &allowed)) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": CPU ", cpu, " is not one this process may run on (", CpuListOf(allowed), ")"));
    }
    CPU_SET(cpu, &set);
  }
  if (cpus.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": no CPU given"));
  if (sched_setaffinity(0, sizeof(set), &set) != 0) {
    return absl::InternalError(absl::StrCat(what, ": sched_setaffinity(", CpuListOf(set),
                                            ") failed: ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

namespace {

// What a child started by SpawnProcess execs, and with which descriptors.
struct SpawnRequest {
  char** argv;
  pid_t parent;
  const SpawnOptions* options;
};

constexpr size_t kSpawnStackBytes = 64 * 1024;

// Threads CountSignalWaitingThread counted.
std::atomic<int> g_signal_waiting_threads{0};

// A new child's set-up as `options` asks (SpawnProcess's and ForkProcess's): system calls only.
// `parent`: our pid, read before the child started (the child ends at once if we already died).
void PrepareChild(const SpawnOptions& options, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, options.death_signal);
  if (getppid() != parent) _exit(1);
  if (options.own_process_group) setpgid(0, 0);
  // Our handlers are not the program's: each signal handled here is back to its default.
  for (int signal = 1; signal < NSIG; ++signal) {
    struct sigaction action {};
    if (sigaction(signal, nullptr, &action) == 0 && action.sa_handler != SIG_DFL &&
        action.sa_handler != SIG_IGN) {
      action.sa_handler = SIG_DFL;
      action.sa_flags = 0;
      sigaction(signal, &action, nullptr);
    }
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Each first moved above the targets (a source may be another's target: the log pipe our 3,
  // meant as the child's 2), then onto its target: dup2 onto another number clears
  // close-on-exec. The moved copies are close-on-exec (and ForkProcess closes them).
  constexpr int kAboveTargets = 10;
  const int sources[3] = {options.fd3, options.stdout_fd, options.stderr_fd};
  const int targets[3] = {3, 1, 2};
  int moved[3] = {-1, -1, -1};
  for (int i = 0; i < 3; ++i) {
    if (sources[i] >= 0) moved[i] = fcntl(sources[i], F_DUPFD_CLOEXEC, kAboveTargets);
  }
  for (int i = 0; i < 3; ++i) {
    if (moved[i] >= 0) dup2(moved[i], targets[i]);
  }
}

// The child's side of SpawnProcess, on a stack of its own, in our memory (CLONE_VM |
// CLONE_VFORK): system calls only, then exec.
int StartChild(void* data) {
  const SpawnRequest& request = *static_cast<const SpawnRequest*>(data);
  PrepareChild(*request.options, request.parent);
  execv(request.argv[0], request.argv);
  _exit(127);
}

}  // namespace

absl::StatusOr<pid_t> SpawnProcess(std::vector<std::string> argv, const SpawnOptions& options) {
  if (argv.empty()) return absl::InvalidArgumentError("SpawnProcess: no program");
  // Built before the clone: the child only execs.
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  SpawnRequest request{args.data(), getpid(), &options};
  std::vector<char> stack(kSpawnStackBytes);
  // No signal handler of ours may run on the child's stack before it resets them.
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  const pid_t pid =
      clone(StartChild, stack.data() + stack.size(), CLONE_VM | CLONE_VFORK | SIGCHLD, &request);
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot start ", argv[0], ": clone failed: ", std::strerror(errno)));
  }
  return pid;
}

absl::StatusOr<pid_t> ForkProcess(absl::FunctionRef<int()> body, const SpawnOptions& options) {
  const pid_t parent = getpid();
  std::fflush(nullptr);  // else the child writes what we buffered a second time
  // No handler of ours may run in the child before it resets them.
  sigset_t all, before;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &before);
  const pid_t pid = fork();
  if (pid != 0) pthread_sigmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot start a child process: fork failed: ", std::strerror(errno)));
  }
  if (pid > 0) return pid;
  PrepareChild(options, parent);
  g_signal_waiting_threads = 0;  // not in the child: it has only this thread
  // Ours were close-on-exec: with no exec they would stay open in the child (a worker would
  // keep another's socket, whose end it waits for, open).
  close_range(4, ~0U, 0);
  int code = 70;
  try {
    code = body();
  } catch (...) {  // never back into the caller's frames: they are the parent's
  }
  std::fflush(nullptr);
  _exit(code);
}

void CountSignalWaitingThread() { g_signal_waiting_threads.fetch_add(1); }

bool ForkKeepsNoLocks() {
  // Field 20 of /proc/self/stat, counted after the command name's closing parenthesis.
  std::ifstream file("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const size_t end = stat.rfind(')');
  if (end == std::string::npos) return false;
  std::vector<absl::string_view> fields =
      absl::StrSplit(absl::string_view(stat).substr(end + 2), ' ');
  int threads = 0;
  if (fields.size() < 18 || !absl::SimpleAtoi(fields[17], &threads)) return false;
  return threads == 1 + g_signal_waiting_threads.load();
}

}  // namespace cosimo
