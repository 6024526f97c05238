// The worker's report of a fatal signal raised while it runs a unit (crash_context.h): handlers
// for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT write one line naming the signal, the job, the
// sweep variant, the unit and the time to standard error and to the crash file, then let the
// signal end the process as it would have. A worker started again with the same crash file (a
// supervisor's restart: Docker's restart policy, systemd) reads the report, logs it and sends it
// in its Hello (Hello.crash), so that the orchestrator names the crash in what it reports of the
// job (a sweep variant's FAILED row). Not covered: a stack overflow (no alternate signal stack).
// The worker program installs it (worker/src/main.cc).
#pragma once

#include <unistd.h>

#include <optional>
#include <string>

#include "cosimo/v1/worker_service.pb.h"

namespace cosimo::worker {

// Installs the handlers, the report written to `stderr_fd` (the worker's own standard error,
// which is not descriptor 2 while the units' output is captured, unit_log.h) and to `path` ("":
// none). Call once, before the threads that run units start.
void InstallCrashReport(const std::string& path, int stderr_fd = STDERR_FILENO);

// The report `path` holds from a worker that crashed before this one started, and empties the
// file; nullopt when there is none (or `path` is "").
std::optional<v1::CrashReport> TakeCrashReport(const std::string& path);

// The report as the handler writes it (one line), for tests: "cosimo-crash SIGSEGV variant=3
// time=<hex bits> job=<id> unit=<name>".
std::optional<v1::CrashReport> ParseCrashLine(const std::string& line);

}  // namespace cosimo::worker
