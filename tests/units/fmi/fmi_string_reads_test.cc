// Recorded String variables are read with fmiXGetString only when they may have changed. The
// probe FMU counts its fmiXGetString calls (output `string_reads`) and switches its discrete
// String `mode` from "before" to "after" at a time event (t_switch).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

using testing::Load;
using testing::SetNumber;
using testing::Spec;
using testing::StepOnce;
using testing::UseSolver;

constexpr double kSwitch = 0.52;  // s, between communication points
constexpr int kStringReads = 1;   // output index: x, string_reads

std::unique_ptr<Unit> Probe(const std::string& fmu, bool model_exchange) {
  v1::Unit spec = Spec("p", fmu);
  SetNumber(&spec, "t_switch", kSwitch);
  if (model_exchange) UseSolver(&spec, v1::Solver::RK4, 0.01);
  return Load(spec);
}

// 20 steps of 0.05 s with `mode` recorded; checks its value at every step and returns the
// FMU's count of fmiXGetString calls after the last one.
double RunRecordingMode(Unit& unit) {
  EXPECT_TRUE(unit.SetRecorded({"mode"}).ok());
  EXPECT_TRUE(unit.Initialize(0.0, 1.0).ok());
  StepReply reply;
  for (int n = 1; n <= 20; ++n) {
    reply = StepOnce(unit, 0.05, Eigen::MatrixXd::Zero(1, 1));
    EXPECT_EQ(reply.status, StepStatus::kOk) << reply.message;
    EXPECT_THAT(reply.recorded_strings,
                ::testing::ElementsAre(reply.end_time < kSwitch ? "before" : "after"))
        << "t=" << reply.end_time;
  }
  OutputsReply last;  // outputs are read before the strings: ask once more for the count
  EXPECT_TRUE(unit.Evaluate(Eigen::VectorXd::Zero(1), &last).ok());
  return last.outputs[kStringReads];
}

TEST(FmiStringReadsTest, ModelExchangeReadsThemAfterInitialisationAndEvents) {
  for (const char* fmu : {"fmi2_probe", "fmi3_probe"}) {
    SCOPED_TRACE(fmu);
    auto unit = Probe(fmu, /*model_exchange=*/true);
    ASSERT_NE(unit, nullptr);
    EXPECT_EQ(RunRecordingMode(*unit), 2);  // after initialisation, after the event at kSwitch
  }
}

TEST(FmiStringReadsTest, CoSimulationReadsThemAfterEveryStep) {
  // Inside fmiXDoStep the FMU may change discrete variables at any time, unseen.
  for (const char* fmu : {"fmi2_probe", "fmi3_probe"}) {
    SCOPED_TRACE(fmu);
    auto unit = Probe(fmu, /*model_exchange=*/false);
    ASSERT_NE(unit, nullptr);
    EXPECT_EQ(RunRecordingMode(*unit), 20);  // the 20 steps; Evaluate reads after the count
  }
}

TEST(FmiStringReadsTest, NothingRecordedNothingRead) {
  for (bool model_exchange : {false, true}) {
    auto unit = Probe("fmi2_probe", model_exchange);
    ASSERT_NE(unit, nullptr);
    ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
    StepReply reply;
    for (int n = 0; n < 5; ++n) reply = StepOnce(*unit, 0.2, Eigen::MatrixXd::Zero(1, 1));
    EXPECT_TRUE(reply.recorded_strings.empty());
    EXPECT_EQ(reply.outputs[kStringReads], 0);
  }
}

TEST(FmiStringReadsTest, ARestoreReadsThemAgain) {
  auto unit = Probe("fmi2_probe", /*model_exchange=*/true);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->SetRecorded({"mode"}).ok());
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  auto before = unit->Save();
  ASSERT_TRUE(before.ok()) << before.status();
  const StepReply after = StepOnce(*unit, 0.6, Eigen::MatrixXd::Zero(1, 1));
  EXPECT_THAT(after.recorded_strings, ::testing::ElementsAre("after"));
  ASSERT_TRUE(unit->Restore(**before).ok());
  const StepReply again = StepOnce(*unit, 0.1, Eigen::MatrixXd::Zero(1, 1));
  EXPECT_THAT(again.recorded_strings, ::testing::ElementsAre("before"));
}

}  // namespace
}  // namespace cosimo::units::fmu
