// noSetFMUStatePriorToCurrentPoint (issue 46, 1) on the Co-Simulation unit itself, with the test
// FMUs fmiX_msd_flush that restart from their last committed states when told false: true in
// final and tentative steps, false once the protocol's explicit Save kept an earlier snapshot
// (Unit::SetEarlierStateKept).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

using testing::Load;
using testing::Oscillator;
using testing::Spec;

// x after ten steps of 0.1 s from x = 1, v = 0, in the given mode.
double XAfterOneSecond(Unit& unit, StepMode mode) {
  EXPECT_TRUE(unit.Initialize(0.0, 10.0).ok());
  StepReply reply;
  for (int k = 0; k < 10; ++k) {
    StepRequest request;
    request.time = unit.time();
    request.step = 0.1;
    request.mode = mode;
    request.inputs.coefficients = Eigen::MatrixXd::Zero(1, 1);
    unit.Step(request, &reply);
    EXPECT_EQ(reply.status, StepStatus::kOk) << reply.message;
  }
  return reply.outputs(0);
}

class NoSetPriorTest : public ::testing::TestWithParam<const char*> {};

TEST_P(NoSetPriorTest, TrueInFinalAndTentativeStepsFalseAfterAnExplicitSave) {
  double x = 0.0, v = 0.0;
  Oscillator().Solve(1.0, 0.0, 0.0, 0.0, 1.0, &x, &v);
  for (const StepMode mode : {StepMode::kFinal, StepMode::kTentative}) {
    auto unit = Load(Spec("u", GetParam()));
    ASSERT_NE(unit, nullptr);
    EXPECT_NEAR(XAfterOneSecond(*unit, mode), x, 1e-6);
  }
  // Told false every step, the FMU restarts from x = 1 each time: far from x(1).
  auto kept = Load(Spec("u", GetParam()));
  ASSERT_NE(kept, nullptr);
  kept->SetEarlierStateKept();
  EXPECT_GT(std::abs(XAfterOneSecond(*kept, StepMode::kFinal) - x), 0.1);
}

INSTANTIATE_TEST_SUITE_P(FmiVersions, NoSetPriorTest,
                         ::testing::Values("fmi2_msd_flush", "fmi3_msd_flush"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace cosimo::units::fmu
