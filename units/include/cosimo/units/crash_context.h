// What a thread of a worker is computing, for the report of a fatal signal raised in a unit's
// code (a segmentation fault in an FMU's fmi2DoStep): the job, the sweep variant, the unit and
// the time of the call. UnitHost::Run sets the job, the unit and the time around every command;
// the worker's RunVariant sets the variant. Plain pointers and numbers in a thread_local, so
// that a signal handler on the faulting thread reads them without allocating or locking
// (worker/src/crash_report.h writes them out).
#pragma once

#include <atomic>
#include <cstdint>
#include <limits>

namespace cosimo::units {

struct CrashContext {
  const char* job = nullptr;   // the job's id, while a command runs (NUL-terminated)
  const char* unit = nullptr;  // the unit's name, while a command runs
  double time = std::numeric_limits<double>::quiet_NaN();  // the command's time, s
  int64_t variant = -1;  // the sweep variant this thread runs (-1: none)
};

inline CrashContext& ThisThreadCrashContext() {
  static thread_local CrashContext context;
  return context;
}

// Sets the unit, job and time of the thread's context for one command; clears them after.
class ScopedUnitCall {
 public:
  ScopedUnitCall(const char* job, const char* unit, double time)
      : context_(ThisThreadCrashContext()) {
    context_.job = job;
    context_.unit = unit;
    context_.time = time;
    // In memory before the call, where a signal handler on this thread reads it: the compiler
    // may not sink these stores past the call nor drop them as overwritten by the destructor's.
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ~ScopedUnitCall() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    context_.unit = nullptr;
    context_.job = nullptr;
  }
  ScopedUnitCall(const ScopedUnitCall&) = delete;
  ScopedUnitCall& operator=(const ScopedUnitCall&) = delete;

 private:
  CrashContext& context_;
};

// The sweep variant the thread runs, for its scope.
class ScopedVariant {
 public:
  explicit ScopedVariant(int64_t variant) {
    ThisThreadCrashContext().variant = variant;
    std::atomic_signal_fence(std::memory_order_seq_cst);
  }
  ~ScopedVariant() {
    std::atomic_signal_fence(std::memory_order_seq_cst);
    ThisThreadCrashContext().variant = -1;
  }
  ScopedVariant(const ScopedVariant&) = delete;
  ScopedVariant& operator=(const ScopedVariant&) = delete;
};

}  // namespace cosimo::units
