// Co-Simulation FMU units, FMI 2.0 and 3.0, against the analytic damped oscillator.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

using testing::FmuPath;
using testing::Load;
using testing::Oscillator;
using testing::SetNumber;
using testing::Spec;
using testing::StepOnce;

Eigen::MatrixXd Zoh(double f) { return Eigen::MatrixXd::Constant(1, 1, f); }

class FmiCoSimulationTest : public ::testing::TestWithParam<const char*> {};

TEST_P(FmiCoSimulationTest, MatchesTheDampedOscillator) {
  auto unit = Load(Spec("msd", std::string(GetParam())));
  ASSERT_NE(unit, nullptr);
  const UnitDescription& d = unit->description();
  ASSERT_EQ(d.inputs.size(), 1u);
  EXPECT_EQ(d.inputs[0].name, "F");
  EXPECT_EQ(d.inputs[0].unit, "N");
  ASSERT_EQ(d.outputs.size(), 3u);
  EXPECT_EQ(d.outputs[0].name, "x");
  EXPECT_EQ(d.outputs[1].name, "v");
  EXPECT_EQ(d.outputs[2].name, "steps");
  EXPECT_TRUE(d.capabilities.can_rollback);
  EXPECT_TRUE(d.capabilities.provides_jacobians);
  EXPECT_TRUE(d.capabilities.can_vary_step);
  EXPECT_FALSE(d.capabilities.output_reactive);
  EXPECT_EQ(d.capabilities.max_output_derivative_order, 1);

  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  OutputsReply initial;
  ASSERT_TRUE(unit->Evaluate(Eigen::VectorXd::Constant(1, 0.5), &initial).ok());
  EXPECT_EQ(initial.outputs[0], 1.0);
  EXPECT_EQ(initial.outputs[1], 0.0);

  const Oscillator osc;
  const double force = 0.5, h = 0.05;
  for (int n = 1; n <= 100; ++n) {
    const StepReply reply = StepOnce(*unit, h, Zoh(force));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    double x, v;
    osc.Solve(1.0, 0.0, force, 0.0, reply.end_time, &x, &v);
    EXPECT_NEAR(reply.end_time, n * h, 1e-12);
    EXPECT_NEAR(reply.outputs[0], x, 1e-9) << "t=" << reply.end_time;
    EXPECT_NEAR(reply.outputs[1], v, 1e-9) << "t=" << reply.end_time;
    EXPECT_EQ(reply.outputs[2], n);  // Integer output: DoStep calls
    // Output derivatives (maxOutputDerivativeOrder = 1): dx/dt = v, dv/dt = F - x - 0.2 v.
    ASSERT_EQ(reply.derivatives.size(), 3);
    EXPECT_NEAR(reply.derivatives[0], v, 1e-9);
    EXPECT_NEAR(reply.derivatives[1], force - x - 0.2 * v, 1e-9);
  }
  EXPECT_TRUE(unit->Terminate().ok());
}

TEST_P(FmiCoSimulationTest, RollsBackThroughTheFmuState) {
  auto unit = Load(Spec("msd", std::string(GetParam())));
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  for (int n = 0; n < 10; ++n) ASSERT_EQ(StepOnce(*unit, 0.1, Zoh(0.0)).status, StepStatus::kOk);
  auto snapshot = unit->Save();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  const StepReply first = StepOnce(*unit, 0.5, Zoh(1.0));
  ASSERT_EQ(first.status, StepStatus::kOk);
  ASSERT_TRUE(unit->Restore(**snapshot).ok());
  EXPECT_NEAR(unit->time(), 1.0, 1e-12);
  const StepReply again = StepOnce(*unit, 0.5, Zoh(1.0));
  ASSERT_EQ(again.status, StepStatus::kOk);
  EXPECT_EQ(again.outputs[0], first.outputs[0]);
  EXPECT_EQ(again.outputs[1], first.outputs[1]);
  // A different input from the same snapshot gives the analytic answer for that input.
  ASSERT_TRUE(unit->Restore(**snapshot).ok());
  double x1, v1, x, v;
  Oscillator().Solve(1.0, 0.0, 0.0, 0.0, 1.0, &x1, &v1);
  const StepReply other = StepOnce(*unit, 0.5, Zoh(-2.0));
  Oscillator().Solve(x1, v1, -2.0, 0.0, 0.5, &x, &v);
  EXPECT_NEAR(other.outputs[0], x, 1e-9);
  EXPECT_NEAR(other.outputs[1], v, 1e-9);
}

TEST_P(FmiCoSimulationTest, LinearizesWithDirectionalDerivatives) {
  v1::Unit spec = Spec("msd", std::string(GetParam()));
  SetNumber(&spec, "m", 2.0);
  SetNumber(&spec, "c", 8.0);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  auto lin = unit->Linearize(Eigen::VectorXd::Constant(1, 4.0));
  ASSERT_TRUE(lin.ok()) << lin.status();
  Eigen::MatrixXd A(2, 2), B(2, 1), C = Eigen::MatrixXd::Zero(3, 2),
                                    D = Eigen::MatrixXd::Zero(3, 1);
  A << 0, 1, -4, -0.1;
  B << 0, 0.5;
  C(0, 0) = C(1, 1) = 1.0;
  EXPECT_TRUE(lin->A.isApprox(A)) << lin->A;
  EXPECT_TRUE(lin->B.isApprox(B)) << lin->B;
  EXPECT_TRUE(lin->C.isApprox(C)) << lin->C;
  EXPECT_EQ(lin->D, D);
  ASSERT_EQ(lin->x.size(), 2);
  EXPECT_EQ(lin->x[0], 1.0);
  EXPECT_NEAR(lin->xdot[1], (4.0 - 8.0 * 1.0) / 2.0, 1e-12);  // (F - c x) / m
}

INSTANTIATE_TEST_SUITE_P(FmiVersions, FmiCoSimulationTest,
                         ::testing::Values("fmi2_msd", "fmi3_msd"));

TEST(Fmi2CoSimulationTest, InterpolatesRampInputs) {
  // F(t) = 0.3 t given as a first-order polynomial on each step: canInterpolateInputs makes the
  // FMU follow the ramp inside the step, so the result is the ramp's analytic solution.
  auto unit = Load(Spec("msd", "fmi2_msd"));
  ASSERT_NE(unit, nullptr);
  EXPECT_EQ(unit->description().capabilities.max_input_order, 1);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  const double k = 0.3, h = 0.1;
  for (int n = 0; n < 50; ++n) {
    Eigen::MatrixXd poly(1, 2);
    poly << k * unit->time(), k;
    const StepReply reply = StepOnce(*unit, h, poly);
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    double x, v;
    Oscillator().Solve(1.0, 0.0, 0.0, k, reply.end_time, &x, &v);
    EXPECT_NEAR(reply.outputs[0], x, 1e-9) << "t=" << reply.end_time;
    EXPECT_NEAR(reply.outputs[1], v, 1e-9) << "t=" << reply.end_time;
  }
}

TEST(Fmi2CoSimulationTest, HoldsAfterARampAndAfterRestoringARampState) {
  // The unit sets a zero input derivative only when the FMU may hold a non-zero one: after a
  // ramp, and after restoring an FMU state saved during a ramp (the state carries the slope).
  // Each hold step must follow the constant-force solution, not the old ramp.
  auto unit = Load(Spec("msd", "fmi2_msd"));
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  const double k = 0.3;
  for (int n = 0; n < 10; ++n) {
    Eigen::MatrixXd poly(1, 2);
    poly << k * unit->time(), k;
    ASSERT_EQ(StepOnce(*unit, 0.1, poly).status, StepStatus::kOk);
  }
  double x1, v1;
  Oscillator().Solve(1.0, 0.0, 0.0, k, 1.0, &x1, &v1);
  auto snapshot = unit->Save();  // at t = 1 with the FMU's input slope k
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  const double hold = k * 1.0;
  double x, v;
  for (int n = 1; n <= 2; ++n) {  // the second hold step sets no derivative at all
    const StepReply reply = StepOnce(*unit, 0.5, Zoh(hold));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    Oscillator().Solve(x1, v1, hold, 0.0, 0.5 * n, &x, &v);
    EXPECT_NEAR(reply.outputs[0], x, 1e-9) << "hold step " << n;
    EXPECT_NEAR(reply.outputs[1], v, 1e-9) << "hold step " << n;
  }
  ASSERT_TRUE(unit->Restore(**snapshot).ok());
  const StepReply again = StepOnce(*unit, 0.5, Zoh(hold));
  ASSERT_EQ(again.status, StepStatus::kOk) << again.message;
  Oscillator().Solve(x1, v1, hold, 0.0, 0.5, &x, &v);
  EXPECT_NEAR(again.outputs[0], x, 1e-9);
  EXPECT_NEAR(again.outputs[1], v, 1e-9);
}

TEST(Fmi2CoSimulationTest, ParametersOfEveryType) {
  v1::Unit spec = Spec("msd", "fmi2_msd");
  SetNumber(&spec, "m", 2.0);
  SetNumber(&spec, "c", 8.0);  // omega = 2 rad/s
  SetNumber(&spec, "x", 0.5);  // start value of a state
  (*spec.mutable_parameters())["damping"].set_bool_value(false);
  (*spec.mutable_parameters())["label"].set_string_value("hello");
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  // The String among them goes to recorded_strings; the others keep their order in recorded.
  ASSERT_TRUE(unit->SetRecorded({"energy", "omega", "label", "m", "damping", "der_v", "c"}).ok());
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  const StepReply reply = StepOnce(*unit, 1.0, Zoh(0.0));
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_NEAR(reply.outputs[0], 0.5 * std::cos(2.0), 1e-9);  // undamped
  EXPECT_NEAR(reply.outputs[1], -1.0 * std::sin(2.0), 1e-9);
  ASSERT_EQ(reply.recorded.size(), 6u);
  EXPECT_NEAR(reply.recorded[0], 0.5 * 8.0 * 0.25, 1e-9);  // energy is conserved: c x0^2 / 2
  EXPECT_EQ(reply.recorded[1], 2.0);                       // omega, via libm's sqrt
  EXPECT_EQ(reply.recorded[2], 2.0);                       // m
  EXPECT_EQ(reply.recorded[3], 0.0);                       // damping (Boolean)
  EXPECT_NEAR(reply.recorded[4], -4.0 * reply.outputs[0], 1e-12);
  EXPECT_EQ(reply.recorded[5], 8.0);
  EXPECT_THAT(reply.recorded_strings, ::testing::ElementsAre("hello"));  // fmi2GetString
}

TEST_P(FmiCoSimulationTest, DescribesValueTypesAndListsStringsAsRecordableOnly) {
  auto unit = Load(Spec("msd", GetParam()));
  ASSERT_NE(unit, nullptr);
  const UnitDescription& d = unit->description();
  auto find = [](const std::vector<VariableInfo>& vars, const std::string& name) {
    for (const VariableInfo& v : vars) {
      if (v.name == name) return &v;
    }
    return static_cast<const VariableInfo*>(nullptr);
  };
  ASSERT_NE(find(d.outputs, "x"), nullptr);
  EXPECT_EQ(find(d.outputs, "x")->type, ValueType::kReal);
  ASSERT_NE(find(d.outputs, "steps"), nullptr);
  EXPECT_EQ(find(d.outputs, "steps")->type, ValueType::kInteger);
  ASSERT_NE(find(d.others, "damping"), nullptr);
  EXPECT_EQ(find(d.others, "damping")->type, ValueType::kBoolean);
  ASSERT_NE(find(d.others, "label"), nullptr);
  EXPECT_EQ(find(d.others, "label")->type, ValueType::kString);
  EXPECT_EQ(find(d.inputs, "label"), nullptr);
}

TEST_P(FmiCoSimulationTest, RecordsStringBooleanAndIntegerVariablesAsTheyAre) {
  v1::Unit spec = Spec("msd", GetParam());
  (*spec.mutable_parameters())["label"].set_string_value("pump, \"left\"");
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->SetRecorded({"steps", "label", "damping"}).ok());
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  for (int k = 1; k <= 3; ++k) {
    const StepReply reply = StepOnce(*unit, 0.1, Zoh(0.0));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    ASSERT_EQ(reply.recorded.size(), 2u);
    EXPECT_EQ(reply.recorded[0], k);    // steps: DoStep calls so far (Integer / Int32)
    EXPECT_EQ(reply.recorded[1], 1.0);  // damping's start value, true
    EXPECT_THAT(reply.recorded_strings, ::testing::ElementsAre("pump, \"left\""));
  }
}

TEST(Fmi2CoSimulationTest, ParameterAndRecordingErrors) {
  v1::Unit spec = Spec("msd", "fmi2_msd");
  SetNumber(&spec, "mass", 2.0);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  absl::Status s = unit->Initialize(0.0, 1.0);
  EXPECT_NE(s.message().find("unit 'msd': parameter 'mass': no such variable"), std::string::npos)
      << s;

  spec = Spec("msd", "fmi2_msd");
  (*spec.mutable_parameters())["damping"].set_string_value("yes");
  unit = Load(spec);
  s = unit->Initialize(0.0, 1.0);
  EXPECT_NE(s.message().find("parameter 'damping': a number or Boolean is expected"),
            std::string::npos)
      << s;

  spec = Spec("msd", "fmi2_msd");
  SetNumber(&spec, "energy", 1.0);  // calculated
  unit = Load(spec);
  s = unit->Initialize(0.0, 1.0);
  EXPECT_NE(s.message().find("parameter 'energy': the variable cannot be set"), std::string::npos)
      << s;

  unit = Load(Spec("msd", "fmi2_msd"));
  s = unit->SetRecorded({"nope"});
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("no variable 'nope' in model 'msd'"), std::string::npos) << s;
}

TEST(Fmi2CoSimulationTest, WithoutFmuStateOrDirectionalDerivatives) {
  auto nostate = Load(Spec("msd", "fmi2_msd_nostate"));
  ASSERT_NE(nostate, nullptr);
  EXPECT_FALSE(nostate->description().capabilities.can_rollback);
  ASSERT_TRUE(nostate->Initialize(0.0, 1.0).ok());
  auto snapshot = nostate->Save();
  EXPECT_EQ(snapshot.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(snapshot.status().message().find("canGetAndSetFMUstate"), std::string::npos);

  auto nodd = Load(Spec("msd", "fmi2_msd_nodd"));
  ASSERT_NE(nodd, nullptr);
  EXPECT_FALSE(nodd->description().capabilities.provides_jacobians);
  EXPECT_TRUE(nodd->description().capabilities.can_rollback);
  ASSERT_TRUE(nodd->Initialize(0.0, 1.0).ok());
  EXPECT_EQ(nodd->Linearize(Eigen::VectorXd::Zero(1)).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST(Fmi2CoSimulationTest, TwoFmusWithTheSameGuidAreIndependent) {
  // fmi2_msd and fmi2_msd_nodd share their guid (never cache by guid).
  v1::Unit a_spec = Spec("a", "fmi2_msd");
  v1::Unit b_spec = Spec("b", "fmi2_msd_nodd");
  SetNumber(&b_spec, "x", -2.0);
  auto a = Load(a_spec);
  auto b = Load(b_spec);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(a->Initialize(0.0, 1.0).ok());
  ASSERT_TRUE(b->Initialize(0.0, 1.0).ok());
  const StepReply ra = StepOnce(*a, 1.0, Zoh(0.0));
  const StepReply rb = StepOnce(*b, 1.0, Zoh(0.0));
  double x, v;
  Oscillator().Solve(1.0, 0.0, 0.0, 0.0, 1.0, &x, &v);
  EXPECT_NEAR(ra.outputs[0], x, 1e-9);
  EXPECT_NEAR(rb.outputs[0], -2.0 * x, 1e-9);
}

TEST(Fmi2CoSimulationTest, FmuEndingItsSimulationEndsTheUnit) {
  v1::Unit spec = Spec("msd", "fmi2_msd");
  SetNumber(&spec, "end_time", 0.25);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  EXPECT_EQ(StepOnce(*unit, 0.1, Zoh(0.0)).status, StepStatus::kOk);
  EXPECT_EQ(StepOnce(*unit, 0.1, Zoh(0.0)).status, StepStatus::kOk);
  const StepReply ended = StepOnce(*unit, 0.1, Zoh(0.0));
  EXPECT_EQ(ended.status, StepStatus::kEnded);
  EXPECT_NEAR(ended.end_time, 0.2, 1e-12);
  EXPECT_NE(ended.message.find("ended its simulation at t=0.2"), std::string::npos)
      << ended.message;
  double x, v;
  Oscillator().Solve(1.0, 0.0, 0.0, 0.0, 0.2, &x, &v);
  EXPECT_NEAR(ended.outputs[0], x, 1e-9);
  EXPECT_EQ(StepOnce(*unit, 0.1, Zoh(0.0)).status, StepStatus::kEnded);
  EXPECT_TRUE(unit->Terminate().ok());
}

}  // namespace
}  // namespace cosimo::units::fmu
