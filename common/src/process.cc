#include "cosimo/common/process.h"

#include <malloc.h>
#include <sched.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <set>
#include <string>

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

}  // namespace cosimo
