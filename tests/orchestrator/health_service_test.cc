// The orchestrator's own grpc.health.v1.Health: what Check and Watch answer, that a Watch ends
// with NOT_SERVING when the server shuts down instead of holding the shutdown up, and that the
// server runs no callback-API threads (they would poll the workers' streams, docs/benchmarks.md).
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "cosimo/orchestrator/server.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace cosimo::orchestrator {
namespace {

using grpc::health::v1::Health;
using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

class HealthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.listen = "127.0.0.1:0";
    absl::StatusOr<std::unique_ptr<OrchestratorServer>> server = OrchestratorServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    stub_ = Health::NewStub(
        grpc::CreateChannel(server_->local_address(), grpc::InsecureChannelCredentials()));
  }

  grpc::Status Check(const std::string& service, HealthCheckResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    HealthCheckRequest request;
    request.set_service(service);
    return stub_->Check(&context, request, response);
  }

  std::unique_ptr<OrchestratorServer> server_;
  std::unique_ptr<Health::Stub> stub_;
};

TEST_F(HealthTest, CheckAnswersServingForTheServerAndItsServicesAndNotFoundOtherwise) {
  for (const std::string service :
       {"", "cosimo.v1.JobService", "cosimo.v1.WorkerService", "cosimo.v1.ArtifactService"}) {
    HealthCheckResponse response;
    grpc::Status status = Check(service, &response);
    ASSERT_TRUE(status.ok()) << "'" << service << "': " << status.error_message();
    EXPECT_EQ(response.status(), HealthCheckResponse::SERVING) << "'" << service << "'";
  }
  HealthCheckResponse response;
  grpc::Status status = Check("cosimo.v1.NoSuchService", &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(status.error_message().find("cosimo.v1.NoSuchService"), std::string::npos)
      << status.error_message();
}

TEST_F(HealthTest, WatchSaysServingThenNotServingWhenTheServerShutsDown) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  HealthCheckRequest request;
  auto stream = stub_->Watch(&context, request);
  HealthCheckResponse response;
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);

  std::future<void> shutdown = std::async(std::launch::async, [&] { server_->Shutdown(); });
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::NOT_SERVING);
  EXPECT_FALSE(stream->Read(&response));
  // OK, not CANCELLED: the watch ended its stream itself; the server did not have to cancel it
  // at the end of its shutdown grace period.
  EXPECT_TRUE(stream->Finish().ok());
  shutdown.get();
}

TEST_F(HealthTest, WatchOfAnUnknownServiceSaysServiceUnknown) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  HealthCheckRequest request;
  request.set_service("cosimo.v1.NoSuchService");
  auto stream = stub_->Watch(&context, request);
  HealthCheckResponse response;
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVICE_UNKNOWN);
  context.TryCancel();
  while (stream->Read(&response)) {
  }
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

// gRPC's default health service (or any callback service) would start the callback API's
// polling threads; each one costs the running jobs thread wake-ups on every macro step.
TEST_F(HealthTest, TheServerStartsNoCallbackPollingThreads) {
  HealthCheckResponse response;
  ASSERT_TRUE(Check("", &response).ok());  // the server is up and has served a call
  std::vector<std::string> names;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    std::getline(comm, name);
    names.push_back(name);
  }
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) EXPECT_NE(name, "nexting_thread");
}

}  // namespace
}  // namespace cosimo::orchestrator
