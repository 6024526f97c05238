// Forward sensitivities of Model Exchange FMU units (units/src/fmi/fmu_sensitivity_unit.h): a
// test FMU (mass-spring-damper; FMI 1.0, FMI 2 with and without directional derivatives, FMI 3)
// coupled to a built-in controller under Jacobi; the derivatives the augmented run carries, to a
// parameter of the FMU and to one of the built-in unit, equal central differences of whole
// co-simulations with the parameter moved (as tests/master/sensitivity_test.cc for built-in
// units), and the augmented run's values are the plain run's. Then what is refused, naming the
// unit and why.
#include <gtest/gtest.h>

#include <string>

#include "cosimo/common/sensitivities.h"
#include "tests/master/master_test_util.h"
#include "tests/master/sensitivity_test_util.h"

namespace cosimo::master {
namespace {

using testing::ExpectSensitivitiesOfWholeRuns;
using testing::Parse;
using testing::RunScenario;

std::string FmuPath(const std::string& name) {
  return std::string(COSIMO_BINARY_DIR) + "/fmus/" + name + ".fmu";
}

// The FMU `fmu` (m x'' = -c x - cf x' + F) driven by a controller F = k (v_d - v), under Jacobi.
v1::Scenario Coupled(const std::string& fmu, const std::string& solver) {
  return Parse(R"({"name": "fmu_sensitivities", "start_time": 0, "stop_time": 2,
    "units": [
      { "name": "msd", "fmu": {"path": ")" +
               FmuPath(fmu) + R"("}, "parameters": {"c": 4, "cf": 0.5}, "solver": )" + solver +
               R"( },
      { "name": "ctrl", "builtin": { "model": "car_controller",
                                     "parameters": {"k": 3, "v_d": 1} } } ],
    "connections": [ { "from": "msd.v", "to": "ctrl.v" },
                     { "from": "ctrl.F", "to": "msd.F", "factor": 0.5 } ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.01},
    "record": [ "msd.x", "msd.v", "ctrl.F" ]})");
}

class FmuSensitivityTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FmuSensitivityTest, EqualCentralDifferencesOfWholeRuns) {
  const v1::Scenario base = Coupled(GetParam(), R"({"method": "RK4", "step": 0.001})");
  ExpectSensitivitiesOfWholeRuns(base, {{"msd.c", 4.0}, {"ctrl.k", 3.0}},
                                 {"msd.x", "msd.v", "ctrl.F"}, GetParam());
}

// fmi2_msd and fmi3_msd give directional derivatives; fmi2_msd_nodd and the FMI 1.0 fmi1_msd_me
// do not (central differences of the FMU then).
INSTANTIATE_TEST_SUITE_P(TestFmus, FmuSensitivityTest,
                         ::testing::Values("fmi1_msd_me", "fmi2_msd", "fmi2_msd_nodd", "fmi3_msd"));

// The error of a run of `scenario` with sensitivities to `parameter`.
std::string Refusal(const v1::Scenario& scenario, const std::string& parameter) {
  absl::StatusOr<v1::Scenario> augmented = SensitivityScenario(scenario, {parameter}, {});
  if (!augmented.ok()) return std::string(augmented.status().message());
  absl::StatusOr<MasterResult> run = RunScenario(*augmented);
  EXPECT_FALSE(run.ok());
  return std::string(run.status().message());
}

TEST(FmuSensitivityRefusalTest, NamesTheUnitAndTheReason) {
  const std::string rk4 = R"({"method": "RK4", "step": 0.001})";
  // Co-Simulation: no solver.
  v1::Scenario cs = Coupled("fmi2_msd", rk4);
  cs.mutable_units(0)->clear_solver();
  EXPECT_NE(Refusal(cs, "msd.c")
                .find("unit 'msd' is an FMU run as Co-Simulation, which does not "
                      "give its equations: give it a solver"),
            std::string::npos)
      << Refusal(cs, "msd.c");
  // Not a parameter of the FMU, not a Real one.
  const v1::Scenario me = Coupled("fmi2_msd", rk4);
  EXPECT_NE(Refusal(me, "msd.x")
                .find("unit 'msd': sensitivities: parameter 'x' is not a "
                      "parameter of the FMU (causality parameter)"),
            std::string::npos)
      << Refusal(me, "msd.x");
  EXPECT_NE(Refusal(me, "msd.damping").find("parameter 'damping' is not a Real scalar"),
            std::string::npos)
      << Refusal(me, "msd.damping");
  // Event indicators (state events).
  v1::Scenario ball = Parse(R"({"name": "ball", "start_time": 0, "stop_time": 1,
    "units": [ {"name": "ball", "fmu": {"path": ")" +
                            FmuPath("fmi2_bouncing_ball") + R"("}, "solver": )" + rk4 + R"(} ],
    "algorithm": {"step_size": 0.01}})");
  EXPECT_NE(Refusal(ball, "ball.e")
                .find("unit 'ball': sensitivities: the FMU has 1 event "
                      "indicators (state events)"),
            std::string::npos)
      << Refusal(ball, "ball.e");
  // A solver that cannot integrate them.
  const v1::Scenario central =
      Coupled("fmi2_msd", R"({"method": "CENTRAL_DIFFERENCE", "step": 0.001})");
  EXPECT_NE(Refusal(central, "msd.c")
                .find("unit 'msd': sensitivities: solver.method "
                      "CENTRAL_DIFFERENCE"),
            std::string::npos)
      << Refusal(central, "msd.c");
}

}  // namespace
}  // namespace cosimo::master
