#include <signal.h>
#include <spawn.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/client/client.h"
#include "cosimo/common/job_state.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"

namespace cosimo::client {
namespace {

namespace fs = std::filesystem;

// How long a canceled job may take to reach its end before its workers are stopped anyway.
constexpr std::chrono::seconds kCancelGrace{2};

// A program beside this one (or where `given` or the environment variable `env` says).
std::string ProgramBeside(const std::string& given, const char* env, const char* name) {
  if (!given.empty()) return given;
  if (const char* value = std::getenv(env); value && *value) return value;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / name).string();
}

// The child processes of one embedded run (the orchestrator, the workers); stopped (TERM, then
// KILL) on destruction.
class ChildProcesses {
 public:
  ~ChildProcesses() { StopAll(); }

  // Starts `argv` in a process group of its own: Ctrl-C on the terminal reaches `cosimo run`
  // only, which cancels the job and then stops its children (a worker stopped first would fail
  // the job). The child dies with this process, whatever kills it.
  absl::StatusOr<pid_t> Spawn(std::vector<std::string> argv) {
    // Built before the fork: the child only execs.
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) return absl::ResourceExhaustedError("fork failed: cannot start " + argv[0]);
    if (pid == 0) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(1);
      setpgid(0, 0);
      sigset_t none;
      sigemptyset(&none);
      pthread_sigmask(SIG_SETMASK, &none, nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    pids_.push_back(pid);
    return pid;
  }

  // A child that already exited (e.g. exec failed): what it was and how it ended.
  std::string Exited(const char* what) {
    for (pid_t pid : pids_) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        reaped_.push_back(pid);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
          return absl::StrCat(what, " process ", pid, " could not be started");
        }
        return absl::StrCat(what, " process ", pid, " exited early");
      }
    }
    return "";
  }

  void StopAll() {
    for (pid_t pid : pids_) {
      if (std::find(reaped_.begin(), reaped_.end(), pid) == reaped_.end()) kill(pid, SIGTERM);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    for (pid_t pid : pids_) {
      if (std::find(reaped_.begin(), reaped_.end(), pid) != reaped_.end()) continue;
      int status = 0;
      while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
          kill(pid, SIGKILL);
          waitpid(pid, &status, 0);
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    }
    pids_.clear();
    reaped_.clear();
  }

 private:
  std::vector<pid_t> pids_;
  std::vector<pid_t> reaped_;
};

// The worker processes of one embedded run.
class WorkerProcesses {
 public:
  // `label`: the worker label of the units it hosts (empty: none), so pinned scenarios run
  // unchanged on one machine; `slots`: how many units it hosts.
  absl::Status Spawn(const std::string& binary, const std::string& address,
                     const EmbeddedOptions& options, const std::string& label, int slots) {
    std::vector<std::string> argv = {
        binary,        "--orchestrator",         address,        "--once",
        "--log-level", options.worker_log_level, "--log-format", options.worker_log_format};
    if (!label.empty()) argv.insert(argv.end(), {"--label", label});
    if (slots > 1) argv.insert(argv.end(), {"--slots", std::to_string(slots)});
    return children_.Spawn(std::move(argv)).status();
  }
  std::string Exited() { return children_.Exited("worker"); }
  void StopAll() { children_.StopAll(); }

 private:
  ChildProcesses children_;
};

// The run's orchestrator: a cosimo-orchestrator process on loopback, on a port of its choosing
// (written to a file in a folder of its own); stopped after the workers.
class OrchestratorProcess {
 public:
  ~OrchestratorProcess() {
    child_.StopAll();
    std::error_code ignored;
    if (!dir_.empty()) fs::remove_all(dir_, ignored);
  }

  // Starts it and waits until it listens (at most 30 s); its address.
  absl::StatusOr<std::string> Start(const std::string& binary, const EmbeddedOptions& options) {
    std::string pattern = (fs::temp_directory_path() / "cosimo-run-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return absl::InternalError("cannot create a folder for the orchestrator's port file");
    }
    dir_ = pattern;
    const std::string port_file = dir_ + "/port";
    absl::StatusOr<pid_t> pid = child_.Spawn(
        {binary, "--listen", "127.0.0.1:0", "--port-file", port_file, "--heartbeat-interval-ms",
         "500", "--heartbeat-timeout-ms", "10000", "--log-level", options.orchestrator_log_level,
         "--log-format", options.worker_log_format});
    if (!pid.ok()) return pid.status();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream in(port_file);
      int port = 0;
      if (in >> port && port > 0) return absl::StrCat("127.0.0.1:", port);
      if (std::string exited = child_.Exited("orchestrator"); !exited.empty()) {
        return absl::UnavailableError(exited + " (" + binary + ")");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return absl::DeadlineExceededError("the orchestrator (" + binary +
                                       ") did not listen within 30 s");
  }

 private:
  ChildProcesses child_;
  std::string dir_;
};

}  // namespace

std::vector<EmbeddedWorkers> EmbeddedWorkerPlan(const v1::Scenario& scenario, int max_workers) {
  std::vector<EmbeddedWorkers> plan;
  std::vector<int> units;  // per entry of plan
  for (const v1::Unit& unit : scenario.units()) {
    auto it = std::find_if(plan.begin(), plan.end(), [&](const EmbeddedWorkers& g) {
      return g.label == unit.worker_label();
    });
    if (it == plan.end()) {
      plan.push_back({unit.worker_label(), 1, 1});
      units.push_back(0);
      it = plan.end() - 1;
    }
    ++units[static_cast<size_t>(it - plan.begin())];
  }
  const int total = scenario.units_size();
  for (size_t g = 0; g < plan.size() && max_workers <= 0; ++g) {
    plan[g].slots = units[g];  // one process per label: its jobs' masters run in it (RunJob)
  }
  for (size_t g = 0; g < plan.size() && max_workers > 0; ++g) {
    const int share = static_cast<int>(static_cast<int64_t>(max_workers) * units[g] / total);
    plan[g].processes = std::clamp(share, 1, units[g]);
    plan[g].slots = (units[g] + plan[g].processes - 1) / plan[g].processes;
  }
  return plan;
}

namespace {

// Follow the job by polling, not with a WatchJob stream: a thread of this process blocked in
// a gRPC call takes part in polling the whole process's sockets (gRPC 1.51's epoll1), the
// workers' included, and would pick up their replies and hand them to the job thread, two
// thread wakes per step (the embedded run took 125 us per step against 72-92 us for a
// standalone orchestrator, docs/benchmarks.md). Between short GetJob calls no thread waits
// in gRPC. Cancel on request; notice workers that die before attaching (`workers_failed` says
// which, and the job is canceled).
absl::StatusOr<v1::JobStatus> FollowJob(Client& client, const std::string& job,
                                        const EmbeddedOptions& options, WorkerProcesses& workers,
                                        std::string* workers_failed) {
  absl::StatusOr<v1::JobStatus> final_status = absl::UnknownError("not watched");
  bool cancel_sent = false;
  bool cancel_asked = false;
  std::chrono::steady_clock::time_point cancel_time;
  // The job waits while its workers start: that is shown only if it lasts.
  const auto submitted = std::chrono::steady_clock::now();
  while (true) {
    if (!cancel_asked && options.cancel != nullptr && options.cancel->load()) {
      if (!cancel_sent) (void)client.Cancel(job);
      cancel_sent = cancel_asked = true;
      cancel_time = std::chrono::steady_clock::now();
    }
    // Asked to cancel: the job ends at its next communication point; a step that takes
    // longer is not waited for (the workers are stopped below).
    if (cancel_asked && std::chrono::steady_clock::now() - cancel_time > kCancelGrace) {
      final_status = absl::CancelledError("the run was canceled");
      break;
    }
    final_status = client.Get(job);
    if (!final_status.ok()) break;
    const v1::JobState state = final_status->state();
    const bool starting = state == v1::QUEUED &&
                          std::chrono::steady_clock::now() - submitted < std::chrono::seconds(3);
    if (options.on_update && !starting) options.on_update(*final_status);
    if (IsFinished(state)) break;
    if (state == v1::QUEUED && !cancel_sent) {
      if (std::string exited = workers.Exited(); !exited.empty()) {
        spdlog::error("{}", exited);
        *workers_failed = exited;
        (void)client.Cancel(job);
        cancel_sent = true;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return final_status;
}

}  // namespace

absl::StatusOr<JobResults> RunEmbedded(const v1::Scenario& scenario,
                                       const EmbeddedOptions& options) {
  if (absl::Status s = ValidateScenario(scenario); !s.ok()) return s;
  const std::string binary =
      ProgramBeside(options.worker_binary, "COSIMO_WORKER_BINARY", "cosimo-worker");
  const std::string orchestrator_binary = ProgramBeside(
      options.orchestrator_binary, "COSIMO_ORCHESTRATOR_BINARY", "cosimo-orchestrator");
  for (const auto& [program, variable] :
       {std::pair{binary, "COSIMO_WORKER_BINARY"},
        std::pair{orchestrator_binary, "COSIMO_ORCHESTRATOR_BINARY"}}) {
    if (access(program.c_str(), X_OK) != 0) {
      return absl::NotFoundError(
          absl::StrCat("cannot find the program '", program, "' (set ", variable, ")"));
    }
  }
  OrchestratorProcess server;
  absl::StatusOr<std::string> started = server.Start(orchestrator_binary, options);
  if (!started.ok()) return started.status();
  const std::string address = *started;

  absl::StatusOr<JobResults> results = absl::UnknownError("not run");
  {
    WorkerProcesses workers;
    for (const EmbeddedWorkers& group : EmbeddedWorkerPlan(scenario, options.max_workers)) {
      for (int i = 0; i < group.processes; ++i) {
        if (absl::Status s = workers.Spawn(binary, address, options, group.label, group.slots);
            !s.ok()) {
          return s;
        }
      }
    }
    Client client(address);
    absl::StatusOr<std::string> job = client.Submit(scenario);
    if (!job.ok()) return job.status();
    std::string workers_failed;  // why the job was canceled for want of its workers
    const absl::StatusOr<v1::JobStatus> final_status =
        FollowJob(client, *job, options, workers, &workers_failed);
    if (!final_status.ok()) {
      results = final_status.status();
    } else if (final_status->state() == v1::SUCCEEDED) {
      results = client.Results(*job);
    } else if (final_status->state() == v1::CANCELED && !workers_failed.empty()) {
      // The cause, not only "canceled before it started" (a 1000-unit run said just that).
      results = absl::UnavailableError("the run could not start: " + workers_failed);
    } else if (final_status->state() == v1::CANCELED) {
      results = absl::CancelledError("the run was canceled");
    } else {
      // The job's own message: its id is this run's private orchestrator's, drawn anew each
      // time (issue 41: a local sweep's failed rows differed from run to run and from the
      // service's table).
      results = absl::AbortedError(final_status->message());
    }
    workers.StopAll();
  }
  return results;
}

}  // namespace cosimo::client
