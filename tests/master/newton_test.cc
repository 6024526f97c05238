// NEWTON's Jacobian sources (algorithm.newton_jacobian) on Busch's dual-mass oscillator split
// into two units (as in iterative_test.cc: both units integrate exactly, so the error is the
// coupling's), against the monolithic x(t) = e^{A t} x0, and the AUTO fallback on fake units.
// Rollback units count every tentative step as a real integration, so real_integrations per
// accepted step is the number of tentative rounds per step.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <unsupported/Eigen/MatrixFunctions>

#include "absl/strings/str_cat.h"
#include "cosimo/common/unit_api_proto.h"
#include "tests/master/dual_mass_reference.h"
#include "tests/master/master_test_util.h"

namespace cosimo::master {
namespace {

using testing::At;
using testing::MaxDifference;
using testing::MaxError;
using testing::Rows;
using testing::RunJson;

struct Options {
  std::string kind = "NEWTON";
  std::string jacobian = "AUTO";
  std::string approx = "HERMITE";
  double h = 0.01;
  double stop = 2.0;
  double tolerance = 1e-10;
  std::string rollback1 = "AUTO";
};

std::string DualMass(const Options& o) {
  return absl::StrCat(R"({"name": "dual_mass", "start_time": 0, "stop_time": )", o.stop, R"(,
    "units": [
      {"name": "m1", "builtin": {"model": "dual_mass_oscillator_1"}, "rollback": ")",
                      o.rollback1, R"("},
      {"name": "m2", "builtin": {"model": "dual_mass_oscillator_2"}} ],
    "connections": [ {"from": "m1.x1", "to": "m2.x1"}, {"from": "m1.v1", "to": "m2.v1"},
                     {"from": "m2.F_c", "to": "m1.F_c"} ],
    "algorithm": {"kind": ")",
                      o.kind, R"(", "newton_jacobian": ")", o.jacobian, R"(", "step_size": )", o.h,
                      R"(, "input_approximation": ")", o.approx, R"(", "tolerance": )", o.tolerance,
                      R"(, "max_iterations": 50},
    "record": ["m1.x1", "m1.v1", "m2.x2", "m2.v2", "m2.F_c"]})");
}

MasterResult MustRun(const Options& o) {
  absl::StatusOr<MasterResult> r = RunJson(DualMass(o));
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *std::move(r) : MasterResult();
}

// Tentative rounds per accepted step, from a rollback unit's real integrations.
double RoundsPerStep(const MasterResult& r, const std::string& unit) {
  const UnitSummary* s = testing::Summary(r, unit);
  if (s == nullptr || r.steps_accepted == 0) return 0.0;
  return static_cast<double>(s->report.real_integrations) / static_cast<double>(r.steps_accepted);
}

TEST(NewtonTest, EveryJacobianSourceConvergesToTheFixedPointSolution) {
  for (const char* approx : {"FOH", "HERMITE"}) {
    Options o;
    o.approx = approx;
    o.kind = "FIXED_POINT";
    const MasterResult fp = MustRun(o);
    ASSERT_EQ(Rows(fp), 201u);
    o.kind = "NEWTON";
    for (const char* jacobian : {"FINITE_DIFFERENCES", "DIRECTIONAL", "JFNK", "AUTO"}) {
      o.jacobian = jacobian;
      const MasterResult newton = MustRun(o);
      EXPECT_LT(MaxDifference(fp, newton), 1e-7) << approx << " " << jacobian;
      std::printf("%s NEWTON %s: iterations mean %.2f max %llu, rounds per step %.2f\n", approx,
                  jacobian, newton.iterations_mean,
                  static_cast<unsigned long long>(newton.iterations_max),
                  RoundsPerStep(newton, "m2"));
    }
  }
}

TEST(NewtonTest, DirectionalJacobianIsExactOnTheLinearDualMass) {
  // The units' sensitivities are exact for linear units: one Newton update from the predictor
  // lands on the solution, confirmed by the second round. No extra rounds.
  Options o;
  o.jacobian = "DIRECTIONAL";
  const MasterResult r = MustRun(o);
  EXPECT_LE(r.iterations_max, 2u);
  EXPECT_DOUBLE_EQ(RoundsPerStep(r, "m1"), r.iterations_mean);
  EXPECT_LE(RoundsPerStep(r, "m2"), 2.0);
  // AUTO picks it (both built-in units provide Jacobians).
  o.jacobian = "AUTO";
  const MasterResult automatic = MustRun(o);
  EXPECT_EQ(MaxDifference(r, automatic), 0.0);
  EXPECT_DOUBLE_EQ(RoundsPerStep(automatic, "m2"), RoundsPerStep(r, "m2"));
}

TEST(NewtonTest, JfnkConvergesInAFewIterationsWithOneRoundPerKrylovIteration) {
  Options o;
  o.jacobian = "JFNK";
  const MasterResult r = MustRun(o);
  EXPECT_LE(r.iterations_max, 3u);
  // 6 unknowns (HERMITE: x1, v1, F_c and their derivatives): GMRES needs at most 6 products
  // per Newton iteration, each one round.
  EXPECT_LE(RoundsPerStep(r, "m2"), r.iterations_mean + 6.0 * (r.iterations_mean - 1.0) + 1e-9);
  EXPECT_GT(RoundsPerStep(r, "m2"), r.iterations_mean);
}

TEST(NewtonTest, HermiteErrorFallsAtFourthOrderForDirectionalAndJfnk) {
  for (const char* jacobian : {"DIRECTIONAL", "JFNK"}) {
    std::vector<double> errors;
    for (double h : {0.04, 0.02, 0.01, 0.005}) {
      Options o;
      o.jacobian = jacobian;
      o.h = h;
      o.tolerance = 1e-13;
      errors.push_back(MaxError(MustRun(o)));
    }
    for (size_t i = 1; i < errors.size(); ++i) {
      const double order = std::log2(errors[i - 1] / errors[i]);
      std::printf("HERMITE NEWTON %s H=%g: error %.3e, order %.3f\n", jacobian, 0.04 / (1 << i),
                  errors[i], order);
      EXPECT_NEAR(order, 4.0, 0.35) << jacobian;
    }
  }
}

TEST(NewtonTest, DirectionalWithAnEstimatedUnitAgreesWithRollback) {
  // m1 cannot roll back: its sensitivities come from the COSTARICA estimator's affine map; it
  // still integrates for real once per accepted step.
  Options o;
  o.jacobian = "DIRECTIONAL";
  const MasterResult rollback = MustRun(o);
  o.rollback1 = "FORBID";
  const MasterResult forbid = MustRun(o);
  EXPECT_LT(MaxDifference(rollback, forbid), 1e-8);
  EXPECT_LE(forbid.iterations_max, 2u);
  const UnitSummary* m1 = testing::Summary(forbid, "m1");
  ASSERT_NE(m1, nullptr);
  EXPECT_EQ(m1->report.mode, UnitMode::kEstimate);
  EXPECT_EQ(m1->report.real_integrations, forbid.steps_accepted);
}

// Two fake units a, b (x' = -x + u, y = x) in a loop, FOH; `b_jacobians` false: b provides
// none. Returns the result and b's steps (tentative rounds, b rolls back).
struct FakeRun {
  MasterResult result;
  int b_steps = 0;
};

FakeRun RunFakes(const std::string& jacobian, bool b_jacobians) {
  const v1::Scenario scenario = testing::Parse(absl::StrCat(R"({"start_time": 0, "stop_time": 1,
    "units": [ {"name": "a", "builtin": {"model": "fake"}},
               {"name": "b", "builtin": {"model": "fake"}} ],
    "connections": [ {"from": "a.y", "to": "b.u"}, {"from": "b.y", "to": "a.u"} ],
    "algorithm": {"kind": "NEWTON", "newton_jacobian": ")",
                                                            jacobian, R"(", "step_size": 0.05,
                  "input_approximation": "FOH", "tolerance": 1e-12}})"));
  testing::FakeUnit::Config a, b;
  a.x0 = 1.0;
  a.capabilities.can_rollback = b.capabilities.can_rollback = true;
  a.capabilities.provides_jacobians = true;
  a.capabilities.provides_state_derivatives = b.capabilities.provides_state_derivatives = true;
  b.capabilities.provides_jacobians = b_jacobians;
  testing::LocalJob job;
  testing::FakeUnit* raw_b = nullptr;
  job.Add(testing::FakeProxy(scenario, 0, a));
  job.Add(testing::FakeProxy(scenario, 1, b, &raw_b));
  absl::StatusOr<MasterResult> r = RunMaster(scenario, job.units, nullptr);
  EXPECT_TRUE(r.ok()) << r.status();
  FakeRun run;
  if (r.ok()) run.result = *std::move(r);
  run.b_steps = raw_b->steps;
  return run;
}

TEST(NewtonTest, AutoFallsBackToJfnkWhenAUnitLacksJacobians) {
  const FakeRun directional = RunFakes("AUTO", true);
  const FakeRun fallback = RunFakes("AUTO", false);
  const FakeRun asked = RunFakes("DIRECTIONAL", false);  // falls back too (warning)
  const FakeRun jfnk = RunFakes("JFNK", true);
  const double steps = static_cast<double>(directional.result.steps_accepted);
  ASSERT_EQ(steps, 20.0);
  // DIRECTIONAL: predictor round + confirming round, nothing else.
  EXPECT_EQ(directional.b_steps, 2 * 20);
  // JFNK: the same two rounds plus one per Krylov iteration (2 unknowns: at most 2).
  EXPECT_GT(fallback.b_steps, 2 * 20);
  EXPECT_LE(fallback.b_steps, 4 * 20 + 20);
  EXPECT_EQ(fallback.b_steps, jfnk.b_steps);
  EXPECT_EQ(asked.b_steps, jfnk.b_steps);
  EXPECT_LT(MaxDifference(directional.result, fallback.result), 1e-10);
  EXPECT_LT(MaxDifference(directional.result, asked.result), 1e-10);
  // Against the monolithic x' = M x, M = [[-1, 1], [1, -1]], x(0) = (1, 0): FOH coupling with
  // H = 0.05 (second order) is within 1e-3.
  Eigen::Matrix2d m;
  m << -1, 1, 1, -1;
  const MasterResult& r = fallback.result;
  const size_t last = Rows(r) - 1;
  const Eigen::Vector2d x = (m * At(r, last, "time")).exp() * Eigen::Vector2d(1, 0);
  EXPECT_NEAR(At(r, last, "a.y"), x[0], 1e-3);
  EXPECT_NEAR(At(r, last, "b.y"), x[1], 1e-3);
}

// Two nonlinear fakes in a loop, x' = -x + u - 0.5 x^3 each (cubic damping), x_a(0) = 1.5.
// DIRECTIONAL takes the Jacobian of the linearisation at t[N], which is no longer exact over
// the step: Newton becomes a chord iteration, and must still converge to the solution every
// other source finds, and that fixed point finds.
TEST(NewtonTest, NonlinearUnitsConvergeToTheSameSolutionWithEveryJacobianSource) {
  auto run = [](const std::string& kind, const std::string& jacobian) {
    const v1::Scenario scenario = testing::Parse(absl::StrCat(
        R"({"start_time": 0, "stop_time": 2,
      "units": [ {"name": "a", "builtin": {"model": "fake"}},
                 {"name": "b", "builtin": {"model": "fake"}} ],
      "connections": [ {"from": "a.y", "to": "b.u"}, {"from": "b.y", "to": "a.u"} ],
      "algorithm": {"kind": ")",
        kind, R"(", "newton_jacobian": ")", jacobian,
        R"(", "step_size": 0.05, "input_approximation": "FOH", "tolerance": 1e-12,
                    "max_iterations": 60}})"));
    testing::FakeUnit::Config a, b;
    a.x0 = 1.5;
    a.q = b.q = -0.5;
    for (testing::FakeUnit::Config* c : {&a, &b}) {
      c->capabilities.can_rollback = true;
      c->capabilities.provides_jacobians = true;
      c->capabilities.provides_state_derivatives = true;
    }
    testing::LocalJob job;
    job.Add(testing::FakeProxy(scenario, 0, a));
    job.Add(testing::FakeProxy(scenario, 1, b));
    absl::StatusOr<MasterResult> r = RunMaster(scenario, job.units, nullptr);
    EXPECT_TRUE(r.ok()) << kind << " " << jacobian << ": " << r.status();
    return r.ok() ? *std::move(r) : MasterResult();
  };
  const MasterResult fixed_point = run("FIXED_POINT", "AUTO");
  ASSERT_EQ(Rows(fixed_point), 41u);
  for (const char* jacobian : {"DIRECTIONAL", "FINITE_DIFFERENCES", "JFNK"}) {
    const MasterResult newton = run("NEWTON", jacobian);
    std::printf("nonlinear NEWTON %s: %.2f iterations per step (max %llu)\n", jacobian,
                newton.iterations_mean, static_cast<unsigned long long>(newton.iterations_max));
    EXPECT_LT(MaxDifference(newton, fixed_point), 1e-10) << jacobian;
    EXPECT_LE(newton.iterations_max, 10u) << jacobian;
  }
  // The monolithic system, by fine RK4: FOH coupling with H = 0.05 is within 2e-3.
  auto f = [](const Eigen::Vector2d& x) {
    return Eigen::Vector2d(-x[0] + x[1] - 0.5 * x[0] * x[0] * x[0],
                           -x[1] + x[0] - 0.5 * x[1] * x[1] * x[1]);
  };
  Eigen::Vector2d x(1.5, 0.0);
  const double dt = 1e-4;
  for (int i = 0; i < 20000; ++i) {
    const Eigen::Vector2d k1 = f(x), k2 = f(x + dt / 2 * k1), k3 = f(x + dt / 2 * k2),
                          k4 = f(x + dt * k3);
    x += dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  const size_t last = Rows(fixed_point) - 1;
  EXPECT_NEAR(At(fixed_point, last, "a.y"), x[0], 2e-3);
  EXPECT_NEAR(At(fixed_point, last, "b.y"), x[1], 2e-3);
}

// A LocalUnit whose step commands and replies cross the worker protocol's messages (what
// RemoteUnit and the worker's client do), so that DIRECTIONAL sees the sensitivities as they
// arrive over gRPC.
class WireProxy final : public UnitProxy {
 public:
  explicit WireProxy(std::unique_ptr<UnitProxy> inner) : inner_(std::move(inner)) {}
  const std::string& name() const override { return inner_->name(); }
  const UnitDescription& description() const override { return inner_->description(); }
  IterativeMode iterative_mode() const override { return inner_->iterative_mode(); }
  UnitLocation location() const override { return {"wire", ""}; }
  void Send(const UnitCommand& command) override {
    command_ = command;
    if (command.kind == UnitCommand::Kind::kStep) {
      ToProto(command.step, &step_);
      FromProto(step_, &command_.step);
      sensitivities_asked_ += command_.step.sensitivities ? 1 : 0;
    }
    inner_->Send(command_);
  }
  absl::Status Await(UnitResponse* response) override {
    absl::Status s = inner_->Await(response);
    ToProto(response->step, &done_);
    FromProto(done_, &response->step);
    return s;
  }
  int sensitivities_asked_ = 0;

 private:
  std::unique_ptr<UnitProxy> inner_;
  UnitCommand command_;
  v1::Step step_;
  v1::StepDone done_;
};

TEST(NewtonTest, SensitivitiesCrossTheWorkerProtocol) {
  Options o;
  o.jacobian = "DIRECTIONAL";
  o.stop = 0.5;
  const v1::Scenario scenario = testing::Parse(DualMass(o));
  testing::LocalJob job;
  std::vector<WireProxy*> wires;
  for (int u = 0; u < scenario.units_size(); ++u) {
    absl::StatusOr<std::unique_ptr<LocalUnit>> unit =
        LocalUnit::Create(testing::LoadFor(scenario, u));
    ASSERT_TRUE(unit.ok()) << unit.status();
    auto wire = std::make_unique<WireProxy>(*std::move(unit));
    wires.push_back(wire.get());
    job.Add(std::move(wire));
  }
  absl::StatusOr<MasterResult> r = RunMaster(scenario, job.units, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  const MasterResult local = MustRun(o);
  EXPECT_EQ(MaxDifference(*r, local), 0.0);
  // Asked once per step (the first round); a fallback to JFNK would add rounds.
  EXPECT_EQ(wires[0]->sensitivities_asked_, static_cast<int>(r->steps_accepted));
  EXPECT_LE(r->iterations_max, 2u);
  EXPECT_DOUBLE_EQ(RoundsPerStep(*r, "m2"), r->iterations_mean);
}

}  // namespace
}  // namespace cosimo::master
