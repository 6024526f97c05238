// Errors up front (README, "The command line"): what is wrong with a scenario is found by `run`
// and `submit` before anything runs, exit 2, every problem at once, in the scenario's terms; and
// by the orchestrator's SubmitJob for any other client.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "cosimo/client/client.h"
#include "cosimo/common/scenario.h"
#include "cosimo/v1/job_service.grpc.pb.h"
#include "tests/integration/fixture.h"
#include "tests/integration/process.h"

namespace cosimo::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string TestFmu(const std::string& name) {
  return std::string(COSIMO_BINARY_DIR) + "/fmus/" + name + ".fmu";
}

// A copy of the FMI 2 test FMU whose binary is filed under another platform only.
std::string FmuForWindowsOnly(const std::string& dir) {
  const std::string out = dir + "/windows_only.fmu";
  Process python(
      {"/usr/bin/python3", "-c",
       "import sys, zipfile\n"
       "src, dst = sys.argv[1:]\n"
       "with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, 'w') as b:\n"
       "    for i in a.infolist():\n"
       "        data = a.read(i)\n"
       "        i.filename = i.filename.replace('binaries/linux64/', 'binaries/win64/')\n"
       "        b.writestr(i, data)\n",
       TestFmu("fmi2_msd"), out},
      dir + "/python.log");
  EXPECT_EQ(python.Wait(std::chrono::seconds(30)), 0) << python.log();
  return out;
}

// Issue 30: a structural error (a connection to a unit that does not exist) used to be reported
// alone, the unit errors only once it was fixed. Now every kind comes in one round.
TEST(ErrorsUpFrontTest, StructuralAndUnitErrorsComeInOneRound) {
  const std::string dir = TempDir("cosimo-errors");
  WriteFile(dir + "/bad.json", R"({"stop_time": 1,
    "units": [
      {"name": "c", "builtin": {"model": "car_controler"}},
      {"name": "v", "builtin": {"model": "car_vehicle", "parameters": {"mass": 1500}}}
    ],
    "connections": [{"from": "ghost.F", "to": "v.F"}],
    "algorithm": {"step_size": 0.1}})");
  for (const std::string verb : {"run", "submit"}) {
    std::vector<std::string> argv = {BinDir() + "/cosimo", verb, dir + "/bad.json"};
    if (verb == "submit") argv.insert(argv.end(), {"--orchestrator", "127.0.0.1:1"});
    Process p(argv, dir + "/" + verb + ".log");
    EXPECT_EQ(p.Wait(std::chrono::seconds(60)), 2) << p.log();
    const std::string log = p.log();
    EXPECT_THAT(log, HasSubstr("3 problems:")) << verb << log;
    EXPECT_THAT(log, HasSubstr("connections[0]")) << verb;
    EXPECT_THAT(log, HasSubstr("ghost")) << verb;
    EXPECT_THAT(log, HasSubstr("car_controler")) << verb;
    EXPECT_THAT(log, HasSubstr("unknown parameter 'mass'")) << verb;
  }
}

TEST(ErrorsUpFrontTest, RunAndSubmitReportEveryUnknownModelParameterAndVariableWithExit2) {
  const std::string dir = TempDir("cosimo-errors");
  WriteFile(dir + "/bad.json", R"({"stop_time": 1,
    "units": [
      {"name": "c", "builtin": {"model": "car_controler"}},
      {"name": "v", "builtin": {"model": "car_vehicle", "parameters": {"mass": 1500}}},
      {"name": "m", "fmu": {"path": ")" +
                                   TestFmu("fmi2_msd") + R"("}, "parameters": {"mass": 2}}
    ],
    "connections": [{"from": "m.F", "to": "m.x"}],
    "algorithm": {"step_size": 0.1},
    "record": ["m.x", "m.speed", "c.F"]})");
  for (const std::string verb : {"run", "submit"}) {
    // submit fails before it dials: no orchestrator is needed to see the errors.
    std::vector<std::string> argv = {BinDir() + "/cosimo", verb, dir + "/bad.json"};
    if (verb == "submit") argv.insert(argv.end(), {"--orchestrator", "127.0.0.1:1"});
    Process p(argv, dir + "/" + verb + ".log");
    EXPECT_EQ(p.Wait(std::chrono::seconds(60)), 2) << p.log();
    const std::string log = p.log();
    EXPECT_THAT(log, HasSubstr("6 problems:")) << verb;
    EXPECT_THAT(log, HasSubstr("units[0] ('c'): ")) << verb;
    EXPECT_THAT(log, HasSubstr("car_controler")) << verb;
    EXPECT_THAT(log, HasSubstr("units[1] ('v'): ")) << verb;
    EXPECT_THAT(log, HasSubstr("'mass'")) << verb;
    EXPECT_THAT(log, HasSubstr("units[2] ('m').parameters.mass: the FMU has no variable 'mass'"))
        << verb;
    EXPECT_THAT(log, HasSubstr("record[1] 'm.speed': unit 'm' has no variable 'speed' "
                               "(variables: "))
        << verb;
    EXPECT_THAT(log, HasSubstr("connections[0].from: 'm.F' is input, not an output")) << verb;
    EXPECT_THAT(log, HasSubstr("connections[0].to: 'm.x' is output, not an input")) << verb;
    EXPECT_THAT(log, Not(HasSubstr("Cannot connect"))) << verb;
  }
}

TEST(ErrorsUpFrontTest, ProtobufWordingBecomesTheFieldPathAndTheChoices) {
  const std::string dir = TempDir("cosimo-errors");
  WriteFile(dir + "/bad.json", R"({"stop_time": 1, "units": [{"name": "c",
    "builtin": {"model": "car_controller"}, "solvr": {}}],
    "algorithm": {"kind": "JACOBY", "step_size": 0.1}})");
  Process p({BinDir() + "/cosimo", "run", dir + "/bad.json"}, dir + "/run.log");
  EXPECT_EQ(p.Wait(std::chrono::seconds(60)), 2) << p.log();
  EXPECT_THAT(p.log(), HasSubstr("2 errors"));
  EXPECT_THAT(p.log(), HasSubstr("units[0].solvr: no such field (fields: name, builtin, "));
  EXPECT_THAT(p.log(), HasSubstr("algorithm.kind: 'JACOBY' is not one of JACOBI, GAUSS_SEIDEL"));
  EXPECT_THAT(p.log(), Not(HasSubstr("type.googleapis.com")));
}

TEST(ErrorsUpFrontTest, FmuWithoutABinaryForThisPlatformNamesThePlatformsItHas) {
  const std::string dir = TempDir("cosimo-errors");
  const std::string fmu = FmuForWindowsOnly(dir);
  Process p({BinDir() + "/cosimo", "run", fmu}, dir + "/run.log");
  EXPECT_EQ(p.Wait(std::chrono::seconds(60)), 2) << p.log();
  EXPECT_THAT(p.log(), HasSubstr("the FMU has no binary for this platform "
                                 "(binaries/linux64/fmi2_msd.so); it has binaries for: win64"));
}

// A client that does not check (any gRPC client): the worker's error names the platforms, not
// its temporary folder.
TEST_F(DistributedTest, WorkerSaysWhichPlatformsAnFmuHasBinariesFor) {
  StartWorkers(1);
  client::Client client(orchestrator_->address());
  v1::Scenario s;
  s.set_stop_time(1);
  v1::Unit* u = s.add_units();
  u->set_name("m");
  u->mutable_fmu()->set_path(FmuForWindowsOnly(dir_));
  s.mutable_algorithm()->set_step_size(0.1);
  absl::StatusOr<std::string> job = client.Submit(s);
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<v1::JobStatus> status = client.Watch(*job, nullptr, 50);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::FAILED);
  EXPECT_THAT(status->message(),
              HasSubstr("unit 'm': the FMU has no binary for this platform "
                        "(binaries/linux64/fmi2_msd.so); it has binaries for: win64"));
  EXPECT_THAT(status->message(), Not(HasSubstr("/tmp")));
}

// SubmitJob as a plain gRPC client calls it, without the command line's own checks.
grpc::Status SubmitAsAnyClient(const std::string& address, const v1::Scenario& scenario) {
  auto stub =
      v1::JobService::NewStub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::SubmitJobRequest request;
  *request.mutable_scenario() = scenario;
  v1::SubmitJobResponse response;
  return stub->SubmitJob(&context, request, &response);
}

// Any gRPC client (not the command line, which checks before it submits): SubmitJob checks the
// units against the built-in catalogue and the uploaded FMUs' model descriptions, and refuses the
// job with every problem at once.
TEST_F(DistributedTest, SubmitJobReportsStructuralAndUnitErrorsInOneRound) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({"stop_time": 1,
    "units": [
      {"name": "c", "builtin": {"model": "car_controler"}},
      {"name": "v", "builtin": {"model": "car_vehicle", "parameters": {"mass": 1500}}}
    ],
    "connections": [{"from": "ghost.F", "to": "v.F"}],
    "algorithm": {"step_size": 0.1}})");
  ASSERT_TRUE(s.ok()) << s.status();
  const grpc::Status status = SubmitAsAnyClient(orchestrator_->address(), *s);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("3 problems:"));
  EXPECT_THAT(status.error_message(), HasSubstr("ghost"));
  EXPECT_THAT(status.error_message(), HasSubstr("car_controler"));
  EXPECT_THAT(status.error_message(), HasSubstr("unknown parameter 'mass'"));
}

TEST_F(DistributedTest, SubmitJobRefusesUnknownModelParameterAndVariableForEveryClient) {
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> digest = client.Upload(TestFmu("fmi2_msd"));
  ASSERT_TRUE(digest.ok()) << digest.status();
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({"stop_time": 1,
    "units": [
      {"name": "c", "builtin": {"model": "car_controler"}},
      {"name": "v", "builtin": {"model": "car_vehicle", "parameters": {"mass": 1500}}},
      {"name": "m", "fmu": {"digest": ")" + *digest + R"("}, "parameters": {"mass": 2}}
    ],
    "algorithm": {"step_size": 0.1},
    "record": ["m.x", "m.speed"]})");
  ASSERT_TRUE(s.ok()) << s.status();
  auto channel = grpc::CreateChannel(orchestrator_->address(), grpc::InsecureChannelCredentials());
  auto stub = v1::JobService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  v1::SubmitJobRequest request;
  *request.mutable_scenario() = *s;
  v1::SubmitJobResponse response;
  const grpc::Status status = stub->SubmitJob(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  const std::string& message = status.error_message();
  EXPECT_THAT(message, HasSubstr("4 problems:"));
  EXPECT_THAT(message, HasSubstr("units[0] ('c'): "));
  EXPECT_THAT(message, HasSubstr("car_controler"));
  EXPECT_THAT(message, HasSubstr("units[1] ('v'): "));
  EXPECT_THAT(message, HasSubstr("'mass'"));
  EXPECT_THAT(message, HasSubstr("units[2] ('m').parameters.mass: the FMU has no variable 'mass'"));
  EXPECT_THAT(message, HasSubstr("record[1] 'm.speed': unit 'm' has no variable 'speed' "));
  EXPECT_TRUE(response.job_id().empty());

  // The FMU's own variable and parameter pass.
  request.mutable_scenario()->clear_record();
  request.mutable_scenario()->add_record("m.x");
  request.mutable_scenario()->mutable_units()->DeleteSubrange(0, 2);
  google::protobuf::Value c;
  c.set_number_value(3);
  request.mutable_scenario()->mutable_units(0)->mutable_parameters()->clear();
  (*request.mutable_scenario()->mutable_units(0)->mutable_parameters())["c"] = c;
  grpc::ClientContext again;
  again.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  const grpc::Status ok = stub->SubmitJob(&again, request, &response);
  EXPECT_TRUE(ok.ok()) << ok.error_message();
  EXPECT_FALSE(response.job_id().empty());
}

}  // namespace
}  // namespace cosimo::testing
