// Conformance of state-event location in Model Exchange (issue 46, item 3): a thermostat with
// hysteresis (tests/fmus/hysteresis.c) switches at k ln 3 exactly; every switch must be located
// within 1e-6 relative, with CVODE and with the worker's own solvers. FMI 2.0.4 section 3.1
// (Model Exchange): a state event is the instant an event indicator changes its domain (from
// z > 0 to z <= 0 or back); the importer locates it and enters Event Mode there. CTest label
// `conformance`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "tests/conformance/conformance_util.h"

namespace cosimo {
namespace {

using testing::TempDir;
using testing::WriteFile;

const double kHalfPeriod = std::log(3.0);

// x from 0.5, heating first: 2 - 1.5 e^-tau heating, 1.5 e^-tau cooling, tau since the switch.
double ThermostatX(double t) {
  const double k = std::floor(t / kHalfPeriod);
  const double tau = t - k * kHalfPeriod;
  return std::fmod(k, 2.0) == 0.0 ? 2.0 - 1.5 * std::exp(-tau) : 1.5 * std::exp(-tau);
}

struct SolverCase {
  const char* name;
  const char* solver;
  friend void PrintTo(const SolverCase& c, std::ostream* os) { *os << c.name; }
};

class StateEventConformance : public ::testing::TestWithParam<SolverCase> {};

TEST_P(StateEventConformance, EverySwitchIsLocatedWithin1e6Relative) {
  const std::string dir = TempDir("conformance-state-events");
  WriteFile(dir + "/s.json", OneFmuScenario("fmi2_hysteresis", 10.0, 0.1, GetParam().solver,
                                            {"x", "t_switch", "switches"}));
  const RunResult r = CosimoRun(dir, "hysteresis", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  const int ts = r.table.Column("u.t_switch"), n = r.table.Column("u.switches");
  ASSERT_GE(ts, 0);
  ASSERT_GE(n, 0);
  std::map<int, double> switched_at;  // switch number -> the time the FMU saw it
  for (const auto& row : r.table.rows) {
    const int k = static_cast<int>(row[static_cast<size_t>(n)]);
    if (k > 0) switched_at.emplace(k, row[static_cast<size_t>(ts)]);
  }
  EXPECT_EQ(switched_at.size(), 9u) << "9 switches in 10 s (the 9th at 9 ln 3 = 9.8875)";
  for (const auto& [k, t] : switched_at) {
    const double exact = k * kHalfPeriod;
    EXPECT_LE(std::abs(t - exact), 1e-6 * exact)
        << GetParam().name << ": switch " << k << " at t=" << t << ", exactly " << exact;
  }
  ExpectInBand(r.table, "u.x", ThermostatX, GetParam().name);
}

INSTANTIATE_TEST_SUITE_P(
    Solvers, StateEventConformance,
    ::testing::Values(SolverCase{"CVODE", R"({ "method": "CVODE", "tolerance": 1e-10 })"},
                      SolverCase{"RK45", R"({ "method": "RK45", "tolerance": 1e-10 })"},
                      SolverCase{"RK4", R"({ "method": "RK4", "step": 0.01 })"},
                      SolverCase{"RK4_chunk_is_H", R"({ "method": "RK4", "step": 0.1 })"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace cosimo
