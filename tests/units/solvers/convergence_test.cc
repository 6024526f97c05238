// Convergence orders of the fixed-step solvers, the exact solver against Eigen's matrix
// exponential and the check values of docs/models.md, RK45 against its tolerance. Reference
// solutions are analytic: x' = A x + B u(t) with polynomial u is solved by the exponential of an
// augmented matrix that carries u as extra states (independent of the Van Loan code under test).
#include <gtest/gtest.h>

#include <cmath>
#include <unsupported/Eigen/MatrixFunctions>

#include "tests/units/solvers/test_systems.h"
#include "units/src/solvers/solver.h"
#include "units/src/solvers/solvers.h"

namespace cosimo::units {
namespace {

using testing::NoInputs;
using testing::Oscillator;

constexpr double kEnd = 1.0;  // s
constexpr int kCommunicationSteps = 4;
constexpr double kA0 = 0.5, kA1 = 0.3;  // u(t) = kA0 + kA1 t

// Analytic x(t) of the oscillator driven by u(t) = a0 + a1 t: augmented state [x; u; 1] with
// u' = a1.
Eigen::Vector2d Analytic(const Model& model, double t) {
  Eigen::MatrixXd a, b, c, d;
  const Eigen::VectorXd x0 = model.InitialState();
  model.Jacobians(0, x0, Eigen::VectorXd::Zero(1), &a, &b, &c, &d);
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(4, 4);
  m.topLeftCorner(2, 2) = a;
  m.block(0, 2, 2, 1) = b;
  m(2, 3) = kA1;
  Eigen::Vector4d z0(x0[0], x0[1], kA0, 1.0);
  const Eigen::MatrixXd e = (m * t).exp();
  const Eigen::Vector4d z = e * z0;
  return z.head(2);
}

// Error at kEnd of the solver with substep `step`, over kCommunicationSteps calls.
double ErrorAt(v1::Solver::Method method, const Model& model, double step,
               v1::Solver::Iteration iteration = v1::Solver::NEWTON) {
  v1::Solver spec;
  spec.set_method(method);
  spec.set_step(step);
  spec.set_iteration(iteration);
  absl::StatusOr<std::unique_ptr<Solver>> solver = CreateSolver(spec, model, "test");
  EXPECT_TRUE(solver.ok()) << solver.status();
  Eigen::VectorXd x = model.InitialState();
  const double h = kEnd / kCommunicationSteps;
  for (int i = 0; i < kCommunicationSteps; ++i) {
    const double t0 = i * h;
    const InputPolynomials u = testing::Polynomials({{kA0 + kA1 * t0, kA1}});
    const SolverOutcome outcome = (*solver)->Integrate(model, u, t0, h, x);
    EXPECT_EQ(outcome.status, StepStatus::kOk) << outcome.message;
  }
  return (x - Analytic(model, kEnd)).norm();
}

// log2 of successive error ratios when halving the step from `step`.
double MeasuredOrder(v1::Solver::Method method, const Model& model, double step,
                     v1::Solver::Iteration iteration = v1::Solver::NEWTON) {
  const double coarse = ErrorAt(method, model, step, iteration);
  const double fine = ErrorAt(method, model, step / 2, iteration);
  const double order = std::log2(coarse / fine);
  ::testing::Test::RecordProperty(v1::Solver::Method_Name(method) + "_" +
                                      v1::Solver::Iteration_Name(iteration) + "_step_" +
                                      std::to_string(step),
                                  std::to_string(order));
  return order;
}

TEST(ConvergenceTest, ExplicitEulerIsFirstOrder) {
  const auto model = Oscillator(2.0, 0.1, {1.0, 0.0});
  const double order = MeasuredOrder(v1::Solver::EXPLICIT_EULER, *model, 0.25 / 64);
  EXPECT_NEAR(order, 1.0, 0.1);
}

TEST(ConvergenceTest, ImplicitEulerIsFirstOrder) {
  const auto model = Oscillator(2.0, 0.1, {1.0, 0.0});
  EXPECT_NEAR(MeasuredOrder(v1::Solver::IMPLICIT_EULER, *model, 0.25 / 64, v1::Solver::NEWTON), 1.0,
              0.1);
  EXPECT_NEAR(MeasuredOrder(v1::Solver::IMPLICIT_EULER, *model, 0.25 / 64, v1::Solver::DIRECT), 1.0,
              0.1);
}

TEST(ConvergenceTest, Rk4IsFourthOrder) {
  const auto model = Oscillator(2.0, 0.1, {1.0, 0.0});
  EXPECT_NEAR(MeasuredOrder(v1::Solver::RK4, *model, 0.25 / 4), 4.0, 0.15);
  // A substep that does not divide the communication step (the last one is shortened) keeps
  // the order.
  EXPECT_NEAR(MeasuredOrder(v1::Solver::RK4, *model, 0.07), 4.0, 0.3);
}

TEST(ConvergenceTest, CentralDifferenceIsSecondOrder) {
  const auto undamped = Oscillator(2.0, 0.0, {1.0, 0.0});
  EXPECT_NEAR(MeasuredOrder(v1::Solver::CENTRAL_DIFFERENCE, *undamped, 0.25 / 16), 2.0, 0.15);
  const auto damped = Oscillator(2.0, 0.1, {1.0, 0.0});
  EXPECT_NEAR(MeasuredOrder(v1::Solver::CENTRAL_DIFFERENCE, *damped, 0.25 / 16), 2.0, 0.15);
  // Substeps that do not divide the communication step (variable-step formula).
  // The scheme cuts each communication step (0.25) into equal substeps no longer than `step`:
  // 0.03 gives 9 substeps, 0.015 gives 17.
  const double coarse = ErrorAt(v1::Solver::CENTRAL_DIFFERENCE, *damped, 0.03);
  const double fine = ErrorAt(v1::Solver::CENTRAL_DIFFERENCE, *damped, 0.015);
  const double order = std::log(coarse / fine) / std::log(17.0 / 9.0);
  RecordProperty("CENTRAL_DIFFERENCE_non_dividing_step", std::to_string(order));
  EXPECT_NEAR(order, 2.0, 0.15);
}

TEST(ConvergenceTest, ExactMatchesTheAnalyticSolution) {
  const auto model = Oscillator(2.0, 0.1, {1.0, 0.0});
  EXPECT_LT(ErrorAt(v1::Solver::EXACT, *model, 0.0), 1e-13);
}

TEST(ConvergenceTest, Rk45MeetsItsTolerance) {
  const auto model = Oscillator(2.0, 0.1, {1.0, 0.0});
  double previous = 1.0;
  for (double tolerance : {1e-4, 1e-6, 1e-8, 1e-10}) {
    v1::Solver spec;
    spec.set_method(v1::Solver::RK45);
    spec.set_tolerance(tolerance);
    absl::StatusOr<std::unique_ptr<Solver>> solver = CreateSolver(spec, *model, "test");
    ASSERT_TRUE(solver.ok());
    Eigen::VectorXd x = model->InitialState();
    for (int i = 0; i < kCommunicationSteps; ++i) {
      const double t0 = i * kEnd / kCommunicationSteps;
      const InputPolynomials u = testing::Polynomials({{kA0 + kA1 * t0, kA1}});
      ASSERT_EQ((*solver)->Integrate(*model, u, t0, kEnd / kCommunicationSteps, x).status,
                StepStatus::kOk);
    }
    const double error = (x - Analytic(*model, kEnd)).norm();
    // Local error per unit of scale <= tolerance; over a few dozen steps the global error stays
    // within a small multiple of it, and shrinks with it.
    EXPECT_LT(error, 10 * tolerance) << "tolerance " << tolerance;
    EXPECT_LT(error, previous);
    previous = error;
  }
}

TEST(ConvergenceTest, Rk45FailsWhenTheToleranceCannotBeMet) {
  const auto model = Oscillator(2.0, 0.1, {1.0, 0.0});
  auto solver = NewRk45Solver(0.1, 1e-300, "tight");
  Eigen::VectorXd x = model->InitialState();
  const SolverOutcome outcome =
      solver->Integrate(*model, testing::Polynomials({{1.0}}), 0.0, 1.0, x);
  EXPECT_EQ(outcome.status, StepStatus::kFailed);
  EXPECT_NE(outcome.message.find("unit 'tight'"), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("minimal step"), std::string::npos) << outcome.message;
}

TEST(ExactSolverTest, MatchesEigenExponential) {
  Eigen::MatrixXd a(3, 3);
  a << -0.3, 1.2, 0.0,  //
      -1.1, -0.2, 0.4,  //
      0.5, 0.0, -2.0;
  const Eigen::Vector3d x0(1.0, -2.0, 0.5);
  const auto model = testing::LinearModel(a, Eigen::MatrixXd::Zero(3, 0), x0);
  auto solver = NewExactSolver(*model);
  Eigen::VectorXd x = x0;
  ASSERT_EQ(solver->Integrate(*model, NoInputs(), 0.0, 0.7, x).status, StepStatus::kOk);
  const Eigen::MatrixXd phi = (a * 0.7).exp();
  const Eigen::Vector3d expected = phi * x0;
  EXPECT_LT((x - expected).norm(), 1e-14);
}

// The check values of docs/models.md (the EXACT solver).
TEST(ExactSolverTest, DesignCheckValues) {
  {
    Eigen::MatrixXd a(2, 2), b(2, 1);
    a << 0, 1, -1, -1;
    b << 0, 1;
    const auto model = testing::LinearModel(a, b, Eigen::Vector2d(1, 0));
    auto solver = NewExactSolver(*model);
    Eigen::VectorXd x = model->InitialState();
    ASSERT_EQ(solver->Integrate(*model, testing::Polynomials({{1, 2, 3, 4}}), 0.0, 0.5, x).status,
              StepStatus::kOk);
    EXPECT_NEAR(x[0], 1.0563012299114, 1e-12);
    EXPECT_NEAR(x[1], 0.3745917687280, 1e-12);
  }
  {
    // x'' = u, u = 1 + s, delta = 2, zero start: x = [10/3, 4] (A singular).
    Eigen::MatrixXd a(2, 2), b(2, 1);
    a << 0, 1, 0, 0;
    b << 0, 1;
    const auto model = testing::LinearModel(a, b, Eigen::Vector2d(0, 0));
    auto solver = NewExactSolver(*model);
    Eigen::VectorXd x = model->InitialState();
    ASSERT_EQ(solver->Integrate(*model, testing::Polynomials({{1, 1}}), 0.0, 2.0, x).status,
              StepStatus::kOk);
    EXPECT_NEAR(x[0], 10.0 / 3.0, 1e-13);
    EXPECT_NEAR(x[1], 4.0, 1e-13);
  }
}

TEST(ExactSolverTest, Rk4WithCubicInputsAgreesWithExact) {
  Eigen::MatrixXd a(2, 2), b(2, 1);
  a << 0, 1, -1, -1;
  b << 0, 1;
  const auto model = testing::LinearModel(a, b, Eigen::Vector2d(1, 0));
  auto rk4 = NewRk4Solver(0.5 / 128);
  Eigen::VectorXd x = model->InitialState();
  ASSERT_EQ(rk4->Integrate(*model, testing::Polynomials({{1, 2, 3, 4}}), 0.0, 0.5, x).status,
            StepStatus::kOk);
  EXPECT_NEAR(x[0], 1.0563012299114, 1e-10);
  EXPECT_NEAR(x[1], 0.3745917687280, 1e-10);
}

}  // namespace
}  // namespace cosimo::units
