// TLS and the bearer token on the orchestrator's port (cosimo/common/security.h), with real
// processes on loopback: a certificate made by openssl for this test, a secured orchestrator,
// workers and clients with and without the right token.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cosimo/common/scenario.h"
#include "cosimo/common/security.h"
#include "cosimo/v1/job_service.grpc.pb.h"
#include "cosimo/v1/worker_service.grpc.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "tests/integration/fixture.h"
#include "tests/integration/reflection.h"

namespace cosimo {
namespace {

using ::testing::AllOf;
using testing::BinDir;
using testing::CarScenario;
using ::testing::HasSubstr;
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
    security.tls_ca_file = certs_ + ca_;
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
    return {"--tls-ca", certs_ + ca_, "--token-file", token_file};
  }

  // Runs the car example to its end and checks its results came back.
  void ExpectCarJobRuns(client::Client& client) {
    std::string id;
    const v1::JobStatus status = RunJob(client, CarScenario(0.01), &id);
    EXPECT_EQ(status.state(), v1::SUCCEEDED) << status.message();
    absl::StatusOr<client::JobResults> results = client.Results(id);
    ASSERT_TRUE(results.ok()) << results.status();
    EXPECT_GT(results->rows(), 100u);
  }

  std::string certs_;
  std::string ca_ = "/cert.pem";  // in certs_: what signs the orchestrator's certificate
};

TEST_F(SecuredTest, JobsRunOverTlsWithTheTokenAndHealthNeedsNone) {
  StartWorkers(2, WorkerArgs(certs_ + "/token"));
  client::Client client(orchestrator_->address(), std::chrono::seconds(30),
                        Credentials(certs_ + "/token"));
  ExpectCarJobRuns(client);
  // Artifacts go through the same check: the client uploads an FMU, a worker fetches it.
  absl::StatusOr<v1::Scenario> fmu = ParseScenarioJson(R"({"name": "msd", "stop_time": 1,
    "units": [ {"name": "msd", "fmu": {"path": ")" + std::string(COSIMO_BINARY_DIR) +
                                                       R"(/fmus/fmi2_msd.fmu"}} ],
    "algorithm": {"step_size": 0.01}})");
  ASSERT_TRUE(fmu.ok()) << fmu.status();
  std::string id;
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

  // Reflection describes the API to clients only.
  testing::ReflectionReply refused = testing::ListServicesByReflection(channel);
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(refused.status.error_message(), ::testing::HasSubstr("requires a token"));
  testing::ReflectionReply listed = testing::ListServicesByReflection(
      grpc::CreateChannel(orchestrator_->address(), Credentials(certs_ + "/token")));
  ASSERT_TRUE(listed.status.ok()) << listed.status.error_message();
  EXPECT_THAT(listed.services, ::testing::Contains("cosimo.v1.JobService"));
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

// A raw Attach without the token whose Hello has protocol_version 0 is refused as
// unauthenticated: the orchestrator says nothing of its protocol before the token is checked.
TEST_F(SecuredTest, AttachIsAuthenticatedBeforeTheProtocolVersionIsLookedAt) {
  auto stub =
      v1::WorkerService::NewStub(grpc::CreateChannel(orchestrator_->address(), Credentials("")));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  auto stream = stub->Attach(&context);
  v1::WorkerMessage hello;
  hello.mutable_hello()->set_protocol_version(static_cast<v1::ProtocolVersion>(0));
  hello.mutable_hello()->set_host("prober");
  ASSERT_TRUE(stream->Write(hello));
  v1::OrchestratorMessage welcome;
  std::string reason;
  while (stream->Read(&welcome)) reason += welcome.welcome().reason();
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << status.error_message();
  EXPECT_THAT(reason + status.error_message(), ::testing::Not(HasSubstr("protocol version")));
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

// --tokens-file: each client holds its own token, jobs record who submitted them, and only the
// owner or an admin may cancel or delete a job; workers hold the workers' token.
class NamedTokensTest : public SecuredTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    std::vector<std::string> args = SecuredTest::OrchestratorArgs();
    WriteFile(certs_ + "/tokens",
              "# name token [admin]\n"
              "alice alice-token-0123456789\n"
              "bob   bob-token-0123456789\n"
              "ops   ops-token-0123456789 admin\n");
    WriteFile(certs_ + "/worker_token", "worker horse\n");
    for (const std::string name : {"alice", "bob", "ops"}) {
      WriteFile(certs_ + "/" + name, name + "-token-0123456789\n");
    }
    auto shared = std::find(args.begin(), args.end(), "--token-file");
    *shared = "--tokens-file";
    *(shared + 1) = certs_ + "/tokens";
    args.insert(args.end(), {"--worker-token-file", certs_ + "/worker_token"});
    return args;
  }

  client::Client As(const std::string& name) {
    return client::Client(orchestrator_->address(), std::chrono::seconds(30),
                          Credentials(certs_ + "/" + name));
  }

  // `cosimo VERB ARGS...` with `name`'s token; its exit code, its output in `*output`.
  int Cli(const std::string& name, std::vector<std::string> args, std::string* output) {
    std::vector<std::string> argv = {BinDir() + "/cosimo"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.insert(argv.end(), {"--orchestrator", orchestrator_->address(), "--tls-ca",
                             certs_ + "/cert.pem", "--token-file", certs_ + "/" + name});
    Process cli(argv, dir_ + "/cli-" + name + ".log");
    const int code = cli.Wait(std::chrono::seconds(30));
    *output = cli.log();
    return code;
  }
};

TEST_F(NamedTokensTest, OnlyTheOwnerOrAnAdminCancelsOrDeletesAJob) {
  client::Client alice = As("alice"), bob = As("bob"), ops = As("ops");
  absl::StatusOr<std::string> id = alice.Submit(CarScenario(0.01));  // no worker: it stays queued
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<v1::JobStatus> status = bob.Get(*id);  // anyone may look
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->owner(), "alice");
  std::string output;
  EXPECT_EQ(Cli("bob", {"list"}, &output), 0) << output;
  EXPECT_THAT(output, AllOf(HasSubstr("OWNER"), HasSubstr(" alice ")));
  EXPECT_EQ(Cli("bob", {"status", *id}, &output), 0) << output;
  EXPECT_THAT(output, AllOf(HasSubstr("owner:     alice\n"), HasSubstr("state:     QUEUED\n")));

  absl::StatusOr<v1::JobStatus> refused = bob.Cancel(*id);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kPermissionDenied) << refused.status();
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("belongs to 'alice', not to 'bob': a client may cancel only its own jobs"));
  EXPECT_EQ(Cli("bob", {"cancel", *id}, &output), 1) << output;
  EXPECT_THAT(output, HasSubstr("belongs to 'alice'"));
  EXPECT_EQ(alice.Get(*id)->state(), v1::QUEUED);

  absl::StatusOr<v1::JobStatus> canceled = ops.Cancel(*id);  // an admin
  ASSERT_TRUE(canceled.ok()) << canceled.status();
  EXPECT_EQ(canceled->state(), v1::CANCELED);
  const absl::Status not_bobs = bob.Delete(*id);
  EXPECT_EQ(not_bobs.code(), absl::StatusCode::kPermissionDenied) << not_bobs;
  EXPECT_TRUE(alice.Delete(*id).ok());

  // A job runs as before on workers holding the workers' token, who cannot call the job service.
  StartWorkers(2, WorkerArgs(certs_ + "/worker_token"));
  std::string run;
  EXPECT_EQ(RunJob(bob, CarScenario(0.01), &run).owner(), "bob");
  client::Client as_worker = As("worker_token");
  EXPECT_EQ(as_worker.List().status().code(), absl::StatusCode::kUnauthenticated);
}

// SIGHUP re-reads the token files without a restart: a client added is let in, one removed is
// refused, and a file that does not parse leaves the tokens as they were and says why.
TEST_F(NamedTokensTest, SighupReReadsTheTokenFiles) {
  client::Client alice = As("alice"), bob = As("bob");
  ASSERT_TRUE(bob.List().ok());
  WriteFile(certs_ + "/carol", "carol-token-0123456789\n");
  client::Client carol = As("carol");
  EXPECT_EQ(carol.List().status().code(), absl::StatusCode::kUnauthenticated);

  WriteFile(certs_ + "/tokens",
            "alice alice-token-0123456789\n"
            "carol carol-token-0123456789 admin\n");
  ASSERT_EQ(kill(orchestrator_->process().pid(), SIGHUP), 0);
  bool carol_in = false;
  for (int attempt = 0; attempt < 400 && !carol_in; ++attempt) {
    carol_in = carol.List().ok();
    if (!carol_in) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_TRUE(carol_in) << orchestrator_->process().log();
  EXPECT_EQ(bob.List().status().code(), absl::StatusCode::kUnauthenticated);
  absl::StatusOr<std::string> id = alice.Submit(CarScenario(0.01));  // no worker: stays queued
  ASSERT_TRUE(id.ok()) << id.status();
  EXPECT_EQ(alice.Get(*id)->owner(), "alice");
  EXPECT_TRUE(carol.Cancel(*id).ok());  // carol came in as an admin

  // A broken file: the previous tokens stay, and the log says what is wrong.
  WriteFile(certs_ + "/tokens", "alice\n");
  ASSERT_EQ(kill(orchestrator_->process().pid(), SIGHUP), 0);
  const std::string expected = "SIGHUP: kept the previous tokens: --tokens-file " + certs_ +
                               "/tokens:1: expected 'NAME TOKEN";
  bool logged = false;
  for (int attempt = 0; attempt < 400 && !logged; ++attempt) {
    logged = orchestrator_->process().log().find(expected) != std::string::npos;
    if (!logged) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  EXPECT_TRUE(logged) << orchestrator_->process().log();
  EXPECT_TRUE(carol.List().ok());
  EXPECT_TRUE(alice.List().ok());
  EXPECT_EQ(bob.List().status().code(), absl::StatusCode::kUnauthenticated);
  // The workers' token is still the workers' only: one attaches and runs a job.
  StartWorkers(2, WorkerArgs(certs_ + "/worker_token"));
  std::string run;
  EXPECT_EQ(RunJob(carol, CarScenario(0.01), &run).state(), v1::SUCCEEDED);
}

TEST_F(NamedTokensTest, ReflectionNeedsAClientsTokenAndHealthNone) {
  auto channel = [&](const std::string& token_file) {
    return grpc::CreateChannel(orchestrator_->address(), Credentials(token_file));
  };
  testing::ReflectionReply refused = testing::ListServicesByReflection(channel(""));
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(refused.status.error_message(), HasSubstr("requires a token"));
  refused = testing::ListServicesByReflection(channel(certs_ + "/wrong"));
  EXPECT_EQ(refused.status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_THAT(refused.status.error_message(), HasSubstr("not this orchestrator's"));
  EXPECT_TRUE(refused.services.empty());

  testing::ReflectionReply listed = testing::ListServicesByReflection(channel(certs_ + "/bob"));
  ASSERT_TRUE(listed.status.ok()) << listed.status.error_message();
  EXPECT_THAT(listed.services, ::testing::Contains("cosimo.v1.JobService"));

  auto health = grpc::health::v1::Health::NewStub(channel(""));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::health::v1::HealthCheckResponse response;
  EXPECT_TRUE(health->Check(&context, grpc::health::v1::HealthCheckRequest(), &response).ok());
}

// Mutual TLS: the orchestrator serves a certificate signed by a CA made here and, with
// --tls-client-ca, takes only workers whose client certificate that CA signed. The commands are
// those of docs/deployment.md.
class MutualTlsTest : public SecuredTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    // The base's flags, its token and folder, with the certificates made here.
    std::vector<std::string> args = SecuredTest::OrchestratorArgs();
    ca_ = "/ca.pem";
    WriteFile(certs_ + "/make.sh", R"(set -e
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=cosimo-ca -keyout ca.key -out ca.pem
openssl req -newkey rsa:2048 -nodes -subj /CN=localhost -keyout server.key -out server.csr
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -extfile server.ext -out server.pem
printf 'extendedKeyUsage=clientAuth\n' > client.ext
openssl req -newkey rsa:2048 -nodes -subj /CN=worker-1 -keyout worker.key -out worker.csr
openssl x509 -req -in worker.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -extfile client.ext -out worker.pem
# a client certificate signed by another CA
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=other-ca -keyout other.key \
  -out other.pem
openssl req -newkey rsa:2048 -nodes -subj /CN=intruder -keyout intruder.key -out intruder.csr
openssl x509 -req -in intruder.csr -CA other.pem -CAkey other.key -CAcreateserial -days 2 \
  -extfile client.ext -out intruder.pem
)");
    const std::string command = "cd " + certs_ + " && sh make.sh > openssl.log 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << testing::ReadFile(certs_ + "/openssl.log");
    for (std::string& arg : args) {
      if (arg == certs_ + "/cert.pem") arg = certs_ + "/server.pem";
      if (arg == certs_ + "/key.pem") arg = certs_ + "/server.key";
    }
    args.insert(args.end(), {"--tls-client-ca", certs_ + "/ca.pem"});
    return args;
  }

  std::vector<std::string> WorkerArgs(const std::string& name) {
    std::vector<std::string> args = {"--tls-ca", certs_ + "/ca.pem", "--token-file",
                                     certs_ + "/token"};
    if (!name.empty()) {
      args.insert(args.end(), {"--tls-cert", certs_ + "/" + name + ".pem", "--tls-key",
                               certs_ + "/" + name + ".key"});
    }
    return args;
  }

  client::Client Client() {
    return client::Client(orchestrator_->address(), std::chrono::seconds(30),
                          Credentials(certs_ + "/token"));
  }
};

TEST_F(MutualTlsTest, AWorkerWithACertificateOfTheClientCaRunsJobsAndClientsNeedNone) {
  StartWorkers(2, WorkerArgs("worker"));  // the car has two units
  // The client shows no certificate: the job service does not ask for one.
  client::Client client = Client();
  ExpectCarJobRuns(client);
  const std::string log = orchestrator_->process().log();
  EXPECT_NE(log.find("shows the client certificate of 'worker-1'"), std::string::npos) << log;
}

TEST_F(MutualTlsTest, AWorkerWithoutACertificateIsRefusedAndExits) {
  StartWorkers(1, WorkerArgs(""));
  EXPECT_EQ(workers_[0]->Wait(std::chrono::seconds(20)), 1) << workers_[0]->log();
  EXPECT_NE(workers_[0]->log().find("requires a client certificate signed by its "
                                    "--tls-client-ca"),
            std::string::npos)
      << workers_[0]->log();
  const std::string log = orchestrator_->process().log();
  EXPECT_NE(log.find("refused a worker"), std::string::npos) << log;
  EXPECT_NE(log.find("the connection shows none"), std::string::npos) << log;
}

TEST_F(MutualTlsTest, AWorkerWithACertificateOfAnotherCaIsRefusedAtTheHandshake) {
  StartWorkers(1, WorkerArgs("intruder"));
  client::Client client = Client();
  // The handshake fails, so the worker never attaches; it keeps retrying, saying why it may fail.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (workers_[0]->log().find("cannot connect over TLS") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(workers_[0]->log().find("does its --tls-client-ca sign this worker's --tls-cert?"),
            std::string::npos)
      << workers_[0]->log();
  absl::StatusOr<std::vector<v1::WorkerStatus>> workers = client.Workers();
  ASSERT_TRUE(workers.ok()) << workers.status();
  EXPECT_TRUE(workers->empty());
  const std::string log = orchestrator_->process().log();
  EXPECT_NE(log.find("certificate verify failed"), std::string::npos) << log;
}

TEST(SecurityFlagsTest, ClientCertificateFlagsAreChecked) {
  const std::string dir = testing::TempDir("cosimo-flags");
  const std::string pem = dir + "/ca.pem";
  WriteFile(pem, "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n");
  struct Case {
    std::vector<std::string> argv;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"cosimo-orchestrator", "--listen", "127.0.0.1:0", "--tls-client-ca", pem},
       "--tls-client-ca needs --tls-cert and --tls-key"},
      {{"cosimo-worker", "--orchestrator", "127.0.0.1:1", "--tls-ca", pem, "--tls-cert", pem},
       "--tls-cert and --tls-key go together"},
      {{"cosimo-worker", "--orchestrator", "127.0.0.1:1", "--tls-cert", pem, "--tls-key", pem},
       "--tls-cert and --tls-key need --tls-ca"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = c.argv;
    argv[0] = BinDir() + "/" + argv[0];
    Process process(argv, dir + "/" + std::to_string(&c - cases.data()) + ".log");
    EXPECT_EQ(process.Wait(std::chrono::seconds(20)), 1) << process.log();
    EXPECT_NE(process.log().find(c.error), std::string::npos) << c.error << "\n" << process.log();
  }
  std::filesystem::remove_all(dir);
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

// Each misuse of --tokens-file stops the orchestrator at its start, naming the flags.
TEST(SecurityFlagsTest, TokensFileMisusesAreNamed) {
  const std::string dir = testing::TempDir("cosimo-flags");
  WriteFile(dir + "/cert.pem", "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n");
  WriteFile(dir + "/key.pem", "-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n");
  WriteFile(dir + "/tokens", "alice alice-token-0123456789\n");
  WriteFile(dir + "/default", "default default-token-0123456789\n");
  WriteFile(dir + "/bad", "alice alice-token-0123456789\nbob\n");
  WriteFile(dir + "/alice", "alice-token-0123456789\n");
  WriteFile(dir + "/token", "shared-token-0123456789\n");
  const std::vector<std::string> tls = {"--tls-cert", dir + "/cert.pem", "--tls-key",
                                        dir + "/key.pem"};
  struct Case {
    std::vector<std::string> args;
    bool tls;
    std::string error;
  };
  const std::vector<Case> cases = {
      {{"--tokens-file", dir + "/tokens"}, false, "--tokens-file needs --tls-cert and --tls-key"},
      {{"--tokens-file", dir + "/tokens"},
       true,
       "--tokens-file names the clients' tokens: give the workers theirs with "
       "--worker-token-file"},
      {{"--tokens-file", dir + "/default", "--token-file", dir + "/token"},
       true,
       "--tokens-file names a client 'default'"},
      {{"--tokens-file", dir + "/tokens", "--worker-token-file", dir + "/alice"},
       true,
       "--worker-token-file holds the same token as a client of --tokens-file"},
      {{"--tokens-file", dir + "/tokens", "--token-file", dir + "/alice"},
       true,
       "--token-file holds the token of a client of --tokens-file"},
      {{"--tokens-file", dir + "/bad", "--token-file", dir + "/token"},
       true,
       "--tokens-file " + dir + "/bad:2: expected 'NAME TOKEN'"},
      {{"--worker-token-file", dir + "/alice"}, true, "--worker-token-file needs --token-file"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> argv = {BinDir() + "/cosimo-orchestrator", "--listen", "127.0.0.1:0"};
    argv.insert(argv.end(), c.args.begin(), c.args.end());
    if (c.tls) argv.insert(argv.end(), tls.begin(), tls.end());
    Process process(argv, dir + "/" + std::to_string(&c - cases.data()) + ".log");
    EXPECT_EQ(process.Wait(std::chrono::seconds(20)), 1) << process.log();
    EXPECT_NE(process.log().find(c.error), std::string::npos) << c.error << "\n" << process.log();
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cosimo
