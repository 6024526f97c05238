// Forward sensitivities across a coupled co-simulation (cosimo/common/sensitivities.h): the
// derivatives the augmented run carries equal central differences of whole co-simulations with
// the parameter moved, for every master algorithm, and the augmented run's own values are those
// of the plain run.
#include <gtest/gtest.h>

#include <string>

#include "cosimo/common/sensitivities.h"
#include "tests/master/master_test_util.h"
#include "tests/master/sensitivity_test_util.h"

namespace cosimo::master {
namespace {

using testing::At;
using testing::ExpectSensitivitiesOfWholeRuns;
using testing::Parse;
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
  ExpectSensitivitiesOfWholeRuns(DualMass(c.algorithm, c.solver, c.m1_rollback),
                                 {{"m1.c1", 12.0}, {"m2.c_c", 90.0}}, {"m1.x1", "m2.x2", "m2.F_c"},
                                 c.name);
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
  const v1::Scenario base = Parse(R"({"name": "held", "start_time": 0, "stop_time": 2,
    "units": [ { "name": "m2", "builtin": { "model": "dual_mass_oscillator_2",
                 "parameters": {"c_c": 90, "v1": 0, "x1": 0.1} },
                 "solver": {"method": "RK4", "step": 0.001} } ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.01}, "record": [ "m2.x2", "m2.F_c" ]})");
  ExpectSensitivitiesOfWholeRuns(base, {{"m2.x1", 0.1}}, {"m2.x2", "m2.F_c"}, "held x1");
  // At t = 0 (x2 not moved yet) the coupling force F_c = c_c (x2 - x1) + d_c (v2 - v1) moves
  // with x1 by the spring's constant alone.
  absl::StatusOr<v1::Scenario> augmented = SensitivityScenario(base, {"m2.x1"}, {"m2.F_c"});
  ASSERT_TRUE(augmented.ok()) << augmented.status();
  absl::StatusOr<MasterResult> run = RunScenario(*augmented);
  ASSERT_TRUE(run.ok()) << run.status();
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
