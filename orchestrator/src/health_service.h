// grpc.health.v1.Health, the standard health checking protocol, served synchronously. gRPC's
// default health service is built on the callback API, whose threads (two `nexting_thread`s)
// take part in polling every socket of the process, the workers' streams included, and so add
// thread wake-ups to every macro step (docs/benchmarks.md). This one runs on the sync server's
// threads like the other services.
//
// "" and every service named at construction are SERVING until Shutdown(), NOT_SERVING after;
// Check on any other name is NOT_FOUND, Watch on it says SERVICE_UNKNOWN (as the protocol asks).
// Thread safe.
#pragma once

#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace cosimo::orchestrator {

class HealthServiceImpl final : public grpc::health::v1::Health::Service {
 public:
  using Request = grpc::health::v1::HealthCheckRequest;
  using Response = grpc::health::v1::HealthCheckResponse;

  explicit HealthServiceImpl(std::vector<std::string> services);

  grpc::Status Check(grpc::ServerContext*, const Request* request, Response* response) override;
  // Sends the status at once and again whenever it changes, until the client cancels or the
  // server shuts down (then NOT_SERVING is the last message).
  grpc::Status Watch(grpc::ServerContext* context, const Request* request,
                     grpc::ServerWriter<Response>* writer) override;

  // Everything NOT_SERVING from now on; Watch streams say so and end. Call before the server's
  // Shutdown so that they do not hold it up.
  void Shutdown();

 private:
  Response::ServingStatus StatusOf(const std::string& service) const
      ABSL_SHARED_LOCKS_REQUIRED(mutex_);

  const std::vector<std::string> services_;
  mutable absl::Mutex mutex_;
  absl::CondVar cv_;
  bool shut_down_ ABSL_GUARDED_BY(mutex_) = false;
};

}  // namespace cosimo::orchestrator
