// Ctrl-C and SIGTERM on the command line (README: exit 130 at once): `run` (and a sweep here)
// cancels its job and stops its workers, a second signal exits at once; a watched job is left
// running and the message says how to follow or cancel it; anything else exits. A temporary
// folder named here is removed before exiting.
#pragma once

#include <atomic>
#include <string>

namespace cosimo::cli {

// Set when a signal came (the verbs check it to exit 130).
extern std::atomic<bool> g_interrupted;

// Blocks SIGINT and SIGTERM in every thread and starts the thread that waits for them;
// `cancel_run`: the verb runs a job here, which the first signal cancels.
void StartInterruptHandler(bool cancel_run);
// The job a verb watches on an orchestrator, for the message (empty: none).
void SetWatchedJob(const std::string& job);
// A folder to remove before exiting on a signal.
void SetInterruptTempDir(const std::string& path);

}  // namespace cosimo::cli
