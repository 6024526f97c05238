#include "bench/cluster.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>

#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/harness.h"
#include "cosimo/common/scenario.h"
#include "orchestrator/src/health_service.h"
#include "orchestrator/src/remote_unit.h"
#include "orchestrator/src/worker_pool.h"
#include "orchestrator/src/worker_service.h"

namespace cosimo::bench {

class WorkerCluster::Impl {
 public:
  std::unique_ptr<orchestrator::WorkerPool> pool;
  std::unique_ptr<orchestrator::WorkerServiceImpl> service;
  std::unique_ptr<orchestrator::HealthServiceImpl> health;
  std::unique_ptr<grpc::Server> server;
  std::vector<std::unique_ptr<ChildProcess>> workers;
  int jobs = 0;
};

WorkerCluster::WorkerCluster(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

WorkerCluster::~WorkerCluster() {
  // The workers run with --once: they exit when their streams end.
  impl_->health->Shutdown();
  impl_->pool->Shutdown();
  impl_->service->CloseStreams(std::chrono::seconds(2));
  impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  impl_->server->Wait();
  impl_->service->Shutdown();
  impl_->workers.clear();
}

absl::StatusOr<std::unique_ptr<WorkerCluster>> WorkerCluster::Start(
    int workers, const std::string& worker_binary, const std::string& log_path, int slotted_workers,
    int slots) {
  auto impl = std::make_unique<Impl>();
  impl->pool = std::make_unique<orchestrator::WorkerPool>(std::chrono::seconds(30));
  impl->service =
      std::make_unique<orchestrator::WorkerServiceImpl>(impl->pool.get(), std::chrono::seconds(1));
  impl->health = std::make_unique<orchestrator::HealthServiceImpl>(
      std::vector<std::string>{v1::WorkerService::service_full_name()});
  // The orchestrator server's services and settings (orchestrator/src/server.cc).
  grpc::EnableDefaultHealthCheckService(false);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  impl->service->AddTo(&builder);
  builder.RegisterService(impl->health.get());
  builder.SetMaxReceiveMessageSize(64 << 20);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 5000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  impl->server = builder.BuildAndStart();
  if (!impl->server || port == 0) return absl::UnavailableError("cluster: cannot listen");
  impl->service->Start();
  const std::string address = absl::StrCat("127.0.0.1:", port);
  for (int i = 0; i < workers + slotted_workers; ++i) {
    std::vector<std::string> argv = {worker_binary, "--orchestrator", address,  "--once",
                                     "--log-level", "warn",           "--host", "bench"};
    if (i < workers) {
      argv.insert(argv.end(), {"--label", "single"});
    } else {
      argv.insert(argv.end(), {"--label", "slots", "--slots", std::to_string(slots)});
    }
    impl->workers.push_back(std::make_unique<ChildProcess>(argv, log_path));
  }
  workers += slotted_workers;
  const int64_t deadline = NowNs() + 60'000'000'000;
  while (static_cast<int>(impl->pool->List().size()) < workers) {
    if (NowNs() > deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("cluster: only ", impl->pool->List().size(), " of ", workers,
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

absl::StatusOr<orchestrator::MasterResult> WorkerCluster::Run(
    const v1::Scenario& scenario, orchestrator::MasterObserver* observer, uint64_t* commands) {
  const std::string job_id = absl::StrCat("bench-", ++impl_->jobs);
  std::vector<std::string> labels;
  for (const v1::Unit& unit : scenario.units()) labels.push_back(unit.worker_label());
  auto workers = impl_->pool->TryAcquire(labels, job_id);
  if (!workers) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cluster: not enough idle workers for ", scenario.units_size(), " units"));
  }
  // As JobManager::RunJob: load every unit in parallel, then run the master.
  std::vector<v1::LoadUnit> loads;
  for (int i = 0; i < scenario.units_size(); ++i) loads.push_back(LoadUnitFor(scenario, i, job_id));
  std::vector<std::unique_ptr<orchestrator::RemoteUnit>> units =
      orchestrator::RemoteUnit::StartLoads(*workers, loads);
  absl::Status status;
  for (auto& unit : units) {
    absl::Status s = unit->FinishLoad();
    if (status.ok() && !s.ok()) status = s;
  }
  absl::StatusOr<orchestrator::MasterResult> result =
      [&]() -> absl::StatusOr<orchestrator::MasterResult> {
    if (!status.ok()) return status;
    std::vector<orchestrator::UnitProxy*> proxies;
    for (auto& unit : units) proxies.push_back(unit.get());
    return orchestrator::RunMaster(scenario, proxies, observer);
  }();
  if (!result.ok()) {
    for (auto& unit : units) {
      if (unit->worker().lost()) continue;
      orchestrator::UnitCommand terminate;
      terminate.kind = orchestrator::UnitCommand::Kind::kTerminate;
      orchestrator::UnitResponse ignored;
      (void)unit->Call(terminate, &ignored);
    }
  }
  if (commands != nullptr) {
    for (const auto& unit : units) *commands += unit->commands_sent();
  }
  units.clear();
  impl_->pool->Release(*workers);
  return result;
}

}  // namespace cosimo::bench
