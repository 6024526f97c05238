#include "orchestrator/src/health_service.h"

#include <algorithm>
#include <chrono>

#include "absl/time/time.h"

namespace cosimo::orchestrator {

namespace {

// How often a Watch looks for a canceled client.
constexpr std::chrono::milliseconds kWatchPoll(500);

}  // namespace

HealthServiceImpl::HealthServiceImpl(std::vector<std::string> services)
    : services_(std::move(services)) {}

HealthServiceImpl::Response::ServingStatus HealthServiceImpl::StatusOf(
    const std::string& service) const {
  if (!service.empty() &&
      std::find(services_.begin(), services_.end(), service) == services_.end()) {
    return Response::SERVICE_UNKNOWN;
  }
  return shut_down_ ? Response::NOT_SERVING : Response::SERVING;
}

grpc::Status HealthServiceImpl::Check(grpc::ServerContext*, const Request* request,
                                      Response* response) {
  absl::ReaderMutexLock lock(&mutex_);
  const Response::ServingStatus status = StatusOf(request->service());
  if (status == Response::SERVICE_UNKNOWN) {
    return grpc::Status(grpc::StatusCode::NOT_FOUND,
                        "health: no service '" + request->service() + "' on this orchestrator");
  }
  response->set_status(status);
  return grpc::Status::OK;
}

grpc::Status HealthServiceImpl::Watch(grpc::ServerContext* context, const Request* request,
                                      grpc::ServerWriter<Response>* writer) {
  Response response;
  bool sent = false;
  while (true) {
    Response::ServingStatus status;
    bool waited = false;
    {
      absl::MutexLock lock(&mutex_);
      status = StatusOf(request->service());
      if (sent && response.status() == status) {
        if (shut_down_) return grpc::Status::OK;  // NOT_SERVING was the last message
        cv_.WaitWithTimeout(&mutex_, absl::FromChrono(kWatchPoll));
        waited = true;
      }
    }
    if (waited) {
      if (context->IsCancelled()) {
        return grpc::Status(grpc::StatusCode::CANCELLED, "health watch canceled by the client");
      }
      continue;  // the status may have changed meanwhile
    }
    sent = true;
    response.set_status(status);
    if (!writer->Write(response)) return grpc::Status::OK;
  }
}

void HealthServiceImpl::Shutdown() {
  {
    absl::MutexLock lock(&mutex_);
    shut_down_ = true;
  }
  cv_.SignalAll();
}

}  // namespace cosimo::orchestrator
