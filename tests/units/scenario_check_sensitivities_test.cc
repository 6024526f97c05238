// The scenario check of a Model Exchange FMU unit with sensitivities (units/src/scenario_check.cc,
// units/src/fmi/fmu_sensitivity_unit.h): its variables "d(<variable>)/d(<parameter>)" can be
// connected and recorded, and what its model description refuses is a problem naming the field,
// so that a calibration's "auto" falls back to finite differences saying why.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cosimo/common/scenario.h"
#include "cosimo/common/sensitivities.h"
#include "cosimo/units/scenario_check.h"

namespace cosimo::units {
namespace {

v1::Scenario Parsed(const std::string& json) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(json);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : v1::Scenario();
}

std::string Fmu(const std::string& name) {
  return std::string(COSIMO_BINARY_DIR) + "/fmus/" + name + ".fmu";
}

TEST(ScenarioCheckSensitivitiesTest, AnFmusSensitivitiesAreVariablesOfItsUnit) {
  const v1::Scenario base = Parsed(R"({"name": "s", "stop_time": 1,
    "units": [ {"name": "msd", "fmu": {"path": ")" +
                                   Fmu("fmi2_msd") +
                                   R"("}, "solver": {"method": "RK4", "step": 0.01}},
               {"name": "ctrl", "builtin": {"model": "car_controller"},
                "parameters": {"k": 3, "v_d": 1}} ],
    "connections": [ {"from": "msd.v", "to": "ctrl.v"}, {"from": "ctrl.F", "to": "msd.F"} ],
    "algorithm": {"step_size": 0.1}, "record": ["msd.x"]})");
  absl::StatusOr<v1::Scenario> augmented =
      SensitivityScenario(base, {"msd.c", "ctrl.k"}, {"msd.x"});
  ASSERT_TRUE(augmented.ok()) << augmented.status();
  EXPECT_TRUE(CheckScenario(*augmented).ok()) << CheckScenario(*augmented);

  augmented = SensitivityScenario(base, {"msd.x", "msd.damping"}, {});
  ASSERT_TRUE(augmented.ok()) << augmented.status();
  const std::string problems(CheckScenario(*augmented).message());
  EXPECT_THAT(problems, ::testing::HasSubstr("units[0] ('msd').sensitivities[0] 'msd.x': 'x' is "
                                             "output, not a parameter of the FMU"));
  EXPECT_THAT(problems, ::testing::HasSubstr("'damping' is not a Real parameter"));
}

// The test FMU `fmu` alone as unit `unit`, run as Model Exchange by RK4, recording its
// `recorded`.
v1::Scenario ModelExchangeAlone(const std::string& fmu, const std::string& unit,
                                const std::string& recorded) {
  return Parsed(R"({"name": "s", "stop_time": 1, "units": [ {"name": ")" + unit +
                R"(", "fmu": {"path": ")" + Fmu(fmu) +
                R"("}, "solver": {"method": "RK4", "step": 0.01}} ],
    "algorithm": {"step_size": 0.1}, "record": [")" +
                unit + "." + recorded + R"("]})");
}

TEST(ScenarioCheckSensitivitiesTest, AnFmuWithEventIndicatorsIsAProblem) {
  const v1::Scenario base = ModelExchangeAlone("fmi2_bouncing_ball", "ball", "h");
  absl::StatusOr<v1::Scenario> augmented = SensitivityScenario(base, {"ball.e"}, {"ball.h"});
  ASSERT_TRUE(augmented.ok()) << augmented.status();
  EXPECT_THAT(std::string(CheckScenario(*augmented).message()),
              ::testing::HasSubstr("units[0] ('ball').sensitivities: the FMU has 1 event "
                                   "indicators (state events)"));
}

// Inputs set only in events (fmi2_inputs: a discrete Real, an Integer, an Enumeration, a Boolean)
// are a problem up front, as the unit would refuse them when it is made.
TEST(ScenarioCheckSensitivitiesTest, AnFmuWithDiscreteInputsIsAProblem) {
  const v1::Scenario base = ModelExchangeAlone("fmi2_inputs", "in", "y");
  ASSERT_TRUE(CheckScenario(base).ok()) << CheckScenario(base);
  absl::StatusOr<v1::Scenario> augmented = SensitivityScenario(base, {"in.k"}, {"in.y"});
  ASSERT_TRUE(augmented.ok()) << augmented.status();
  EXPECT_THAT(std::string(CheckScenario(*augmented).message()),
              ::testing::HasSubstr("units[0] ('in').sensitivities: the FMU's input 'ud' is "
                                   "discrete (set only in events)"));
}

}  // namespace
}  // namespace cosimo::units
