// Model Exchange FMU units, FMI 2.0 and 3.0: the worker's solvers integrate the FMU, with state
// events (bouncing ball) and time events located against the analytic solutions.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

using testing::Load;
using testing::Oscillator;
using testing::SetNumber;
using testing::Spec;
using testing::StepOnce;
using testing::UseSolver;

constexpr double kG = 9.81, kE = 0.7;

class FmiModelExchangeTest : public ::testing::TestWithParam<const char*> {
 protected:
  std::string Fmu(const std::string& model) const { return std::string(GetParam()) + "_" + model; }
};

TEST_P(FmiModelExchangeTest, MassSpringDamperWithRk4MatchesTheOscillator) {
  v1::Unit spec = Spec("msd", Fmu("msd"));
  UseSolver(&spec, v1::Solver::RK4, 1e-3);  // both kinds offered: a solver selects ME
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  const Capabilities& caps = unit->description().capabilities;
  EXPECT_TRUE(caps.provides_state_derivatives);
  EXPECT_TRUE(caps.provides_jacobians);
  EXPECT_EQ(caps.max_input_order, 3);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  // Inputs: F(t) = 0.4 + 0.3 t as a first-order polynomial on each step.
  const double f0 = 0.4, k = 0.3, h = 0.1;
  for (int n = 0; n < 50; ++n) {
    Eigen::MatrixXd poly(1, 2);
    poly << f0 + k * unit->time(), k;
    const StepReply reply = StepOnce(*unit, h, poly);
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    double x, v;
    Oscillator().Solve(1.0, 0.0, f0, k, reply.end_time, &x, &v);
    EXPECT_NEAR(reply.outputs[0], x, 1e-9) << "t=" << reply.end_time;
    EXPECT_NEAR(reply.outputs[1], v, 1e-9) << "t=" << reply.end_time;
  }
  EXPECT_TRUE(unit->Terminate().ok());
}

TEST_P(FmiModelExchangeTest, RecordsStringAndBooleanVariables) {
  v1::Unit spec = Spec("msd", Fmu("msd"));
  UseSolver(&spec, v1::Solver::RK4, 1e-3);
  (*spec.mutable_parameters())["label"].set_string_value("me unit");
  (*spec.mutable_parameters())["damping"].set_bool_value(false);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->SetRecorded({"label", "damping", "energy"}).ok());
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  const StepReply reply = StepOnce(*unit, 0.1, Eigen::MatrixXd::Zero(1, 1));
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  ASSERT_EQ(reply.recorded.size(), 2u);
  EXPECT_EQ(reply.recorded[0], 0.0);          // damping, set false
  EXPECT_NEAR(reply.recorded[1], 0.5, 1e-6);  // undamped: energy stays c x0^2 / 2
  ASSERT_EQ(reply.recorded_strings.size(), 1u);
  EXPECT_EQ(reply.recorded_strings[0], "me unit");
}

TEST_P(FmiModelExchangeTest, RollbackRestoresStatesAndFmuState) {
  v1::Unit spec = Spec("msd", Fmu("msd"));
  UseSolver(&spec, v1::Solver::RK45, 0.01);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  EXPECT_TRUE(unit->description().capabilities.can_rollback);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  ASSERT_EQ(StepOnce(*unit, 0.7, Eigen::MatrixXd::Zero(1, 1)).status, StepStatus::kOk);
  auto snapshot = unit->Save();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  const StepReply first = StepOnce(*unit, 0.3, Eigen::MatrixXd::Constant(1, 1, 2.0));
  ASSERT_TRUE(unit->Restore(**snapshot).ok());
  EXPECT_NEAR(unit->time(), 0.7, 1e-12);
  const StepReply again = StepOnce(*unit, 0.3, Eigen::MatrixXd::Constant(1, 1, 2.0));
  EXPECT_EQ(first.outputs[0], again.outputs[0]);
  EXPECT_EQ(first.outputs[1], again.outputs[1]);
  double x7, v7, x, v;
  Oscillator().Solve(1.0, 0.0, 0.0, 0.0, 0.7, &x7, &v7);
  Oscillator().Solve(x7, v7, 2.0, 0.0, 0.3, &x, &v);
  EXPECT_NEAR(again.outputs[0], x, 1e-5);  // RK45 at its default tolerance
}

TEST_P(FmiModelExchangeTest, LinearizesWithOrWithoutDirectionalDerivatives) {
  // fmiX_msd has directional derivatives; fmi2_msd_nodd / fmi3_msd_nostate have none, so the
  // unit uses central differences on the states and inputs.
  const std::string without =
      std::string(GetParam()) == "fmi2" ? "fmi2_msd_nodd" : "fmi3_msd_nostate";
  for (const std::string& fmu : {Fmu("msd"), without}) {
    v1::Unit spec = Spec("msd", fmu);
    UseSolver(&spec, v1::Solver::RK4, 1e-3);
    SetNumber(&spec, "m", 2.0);
    SetNumber(&spec, "c", 8.0);
    auto unit = Load(spec);
    ASSERT_NE(unit, nullptr);
    EXPECT_TRUE(unit->description().capabilities.provides_jacobians) << fmu;
    ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
    ASSERT_EQ(StepOnce(*unit, 0.5, Eigen::MatrixXd::Zero(1, 1)).status, StepStatus::kOk);
    auto lin = unit->Linearize(Eigen::VectorXd::Constant(1, 4.0));
    ASSERT_TRUE(lin.ok()) << lin.status();
    Eigen::MatrixXd A(2, 2), B(2, 1);
    A << 0, 1, -4, -0.1;
    B << 0, 0.5;
    EXPECT_TRUE(lin->A.isApprox(A, 1e-7)) << fmu << "\n" << lin->A;
    EXPECT_TRUE(lin->B.isApprox(B, 1e-7)) << fmu << "\n" << lin->B;
    EXPECT_NEAR(lin->C(0, 0), 1.0, 1e-7);
    EXPECT_NEAR(lin->C(1, 1), 1.0, 1e-7);
    EXPECT_NEAR(lin->D.norm(), 0.0, 1e-7);
    EXPECT_NEAR(lin->xdot[1], (4.0 - 8.0 * lin->x[0] - 0.2 * lin->x[1]) / 2.0, 1e-9);
    // Linearize does not move the unit.
    const StepReply next = StepOnce(*unit, 0.5, Eigen::MatrixXd::Zero(1, 1));
    Oscillator osc;
    osc.m = 2.0;
    osc.c = 8.0;
    double x, v;
    osc.Solve(1.0, 0.0, 0.0, 0.0, 1.0, &x, &v);
    EXPECT_NEAR(next.outputs[0], x, 1e-8) << fmu;
  }
}

// Bounce times of a ball dropped from h0 at rest: t1 = sqrt(2 h0 / g), then each flight lasts
// e times the previous one.
std::vector<double> BounceTimes(double h0, int count) {
  std::vector<double> times;
  const double t1 = std::sqrt(2.0 * h0 / kG);
  double t = t1, flight = 2.0 * t1;
  for (int i = 0; i < count; ++i) {
    times.push_back(t);
    flight *= kE;
    t += flight;
  }
  return times;
}

TEST_P(FmiModelExchangeTest, BouncingBallBouncesAtTheAnalyticTimes) {
  v1::Unit spec = Spec("ball", Fmu("bouncing_ball"));
  UseSolver(&spec, v1::Solver::RK4, 1e-3);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  const UnitDescription& d = unit->description();
  ASSERT_EQ(d.outputs.size(), 4u);  // h, v, t_last_bounce, bounces
  EXPECT_EQ(d.outputs[3].name, "bounces");
  ASSERT_TRUE(unit->Initialize(0.0, 3.0).ok());
  const std::vector<double> expected = BounceTimes(1.0, 4);  // 0.4515, 1.0837, 1.5261, 1.8358
  std::vector<double> seen;
  StepReply reply;
  for (int n = 0; n < 200; ++n) {  // H = 0.01 to t = 2
    reply = StepOnce(*unit, 0.01, Eigen::MatrixXd::Zero(0, 1));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    ASSERT_GE(reply.outputs[0], -1e-9) << "the ball fell through the floor at t=" << reply.end_time;
    if (reply.outputs[3] > static_cast<double>(seen.size())) seen.push_back(reply.outputs[2]);
  }
  ASSERT_EQ(seen.size(), expected.size());
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_NEAR(seen[i], expected[i], 1e-8) << "bounce " << i + 1;
  }
  // After the fourth bounce: h = v4 (t - t4) - g/2 (t - t4)^2 with v4 = e^4 g t1.
  const double v4 = std::pow(kE, 4) * kG * expected[0];
  const double tau = 2.0 - expected[3];
  EXPECT_NEAR(reply.outputs[0], v4 * tau - 0.5 * kG * tau * tau, 1e-7);
  EXPECT_NEAR(reply.outputs[1], v4 - kG * tau, 1e-7);
}

TEST_P(FmiModelExchangeTest, TimeEventKicksTheBall) {
  // At the time event t_kick = 0.3 s the ball gets dv_kick = 2 m/s upwards; the first bounce
  // then comes at 0.3 + (v + sqrt(v^2 + 2 g h)) / g with h, v the state just after the kick.
  v1::Unit spec = Spec("ball", Fmu("bouncing_ball"));
  UseSolver(&spec, v1::Solver::RK4, 1e-3);
  SetNumber(&spec, "t_kick", 0.3);
  SetNumber(&spec, "dv_kick", 2.0);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->SetRecorded({"kicked"}).ok());
  ASSERT_TRUE(unit->Initialize(0.0, 3.0).ok());
  const StepReply before = StepOnce(*unit, 0.25, Eigen::MatrixXd::Zero(0, 1));
  EXPECT_EQ(before.recorded[0], 0.0);
  const StepReply after = StepOnce(*unit, 0.1, Eigen::MatrixXd::Zero(0, 1));  // to 0.35
  EXPECT_EQ(after.recorded[0], 1.0);
  const double h = 1.0 - 0.5 * kG * 0.09, v = -kG * 0.3 + 2.0;
  EXPECT_NEAR(after.outputs[1], v - kG * 0.05, 1e-9);
  double bounce = -1.0;
  for (int n = 0; n < 100 && bounce < 0.0; ++n) {
    const StepReply reply = StepOnce(*unit, 0.01, Eigen::MatrixXd::Zero(0, 1));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    if (reply.outputs[3] >= 1.0) bounce = reply.outputs[2];
  }
  EXPECT_NEAR(bounce, 0.3 + (v + std::sqrt(v * v + 2.0 * kG * h)) / kG, 1e-8);
}

TEST_P(FmiModelExchangeTest, StepEventFromCompletedIntegratorStep) {
  // fmiXCompletedIntegratorStep asks for event mode at the first integrator step completed at or
  // after t_step_event = 0.2005 s: with solver steps of 1 ms that is t = 0.201 s, where the unit
  // must run an event iteration (the FMU notes its time) without disturbing the trajectory.
  v1::Unit spec = Spec("ball", Fmu("bouncing_ball"));
  UseSolver(&spec, v1::Solver::RK4, 1e-3);
  SetNumber(&spec, "t_step_event", 0.2005);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->SetRecorded({"t_step_seen", "step_event_done"}).ok());
  ASSERT_TRUE(unit->Initialize(0.0, 3.0).ok());
  StepReply reply;
  for (int n = 0; n < 30; ++n) reply = StepOnce(*unit, 0.01, Eigen::MatrixXd::Zero(0, 1));
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_EQ(reply.recorded[1], 1.0);
  EXPECT_NEAR(reply.recorded[0], 0.201, 1e-9);
  EXPECT_NEAR(reply.outputs[0], 1.0 - 0.5 * kG * 0.09, 1e-9);
}

TEST_P(FmiModelExchangeTest, BallRollbackAcrossABounce) {
  v1::Unit spec = Spec("ball", Fmu("bouncing_ball"));
  UseSolver(&spec, v1::Solver::RK4, 1e-3);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  EXPECT_TRUE(unit->description().capabilities.can_rollback);  // FMU state offered
  ASSERT_TRUE(unit->Initialize(0.0, 3.0).ok());
  ASSERT_EQ(StepOnce(*unit, 0.4, Eigen::MatrixXd::Zero(0, 1)).status, StepStatus::kOk);
  auto snapshot = unit->Save();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  const StepReply first = StepOnce(*unit, 0.2, Eigen::MatrixXd::Zero(0, 1));
  EXPECT_EQ(first.outputs[3], 1.0);  // bounced at 0.4515
  ASSERT_TRUE(unit->Restore(**snapshot).ok());
  const StepReply again = StepOnce(*unit, 0.2, Eigen::MatrixXd::Zero(0, 1));
  EXPECT_EQ(again.outputs[3], 1.0);  // the bounce counter came back with the FMU state
  EXPECT_EQ(again.outputs[0], first.outputs[0]);
  EXPECT_EQ(again.outputs[2], first.outputs[2]);
}

INSTANTIATE_TEST_SUITE_P(FmiVersions, FmiModelExchangeTest, ::testing::Values("fmi2", "fmi3"));

TEST(Fmi2ModelExchangeTest, ModelExchangeOnlyFmuUsesTheDefaultSolver) {
  auto unit = Load(Spec("msd", "fmi2_msd_me"));  // no solver given: RK45
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  StepReply reply;
  for (int n = 0; n < 10; ++n) reply = StepOnce(*unit, 0.2, Eigen::MatrixXd::Zero(1, 1));
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  double x, v;
  Oscillator().Solve(1.0, 0.0, 0.0, 0.0, 2.0, &x, &v);
  EXPECT_NEAR(reply.outputs[0], x, 1e-4);
  EXPECT_NEAR(reply.outputs[1], v, 1e-4);
}

TEST(Fmi2ModelExchangeTest, WithoutFmuStateAndWithDiscreteStatesCannotRollBack) {
  v1::Unit spec = Spec("msd", "fmi2_msd_nostate");
  UseSolver(&spec, v1::Solver::RK4, 1e-2);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  // The msd has an Integer output (discrete), so the states alone do not make a snapshot.
  EXPECT_FALSE(unit->description().capabilities.can_rollback);
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  EXPECT_EQ(unit->Save().status().code(), absl::StatusCode::kUnimplemented);
}

TEST(Fmi2ModelExchangeTest, SolverOnACoSimulationOnlyFmuIsAnError) {
  v1::Unit spec = Spec("err", "fmi2_error");
  UseSolver(&spec, v1::Solver::RK4, 1e-2);
  auto unit = CreateFmuUnit(spec, spec.fmu().path());
  ASSERT_FALSE(unit.ok());
  EXPECT_NE(unit.status().message().find("offers only Co-Simulation"), std::string::npos);
}

}  // namespace
}  // namespace cosimo::units::fmu

namespace cosimo::units::fmu {
namespace {

// Every solver of the worker integrates a Model Exchange FMU; the error shrinks with the
// method's order (tolerances: explicit / implicit Euler first order at h = 1e-4, the others
// high order or adaptive).
class FmiModelExchangeSolverTest
    : public ::testing::TestWithParam<std::pair<v1::Solver::Method, double>> {};

TEST_P(FmiModelExchangeSolverTest, MassSpringDamper) {
  const auto [method, tolerance] = GetParam();
  v1::Unit spec = testing::Spec("msd", "fmi3_msd");
  testing::UseSolver(&spec, method, 1e-4);
  auto unit = testing::Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  StepReply reply;
  for (int n = 0; n < 10; ++n) {
    reply = testing::StepOnce(*unit, 0.1, Eigen::MatrixXd::Constant(1, 1, 1.0));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  }
  double x, v;
  testing::Oscillator().Solve(1.0, 0.0, 1.0, 0.0, 1.0, &x, &v);
  EXPECT_NEAR(reply.outputs[0], x, tolerance) << v1::Solver::Method_Name(method);
  EXPECT_NEAR(reply.outputs[1], v, tolerance) << v1::Solver::Method_Name(method);
}

INSTANTIATE_TEST_SUITE_P(FmiSolvers, FmiModelExchangeSolverTest,
                         ::testing::Values(std::make_pair(v1::Solver::EXPLICIT_EULER, 1e-4),
                                           std::make_pair(v1::Solver::IMPLICIT_EULER, 1e-4),
                                           std::make_pair(v1::Solver::RK4, 1e-10),
                                           std::make_pair(v1::Solver::RK45, 1e-5),
                                           std::make_pair(v1::Solver::CVODE, 1e-4)));

}  // namespace
}  // namespace cosimo::units::fmu
