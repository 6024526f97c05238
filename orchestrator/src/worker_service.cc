#include "orchestrator/src/worker_service.h"

#include <thread>

namespace cosimo::orchestrator {

WorkerServiceImpl::WorkerServiceImpl(WorkerPool* pool, std::chrono::milliseconds heartbeat_interval,
                                     const TokenCheck* auth)
    : pool_(pool), heartbeat_interval_(heartbeat_interval), auth_(auth) {}

WorkerServiceImpl::~WorkerServiceImpl() { Shutdown(); }

void WorkerServiceImpl::AddTo(grpc::ServerBuilder* builder) {
  builder->RegisterService(&service_);
  cq_ = builder->AddCompletionQueue();
  loop_ = std::make_unique<CompletionLoop>(cq_.get());
}

void WorkerServiceImpl::Start() {
  Accept();
  loop_->Start();
}

void WorkerServiceImpl::Accept() {
  auto connection =
      std::make_shared<WorkerConnection>(loop_.get(), pool_, heartbeat_interval_, auth_);
  WorkerConnection* raw = connection.get();
  raw->set_on_accepted([this, raw](bool ok) {
    if (!ok) return false;  // the server shuts down
    {
      absl::MutexLock lock(&mutex_);
      live_.insert(raw);
      if (!accepting_) return false;
    }
    Accept();
    return true;
  });
  raw->set_on_finished([this, raw] {
    absl::MutexLock lock(&mutex_);
    live_.erase(raw);
  });
  raw->set_self(std::move(connection));
  service_.RequestAttach(raw->context(), raw->stream(), cq_.get(), cq_.get(), raw->accept_tag());
}

void WorkerServiceImpl::CloseStreams(std::chrono::milliseconds timeout) {
  {
    absl::MutexLock lock(&mutex_);
    accepting_ = false;
    for (WorkerConnection* connection : live_) {
      connection->MarkLost("the orchestrator shut down");
      connection->CancelStream();
    }
  }
  loop_->LeadInBackground();
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    {
      absl::MutexLock lock(&mutex_);
      if (live_.empty()) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void WorkerServiceImpl::Shutdown() {
  if (loop_) loop_->Shutdown();
}

}  // namespace cosimo::orchestrator
