// Conformance of alias names (issue 46, item 5): a variable named by an alias is recorded,
// connected and set as the variable itself, and its results column is called by the name the
// scenario wrote. CTest label `conformance`.
//
// FMI 3.0.1 section 2.4.7: a variable's <Alias> children give it further names (with their own
// description and displayUnit); fmi3_msd_alias names x also `position` and `body.x`, v `speed`,
// F `force`, m `mass`, the Int32 output steps `step_count`. FMI 2.0.4 section 2.2.7
// (valueReference): variables that share a (type, value reference) are aliases, "variables that
// have identical values"; fmi2_msd_alias declares `position` (an output) and `pos_local` (a
// local) with x's value reference. FMI 2.0 has no negated aliases (FMI 1.0's
// alias="negatedAlias" attribute is gone), so nothing is negated.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/conformance/conformance_util.h"

namespace cosimo {
namespace {

using testing::TempDir;
using testing::WriteFile;

// m x'' + cf x' + c x = 0, x(0) = 1, v(0) = 0, with c = 1, cf = 0.2 (the msd FMUs' start).
double DampedX(double m, double t) {
  const double a = 0.2 / (2.0 * m), w0 = std::sqrt(1.0 / m), wd = std::sqrt(w0 * w0 - a * a);
  return std::exp(-a * t) * (std::cos(wd * t) + a / wd * std::sin(wd * t));
}

// Every row's `a` and `b` are the same number (the same variable read twice).
void ExpectSameColumn(const Table& t, const std::string& a, const std::string& b) {
  const int ca = t.Column(a), cb = t.Column(b);
  ASSERT_GE(ca, 0) << "no column " << a;
  ASSERT_GE(cb, 0) << "no column " << b;
  ASSERT_GT(t.rows.size(), 10u);
  for (const auto& row : t.rows) {
    ASSERT_EQ(row[static_cast<size_t>(ca)], row[static_cast<size_t>(cb)])
        << a << " and " << b << " at t=" << row[0];
  }
}

// Recording and setting through FMI 3 <Alias> names: the columns are called by the aliases and
// hold x's, v's and steps' values; `mass` sets m (the oscillation then has m = 4).
TEST(AliasConformance, Fmi3AliasesAreRecordedAndSetAsTheirVariable) {
  for (const char* solver : {"", kMe}) {
    const std::string dir = TempDir("conformance-alias");
    WriteFile(dir + "/s.json",
              OneFmuScenario("fmi3_msd_alias", 10.0, 0.01, solver,
                             {"x", "position", "body.x", "v", "speed", "step_count", "mass"},
                             R"({ "mass": 4.0 })"));
    const RunResult r = CosimoRun(dir, "alias3", {dir + "/s.json"});
    ASSERT_EQ(r.code, 0) << r.log;
    EXPECT_THAT(r.table.names, ::testing::ElementsAre("time", "u.x", "u.position", "u.body.x",
                                                      "u.v", "u.speed", "u.step_count", "u.mass"));
    ExpectSameColumn(r.table, "u.x", "u.position");
    ExpectSameColumn(r.table, "u.x", "u.body.x");
    ExpectSameColumn(r.table, "u.v", "u.speed");
    ExpectInBand(
        r.table, "u.position", [](double t) { return DampedX(4.0, t); }, "mass 4");
    ExpectInBand(
        r.table, "u.mass", [](double) { return 4.0; }, "mass");
  }
}

// Connecting from an alias output into an alias input: b's force is a's position, F and force
// are the same value. One Jacobi step of delay: b's input at a communication point is a's output
// at that point (the master's output of the step just taken).
TEST(AliasConformance, ConnectionsTakeAliasesAtBothEnds) {
  for (const std::string from_fmu : {"fmi3_msd_alias", "fmi2_msd_alias"}) {
    const std::string dir = TempDir("conformance-alias");
    const std::string scenario = R"({ "name": "alias", "start_time": 0, "stop_time": 5,
      "units": [ { "name": "a", "fmu": { "path": ")" +
                                 Fmu(from_fmu) + R"(" } },
                 { "name": "b", "fmu": { "path": ")" +
                                 Fmu("fmi3_msd_alias") + R"(" } } ],
      "connections": [ { "from": "a.position", "to": "b.force" } ],
      "algorithm": { "kind": "JACOBI", "step_size": 0.01 },
      "record": [ "a.x", "a.position", "b.force", "b.F" ] })";
    WriteFile(dir + "/s.json", scenario);
    const RunResult r = CosimoRun(dir, "alias-connect", {dir + "/s.json"});
    ASSERT_EQ(r.code, 0) << from_fmu << ": " << r.log;
    ExpectSameColumn(r.table, "a.x", "a.position");
    ExpectSameColumn(r.table, "b.force", "b.F");
    // b.F follows a.x (exactly a.x of the same or the previous row) and is not its start 0.
    const int ax = r.table.Column("a.x"), bf = r.table.Column("b.F");
    double largest = 0.0;
    for (size_t k = 1; k < r.table.rows.size(); ++k) {
      const double f = r.table.rows[k][static_cast<size_t>(bf)];
      EXPECT_TRUE(f == r.table.rows[k][static_cast<size_t>(ax)] ||
                  f == r.table.rows[k - 1][static_cast<size_t>(ax)])
          << from_fmu << " at t=" << r.table.rows[k][0];
      largest = std::max(largest, std::abs(f));
    }
    EXPECT_GT(largest, 0.5) << from_fmu;
  }
}

// FMI 2 aliases (shared value references) are recorded as their variable, under their own
// names; an FMI 2 alias output is among the outputs `cosimo run MODEL.fmu` records.
TEST(AliasConformance, Fmi2AliasesAreTheirVariable) {
  const std::string dir = TempDir("conformance-alias");
  WriteFile(dir + "/s.json", OneFmuScenario("fmi2_msd_alias", 10.0, 0.01, "",
                                            {"x", "position", "pos_local", "v", "vel"}));
  const RunResult r = CosimoRun(dir, "alias2", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  ExpectSameColumn(r.table, "u.x", "u.position");
  ExpectSameColumn(r.table, "u.x", "u.pos_local");
  ExpectSameColumn(r.table, "u.v", "u.vel");
  ExpectInBand(r.table, "u.pos_local", MsdX, "fmi2 alias");
  ExpectInBand(r.table, "u.vel", MsdV, "fmi2 alias");
  const RunResult whole = CosimoRun(dir, "alias2-fmu", {Fmu("fmi2_msd_alias")});
  ASSERT_EQ(whole.code, 0) << whole.log;
  ExpectSameColumn(whole.table, "msd.x", "msd.position");
}

// A misspelt alias is refused before the run like any name, and the aliases are among the
// names offered.
TEST(AliasConformance, AMisspeltAliasIsRefusedNamingTheAliases) {
  const std::string dir = TempDir("conformance-alias");
  WriteFile(dir + "/s.json", OneFmuScenario("fmi3_msd_alias", 1.0, 0.01, "", {"positon"}));
  const RunResult r = CosimoRun(dir, "alias-typo", {dir + "/s.json"});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log, ::testing::HasSubstr("did you mean 'position'"));
}

}  // namespace
}  // namespace cosimo
