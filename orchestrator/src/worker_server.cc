#include "cosimo/orchestrator/worker_server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/common/scenario.h"
#include "cosimo/master/run.h"
#include "orchestrator/src/health_service.h"
#include "orchestrator/src/remote_unit.h"
#include "orchestrator/src/worker_pool.h"
#include "orchestrator/src/worker_service.h"

namespace cosimo::orchestrator {

class WorkerServer::Impl {
 public:
  std::unique_ptr<WorkerPool> pool;
  std::unique_ptr<WorkerServiceImpl> service;
  std::unique_ptr<HealthServiceImpl> health;
  std::unique_ptr<grpc::Server> server;
  std::string address;
  int jobs = 0;
};

WorkerServer::WorkerServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

WorkerServer::~WorkerServer() {
  impl_->health->Shutdown();
  impl_->pool->Shutdown();
  impl_->service->CloseStreams(std::chrono::seconds(2));
  impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  impl_->server->Wait();
  impl_->service->Shutdown();
}

absl::StatusOr<std::unique_ptr<WorkerServer>> WorkerServer::Start(const std::string& listen) {
  auto impl = std::make_unique<Impl>();
  impl->pool = std::make_unique<WorkerPool>(std::chrono::seconds(30));
  impl->service = std::make_unique<WorkerServiceImpl>(impl->pool.get(), std::chrono::seconds(1));
  impl->health = std::make_unique<HealthServiceImpl>(
      std::vector<std::string>{v1::WorkerService::service_full_name()});
  // The orchestrator server's services and settings (server.cc).
  grpc::EnableDefaultHealthCheckService(false);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(listen, grpc::InsecureServerCredentials(), &port);
  impl->service->AddTo(&builder);
  builder.RegisterService(impl->health.get());
  builder.SetMaxReceiveMessageSize(64 << 20);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 5000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  impl->server = builder.BuildAndStart();
  if (!impl->server || port == 0) {
    return absl::UnavailableError("worker server: cannot listen on " + listen);
  }
  impl->service->Start();
  impl->address = absl::StrCat(listen.substr(0, listen.rfind(':')), ":", port);
  return std::unique_ptr<WorkerServer>(new WorkerServer(std::move(impl)));
}

const std::string& WorkerServer::address() const { return impl_->address; }

int WorkerServer::attached() const { return static_cast<int>(impl_->pool->List().size()); }

absl::StatusOr<master::MasterResult> WorkerServer::Run(const v1::Scenario& scenario,
                                                       master::MasterObserver* observer,
                                                       uint64_t* commands) {
  const std::string job_id = absl::StrCat("direct-", ++impl_->jobs);
  std::vector<std::string> labels;
  for (const v1::Unit& unit : scenario.units()) labels.push_back(unit.worker_label());
  auto workers = impl_->pool->TryAcquire(labels, job_id);
  if (!workers) {
    return absl::ResourceExhaustedError(absl::StrCat("worker server: not enough idle workers for ",
                                                     scenario.units_size(), " units"));
  }
  // As JobManager::RunJob: load every unit in parallel, then run the master.
  std::vector<std::unique_ptr<RemoteUnit>> units =
      RemoteUnit::StartLoads(*workers, LoadUnitsFor(scenario, job_id));
  const absl::Status loaded = RemoteUnit::FinishLoads(units);
  absl::StatusOr<master::MasterResult> result =
      master::RunOverUnits(scenario, RemoteUnit::Proxies(units), loaded, {.observer = observer});
  if (commands != nullptr) {
    for (const auto& unit : units) *commands += unit->commands_sent();
  }
  units.clear();
  impl_->pool->Release(*workers);
  return result;
}

}  // namespace cosimo::orchestrator
