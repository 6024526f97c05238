// Substep counts that an int cannot hold: the fixed-step solvers fail the step with a clear
// message. The count was cast to int, so RK4 with step 1e-12 over H = 1 ran no substep at all and
// reported success with the state unchanged.
#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/units/solvers/test_systems.h"
#include "units/src/solvers/solver.h"
#include "units/src/solvers/solver_util.h"
#include "units/src/solvers/solvers.h"

namespace cosimo::units {
namespace {

using ::testing::HasSubstr;

TEST(SubstepCountTest, CountsThatAnIntHoldsAndThoseItDoesNot) {
  EXPECT_EQ(CountSubsteps(1.0, 0.1), 10);
  EXPECT_EQ(CountSubsteps(1.0, 0.3), 4);  // the last substep shorter
  EXPECT_EQ(CountSubsteps(0.05, 0.1), 1);
  EXPECT_EQ(CountSubsteps(1000.0, 1.0), 1000);
  EXPECT_EQ(CountSubsteps(1.0, 5e-10), 2000000000);  // still an int
  EXPECT_EQ(CountSubsteps(2.2e9, 1.0), std::nullopt);
  EXPECT_EQ(CountSubsteps(1.0, 1e-12), std::nullopt);
  EXPECT_EQ(CountSubsteps(1e308, 1e-308), std::nullopt);  // infinite ratio
}

TEST(SubstepCountTest, FixedStepSolversFailAStepThatNeedsTooManySubsteps) {
  const auto model = testing::Oscillator(1.0, 0.0, {1.0, 0.0});
  for (const v1::Solver::Method method : {v1::Solver::EXPLICIT_EULER, v1::Solver::IMPLICIT_EULER,
                                          v1::Solver::RK4, v1::Solver::CENTRAL_DIFFERENCE}) {
    v1::Solver spec;
    spec.set_method(method);
    spec.set_step(1e-12);
    absl::StatusOr<std::unique_ptr<Solver>> solver = CreateSolver(spec, *model, "u");
    ASSERT_TRUE(solver.ok()) << solver.status();
    Eigen::VectorXd x = model->InitialState();
    const SolverOutcome outcome =
        (*solver)->Integrate(*model, testing::Polynomials({{0.0}}), 0.0, 1.0, x);
    EXPECT_EQ(outcome.status, StepStatus::kFailed) << v1::Solver::Method_Name(method);
    EXPECT_THAT(outcome.message, HasSubstr("a step of h=1 needs 1e+12 substeps of 1e-12"));
    EXPECT_THAT(outcome.message, HasSubstr("use a larger solver.step"));
  }
}

// Integrates from 0 to `h` with the worker told to abandon its command: the step must fail as
// abandoned. Returns the solver, for the caller to check that it runs without the request.
std::unique_ptr<Solver> ExpectAbandoned(const v1::Solver& spec, const Model& model, double h) {
  absl::StatusOr<std::unique_ptr<Solver>> solver = CreateSolver(spec, model, "u");
  EXPECT_TRUE(solver.ok()) << solver.status();
  if (!solver.ok()) return nullptr;
  Eigen::VectorXd x = model.InitialState();
  AbandonRequest() = true;
  const SolverOutcome outcome =
      (*solver)->Integrate(model, testing::Polynomials({{0.0}}), 0.0, h, x);
  AbandonRequest() = false;
  EXPECT_EQ(outcome.status, StepStatus::kFailed) << v1::Solver::Method_Name(spec.method());
  EXPECT_THAT(outcome.message, HasSubstr("abandoned at t="));
  return *std::move(solver);
}

// A worker whose stream ended (the orchestrator gave it up) abandons a long step within 4096
// substeps instead of finishing it (a 1e9-substep step kept the worker 92 s).
TEST(SubstepCountTest, AnAbandonRequestEndsALongStep) {
  const auto model = testing::Oscillator(1.0, 0.0, {1.0, 0.0});
  for (const v1::Solver::Method method : {v1::Solver::EXPLICIT_EULER, v1::Solver::IMPLICIT_EULER,
                                          v1::Solver::RK4, v1::Solver::CENTRAL_DIFFERENCE}) {
    v1::Solver spec;
    spec.set_method(method);
    spec.set_step(1e-6);
    std::unique_ptr<Solver> solver = ExpectAbandoned(spec, *model, 1.0);
    ASSERT_NE(solver, nullptr);
    // Without the request the same step runs to its end.
    Eigen::VectorXd x = model->InitialState();
    EXPECT_EQ(solver->Integrate(*model, testing::Polynomials({{0.0}}), 0.0, 0.01, x).status,
              StepStatus::kOk);
  }
}

// The adaptive solvers too: RK45 checks between its substeps, CVODE in its right-hand side. The
// step from 0 to 1e4 at tolerance 1e-10 takes far more than 4096 of either, and both stop at once.
TEST(SubstepCountTest, AnAbandonRequestEndsALongAdaptiveStep) {
  const auto model = testing::Oscillator(1.0, 0.0, {1.0, 0.0});
  for (const v1::Solver::Method method : {v1::Solver::RK45, v1::Solver::CVODE}) {
    v1::Solver spec;
    spec.set_method(method);
    spec.set_step(1e-3);
    spec.set_tolerance(1e-10);
    std::unique_ptr<Solver> solver = ExpectAbandoned(spec, *model, 1e4);
    ASSERT_NE(solver, nullptr);
    // Without the request a short step runs to its end, and matches cos(t).
    Eigen::VectorXd x = model->InitialState();
    ASSERT_EQ(solver->Integrate(*model, testing::Polynomials({{0.0}}), 0.0, 1.0, x).status,
              StepStatus::kOk);
    EXPECT_NEAR(x(0), std::cos(1.0), 1e-6) << v1::Solver::Method_Name(method);
  }
}

}  // namespace
}  // namespace cosimo::units
