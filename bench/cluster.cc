#include "cluster.h"

#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/orchestrator/worker_server.h"
#include "harness.h"

namespace cosimo::bench {

class WorkerCluster::Impl {
 public:
  std::unique_ptr<orchestrator::WorkerServer> server;
  std::vector<std::unique_ptr<ChildProcess>> workers;
};

WorkerCluster::WorkerCluster(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

// The workers run with --once: they exit when the server closes their streams.
WorkerCluster::~WorkerCluster() {
  impl_->server.reset();
  impl_->workers.clear();
}

absl::StatusOr<std::unique_ptr<WorkerCluster>> WorkerCluster::Start(
    int workers, const std::string& worker_binary, const std::string& log_path, int slotted_workers,
    int slots) {
  auto impl = std::make_unique<Impl>();
  absl::StatusOr<std::unique_ptr<orchestrator::WorkerServer>> server =
      orchestrator::WorkerServer::Start();
  if (!server.ok()) return server.status();
  impl->server = std::move(*server);
  for (int i = 0; i < workers + slotted_workers; ++i) {
    std::vector<std::string> argv = {worker_binary, "--orchestrator", impl->server->address(),
                                     "--once",      "--log-level",    "warn",
                                     "--host",      "bench"};
    if (i < workers) {
      argv.insert(argv.end(), {"--label", "single"});
      // Pinned as the ping-pongs' peers are (harness.h, PeerCpu); the slotted workers are not,
      // so that each steps its units on every core.
      if (const int cpu = PeerCpu(i); cpu >= 0) {
        argv.insert(argv.end(), {"--cpus", std::to_string(cpu)});
      }
    } else {
      argv.insert(argv.end(), {"--label", "slots", "--slots", std::to_string(slots)});
    }
    impl->workers.push_back(std::make_unique<ChildProcess>(argv, log_path));
  }
  workers += slotted_workers;
  const int64_t deadline = NowNs() + 60'000'000'000;
  while (impl->server->attached() < workers) {
    if (NowNs() > deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("cluster: only ", impl->server->attached(), " of ", workers,
                       " workers attached within 60 s (see ", log_path, ")"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::unique_ptr<WorkerCluster>(new WorkerCluster(std::move(impl)));
}

std::vector<pid_t> WorkerCluster::worker_pids() const {
  std::vector<pid_t> pids;
  for (const auto& w : impl_->workers) pids.push_back(w->pid());
  return pids;
}

absl::StatusOr<master::MasterResult> WorkerCluster::Run(const v1::Scenario& scenario,
                                                        master::MasterObserver* observer,
                                                        uint64_t* commands) {
  return impl_->server->Run(scenario, observer, commands);
}

}  // namespace cosimo::bench
