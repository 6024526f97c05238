// TLS and the bearer token on the orchestrator's port (cosimo/common/security.h), with real
// processes on loopback: a certificate made by openssl for this test, a secured orchestrator,
// workers and clients with and without the right token.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cosimo/common/scenario.h"
#include "cosimo/common/security.h"
#include "cosimo/v1/job_service.grpc.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

using testing::BinDir;
using testing::CarScenario;
using testing::Process;
using testing::WriteFile;

class SecuredTest : public testing::DistributedTest {
 protected:
  // Runs before DistributedTest::SetUp starts the orchestrator with these flags.
  std::vector<std::string> OrchestratorArgs() override {
    certs_ = testing::TempDir("cosimo-tls");
    // A self-signed certificate for this loopback address: it is its own CA.
    const std::string command =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -addext "
        "subjectAltName=IP:127.0.0.1,DNS:localhost -keyout " +
        certs_ + "/key.pem -out " + certs_ + "/cert.pem > " + certs_ + "/openssl.log 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << testing::ReadFile(certs_ + "/openssl.log");
    WriteFile(certs_ + "/token", "correct horse battery staple\n");
    WriteFile(certs_ + "/wrong", "incorrect horse\n");
    return {"--tls-cert",
            certs_ + "/cert.pem",
            "--tls-key",
            certs_ + "/key.pem",
            "--token-file",
            certs_ + "/token",
            "--heartbeat-interval-ms",
            "200"};
  }

  std::shared_ptr<grpc::ChannelCredentials> Credentials(const std::string& token_file) {
    ClientSecurity security;
    security.tls_ca_file = certs_ + "/cert.pem";
    security.token_file = token_file;
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> c = MakeChannelCredentials(security);
    EXPECT_TRUE(c.ok()) << c.status();
    return c.ok() ? *c : nullptr;
  }

  void TearDown() override {
    workers_.clear();
    orchestrator_.reset();
    std::filesystem::remove_all(certs_);
  }

  std::vector<std::string> WorkerArgs(const std::string& token_file) {
    return {"--tls-ca", certs_ + "/cert.pem", "--token-file", token_file};
  }

  std::string certs_;
};

TEST_F(SecuredTest, JobsRunOverTlsWithTheTokenAndHealthNeedsNone) {
  StartWorkers(2, WorkerArgs(certs_ + "/token"));
  client::Client client(orchestrator_->address(), std::chrono::seconds(30),
                        Credentials(certs_ + "/token"));
  std::string id;
  const v1::JobStatus status = RunJob(client, CarScenario(0.01), &id);
  EXPECT_EQ(status.state(), v1::SUCCEEDED) << status.message();
  absl::StatusOr<client::JobResults> results = client.Results(id);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_GT(results->rows(), 100u);
  // Artifacts go through the same check: the client uploads an FMU, a worker fetches it.
  absl::StatusOr<v1::Scenario> fmu = ParseScenarioJson(R"({"name": "msd", "stop_time": 1,
    "units": [ {"name": "msd", "fmu": {"path": ")" + std::string(COSIMO_BINARY_DIR) +
                                                       R"(/fmus/fmi2_msd.fmu"}} ],
    "algorithm": {"step_size": 0.01}})");
  ASSERT_TRUE(fmu.ok()) << fmu.status();
  const v1::JobStatus fmu_status = RunJob(client, *fmu, &id);
  EXPECT_EQ(fmu_status.state(), v1::SUCCEEDED) << fmu_status.message();

  // Health probes carry no token.
  auto channel = grpc::CreateChannel(orchestrator_->address(), Credentials(""));
  auto health = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::health::v1::HealthCheckRequest request;
  grpc::health::v1::HealthCheckResponse response;
  ASSERT_TRUE(health->Check(&context, request, &response).ok());
  EXPECT_EQ(response.status(), grpc::health::v1::HealthCheckResponse::SERVING);
}

TEST_F(SecuredTest, ClientsWithoutTheTokenOrWithoutTlsAreRefused) {
  client::Client no_token(orchestrator_->address(), std::chrono::seconds(10), Credentials(""));
  absl::StatusOr<std::vector<v1::JobStatus>> jobs = no_token.List();
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.status().code(), absl::StatusCode::kUnauthenticated) << jobs.status();
  EXPECT_NE(jobs.status().message().find("requires a token"), std::string::npos) << jobs.status();

  client::Client wrong(orchestrator_->address(), std::chrono::seconds(10),
                       Credentials(certs_ + "/wrong"));
  absl::StatusOr<std::string> job = wrong.Submit(CarScenario(0.01));
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), absl::StatusCode::kUnauthenticated) << job.status();
  EXPECT_NE(job.status().message().find("not this orchestrator's"), std::string::npos)
      << job.status();
  EXPECT_EQ(job.status().message().find("horse"), std::string::npos) << "the token is echoed";

  client::Client plain(orchestrator_->address(), std::chrono::seconds(3));
  jobs = plain.List();
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.status().code(), absl::StatusCode::kUnavailable) << jobs.status();

  // The right token still works, and nothing was submitted by the refused calls.
  client::Client right(orchestrator_->address(), std::chrono::seconds(10),
                       Credentials(certs_ + "/token"));
  jobs = right.List();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  EXPECT_TRUE(jobs->empty());
}

TEST_F(SecuredTest, WorkerWithAWrongTokenIsRefusedAndExits) {
  StartWorkers(1, WorkerArgs(certs_ + "/wrong"));
  EXPECT_EQ(workers_[0]->Wait(std::chrono::seconds(20)), 1) << workers_[0]->log();
  const std::string log = workers_[0]->log();
  EXPECT_NE(log.find("refused by the orchestrator"), std::string::npos) << log;
  EXPECT_NE(log.find("not this orchestrator's"), std::string::npos) << log;
}

// With --worker-token-file, workers and clients hold different tokens: the client's token cannot
// attach as a worker (it would receive other users' units with their parameters), the worker's
// cannot call the job service, and workers still fetch the artifacts clients uploaded.
class SeparateWorkerTokenTest : public SecuredTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    std::vector<std::string> args = SecuredTest::OrchestratorArgs();
    WriteFile(certs_ + "/worker_token", "worker horse\n");
    args.insert(args.end(), {"--worker-token-file", certs_ + "/worker_token"});
    return args;
  }
};

TEST_F(SeparateWorkerTokenTest, EachTokenServesOnlyItsSide) {
  StartWorkers(1, WorkerArgs(certs_ + "/token"));  // the client's token
  EXPECT_EQ(workers_[0]->Wait(std::chrono::seconds(20)), 1) << workers_[0]->log();
  EXPECT_NE(workers_[0]->log().find("not this orchestrator's"), std::string::npos)
      << workers_[0]->log();

  client::Client as_worker(orchestrator_->address(), std::chrono::seconds(10),
                           Credentials(certs_ + "/worker_token"));
  absl::StatusOr<std::vector<v1::JobStatus>> jobs = as_worker.List();
  ASSERT_FALSE(jobs.ok());
  EXPECT_EQ(jobs.status().code(), absl::StatusCode::kUnauthenticated) << jobs.status();

  StartWorkers(1, WorkerArgs(certs_ + "/worker_token"));
  client::Client client(orchestrator_->address(), std::chrono::seconds(30),
                        Credentials(certs_ + "/token"));
  absl::StatusOr<v1::Scenario> fmu = ParseScenarioJson(R"({"name": "msd", "stop_time": 1,
    "units": [ {"name": "msd", "fmu": {"path": ")" + std::string(COSIMO_BINARY_DIR) +
                                                       R"(/fmus/fmi2_msd.fmu"}} ],
    "algorithm": {"step_size": 0.01}})");
  ASSERT_TRUE(fmu.ok()) << fmu.status();
  std::string id;
  const v1::JobStatus status = RunJob(client, *fmu, &id);
  EXPECT_EQ(status.state(), v1::SUCCEEDED) << status.message();
}

TEST(SecurityFlagsTest, TokenWithoutTlsIsRefusedByEveryBinary) {
  const std::string dir = testing::TempDir("cosimo-flags");
  WriteFile(dir + "/token", "t\n");
  Process orchestrator({BinDir() + "/cosimo-orchestrator", "--listen", "127.0.0.1:0",
                        "--token-file", dir + "/token"},
                       dir + "/orchestrator.log");
  EXPECT_EQ(orchestrator.Wait(std::chrono::seconds(20)), 1) << orchestrator.log();
  EXPECT_NE(orchestrator.log().find("--token-file needs --tls-cert"), std::string::npos)
      << orchestrator.log();

  Process worker({BinDir() + "/cosimo-worker", "--orchestrator", "127.0.0.1:1", "--token-file",
                  dir + "/token"},
                 dir + "/worker.log");
  EXPECT_EQ(worker.Wait(std::chrono::seconds(20)), 1) << worker.log();
  EXPECT_NE(worker.log().find("--token-file needs --tls-ca"), std::string::npos) << worker.log();

  Process cli({BinDir() + "/cosimo", "list", "--orchestrator", "127.0.0.1:1", "--tls-ca",
               dir + "/missing.pem"},
              dir + "/cli.log");
  EXPECT_EQ(cli.Wait(std::chrono::seconds(20)), 2) << cli.log();
  EXPECT_NE(cli.log().find("--tls-ca: cannot read"), std::string::npos) << cli.log();

  // A file that is not PEM is named before any handshake.
  Process garbage({BinDir() + "/cosimo-orchestrator", "--listen", "127.0.0.1:0", "--tls-cert",
                   dir + "/token", "--tls-key", dir + "/token"},
                  dir + "/garbage.log");
  EXPECT_EQ(garbage.Wait(std::chrono::seconds(20)), 1) << garbage.log();
  EXPECT_NE(garbage.log().find("--tls-cert: '" + dir + "/token' holds no PEM CERTIFICATE"),
            std::string::npos)
      << garbage.log();
}

}  // namespace
}  // namespace cosimo
