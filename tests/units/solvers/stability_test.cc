// Stability facts of the tutorial (Example 8 and section on second derivative IVPs), the
// tutorial's car values at h = 0.2, the direct-iteration bound of implicit Euler, and CVODE on a
// stiff linear system and on a blow-up.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <unsupported/Eigen/MatrixFunctions>

#include "tests/units/solvers/test_systems.h"
#include "units/src/models/builtin_models.h"
#include "units/src/solvers/solver.h"
#include "units/src/solvers/solvers.h"

namespace cosimo::units {
namespace {

using testing::BuiltinSpec;
using testing::NoInputs;

// Energy of x'' = -w^2 x per unit mass.
double Energy(const Eigen::VectorXd& x, double omega) {
  return 0.5 * (omega * omega * x[0] * x[0] + x[1] * x[1]);
}

// Car (tutorial Example 1) over one step of 0.2 s from v0 = 0. Expected values from the
// tutorial: explicit Euler 5.076142 (= 0.2 k v_d / m), implicit Euler 4.504251
// (= 5.076142 / (1 + 0.2 (k + c_f) / m)), exact 4.767107 (= k v_d / (k + c_f) (1 - e^{-0.2 (k +
// c_f) / m})).
double CarSpeedAfterOneStep(v1::Solver::Method method, v1::Solver::Iteration iteration, double h) {
  v1::Unit spec = BuiltinSpec("car", "car", method, h);
  spec.mutable_solver()->set_iteration(iteration);
  absl::StatusOr<std::unique_ptr<Unit>> unit = CreateBuiltinUnit(spec);
  EXPECT_TRUE(unit.ok()) << unit.status();
  EXPECT_TRUE((*unit)->Initialize(0.0, 10.0).ok());
  StepRequest request;
  request.time = 0.0;
  request.step = h;
  request.inputs = NoInputs();
  StepReply reply;
  (*unit)->Step(request, &reply);
  EXPECT_EQ(reply.status, StepStatus::kOk) << reply.message;
  return reply.outputs[0];
}

TEST(CarTest, TutorialValuesAtStepPointTwo) {
  EXPECT_NEAR(CarSpeedAfterOneStep(v1::Solver::EXPLICIT_EULER, v1::Solver::NEWTON, 0.2), 5.076142,
              5e-7);
  EXPECT_NEAR(CarSpeedAfterOneStep(v1::Solver::IMPLICIT_EULER, v1::Solver::DIRECT, 0.2), 4.504251,
              5e-7);
  EXPECT_NEAR(CarSpeedAfterOneStep(v1::Solver::IMPLICIT_EULER, v1::Solver::NEWTON, 0.2), 4.504251,
              5e-7);
  EXPECT_NEAR(CarSpeedAfterOneStep(v1::Solver::METHOD_UNSPECIFIED, v1::Solver::NEWTON, 0.2),
              4.767107, 5e-7);  // the default for the car (linear) is EXACT
  EXPECT_NEAR(CarSpeedAfterOneStep(v1::Solver::EXACT, v1::Solver::NEWTON, 0.2), 4.767107, 5e-7);
}

// Direct iteration converges iff h |dF/dv| = h (k + c_f) / m < 1, i.e. h < 1576 / 1000.5 =
// 1.57521...; the tutorial rounds to 1.5752. At 1.5752 the contraction factor is 0.999992, so
// the iteration cannot converge in max_iterations either.
TEST(CarTest, ImplicitEulerDirectIterationReportsDivergence) {
  for (double h : {1.5752, 1.6, 2.0, 5.0}) {
    v1::Unit spec = BuiltinSpec("car", "car", v1::Solver::IMPLICIT_EULER, h);
    spec.mutable_solver()->set_iteration(v1::Solver::DIRECT);
    spec.mutable_solver()->set_max_iterations(2000);
    absl::StatusOr<std::unique_ptr<Unit>> unit = CreateBuiltinUnit(spec);
    ASSERT_TRUE(unit.ok());
    ASSERT_TRUE((*unit)->Initialize(0.0, 10.0).ok());
    StepRequest request;
    request.step = h;
    request.inputs = NoInputs();
    StepReply reply;
    (*unit)->Step(request, &reply);
    EXPECT_EQ(reply.status, StepStatus::kDiverged) << "h=" << h;
    EXPECT_NE(reply.message.find("unit 'car'"), std::string::npos) << reply.message;
    EXPECT_NE(reply.message.find("t=0"), std::string::npos) << reply.message;
    char expected_h[32];
    std::snprintf(expected_h, sizeof(expected_h), "h=%.9g ", h);
    EXPECT_NE(reply.message.find(expected_h), std::string::npos) << reply.message;
    EXPECT_EQ((*unit)->time(), 0.0);  // the unit stays at t[N]
  }
  // Below the bound it converges (slowly near it), and Newton converges at any h.
  {
    v1::Unit spec = BuiltinSpec("car", "car", v1::Solver::IMPLICIT_EULER, 1.5);
    spec.mutable_solver()->set_iteration(v1::Solver::DIRECT);
    spec.mutable_solver()->set_max_iterations(2000);
    absl::StatusOr<std::unique_ptr<Unit>> unit = CreateBuiltinUnit(spec);
    ASSERT_TRUE(unit.ok());
    ASSERT_TRUE((*unit)->Initialize(0.0, 10.0).ok());
    StepRequest request;
    request.step = 1.5;
    request.inputs = NoInputs();
    StepReply reply;
    (*unit)->Step(request, &reply);
    EXPECT_EQ(reply.status, StepStatus::kOk) << reply.message;
  }
  EXPECT_GT(CarSpeedAfterOneStep(v1::Solver::IMPLICIT_EULER, v1::Solver::NEWTON, 5.0), 0.0);
}

// Tutorial Example 8: explicit Euler on x'' = -x multiplies the energy by (1 + h^2 w^2) every
// step, for every h > 0.
TEST(StabilityTest, ExplicitEulerBlowsUpOnTheUndampedMassSpring) {
  const auto model = testing::Oscillator(1.0, 0.0, {1.0, 0.0});
  for (double h : {0.001, 0.01, 0.1, 0.5}) {
    auto solver = NewExplicitEulerSolver(h);
    Eigen::VectorXd x = model->InitialState();
    double energy = Energy(x, 1.0);
    for (int i = 0; i < 100; ++i) {
      ASSERT_EQ(solver->Integrate(*model, testing::Polynomials({{0.0}}), i * h, h, x).status,
                StepStatus::kOk);
      const double next = Energy(x, 1.0);
      EXPECT_NEAR(next / energy, 1.0 + h * h, 1e-12);
      energy = next;
    }
    EXPECT_GT(energy, 0.5);
  }
}

// Damped: w = 1, zeta = 0.5 (m = 1, c = 1, c_f = 1): eigenvalues (-1 +- i sqrt 3)/2, and
// |1 + h lambda| < 1 iff h < -2 Re(lambda) / |lambda|^2 = 1.
TEST(StabilityTest, ExplicitEulerIsStableOnTheDampedMassSpringBelowItsBound) {
  const auto model = testing::Oscillator(1.0, 0.5, {1.0, 0.0});
  auto run = [&](double h) {
    auto solver = NewExplicitEulerSolver(h);
    Eigen::VectorXd x = model->InitialState();
    for (int i = 0; i < 400; ++i) {
      EXPECT_EQ(solver->Integrate(*model, testing::Polynomials({{0.0}}), i * h, h, x).status,
                StepStatus::kOk);
    }
    return x.norm();
  };
  EXPECT_LT(run(0.5), 1e-6);
  EXPECT_LT(run(0.9), 1e-3);
  EXPECT_GT(run(1.1), 1e3);
}

// The two-step scheme holds the undamped oscillation (bounded energy, no drift) for h w < 2.
TEST(StabilityTest, CentralDifferenceHoldsTheUndampedMassSpring) {
  const auto model = testing::Oscillator(1.0, 0.0, {1.0, 0.0});
  for (double h : {0.01, 0.1, 0.5}) {
    auto solver = NewCentralDifferenceSolver(h);
    Eigen::VectorXd x = model->InitialState();
    double max_amplitude = 0.0;
    for (int i = 0; i < 20000; ++i) {
      ASSERT_EQ(solver->Integrate(*model, testing::Polynomials({{0.0}}), i * h, h, x).status,
                StepStatus::kOk);
      max_amplitude = std::max(max_amplitude, std::abs(x[0]));
    }
    // The scheme conserves a modified energy: amplitudes stay within O(h^2) of 1.
    EXPECT_LT(max_amplitude, 1.0 + h * h) << "h=" << h;
    double last_period_max = 0.0;
    Eigen::VectorXd y = x;
    for (int i = 0; i < static_cast<int>(7.0 / h); ++i) {
      ASSERT_EQ(solver->Integrate(*model, testing::Polynomials({{0.0}}), 0.0, h, y).status,
                StepStatus::kOk);
      last_period_max = std::max(last_period_max, std::abs(y[0]));
    }
    EXPECT_GT(last_period_max, 1.0 - h * h) << "h=" << h;
  }
}

// Stiff: eigenvalues -1 and -1e4 (A symmetric), analytic solution e^{At} x0.
TEST(CvodeTest, StiffLinearSystemMatchesTheAnalyticSolution) {
  Eigen::MatrixXd a(2, 2);
  a << -5000.5, 4999.5, 4999.5, -5000.5;
  const Eigen::Vector2d x0(1.0, 0.0);
  const auto model = testing::LinearModel(a, Eigen::MatrixXd::Zero(2, 0), x0);
  v1::Solver spec;
  spec.set_method(v1::Solver::CVODE);
  spec.set_tolerance(1e-8);
  absl::StatusOr<std::unique_ptr<Solver>> solver = CreateSolver(spec, *model, "stiff");
  ASSERT_TRUE(solver.ok()) << solver.status();
  Eigen::VectorXd x = x0;
  int substeps = 0;
  for (int i = 0; i < 10; ++i) {
    const SolverOutcome outcome = (*solver)->Integrate(*model, NoInputs(), 0.1 * i, 0.1, x);
    ASSERT_EQ(outcome.status, StepStatus::kOk) << outcome.message;
    substeps += outcome.substeps;
  }
  const Eigen::MatrixXd phi = (a * 1.0).exp();
  const Eigen::Vector2d expected = phi * x0;
  EXPECT_LT((x - expected).norm(), 1e-6) << x.transpose() << " vs " << expected.transpose();
  // BDF does not need h < 2e-4 (explicit stability limit): far fewer than 5000 steps.
  EXPECT_LT(substeps, 2000);
}

TEST(CvodeTest, WithInputsMatchesExact) {
  const auto model = testing::Oscillator(3.0, 0.2, {1.0, 0.0});
  v1::Solver spec;
  spec.set_method(v1::Solver::CVODE);
  spec.set_tolerance(1e-10);
  absl::StatusOr<std::unique_ptr<Solver>> cvode = CreateSolver(spec, *model, "osc");
  ASSERT_TRUE(cvode.ok()) << cvode.status();
  auto exact = NewExactSolver(*model);
  Eigen::VectorXd x = model->InitialState(), y = x;
  for (int i = 0; i < 5; ++i) {
    const InputPolynomials u = testing::Polynomials({{1.0 + i, -0.5, 0.25}});
    ASSERT_EQ((*cvode)->Integrate(*model, u, 0.2 * i, 0.2, x).status, StepStatus::kOk);
    ASSERT_EQ(exact->Integrate(*model, u, 0.2 * i, 0.2, y).status, StepStatus::kOk);
  }
  EXPECT_LT((x - y).norm(), 1e-7);
}

TEST(CvodeTest, FailureIsReportedWithUnitAndTime) {
  testing::BlowUpModel model;  // x' = x^2 from 1: infinite at t = 1
  v1::Solver spec;
  spec.set_method(v1::Solver::CVODE);
  absl::StatusOr<std::unique_ptr<Solver>> solver = CreateSolver(spec, model, "rocket");
  ASSERT_TRUE(solver.ok()) << solver.status();
  Eigen::VectorXd x = model.InitialState();
  const SolverOutcome outcome = (*solver)->Integrate(model, NoInputs(), 0.0, 2.0, x);
  EXPECT_NE(outcome.status, StepStatus::kOk);
  EXPECT_NE(outcome.message.find("unit 'rocket'"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("CVODE failed at t="), std::string::npos) << outcome.message;
  RecordProperty("message", outcome.message);
}

}  // namespace
}  // namespace cosimo::units
