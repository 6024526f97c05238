// Iterative strong coupling on Busch's dual-mass oscillator split into two units (mass 1 with
// input F_c; mass 2 with the coupling spring-damper, inputs x1, v1, output F_c), against the
// monolithic analytic solution x(t) = e^{A t} x0 of the same parameters (model defaults:
// m1 = m2 = 1, c1 = c2 = 10, d1 = d2 = 1, c_c = 100, d_c = 1, x1(0) = 1). Both units integrate
// exactly (linear, EXACT solver), so the error measured is the co-simulation's own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <unsupported/Eigen/MatrixFunctions>

#include "absl/strings/str_cat.h"
#include "tests/master/dual_mass_reference.h"
#include "tests/master/master_test_util.h"

namespace cosimo::master {
namespace {

using testing::Analytic;
using testing::At;
using testing::MaxDifference;
using testing::MaxError;
using testing::Rows;
using testing::RunJson;

struct Options {
  std::string kind = "FIXED_POINT";
  std::string approx = "HERMITE";
  double h = 0.01;
  double stop = 2.0;
  double tolerance = 1e-10;
  int max_iterations = 50;
  std::string rollback1 = "AUTO", rollback2 = "AUTO";
  double c_c = 100.0;
  std::string extra;  // more algorithm fields, e.g. "\"aitken\": true,"
};

std::string DualMass(const Options& o) {
  return absl::StrCat(R"({"name": "dual_mass", "start_time": 0, "stop_time": )", o.stop, R"(,
    "units": [
      {"name": "m1", "builtin": {"model": "dual_mass_oscillator_1"}, "rollback": ")",
                      o.rollback1, R"("},
      {"name": "m2", "builtin": {"model": "dual_mass_oscillator_2",
                                 "parameters": {"c_c": )",
                      o.c_c, R"(}}, "rollback": ")", o.rollback2, R"("} ],
    "connections": [ {"from": "m1.x1", "to": "m2.x1"}, {"from": "m1.v1", "to": "m2.v1"},
                     {"from": "m2.F_c", "to": "m1.F_c"} ],
    "algorithm": {)",
                      o.extra, R"( "kind": ")", o.kind, R"(", "step_size": )", o.h,
                      R"(, "input_approximation": ")", o.approx, R"(", "tolerance": )", o.tolerance,
                      R"(, "max_iterations": )", o.max_iterations, R"(},
    "record": ["m1.x1", "m1.v1", "m2.x2", "m2.v2", "m2.F_c"]})");
}

MasterResult MustRun(const Options& o) {
  absl::StatusOr<MasterResult> r = RunJson(DualMass(o));
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : MasterResult();
}

TEST(IterativeTest, FixedPointAndNewtonConvergeToTheSameSolution) {
  for (const char* approx : {"ZOH", "FOH", "HERMITE"}) {
    Options o;
    o.approx = approx;
    const MasterResult fp = MustRun(o);
    o.kind = "NEWTON";
    const MasterResult newton = MustRun(o);
    ASSERT_EQ(Rows(fp), 201u);
    // Both stop within tolerance 1e-10 (relative to |F_c| ~ 100) of the same discrete coupling.
    EXPECT_LT(MaxDifference(fp, newton), 1e-7) << approx;
    EXPECT_GT(fp.iterations_mean, 1.0);
    EXPECT_LE(newton.iterations_max, 4u) << approx;  // linear: one Newton step after the first
  }
}

TEST(IterativeTest, ShippedDualMassExampleMatchesTheAnalyticSolution) {
  // examples/dual_mass.json: Newton, HERMITE, m1 estimated by COSTARICA (rollback FORBID).
  absl::StatusOr<v1::Scenario> scenario =
      LoadScenarioFile(std::string(COSIMO_SOURCE_DIR) + "/examples/dual_mass.json");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  absl::StatusOr<MasterResult> r = testing::RunScenario(*scenario);
  ASSERT_TRUE(r.ok()) << r.status();
  const double error = MaxError(*r);
  std::printf("examples/dual_mass.json: max error %.3e, %.2f iterations per step\n", error,
              r->iterations_mean);
  EXPECT_LT(error, 1e-6);
  const UnitSummary* m1 = testing::Summary(*r, "m1");
  ASSERT_NE(m1, nullptr);
  EXPECT_EQ(m1->report.mode, UnitMode::kEstimate);
  EXPECT_EQ(m1->report.real_integrations, r->steps_accepted);
}

TEST(IterativeTest, HermiteErrorFallsAtFourthOrder) {
  std::vector<double> errors;
  for (double h : {0.04, 0.02, 0.01, 0.005}) {
    Options o;
    o.kind = "NEWTON";
    o.h = h;
    o.tolerance = 1e-13;
    errors.push_back(MaxError(MustRun(o)));
  }
  for (size_t i = 1; i < errors.size(); ++i) {
    const double order = std::log2(errors[i - 1] / errors[i]);
    std::printf("HERMITE NEWTON H=%g: error %.3e, order %.3f\n", 0.04 / (1 << i), errors[i], order);
    EXPECT_NEAR(order, 4.0, 0.35);
  }
}

TEST(IterativeTest, FohErrorFallsAtSecondOrder) {
  std::vector<double> errors;
  for (double h : {0.02, 0.01, 0.005}) {
    Options o;
    o.approx = "FOH";
    o.h = h;
    errors.push_back(MaxError(MustRun(o)));
  }
  for (size_t i = 1; i < errors.size(); ++i) {
    const double order = std::log2(errors[i - 1] / errors[i]);
    std::printf("FOH FIXED_POINT: error %.3e, order %.3f\n", errors[i], order);
    EXPECT_NEAR(order, 2.0, 0.2);
  }
}

TEST(IterativeTest, ForbidAgreesWithRollbackAndIntegratesOncePerAcceptedStep) {
  for (const char* kind : {"FIXED_POINT", "NEWTON"}) {
    Options o;
    o.kind = kind;
    const MasterResult rollback = MustRun(o);
    o.rollback1 = "FORBID";
    const MasterResult forbid = MustRun(o);
    EXPECT_LT(MaxDifference(rollback, forbid), 1e-8) << kind;
    const UnitSummary* m1 = testing::Summary(forbid, "m1");
    const UnitSummary* m2 = testing::Summary(forbid, "m2");
    ASSERT_NE(m1, nullptr);
    ASSERT_NE(m2, nullptr);
    EXPECT_EQ(m1->report.mode, UnitMode::kEstimate);
    EXPECT_EQ(m1->report.real_integrations, forbid.steps_accepted);
    EXPECT_GE(m1->report.estimates, forbid.steps_accepted * 2);
    EXPECT_EQ(m2->report.mode, UnitMode::kRollback);
    EXPECT_GT(m2->report.real_integrations, forbid.steps_accepted);
  }
}

TEST(IterativeTest, AllEstimatedOneLinearSolvePerStep) {
  Options o;
  o.rollback1 = o.rollback2 = "FORBID";
  o.extra = R"("linear_coupling": true,)";
  const MasterResult missiles = MustRun(o);
  Options reference;
  reference.kind = "NEWTON";
  const MasterResult newton = MustRun(reference);
  EXPECT_LT(MaxDifference(missiles, newton), 1e-8);
  // One evaluation at the predictor, the affine map, one solve, one check.
  EXPECT_EQ(missiles.iterations_max, 2u);
  for (const UnitSummary& s : missiles.units) {
    EXPECT_EQ(s.report.mode, UnitMode::kEstimate);
    EXPECT_EQ(s.report.real_integrations, missiles.steps_accepted);
  }
}

TEST(IterativeTest, RelaxationConvergesWhereThePlainFixedPointDoesNot) {
  // c_c = 1e6, H = 0.02: the Jacobi-type fixed point on (x1, v1, F_c) has an imaginary
  // eigenvalue pair +-i mu with |mu| > 1 (negative feedback), so the plain iteration fails;
  // relaxation omega gives |1 - omega +- i omega mu| < 1 for small omega (0.1 here).
  Options o;
  o.c_c = 1e6;
  o.h = 0.02;
  o.stop = 0.1;
  o.approx = "FOH";
  o.max_iterations = 300;
  absl::StatusOr<MasterResult> plain = RunJson(DualMass(o));
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("did not converge"), std::string::npos);
  o.kind = "NEWTON";
  const MasterResult newton = MustRun(o);
  o.kind = "FIXED_POINT";
  o.extra = R"("relaxation": 0.1,)";
  const MasterResult relaxed = MustRun(o);
  // |F_c| ~ 1e6; a slow contraction (rate rho near 1) stops at an error of about
  // residual / (1 - rho), so compare at 1e-7 relative.
  EXPECT_LT(MaxDifference(relaxed, newton), 1e-7 * 1e6);
}

TEST(IterativeTest, AitkenAgreesWithNewton) {
  // Measured on this case (c_c = 1e5, H = 0.05): plain 37.5 iterations per step, Aitken 30.
  Options o;
  o.c_c = 1e5;
  o.h = 0.05;
  o.stop = 0.2;
  o.approx = "FOH";
  o.max_iterations = 300;
  o.kind = "NEWTON";
  const MasterResult newton = MustRun(o);
  o.kind = "FIXED_POINT";
  o.extra = R"("aitken": true,)";
  const MasterResult aitken = MustRun(o);
  EXPECT_LT(MaxDifference(aitken, newton), 1e-4);
}

TEST(IterativeTest, StiffCouplingIsRejectedAndTheStepShrinks) {
  Options o;
  o.c_c = 1e4;
  o.h = 0.1;
  o.stop = 1.0;
  o.approx = "FOH";
  o.max_iterations = 30;
  o.extra = R"("adaptive": {"min_step": 1e-5, "max_step": 0.1, "tolerance": 1e-3},)";
  const MasterResult r = MustRun(o);
  EXPECT_GT(r.steps_rejected, 0u);
  ASSERT_GT(Rows(r), 2u);
  EXPECT_EQ(At(r, Rows(r) - 1, "time"), 1.0);
  EXPECT_LT(MaxError(r, 1e4), 1e-2);
  std::printf("stiff: %llu accepted, %llu rejected, iterations mean %.2f max %llu, error %.2e\n",
              static_cast<unsigned long long>(r.steps_accepted),
              static_cast<unsigned long long>(r.steps_rejected), r.iterations_mean,
              static_cast<unsigned long long>(r.iterations_max), MaxError(r, 1e4));
}

TEST(IterativeTest, MaxIterationsAtMinStepFailsWithTimeAndUnits) {
  Options o;
  o.c_c = 1e4;
  o.h = 0.1;
  o.approx = "FOH";
  o.max_iterations = 30;
  o.extra = R"("adaptive": {"min_step": 0.05, "max_step": 0.1},)";
  absl::StatusOr<MasterResult> r = RunJson(DualMass(o));
  ASSERT_FALSE(r.ok());
  const std::string m(r.status().message());
  EXPECT_NE(m.find("t=0"), std::string::npos) << m;
  EXPECT_NE(m.find("min_step=0.05"), std::string::npos) << m;
  EXPECT_NE(m.find("m1"), std::string::npos) << m;
  EXPECT_NE(m.find("m2"), std::string::npos) << m;
}

// The master applies the rules the service applies (ResolveAlgorithm): a relaxation above 1
// is refused with Aitken too (the master used to run it), and absent adaptive bounds take their
// documented defaults (min_step 1e-3 H) rather than being refused.
TEST(IterativeTest, MasterAppliesTheServicesAlgorithmRules) {
  Options o;
  o.extra = R"("relaxation": 1.5, "aitken": true,)";
  absl::StatusOr<MasterResult> r = RunJson(DualMass(o));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()),
              ::testing::HasSubstr("algorithm.relaxation must be in (0, 1]"));

  // a rejects every step: H halves down to the default min_step, 1e-3 x 0.1, and fails there.
  const v1::Scenario scenario = testing::Parse(R"({"start_time": 0, "stop_time": 1,
    "units": [ {"name": "a", "builtin": {"model": "fake"}} ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.1, "adaptive": {"max_step": 0.1}}})");
  testing::FakeUnit::Config a;
  a.has_input = false;
  a.reject_above = 1e-9;
  a.capabilities.can_rollback = a.capabilities.can_vary_step = true;
  testing::LocalJob job;
  job.Add(testing::FakeProxy(scenario, 0, a));
  r = RunMaster(scenario, job.units, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()),
              ::testing::HasSubstr("rejected at min_step=0.0001: unit 'a' rejected"));
  EXPECT_EQ(ValidateScenario(scenario), absl::OkStatus());  // and the service runs it
}

TEST(IterativeTest, NonConvergenceWithFixedStepFails) {
  Options o;
  o.c_c = 1e4;
  o.h = 0.1;
  o.approx = "FOH";
  o.max_iterations = 10;
  absl::StatusOr<MasterResult> r = RunJson(DualMass(o));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("at t=0"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("adaptive"), std::string::npos) << r.status();
}

std::string StaticLoop(const std::string& kind) {
  // a: y = 0.5 u + 1 (via a constant state x = 1), b: y = 0.5 u. The loop solution is
  // y_a = 1 / (1 - 0.25) = 4/3, y_b = 2/3.
  return absl::StrCat(R"({"start_time": 0, "stop_time": 0.3,
    "units": [
      {"name": "a", "builtin": {"model": "linear_state_space", "parameters":
        {"A": [0], "B": [0], "C": [1], "D": [0.5], "x0": [1]}}},
      {"name": "b", "builtin": {"model": "linear_state_space", "parameters":
        {"A": [0], "B": [0], "C": [0], "D": [0.5], "x0": [0]}}} ],
    "connections": [ {"from": "a.y0", "to": "b.u0"}, {"from": "b.y0", "to": "a.u0"} ],
    "algorithm": {"kind": ")",
                      kind, R"(", "step_size": 0.1, "tolerance": 1e-12}})");
}

TEST(GaussSeidelTest, AlgebraicLoopNamesTheUnits) {
  absl::StatusOr<MasterResult> r = RunJson(StaticLoop("GAUSS_SEIDEL"));
  ASSERT_FALSE(r.ok());
  const std::string m(r.status().message());
  EXPECT_NE(m.find("algebraic loop"), std::string::npos) << m;
  EXPECT_NE(m.find("'a', 'b'"), std::string::npos) << m;
  EXPECT_NE(m.find("a.y0 -> b.u0"), std::string::npos) << m;
}

TEST(IterativeTest, AlgebraicLoopIsSolvedByIteration) {
  for (const char* kind : {"FIXED_POINT", "NEWTON", "JACOBI"}) {
    absl::StatusOr<MasterResult> r = RunJson(StaticLoop(kind));
    ASSERT_TRUE(r.ok()) << kind << ": " << r.status();
    // The t0 row is made consistent by fixed-point sweeps of the feedthrough loop.
    EXPECT_NEAR(At(*r, 0, "a.y0"), 4.0 / 3.0, 1e-12) << kind;
    if (std::string(kind) != "JACOBI") {
      EXPECT_NEAR(At(*r, Rows(*r) - 1, "a.y0"), 4.0 / 3.0, 1e-11) << kind;
      EXPECT_NEAR(At(*r, Rows(*r) - 1, "b.y0"), 2.0 / 3.0, 1e-11) << kind;
    }
  }
}

TEST(IterativeTest, CostaricaOnAUnitWithoutJacobiansIsAClearError) {
  const v1::Scenario scenario = testing::Parse(R"({"start_time": 0, "stop_time": 1,
    "units": [ {"name": "a", "builtin": {"model": "fake"}},
               {"name": "opaque", "builtin": {"model": "fake"}} ],
    "connections": [ {"from": "a.y", "to": "opaque.u"}, {"from": "opaque.y", "to": "a.u"} ],
    "algorithm": {"kind": "FIXED_POINT", "step_size": 0.1}})");
  testing::FakeUnit::Config a, opaque;
  a.capabilities.can_rollback = true;
  opaque.capabilities.can_rollback = false;
  opaque.capabilities.provides_jacobians = false;
  testing::LocalJob job;
  job.Add(testing::FakeProxy(scenario, 0, a));
  job.Add(testing::FakeProxy(scenario, 1, opaque));
  absl::StatusOr<MasterResult> r = RunMaster(scenario, job.units, nullptr);
  ASSERT_FALSE(r.ok());
  const std::string m(r.status().message());
  EXPECT_NE(m.find("'opaque'"), std::string::npos) << m;
  EXPECT_NE(m.find("Jacobians"), std::string::npos) << m;
  EXPECT_NE(m.find("t=0"), std::string::npos) << m;
}

// Two fake units a and b, each x' = -x + u, in a loop under fixed point.
constexpr const char* kFakeLoop = R"({"start_time": 0, "stop_time": 1,
    "units": [ {"name": "a", "builtin": {"model": "fake"}},
               {"name": "b", "builtin": {"model": "fake"}} ],
    "connections": [ {"from": "a.y", "to": "b.u"}, {"from": "b.y", "to": "a.u"} ],
    "algorithm": {"kind": "FIXED_POINT", "step_size": 0.1, "input_approximation": "FOH",
                  "tolerance": 1e-12}})";

TEST(IterativeTest, MixedRollbackAndDegradedEstimateOnFakeUnits) {
  // a rolls back; b cannot and exposes Jacobians but not xdot (degraded). Both are linear,
  // x' = -x + u with no offset, so the true control part f_C = xdot - A x - B u is zero and
  // even the degraded estimate is exact: the mixed run agrees with an all-rollback run.
  const v1::Scenario scenario = testing::Parse(kFakeLoop);
  auto run = [&](bool b_rolls_back) {
    testing::FakeUnit::Config a, b;
    a.x0 = 1.0;
    a.capabilities.can_rollback = true;
    b.capabilities.can_rollback = b_rolls_back;
    b.capabilities.provides_jacobians = true;
    b.capabilities.provides_state_derivatives = false;
    testing::LocalJob job;
    job.Add(testing::FakeProxy(scenario, 0, a));
    job.Add(testing::FakeProxy(scenario, 1, b));
    absl::StatusOr<MasterResult> r = RunMaster(scenario, job.units, nullptr);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *r : MasterResult();
  };
  const MasterResult mixed = run(false);
  const MasterResult rolled = run(true);
  EXPECT_LT(MaxDifference(mixed, rolled), 1e-9);
  const UnitSummary* b = testing::Summary(mixed, "b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->report.mode, UnitMode::kEstimateDegraded);
  EXPECT_EQ(b->report.real_integrations, mixed.steps_accepted);
}

// Runs `scenario` on fake units a and b (in `job`); *pa and *pb count the commands each got.
absl::StatusOr<MasterResult> RunCounted(const v1::Scenario& scenario,
                                        const testing::FakeUnit::Config& a,
                                        const testing::FakeUnit::Config& b, testing::LocalJob* job,
                                        testing::HostProxy** pa, testing::HostProxy** pb) {
  job->Add(testing::FakeProxy(scenario, 0, a, nullptr, pa));
  job->Add(testing::FakeProxy(scenario, 1, b, nullptr, pb));
  return RunMaster(scenario, job->units, nullptr);
}

TEST(IterativeTest, RollbackUnitsCommitOnTheirNextStepEstimatedUnitsByCommit) {
  // The fake loop: a rolls back, b is estimated. An accepted step costs a Commit
  // round trip only for b (its real integration); a's commit rides on its next step.
  const v1::Scenario scenario = testing::Parse(kFakeLoop);
  testing::FakeUnit::Config a, b;
  a.x0 = 1.0;
  a.capabilities.can_rollback = true;
  b.capabilities.provides_jacobians = true;
  b.capabilities.provides_state_derivatives = true;
  testing::HostProxy* pa = nullptr;
  testing::HostProxy* pb = nullptr;
  testing::LocalJob job;
  absl::StatusOr<MasterResult> r = RunCounted(scenario, a, b, &job, &pa, &pb);
  ASSERT_TRUE(r.ok()) << r.status();
  const auto accepted = static_cast<int>(r->steps_accepted);
  ASSERT_EQ(accepted, 10);
  EXPECT_EQ(pa->Sent(UnitCommand::Kind::kCommit), 0);
  // Every accepted step but the last is committed by the next step's first tentative step.
  EXPECT_EQ(pa->carried_commits(), accepted - 1);
  EXPECT_EQ(pb->Sent(UnitCommand::Kind::kCommit), accepted);
  EXPECT_EQ(pb->carried_commits(), 0);
  EXPECT_EQ(pa->Sent(UnitCommand::Kind::kStep), pb->Sent(UnitCommand::Kind::kStep));
  // x_a = x_b at all times (a symmetric loop x' = -x + y_other from x_a(0) = 1, x_b(0) = 0 has
  // x_a + x_b = 1 and x_a - x_b = e^{-2t}); FOH coupling keeps it to O(H^2).
  const size_t last = Rows(*r) - 1;
  EXPECT_NEAR(At(*r, last, "a.y"), 0.5 * (1.0 + std::exp(-2.0)), 2e-3);
  EXPECT_NEAR(At(*r, last, "b.y"), 0.5 * (1.0 - std::exp(-2.0)), 2e-3);
}

TEST(GaussSeidelTest, AdaptiveRejectionLeavesUnsteppedUnitsAtTheirAcceptedState) {
  // a (x' = -x, x(0) = 1) steps first and rejects any step longer than 0.03; b (x' = -x + a.y)
  // is then never stepped in that attempt: its commit of the previous step is still pending,
  // so it must not be rolled back to the step before. b(t) = t e^{-t}. The error tolerance is
  // loose, so every rejection is a's.
  const v1::Scenario scenario = testing::Parse(R"({"start_time": 0, "stop_time": 1,
    "units": [ {"name": "a", "builtin": {"model": "fake"}},
               {"name": "b", "builtin": {"model": "fake"}} ],
    "connections": [ {"from": "a.y", "to": "b.u"} ],
    "algorithm": {"kind": "GAUSS_SEIDEL", "step_size": 0.01, "input_approximation": "FOH",
                  "adaptive": {"min_step": 0.001, "max_step": 0.1, "tolerance": 1}}})");
  testing::FakeUnit::Config a, b;
  a.x0 = 1.0;
  a.has_input = false;
  a.reject_above = 0.03;
  a.capabilities.can_rollback = b.capabilities.can_rollback = true;
  a.capabilities.can_vary_step = b.capabilities.can_vary_step = true;
  testing::HostProxy* pa = nullptr;
  testing::HostProxy* pb = nullptr;
  testing::LocalJob job;
  absl::StatusOr<MasterResult> r = RunCounted(scenario, a, b, &job, &pa, &pb);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_GT(r->steps_rejected, 3u);
  EXPECT_EQ(pa->Sent(UnitCommand::Kind::kReject), static_cast<int>(r->steps_rejected));
  EXPECT_EQ(pb->Sent(UnitCommand::Kind::kReject), 0);
  const size_t last = Rows(*r) - 1;
  EXPECT_EQ(At(*r, last, "time"), 1.0);
  EXPECT_NEAR(At(*r, last, "a.y"), std::exp(-1.0), 1e-9);
  EXPECT_NEAR(At(*r, last, "b.y"), std::exp(-1.0), 5e-4);
}

}  // namespace
}  // namespace cosimo::master
