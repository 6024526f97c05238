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
#include <string>
#include <thread>
#include <vector>

#include "cosimo/client/client.h"
#include "cosimo/common/job_state.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "cosimo/orchestrator/server.h"

namespace cosimo::client {
namespace {

namespace fs = std::filesystem;

// How long a canceled job may take to reach its end before its workers are stopped anyway.
constexpr std::chrono::seconds kCancelGrace{2};

std::string WorkerBinary(const EmbeddedOptions& options) {
  if (!options.worker_binary.empty()) return options.worker_binary;
  if (const char* env = std::getenv("COSIMO_WORKER_BINARY"); env && *env) return env;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / "cosimo-worker").string();
}

// The worker processes of one embedded run; stopped (TERM, then KILL) on destruction.
class WorkerProcesses {
 public:
  ~WorkerProcesses() { StopAll(); }

  // `label`: the worker label of the units it hosts (empty: none), so pinned scenarios run
  // unchanged on one machine; `slots`: how many units it hosts.
  absl::Status Spawn(const std::string& binary, const std::string& address,
                     const EmbeddedOptions& options, const std::string& label, int slots) {
    // Built before the fork: the child only execs.
    std::vector<std::string> argv = {
        binary,        "--orchestrator",         address,        "--once",
        "--log-level", options.worker_log_level, "--log-format", options.worker_log_format};
    if (!label.empty()) argv.insert(argv.end(), {"--label", label});
    if (slots > 1) argv.insert(argv.end(), {"--slots", std::to_string(slots)});
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid < 0) return absl::ResourceExhaustedError("fork failed: cannot start a worker");
    if (pid == 0) {
      // Die with the parent, whatever kills it.
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(1);
      // A process group of its own: Ctrl-C on the terminal reaches `cosimo run` only, which
      // cancels the job and then stops its workers (a worker stopped first would fail the job).
      setpgid(0, 0);
      sigset_t none;
      sigemptyset(&none);
      pthread_sigmask(SIG_SETMASK, &none, nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    pids_.push_back(pid);
    return absl::OkStatus();
  }

  // A child that already exited (e.g. exec failed): its pid and status.
  std::string Exited() {
    for (pid_t pid : pids_) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        reaped_.push_back(pid);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
          return "worker process " + std::to_string(pid) + " could not be started";
        }
        return "worker process " + std::to_string(pid) + " exited early";
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
  for (size_t g = 0; g < plan.size(); ++g) {
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
      final_status = absl::CancelledError("job " + job + " canceled");
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
  const std::string binary = WorkerBinary(options);
  if (access(binary.c_str(), X_OK) != 0) {
    return absl::NotFoundError("cannot find the worker program '" + binary +
                               "' (set COSIMO_WORKER_BINARY)");
  }
  orchestrator::ServerOptions server_options;
  server_options.listen = "127.0.0.1:0";
  server_options.heartbeat_interval = std::chrono::milliseconds(500);
  server_options.heartbeat_timeout = std::chrono::milliseconds(10000);
  absl::StatusOr<std::unique_ptr<orchestrator::OrchestratorServer>> server =
      orchestrator::OrchestratorServer::Start(server_options);
  if (!server.ok()) return server.status();
  const std::string address = (*server)->local_address();

  absl::StatusOr<JobResults> results = absl::UnknownError("not run");
  {
    WorkerProcesses workers;
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    for (const EmbeddedWorkers& group :
         EmbeddedWorkerPlan(scenario, options.max_workers > 0 ? options.max_workers : cores)) {
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
      results = absl::UnavailableError("job " + *job + " could not start: " + workers_failed);
    } else if (final_status->state() == v1::CANCELED) {
      results = absl::CancelledError("job " + *job + " canceled");
    } else {
      results = absl::AbortedError("job " + *job + " failed: " + final_status->message());
    }
    workers.StopAll();
  }
  (*server)->Shutdown();
  return results;
}

}  // namespace cosimo::client
