#include "orchestrator/src/health_service.h"

#include <algorithm>
#include <chrono>

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
  std::lock_guard<std::mutex> lock(mutex_);
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
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    const Response::ServingStatus status = StatusOf(request->service());
    if (!sent || response.status() != status) {
      sent = true;
      response.set_status(status);
      lock.unlock();
      if (!writer->Write(response)) return grpc::Status::OK;
      lock.lock();
      continue;  // the status may have changed while the message went out
    }
    if (shut_down_) return grpc::Status::OK;  // NOT_SERVING was the last message
    cv_.wait_for(lock, kWatchPoll, [&] { return shut_down_; });
    if (context->IsCancelled()) {
      return grpc::Status(grpc::StatusCode::CANCELLED, "health watch canceled by the client");
    }
  }
}

void HealthServiceImpl::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shut_down_ = true;
  }
  cv_.notify_all();
}

}  // namespace cosimo::orchestrator
