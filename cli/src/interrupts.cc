// What Ctrl-C or SIGTERM does to the command line (README: exit 130 at once). A thread waits
// for the signal (sigwait) while main goes on.
#include "interrupts.h"

#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/common/process.h"

namespace cosimo::cli {

std::atomic<bool> g_interrupted{false};

namespace {

// What Ctrl-C or SIGTERM does (README: exit 130 at once), as main goes on: `run` cancels its
// job and stops its workers (a second signal exits at once); a watched job is left running and
// the message says how to follow or cancel it; anything else exits.
struct InterruptState {
  absl::Mutex mutex;
  bool cancel_run ABSL_GUARDED_BY(mutex) = false;
  std::string watched_job ABSL_GUARDED_BY(mutex);
  std::string temp_dir ABSL_GUARDED_BY(mutex);  // removed before exiting
};
InterruptState g_interrupt;

void HandleInterrupts(sigset_t signals) {
  int signal = 0;
  sigwait(&signals, &signal);
  g_interrupted = true;
  std::string temp_dir, job;
  bool cancel_run = false;
  {
    absl::MutexLock lock(&g_interrupt.mutex);
    temp_dir = g_interrupt.temp_dir;
    job = g_interrupt.watched_job;
    cancel_run = g_interrupt.cancel_run;
  }
  if (cancel_run) {
    std::cerr << "\ncosimo: interrupted: keeping the rows recorded so far, stopping the job "
                 "and its workers\n";
    sigwait(&signals, &signal);
  } else if (!job.empty()) {
    std::cerr << "\ncosimo: interrupted; job " << job
              << " is still running on the orchestrator (cosimo watch " << job
              << " follows it again, cosimo cancel " << job << " stops it)\n";
  } else {
    std::cerr << "\ncosimo: interrupted\n";
  }
  std::error_code ignored;
  if (!temp_dir.empty()) std::filesystem::remove_all(temp_dir, ignored);
  std::fflush(stdout);
  _exit(130);
}

}  // namespace

void SetInterruptTempDir(const std::string& path) {
  absl::MutexLock lock(&g_interrupt.mutex);
  g_interrupt.temp_dir = path;
}

void SetWatchedJob(const std::string& job) {
  absl::MutexLock lock(&g_interrupt.mutex);
  g_interrupt.watched_job = job;
}

void StartInterruptHandler(bool cancel_run) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  {
    absl::MutexLock lock(&g_interrupt.mutex);
    g_interrupt.cancel_run = cancel_run;
  }
  std::thread(HandleInterrupts, signals).detach();
  // It waits in sigwait, holding nothing: `cosimo run` may still fork its workers.
  CountSignalWaitingThread();
}

}  // namespace cosimo::cli
