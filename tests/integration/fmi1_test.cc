// FMI 1.0 units in the master's iterative schemes (issue 43): FMI 1.0 has no FMU state, so an
// FMI 1.0 unit never rolls back. A Model Exchange one (Jacobians by finite differences) takes
// part through COSTARICA exactly as an FMI 2 Model Exchange unit that may not roll back does; a
// Co-Simulation one (no Jacobians either) is refused up front, as any unit that can neither roll
// back nor be estimated.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

using ::testing::HasSubstr;
using testing::InProcess;

std::string Fmu(const std::string& name) {
  return std::string(COSIMO_BINARY_DIR) + "/fmus/" + name + ".fmu";
}

// Two mass-spring-dampers pulling on each other (a.x -> b.F, b.x -> a.F), fixed-point iteration.
v1::Scenario Pair(const std::string& fmu, const std::string& unit_extra) {
  const std::string unit = R"("fmu": {"path": ")" + Fmu(fmu) + R"("}, )" + unit_extra;
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({"name": "pair", "start_time": 0,
    "stop_time": 2, "units": [ {"name": "a", )" + unit +
                                                     R"(, "parameters": {"c": 2}},
      {"name": "b", )" + unit + R"(, "parameters": {"c": 3, "x": -0.5}} ],
    "connections": [ {"from": "a.x", "to": "b.F"}, {"from": "b.x", "to": "a.F"} ],
    "algorithm": {"kind": "FIXED_POINT", "step_size": 0.01, "tolerance": 1e-10,
                  "max_iterations": 50},
    "record": ["a.x", "a.v", "b.x", "b.v"]})");
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : v1::Scenario();
}

constexpr char kSolver[] = R"("solver": {"method": "RK4", "step": 0.001})";

TEST(Fmi1IterativeTest, ModelExchangeUnitsAreEstimatedByCostarica) {
  const master::MasterResult fmi1 = InProcess(Pair("fmi1_msd_me", kSolver));
  // The same model through FMI 2, Jacobians by finite differences too (no directional
  // derivatives), forbidden to roll back: the same estimates, the same commits.
  const master::MasterResult fmi2 =
      InProcess(Pair("fmi2_msd_nodd", std::string(kSolver) + R"(, "rollback": "FORBID")"));
  ASSERT_FALSE(fmi1.values.empty());
  EXPECT_EQ(fmi1.columns, fmi2.columns);
  ASSERT_EQ(fmi1.values.size(), fmi2.values.size());
  double max_difference = 0.0;
  for (size_t i = 0; i < fmi1.values.size(); ++i)
    max_difference = std::max(max_difference, std::abs(fmi1.values[i] - fmi2.values[i]));
  EXPECT_LT(max_difference, 1e-9);
  EXPECT_GT(fmi1.iterations_mean, 1.0);
  ASSERT_EQ(fmi1.units.size(), 2u);
  for (const master::UnitSummary& u : fmi1.units) {
    EXPECT_EQ(u.report.mode, UnitMode::kEstimate) << u.name;
    EXPECT_EQ(u.report.real_integrations, fmi1.steps_accepted) << u.name;
    EXPECT_GT(u.report.estimates, fmi1.steps_accepted) << u.name;
  }
}

TEST(Fmi1IterativeTest, CoSimulationUnitsAreRefusedUpFrontNamingWhy) {
  const v1::Scenario scenario = Pair("fmi1_msd_cs", R"("rollback": "AUTO")");
  std::vector<std::unique_ptr<master::LocalUnit>> units;
  std::vector<master::UnitProxy*> proxies;
  for (int i = 0; i < scenario.units_size(); ++i) {
    auto unit = master::LocalUnit::Create(LoadUnitFor(scenario, i, "in-process"));
    ASSERT_TRUE(unit.ok()) << unit.status();
    proxies.push_back(unit->get());
    units.push_back(*std::move(unit));
  }
  absl::StatusOr<master::MasterResult> r = master::RunMaster(scenario, proxies, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("units 'a', 'b' cannot roll back"));
  EXPECT_THAT(r.status().message(), HasSubstr("COSTARICA cannot estimate their tentative steps"));
}

}  // namespace
}  // namespace cosimo
