// The iterative master algorithms over gRPC with real worker processes give what they give
// in-process (the algorithm code is the same): fixed point and Newton with Hermite inputs on the
// dual-mass oscillator, one unit rolling back and one estimated by COSTARICA, and an adaptive
// run with rejections.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

using testing::DistributedTest;
using testing::DualMass;
using testing::InProcess;

class IterativeOverGrpcTest
    : public DistributedTest,
      public ::testing::WithParamInterface<std::tuple<std::string, std::string, double>> {};

TEST_P(IterativeOverGrpcTest, DistributedRunEqualsTheInProcessRun) {
  const auto& [kind, extra, c_c] = GetParam();
  // The stiff adaptive case takes thousands of small steps: a shorter run is enough.
  const v1::Scenario scenario = DualMass(kind, extra, c_c, extra.empty() ? 2.0 : 0.25);
  const master::MasterResult local = InProcess(scenario);
  ASSERT_FALSE(local.values.empty());

  StartWorkers(2);
  client::Client client(orchestrator_->address());
  std::string id;
  const v1::JobStatus status = RunJob(client, scenario, &id);
  ASSERT_EQ(status.state(), v1::SUCCEEDED) << status.message();
  absl::StatusOr<client::JobResults> remote = client.Results(id);
  ASSERT_TRUE(remote.ok()) << remote.status();
  EXPECT_EQ(remote->columns, local.columns);
  ASSERT_EQ(remote->values.size(), local.values.size());
  double max_difference = 0;
  for (size_t i = 0; i < local.values.size(); ++i) {
    max_difference = std::max(max_difference, std::abs(remote->values[i] - local.values[i]));
  }
  EXPECT_LT(max_difference, 1e-12);

  const v1::ResultsMetadata& meta = remote->metadata;
  EXPECT_EQ(meta.steps_accepted(), local.steps_accepted);
  EXPECT_EQ(meta.steps_rejected(), local.steps_rejected);
  EXPECT_GT(meta.iterations_mean(), 1.0);
  ASSERT_EQ(meta.units_size(), 2);
  EXPECT_EQ(meta.units(0).name(), "m1");
  EXPECT_THAT(meta.units(0).mode(), ::testing::StartsWith("estimate"));
  // COSTARICA: one real integration per accepted step, every tentative step estimated.
  EXPECT_EQ(meta.units(0).real_integrations(), meta.steps_accepted());
  EXPECT_GT(meta.units(0).estimates(), meta.steps_accepted());
  EXPECT_EQ(meta.units(1).mode(), "rollback");
  if (!extra.empty()) {
    EXPECT_GT(meta.steps_rejected(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, IterativeOverGrpcTest,
    ::testing::Values(std::make_tuple("FIXED_POINT", "", 100.0),
                      std::make_tuple("NEWTON", "", 100.0),
                      // A coupling too stiff for the initial H: rejections, adaptive H.
                      std::make_tuple("NEWTON",
                                      R"("adaptive": {"min_step": 1e-6, "max_step": 0.01,
                                          "tolerance": 1e-5},)",
                                      1e4)));

}  // namespace
}  // namespace cosimo
