// The orchestrator's limits with real processes: a message over --max-message-mb is refused by
// gRPC and the client names the flag; a job, of fixed or adaptive steps, fails once it records
// more rows than --max-recorded-rows. (The limits of a scenario's size, its
// units and a client's queue are checked by JobManager's tests.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

using ::testing::AllOf;
using testing::CarScenario;
using ::testing::HasSubstr;

class LimitsTest : public testing::DistributedTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    std::vector<std::string> args = DistributedTest::OrchestratorArgs();
    args.insert(args.end(), {"--max-message-mb", "1", "--max-recorded-rows", "50"});
    return args;
  }
};

TEST_F(LimitsTest, AMessageOverTheLimitIsRefusedNamingTheFlag) {
  client::Client client(orchestrator_->address());
  v1::Scenario scenario = CarScenario(0.5);
  google::protobuf::Value big;
  for (int i = 0; i < 200000; ++i) big.mutable_list_value()->add_values()->set_number_value(i);
  (*scenario.mutable_units(0)->mutable_parameters())["big"] = big;  // about 1.8 MB
  absl::StatusOr<std::string> id = client.Submit(scenario);
  ASSERT_FALSE(id.ok());
  EXPECT_EQ(id.status().code(), absl::StatusCode::kResourceExhausted) << id.status();
  EXPECT_THAT(std::string(id.status().message()),
              AllOf(HasSubstr("larger than max"), HasSubstr("--max-message-mb")));
}

TEST_F(LimitsTest, JobsRecordingMoreRowsThanTheLimitFail) {
  client::Client client(orchestrator_->address());
  StartWorkers(2);
  const std::string fixed_steps = "", adaptive = R"("adaptive": {"min_step": 1e-6,
                                    "max_step": 0.01, "tolerance": 1e-5},)";
  for (const std::string& extra : {fixed_steps, adaptive}) {
    std::string id;
    const v1::JobStatus status =
        RunJob(client, testing::DualMass("NEWTON", extra, 100.0, 1.0), &id);  // 101 rows or more
    EXPECT_EQ(status.state(), v1::FAILED) << status.message();
    EXPECT_THAT(status.message(),
                AllOf(HasSubstr("recorded more rows than this orchestrator keeps for one job: 50"),
                      HasSubstr("--max-recorded-rows")));
  }
}

}  // namespace
}  // namespace cosimo
