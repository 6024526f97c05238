// ModelUnit: description and reactivity, outputs and derivatives, recorded variables, rollback
// (bit-identical repeat after restore, for every solver), linearisation (analytic and finite
// differences), and bad step requests.
#include "units/src/model_unit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "tests/units/solvers/test_systems.h"
#include "units/src/models/builtin_models.h"
#include "units/src/solvers/solver.h"

namespace cosimo::units {
namespace {

using testing::BuiltinSpec;
using testing::Polynomials;

std::unique_ptr<Unit> MakeUnit(const v1::Unit& spec) {
  absl::StatusOr<std::unique_ptr<Unit>> unit = CreateBuiltinUnit(spec);
  EXPECT_TRUE(unit.ok()) << unit.status();
  EXPECT_TRUE((*unit)->Initialize(0.0, 10.0).ok());
  return std::move(*unit);
}

StepReply DoStep(Unit& unit, double h, const InputPolynomials& inputs) {
  StepRequest request;
  request.time = unit.time();
  request.step = h;
  request.inputs = inputs;
  StepReply reply;
  unit.Step(request, &reply);
  return reply;
}

bool BitEqual(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
}

TEST(ModelUnitTest, CarSplitDescriptions) {
  const auto controller = MakeUnit(BuiltinSpec("ctrl", "car_controller"));
  const UnitDescription& c = controller->description();
  ASSERT_EQ(c.inputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].name, "v");
  ASSERT_EQ(c.outputs.size(), 1u);
  EXPECT_EQ(c.outputs[0].name, "F");
  EXPECT_EQ(c.outputs[0].unit, "N");
  EXPECT_TRUE(c.capabilities.output_reactive);
  EXPECT_FALSE(c.capabilities.input_reactive);
  EXPECT_TRUE(c.capabilities.can_rollback);
  EXPECT_TRUE(c.capabilities.provides_jacobians);
  EXPECT_TRUE(c.capabilities.provides_state_derivatives);

  const auto vehicle = MakeUnit(BuiltinSpec("car", "car_vehicle"));
  const UnitDescription& v = vehicle->description();
  EXPECT_EQ(v.inputs[0].name, "F");
  EXPECT_EQ(v.outputs[0].name, "v");
  EXPECT_FALSE(v.capabilities.output_reactive);
  // The state v and its derivative der(v), recordable (issue 29, 8).
  ASSERT_EQ(v.others.size(), 2u);
  EXPECT_EQ(v.others[0].causality, Causality::kState);
  EXPECT_EQ(v.others[1].name, "der(v)");
  EXPECT_EQ(v.others[1].causality, Causality::kLocal);
  EXPECT_EQ(v.others[1].unit, "m/s/s");
}

TEST(ModelUnitTest, ControllerEvaluatesAndSteps) {
  const auto controller = MakeUnit(BuiltinSpec("ctrl", "car_controller"));
  OutputsReply outputs;
  ASSERT_TRUE(controller->Evaluate(Eigen::VectorXd::Constant(1, 10.0), &outputs).ok());
  EXPECT_DOUBLE_EQ(outputs.outputs[0], 1e3 * (40.0 - 10.0));
  // A step with a ramp v(s) = 10 + 2 s: F(t+h) = k (v_d - v(h)), dF/dt = -k dv/dt.
  const StepReply reply = DoStep(*controller, 0.5, Polynomials({{10.0, 2.0}}));
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_DOUBLE_EQ(reply.end_time, 0.5);
  EXPECT_DOUBLE_EQ(reply.outputs[0], 1e3 * (40.0 - 11.0));
  EXPECT_DOUBLE_EQ(reply.derivatives[0], -2e3);
}

TEST(ModelUnitTest, SplitCarUnderGaussSeidelApproachesTheWholeCar) {
  // Vehicle first (output delayed), then the controller with v(t[N+1]): at H = 0.2 the split car
  // with ZOH force lags the exact whole car by O(H).
  v1::Unit vehicle_spec = BuiltinSpec("vehicle", "car_vehicle", v1::Solver::EXACT);
  const auto vehicle = MakeUnit(vehicle_spec);
  const auto controller = MakeUnit(BuiltinSpec("ctrl", "car_controller"));
  const auto whole = MakeUnit(BuiltinSpec("car", "car"));
  OutputsReply f;
  ASSERT_TRUE(controller->Evaluate(Eigen::VectorXd::Zero(1), &f).ok());
  double force = f.outputs[0];
  double worst = 0.0;
  for (int i = 0; i < 50; ++i) {
    const StepReply v = DoStep(*vehicle, 0.2, Polynomials({{force}}));
    const StepReply c = DoStep(*controller, 0.2, Polynomials({{v.outputs[0]}}));
    const StepReply w = DoStep(*whole, 0.2, testing::NoInputs());
    force = c.outputs[0];
    worst = std::max(worst, std::abs(v.outputs[0] - w.outputs[0]));
  }
  EXPECT_LT(worst, 3.0);  // m/s, of 40
  EXPECT_GT(worst, 0.01);
}

TEST(ModelUnitTest, DerivativesOfOutputsAreCxdotPlusDudot) {
  v1::Unit spec = BuiltinSpec("side", "mass_spring_damper_coupling", v1::Solver::RK4, 0.01);
  testing::SetNumber(&spec, "x0", 0.3);
  testing::SetNumber(&spec, "k_c", 5.0);
  testing::SetNumber(&spec, "d_c", 0.5);
  const auto unit = MakeUnit(spec);
  const StepReply reply = DoStep(*unit, 0.1, Polynomials({{0.1, 1.0}, {1.0, 0.0}}));
  ASSERT_EQ(reply.status, StepStatus::kOk);
  absl::StatusOr<Linearization> lin = unit->Linearize(Eigen::Vector2d(0.2, 1.0));
  ASSERT_TRUE(lin.ok());
  const Eigen::Vector2d u_dot(1.0, 0.0);
  const Eigen::VectorXd expected = lin->C * lin->xdot + lin->D * u_dot;
  EXPECT_LT((reply.derivatives - expected).norm(), 1e-12);
  EXPECT_TRUE(unit->description().capabilities.output_reactive);
}

TEST(ModelUnitTest, RecordedVariables) {
  const auto unit = MakeUnit(BuiltinSpec("msd", "mass_spring_damper", v1::Solver::RK4, 0.01));
  ASSERT_TRUE(unit->SetRecorded({"x", "F_e", "der(v)"}).ok());
  const StepReply reply = DoStep(*unit, 0.1, Polynomials({{2.0}}));
  ASSERT_EQ(reply.recorded.size(), 3u);
  EXPECT_DOUBLE_EQ(reply.recorded[0], reply.outputs[0]);
  EXPECT_DOUBLE_EQ(reply.recorded[1], 2.0);
  // der(v) = (-c x - c_f v + F_e) / m with the defaults m = 1, c = 1, c_f = 0.1.
  EXPECT_NEAR(reply.recorded[2], -reply.outputs[0] - 0.1 * reply.outputs[1] + 2.0, 1e-12);
  const absl::Status status = unit->SetRecorded({"nope"});
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("'nope'"), std::string::npos);
}

class RollbackTest : public ::testing::TestWithParam<v1::Solver::Method> {};

TEST_P(RollbackTest, SaveStepRestoreStepIsBitIdentical) {
  v1::Unit spec = BuiltinSpec("m", "mass_spring_damper", GetParam(), 0.013);
  const auto unit = MakeUnit(spec);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(DoStep(*unit, 0.1, Polynomials({{0.5 * i, 1.0}})).status, StepStatus::kOk);
  }
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> snapshot = unit->Save();
  ASSERT_TRUE(snapshot.ok());
  const double saved_time = unit->time();
  const StepReply first_a = DoStep(*unit, 0.1, Polynomials({{1.0, -2.0, 0.5}}));
  const StepReply first_b = DoStep(*unit, 0.07, Polynomials({{0.3}}));
  ASSERT_EQ(first_b.status, StepStatus::kOk);
  ASSERT_TRUE(unit->Restore(**snapshot).ok());
  EXPECT_EQ(unit->time(), saved_time);
  const StepReply second_a = DoStep(*unit, 0.1, Polynomials({{1.0, -2.0, 0.5}}));
  const StepReply second_b = DoStep(*unit, 0.07, Polynomials({{0.3}}));
  EXPECT_TRUE(BitEqual(first_a.outputs, second_a.outputs));
  EXPECT_TRUE(BitEqual(first_b.outputs, second_b.outputs));
  EXPECT_TRUE(BitEqual(first_b.derivatives, second_b.derivatives));
  EXPECT_EQ(first_b.end_time, second_b.end_time);
}

INSTANTIATE_TEST_SUITE_P(AllSolvers, RollbackTest,
                         ::testing::Values(v1::Solver::EXPLICIT_EULER, v1::Solver::IMPLICIT_EULER,
                                           v1::Solver::RK4, v1::Solver::RK45,
                                           v1::Solver::CENTRAL_DIFFERENCE, v1::Solver::CVODE,
                                           v1::Solver::EXACT),
                         [](const ::testing::TestParamInfo<v1::Solver::Method>& info) {
                           return v1::Solver::Method_Name(info.param);
                         });

TEST(ModelUnitTest, LinearizeWithFiniteDifferences) {
  auto model = std::make_unique<testing::PendulumModel>();
  v1::Solver solver_spec;
  solver_spec.set_method(v1::Solver::RK4);
  solver_spec.set_step(0.01);
  absl::StatusOr<std::unique_ptr<Solver>> solver = CreateSolver(solver_spec, *model, "pendulum");
  ASSERT_TRUE(solver.ok());
  ModelUnit unit("pendulum", std::move(model), std::move(*solver));
  ASSERT_TRUE(unit.Initialize(0.0, 1.0).ok());
  EXPECT_TRUE(unit.description().capabilities.output_reactive);
  const double u = 0.3;
  absl::StatusOr<Linearization> lin = unit.Linearize(Eigen::VectorXd::Constant(1, u));
  ASSERT_TRUE(lin.ok());
  // At q = 1, w = 0: A = [[0, 1], [-cos 1, -0.1]], B = [0, 1], C = [[1, 0], [u, 0]]... with
  // y1 = w u: dy1/dw = u, dy1/du = w = 0.
  Eigen::Matrix2d a;
  a << 0, 1, -std::cos(1.0), -0.1;
  EXPECT_LT((lin->A - a).norm(), 1e-9);
  EXPECT_LT((lin->B - Eigen::Vector2d(0, 1)).norm(), 1e-9);
  Eigen::Matrix2d c;
  c << 1, 0, 0, u;
  EXPECT_LT((lin->C - c).norm(), 1e-9);
  EXPECT_LT((lin->D - Eigen::Vector2d(0, 0)).norm(), 1e-9);
  EXPECT_NEAR(lin->xdot[1], -std::sin(1.0) + u, 1e-15);
  // dy/dt in replies by a directional difference: y1 = w u, d/dt = w' u + w u'.
  const StepReply reply = DoStep(unit, 0.1, Polynomials({{u}}));
  ASSERT_EQ(reply.status, StepStatus::kOk);
  absl::StatusOr<Linearization> end = unit.Linearize(Eigen::VectorXd::Constant(1, u));
  ASSERT_TRUE(end.ok());
  EXPECT_NEAR(reply.derivatives[1], end->xdot[1] * u, 1e-6);
}

TEST(ModelUnitTest, AnalyticLinearizationOfStateSpace) {
  v1::Unit spec = BuiltinSpec("plant", "linear_state_space");
  testing::SetList(&spec, "A", {0, 1, -1, -1});
  testing::SetList(&spec, "B", {0, 1});
  testing::SetList(&spec, "C", {1, 0, 0, 1});
  testing::SetList(&spec, "D", {0, 0.5});
  testing::SetList(&spec, "x0", {1, 0});
  const auto unit = MakeUnit(spec);
  absl::StatusOr<Linearization> lin = unit->Linearize(Eigen::VectorXd::Constant(1, 2.0));
  ASSERT_TRUE(lin.ok());
  Eigen::Matrix2d a;
  a << 0, 1, -1, -1;
  EXPECT_EQ(lin->A, a);
  EXPECT_EQ(lin->D, Eigen::Vector2d(0, 0.5));
  EXPECT_EQ(lin->y, Eigen::Vector2d(1, 1));
  EXPECT_EQ(lin->xdot, Eigen::Vector2d(0, 1));
  EXPECT_TRUE(unit->description().capabilities.output_reactive);
  EXPECT_EQ(unit->description().inputs[0].name, "u0");
  EXPECT_EQ(unit->description().outputs[1].name, "y1");
  EXPECT_EQ(unit->description().others[1].name, "x1");
  // Default solver of a linear unit is exact: the analytic check value.
  const StepReply reply = DoStep(*unit, 0.5, Polynomials({{1, 2, 3, 4}}));
  EXPECT_NEAR(reply.outputs[0], 1.0563012299114, 1e-12);
}

TEST(ModelUnitTest, BadStepRequestsFail) {
  const auto unit = MakeUnit(BuiltinSpec("msd", "mass_spring_damper", v1::Solver::RK4, 0.01));
  StepRequest request;
  request.time = 1.0;  // the unit is at 0
  request.step = 0.1;
  request.inputs = Polynomials({{0.0}});
  StepReply reply;
  unit->Step(request, &reply);
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  EXPECT_NE(reply.message.find("unit 'msd'"), std::string::npos);
  request.time = 0.0;
  request.inputs = Polynomials({{0.0}, {1.0}});  // two inputs for one
  unit->Step(request, &reply);
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  request.inputs = Polynomials({{0.0}});
  request.step = 0.0;
  unit->Step(request, &reply);
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  EXPECT_EQ(unit->time(), 0.0);
  OutputsReply outputs;
  EXPECT_FALSE(unit->Evaluate(Eigen::VectorXd::Zero(3), &outputs).ok());
}

TEST(ModelUnitTest, FailedStepLeavesTheUnitAtItsTime) {
  auto model = std::make_unique<testing::BlowUpModel>();
  v1::Solver spec;
  spec.set_method(v1::Solver::RK45);
  absl::StatusOr<std::unique_ptr<Solver>> solver = CreateSolver(spec, *model, "rocket");
  ASSERT_TRUE(solver.ok());
  ModelUnit unit("rocket", std::move(model), std::move(*solver));
  ASSERT_TRUE(unit.Initialize(0.0, 2.0).ok());
  const StepReply reply = DoStep(unit, 2.0, testing::NoInputs());
  EXPECT_NE(reply.status, StepStatus::kOk);
  EXPECT_NE(reply.message.find("unit 'rocket'"), std::string::npos) << reply.message;
  EXPECT_EQ(unit.time(), 0.0);
  EXPECT_EQ(unit.state()[0], 1.0);
}

}  // namespace
}  // namespace cosimo::units
