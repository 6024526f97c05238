// Forward sensitivities across a coupled co-simulation (cosimo/common/sensitivities.h): the
// derivatives the augmented run carries equal central differences of whole co-simulations with
// the parameter moved, for every master algorithm, and the augmented run's own values are those
// of the plain run.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/common/sensitivities.h"
#include "cosimo/common/sweep.h"
#include "tests/master/master_test_util.h"

namespace cosimo::master {
namespace {

using testing::At;
using testing::Parse;
using testing::Rows;
using testing::RunScenario;

// Busch's dual-mass oscillator split in two units (examples/dual_mass.json) under `algorithm`.
v1::Scenario DualMass(const std::string& algorithm, const std::string& solver,
                      const std::string& m1_rollback) {
  return Parse(R"({"name": "dual_mass", "start_time": 0, "stop_time": 2,
    "units": [
      { "name": "m1", "builtin": { "model": "dual_mass_oscillator_1", "parameters": {"c1": 12} },
        "rollback": ")" +
               m1_rollback + R"(", "solver": )" + solver + R"( },
      { "name": "m2", "builtin": { "model": "dual_mass_oscillator_2", "parameters": {"c_c": 90} },
        "solver": )" +
               solver + R"( } ],
    "connections": [ { "from": "m1.x1", "to": "m2.x1" }, { "from": "m1.v1", "to": "m2.v1" },
                     { "from": "m2.F_c", "to": "m1.F_c", "factor": 1.0 } ],
    "algorithm": )" +
               algorithm + R"(,
    "record": [ "m1.x1", "m2.x2", "m2.F_c" ]})");
}

struct Case {
  std::string name, algorithm, solver, m1_rollback;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class SensitivityAcrossUnitsTest : public ::testing::TestWithParam<Case> {};

TEST_P(SensitivityAcrossUnitsTest, EqualCentralDifferencesOfWholeRuns) {
  const Case& c = GetParam();
  const v1::Scenario base = DualMass(c.algorithm, c.solver, c.m1_rollback);
  const std::vector<std::string> parameters = {"m1.c1", "m2.c_c"};
  const std::vector<std::string> variables = {"m1.x1", "m2.x2", "m2.F_c"};
  absl::StatusOr<v1::Scenario> augmented = SensitivityScenario(base, parameters, variables);
  ASSERT_TRUE(augmented.ok()) << augmented.status();
  absl::StatusOr<MasterResult> run = RunScenario(*augmented);
  ASSERT_TRUE(run.ok()) << run.status();
  absl::StatusOr<MasterResult> plain = RunScenario(base);
  ASSERT_TRUE(plain.ok()) << plain.status();
  ASSERT_EQ(Rows(*run), Rows(*plain));
  for (size_t row = 0; row < Rows(*plain); row += 7) {
    for (const std::string& v : variables) {
      EXPECT_NEAR(At(*run, row, v), At(*plain, row, v), 1e-9 * (1.0 + std::abs(At(*plain, row, v))))
          << v << " row " << row;
    }
  }
  for (size_t j = 0; j < parameters.size(); ++j) {
    const std::string unit = parameters[j].substr(0, 2);
    const std::string key = parameters[j].substr(3);
    const double value = j == 0 ? 12.0 : 90.0, h = 1e-4 * value;
    v1::Scenario up = base, down = base;
    for (v1::Scenario* s : {&up, &down}) {
      for (v1::Unit& u : *s->mutable_units()) {
        if (u.name() == unit) SetUnitParameter(&u, key, value + (s == &up ? h : -h));
      }
    }
    absl::StatusOr<MasterResult> r_up = RunScenario(up), r_down = RunScenario(down);
    ASSERT_TRUE(r_up.ok() && r_down.ok());
    ASSERT_EQ(Rows(*r_up), Rows(*plain));
    for (const std::string& v : variables) {
      const std::string dot = v.substr(0, 3);
      const std::string d = dot + SensitivityName(v.substr(3), parameters[j]);
      double scale = 0.0, worst = 0.0;
      for (size_t row = 0; row < Rows(*plain); ++row) {
        const double fd = (At(*r_up, row, v) - At(*r_down, row, v)) / (2 * h);
        scale = std::max(scale, std::abs(fd));
        worst = std::max(worst, std::abs(At(*run, row, d) - fd));
      }
      EXPECT_GT(scale, 1e-6) << d << ": the parameter moves the variable";
      EXPECT_LT(worst, 1e-6 * scale) << d << " against central differences (" << c.name << ")";
    }
  }
}

const char kRk4[] = R"({"method": "RK4", "step": 0.001})";

INSTANTIATE_TEST_SUITE_P(
    EveryAlgorithm, SensitivityAcrossUnitsTest,
    ::testing::Values(
        Case{"Jacobi", R"({"kind": "JACOBI", "step_size": 0.01})", kRk4, "AUTO"},
        Case{"JacobiExact", R"({"kind": "JACOBI", "step_size": 0.01})", R"({"method": "EXACT"})",
             "AUTO"},
        Case{"GaussSeidel", R"({"kind": "GAUSS_SEIDEL", "step_size": 0.01})", kRk4, "AUTO"},
        Case{"FixedPoint",
             R"({"kind": "FIXED_POINT", "step_size": 0.01, "tolerance": 1e-12,
                 "max_iterations": 100})",
             kRk4, "AUTO"},
        Case{"NewtonCostarica",
             R"({"kind": "NEWTON", "step_size": 0.01, "input_approximation": "HERMITE",
                 "tolerance": 1e-12, "max_iterations": 20})",
             R"({"method": "EXACT"})", "FORBID"}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

// A parameter that holds an unconnected input (its value given by the parameter of the input's
// name) moves the unit through that input: its sensitivity there is 1.
TEST(SensitivityHeldInputTest, AParameterThatHoldsAnInputMovesTheUnitThroughIt) {
  const std::string json_head = R"({"name": "held", "start_time": 0, "stop_time": 2,
    "units": [ { "name": "m2", "builtin": { "model": "dual_mass_oscillator_2",
                 "parameters": {"c_c": 90, "v1": 0, "x1": )";
  const std::string json_tail = R"(} }, "solver": {"method": "RK4", "step": 0.001} } ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.01}, "record": [ "m2.x2", "m2.F_c" ]})";
  const double x1 = 0.1, h = 1e-5;
  auto held = [&](double value) { return Parse(json_head + absl::StrCat(value) + json_tail); };
  absl::StatusOr<v1::Scenario> augmented =
      SensitivityScenario(held(x1), {"m2.x1"}, {"m2.x2", "m2.F_c"});
  ASSERT_TRUE(augmented.ok()) << augmented.status();
  absl::StatusOr<MasterResult> run = RunScenario(*augmented);
  ASSERT_TRUE(run.ok()) << run.status();
  absl::StatusOr<MasterResult> up = RunScenario(held(x1 + h)), down = RunScenario(held(x1 - h));
  ASSERT_TRUE(up.ok() && down.ok());
  ASSERT_EQ(Rows(*run), Rows(*up));
  for (const std::string v : {"x2", "F_c"}) {
    const std::string d = "m2." + SensitivityName(v, "m2.x1");
    double scale = 0.0, worst = 0.0;
    for (size_t row = 0; row < Rows(*up); ++row) {
      const double fd = (At(*up, row, "m2." + v) - At(*down, row, "m2." + v)) / (2 * h);
      scale = std::max(scale, std::abs(fd));
      worst = std::max(worst, std::abs(At(*run, row, d) - fd));
    }
    EXPECT_GT(scale, 1e-3) << d << ": the held input moves the unit";
    EXPECT_LT(worst, 1e-6 * scale) << d << " against central differences";
  }
  // At t = 0 (x2 not moved yet) the coupling force F_c = c_c (x2 - x1) + d_c (v2 - v1) moves
  // with x1 by the spring's constant alone.
  EXPECT_NEAR(At(*run, 0, "m2." + SensitivityName("F_c", "m2.x1")), -90.0, 1e-6);
}

TEST(SensitivityScenarioTest, SaysWhyAScenarioCannotGiveThem) {
  v1::Scenario fmu = Parse(R"({"name": "f", "start_time": 0, "stop_time": 1,
    "units": [ {"name": "a", "fmu": {"path": "x.fmu"}} ], "algorithm": {"step_size": 0.1}})");
  absl::StatusOr<v1::Scenario> s = SensitivityScenario(fmu, {"a.k"}, {});
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.status().message().find("unit 'a' is an FMU run as Co-Simulation"), std::string::npos)
      << s.status();

  const v1::Scenario dual = DualMass(R"({"kind": "JACOBI", "step_size": 0.01})", kRk4, "AUTO");
  s = SensitivityScenario(dual, {"algorithm.step_size"}, {});
  EXPECT_NE(s.status().message().find("parameter 'algorithm.step_size' is not a unit's"),
            std::string::npos)
      << s.status();
}

TEST(SensitivityScenarioTest, CentralDifferenceSolverIsRefusedNamingTheUnit) {
  const v1::Scenario dual = DualMass(R"({"kind": "JACOBI", "step_size": 0.01})",
                                     R"({"method": "CENTRAL_DIFFERENCE", "step": 0.001})", "AUTO");
  absl::StatusOr<v1::Scenario> augmented = SensitivityScenario(dual, {"m1.c1"}, {"m1.x1"});
  ASSERT_TRUE(augmented.ok()) << augmented.status();
  absl::StatusOr<MasterResult> run = RunScenario(*augmented);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("unit 'm1': sensitivities: solver.method "
                                        "CENTRAL_DIFFERENCE"),
            std::string::npos)
      << run.status();
}

}  // namespace
}  // namespace cosimo::master
