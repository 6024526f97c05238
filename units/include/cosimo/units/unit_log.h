// A job's own log, as the worker collects it (issue 42, docs/protocol.md#a-jobs-log): what the
// units of this process said through the FMI logger and printed on their standard output and
// error, each line tagged with the job and the unit of the call that produced it (the thread's
// CrashContext, crash_context.h) and the call's simulated time.
//
// Off by default (a unit run in-process by a test or a benchmark keeps nothing): the worker
// turns the book on, and with it the capture of standard output and error (CaptureOutput), and
// takes the lines out to send them to the orchestrator (UnitLogs). Bounded: at most
// kMaxLogBytesPerJob bytes of text per job in a process; the lines past it are dropped, and one
// "cosimo" line says so.
//
// Output capture: descriptors 1 and 2 go to a pipe of their own (1 MiB, its writing end
// non-blocking: a unit that prints more than that within one call loses the rest rather than
// blocking), stdout and stderr fully buffered. After each unit command (UnitHost::Run) that
// left something in their buffers, ScopedUnitOutput flushes them and reads the pipe into the
// lines of that command's job and unit. The check costs no system call when nothing was
// printed. Output written straight to the descriptors (write(2), not stdio) is read at the next
// drain, and goes to the unit drained last. With several units stepping at once in one worker
// (--slots), a line may go to another of them. The worker's own log keeps the original
// standard error (the descriptor CaptureOutput returns).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cosimo/v1/job_service.pb.h"

namespace cosimo::units {

inline constexpr size_t kMaxLogBytesPerJob = size_t{1} << 20;

// Turns the book on (for the rest of the process).
void EnableUnitLog();
bool UnitLogEnabled();

// A line of the unit the calling thread runs a command of; false (nothing kept) outside a
// command or with the book off. `source` is "fmi", "stdout" or "stderr".
bool AddUnitLogLine(const char* source, const char* status, const char* category, std::string text);

// The lines added since the last call, in order.
std::vector<v1::LogEntry> TakeUnitLogLines();

// Sends descriptors 1 and 2 to the capture pipe and turns the book on. Returns a descriptor
// on the original standard error (for the process's own log), or -1 with errno set.
int CaptureOutput();

// Reads what the units printed so far into the book, under the calling thread's command (or the
// command drained last).
void DrainOutput();

// Whether something printed through stdio waits in stdout's or stderr's buffer (capture on).
bool OutputPending();

// Drains, at the end of a unit command, what it printed (declare after its ScopedUnitCall).
class ScopedUnitOutput {
 public:
  ScopedUnitOutput() = default;
  ~ScopedUnitOutput() {
    if (OutputPending()) DrainOutput();
  }
  ScopedUnitOutput(const ScopedUnitOutput&) = delete;
  ScopedUnitOutput& operator=(const ScopedUnitOutput&) = delete;
};

}  // namespace cosimo::units
