// FMI 1.0 FMU units (fmi1_instance.cc behind the Co-Simulation and Model Exchange units) against
// the analytic damped oscillator: fmi1_msd_cs and fmi1_msd_me, their aliases and negated aliases,
// what a unit without FMU state reports, and the errors of a failing FMI 1.0 call.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

using ::testing::HasSubstr;
using testing::Load;
using testing::Oscillator;
using testing::SetNumber;
using testing::Spec;
using testing::StepOnce;
using testing::UseSolver;

Eigen::MatrixXd Zoh(double f) { return Eigen::MatrixXd::Constant(1, 1, f); }

struct Kind {
  const char* fmu;
  bool me;
};

class Fmi1UnitTest : public ::testing::TestWithParam<Kind> {
 protected:
  v1::Unit UnitSpec() const {
    v1::Unit spec = Spec("msd", GetParam().fmu);
    if (GetParam().me) UseSolver(&spec, v1::Solver::RK4, 1e-3);
    return spec;
  }
};

TEST_P(Fmi1UnitTest, MatchesTheDampedOscillatorWithAForce) {
  auto unit = Load(UnitSpec());
  ASSERT_NE(unit, nullptr);
  const UnitDescription& d = unit->description();
  ASSERT_EQ(d.inputs.size(), 1u);
  EXPECT_EQ(d.inputs[0].name, "F");
  ASSERT_EQ(d.outputs.size(), 4u);  // x, v, steps, position
  EXPECT_EQ(d.outputs[0].name, "x");
  EXPECT_EQ(d.outputs[0].unit, "m");  // from its declaredType
  EXPECT_EQ(d.outputs[3].name, "position");
  // No FMU state in FMI 1.0: the unit cannot roll back (COSTARICA in iterative schemes), and
  // <DirectDependency/> says no output depends on F directly.
  EXPECT_FALSE(d.capabilities.can_rollback);
  EXPECT_FALSE(d.capabilities.output_reactive);
  EXPECT_EQ(d.capabilities.max_output_derivative_order, 0);
  auto save = unit->Save();
  EXPECT_FALSE(save.ok());

  ASSERT_TRUE(unit->SetRecorded({"neg_x", "neg_v", "undamped", "der(v)"}).ok());
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  const Oscillator osc;
  const double force = 0.5, h = 0.05;
  const double tolerance = GetParam().me ? 1e-7 : 1e-9;
  for (int n = 1; n <= 100; ++n) {
    const StepReply reply = StepOnce(*unit, h, Zoh(force));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    double x, v;
    osc.Solve(1.0, 0.0, force, 0.0, reply.end_time, &x, &v);
    EXPECT_NEAR(reply.end_time, n * h, 1e-12);
    EXPECT_NEAR(reply.outputs[0], x, tolerance) << "t=" << reply.end_time;
    EXPECT_NEAR(reply.outputs[1], v, tolerance) << "t=" << reply.end_time;
    EXPECT_EQ(reply.outputs[3], reply.outputs[0]);  // position: an alias of x
    ASSERT_EQ(reply.recorded.size(), 4u);
    EXPECT_EQ(reply.recorded[0], -reply.outputs[0]);  // neg_x
    EXPECT_EQ(reply.recorded[1], -reply.outputs[1]);  // neg_v
    EXPECT_EQ(reply.recorded[2], 0.0);                // undamped: not damping (true)
    EXPECT_NEAR(reply.recorded[3], force - x - 0.2 * v, 10 * tolerance);  // der(v)
  }
  EXPECT_TRUE(unit->Terminate().ok());
}

// Setting a negated alias sets its variable to the negation: undamped = true is damping = false,
// neg_x = -2 is x(0) = 2.
TEST_P(Fmi1UnitTest, NegatedAliasesAreSetNegated) {
  v1::Unit spec = UnitSpec();
  (*spec.mutable_parameters())["undamped"].set_bool_value(true);
  SetNumber(&spec, "neg_x", -2.0);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  const double h = 0.1;
  for (int n = 1; n <= 50; ++n) {
    const StepReply reply = StepOnce(*unit, h, Zoh(0.0));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    EXPECT_NEAR(reply.outputs[0], 2.0 * std::cos(reply.end_time), 1e-7) << reply.end_time;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, Fmi1UnitTest,
                         ::testing::Values(Kind{"fmi1_msd_cs", false}, Kind{"fmi1_msd_me", true}),
                         [](const auto& info) { return info.param.me ? "ME" : "CS"; });

// (A failing FMI 1.0 call: fmu_errors_test.cc.) Checkpoints need an FMU state, which FMI 1.0
// does not have: restoring one is refused naming why.
TEST(Fmi1UnitErrorsTest, CheckpointsAreRefused) {
  auto unit = Load(Spec("msd", "fmi1_msd_cs"));
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  auto snapshot = unit->Deserialize("");
  ASSERT_FALSE(snapshot.ok());
  EXPECT_THAT(snapshot.status().message(),
              HasSubstr("unit 'msd': cannot be checkpointed: FMI 1.0 has no FMU state"));
}

}  // namespace
}  // namespace cosimo::units::fmu
