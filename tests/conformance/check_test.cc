// What `cosimo run` (and `cosimo submit`, the same checks: units/src/scenario_check.cc) says
// about a scenario before anything runs (issue 46). CTest label `conformance`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/conformance/conformance_util.h"

namespace cosimo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;
using testing::WriteFile;

// Two fmi2_inputs units (outputs y, x, sum, e_out; inputs u, ud, n, e, flag; parameter k)
// connected as the scenario's `connections` say.
std::string TwoUnits(const std::string& connections, const std::string& record = "") {
  const std::string fmu = Fmu("fmi2_inputs");
  return R"({ "name": "check", "stop_time": 1,
    "units": [ { "name": "a", "fmu": { "path": ")" +
         fmu + R"(" } }, { "name": "b", "fmu": { "path": ")" + fmu + R"(" } } ],
    "connections": [ )" +
         connections + R"( ], "record": [ )" + record + R"( ],
    "algorithm": { "kind": "JACOBI", "step_size": 0.1 } })";
}

// Names a user misspells (issue 46, 8): the closest names by edit distance, and the names the
// place takes: outputs for a `from`, inputs and parameters for a `to`, any variable for
// `record`. Every problem in one report.
TEST(MisspeltNames, TheClosestNamesAndWhatThePlaceTakesAreSaid) {
  const std::string dir = TempDir("conformance-check");
  WriteFile(dir + "/s.json", TwoUnits(R"({ "from": "a.sun", "to": "b.flg" })", R"("a.e_ot")"));
  const RunResult r = CosimoRun(dir, "misspelt", {dir + "/s.json"});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log, HasSubstr("connections[0].from 'a.sun': unit 'a' has no variable 'sun'; "
                               "did you mean 'sum'? (outputs: e_out, sum, x, y)"));
  EXPECT_THAT(r.log, HasSubstr("connections[0].to 'b.flg': unit 'b' has no variable 'flg'; did "
                               "you mean 'flag'? (inputs: e, flag, n, u, ud; parameters: k)"));
  EXPECT_THAT(r.log, HasSubstr("record[0] 'a.e_ot': unit 'a' has no variable 'e_ot'; did you "
                               "mean 'e_out'? (variables: "));
}

TEST(MisspeltNames, NothingCloseSuggestsNothing) {
  const std::string dir = TempDir("conformance-check");
  WriteFile(dir + "/s.json", TwoUnits(R"({ "from": "a.velocity", "to": "b.u" })"));
  const RunResult r = CosimoRun(dir, "far", {dir + "/s.json"});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log, HasSubstr("unit 'a' has no variable 'velocity' (outputs: e_out, sum, x, y)"));
  EXPECT_THAT(r.log, Not(HasSubstr("did you mean")));
}

// `cosimo run` of a one-unit scenario (OneFmuScenario), with algorithm.allow_non_finite when
// `allow`.
RunResult RunNonFinite(std::string scenario, bool allow) {
  const std::string dir = TempDir("conformance-nan");
  if (allow) {
    const std::string kind = R"("kind": "JACOBI")";
    scenario.replace(scenario.find(kind), kind.size(), kind + R"(, "allow_non_finite": true)");
  }
  WriteFile(dir + "/s.json", scenario);
  return CosimoRun(dir, "nan", {dir + "/s.json"});
}

// Non-finite values (issue 46, 6): fmi2_msd with m = 0 computes v' = -inf from the first step
// on. By default the job fails at the first non-finite output, naming the unit, the output and
// the time; algorithm.allow_non_finite records the values and goes on.
TEST(NonFinite, TheFirstNonFiniteOutputFailsTheJob) {
  for (const bool allow : {false, true}) {
    const RunResult r =
        RunNonFinite(OneFmuScenario("fmi2_msd", 1.0, 0.1, "", {"x", "v"}, R"({ "m": 0 })"), allow);
    if (allow) {
      ASSERT_EQ(r.code, 0) << r.log;
      EXPECT_EQ(r.table.rows.size(), 11u);
      EXPECT_FALSE(std::isfinite(r.table.rows.back()[2])) << r.log;
    } else {
      EXPECT_NE(r.code, 0);
      EXPECT_THAT(r.log,
                  ::testing::ContainsRegex("unit 'u': output '[xv]' is -?(inf|nan) at t=0.1 "));
      EXPECT_THAT(r.log, HasSubstr("algorithm.allow_non_finite"));
    }
  }
}

// The same for a Model Exchange state derivative (issue 46, 6): fmi2_nan_derivative's x' is NaN
// from t = 0.55 while its output y = 2 t stays finite. By default the step fails at the first
// non-finite derivative the solver (RK4, step 0.01) reads, naming unit, der(x) and time. With
// algorithm.allow_non_finite the job ends as it did before issue 46: the solver's own check
// stops at the non-finite state it integrated, without naming the derivative.
TEST(NonFinite, TheFirstNonFiniteStateDerivativeFailsTheJob) {
  for (const bool allow : {false, true}) {
    const RunResult r =
        RunNonFinite(OneFmuScenario("fmi2_nan_derivative", 1.0, 0.1,
                                    R"({ "method": "RK4", "step": 0.01 })", {"x", "y"}),
                     allow);
    EXPECT_NE(r.code, 0);
    if (allow) {
      EXPECT_THAT(r.log, HasSubstr("RK4: the state is no longer finite at t=0.5"));
      EXPECT_THAT(r.log, Not(HasSubstr("der(x)")));
    } else {
      EXPECT_THAT(r.log, ::testing::ContainsRegex(
                             "unit 'u': state derivative 'der\\(x\\)' is nan at t=0\\.55"));
      EXPECT_THAT(r.log, HasSubstr("algorithm.allow_non_finite"));
    }
  }
}

// `cosimo run` of a TwoUnits scenario with fmi3_inputs units in place of the fmi2_inputs ones.
RunResult RunFmi3(const std::string& dir, std::string scenario) {
  for (size_t at = scenario.find("fmi2_inputs"); at != std::string::npos;
       at = scenario.find("fmi2_inputs")) {
    scenario.replace(at, 11, "fmi3_inputs");
  }
  WriteFile(dir + "/s.json", scenario);
  return CosimoRun(dir, "types", {dir + "/s.json"});
}

// Type mismatches (issue 46, 7), caught with the scenario before anything runs, every one in
// one report naming both ends and both types: floats feed floats, integers integers that hold
// every value of theirs (FMI 3 widths: no narrowing), Boolean Boolean, an Enumeration the same
// Enumeration. fmi3_inputs: y Float64 and e_out Int32 outputs; u Float64, n Int32, flag
// Boolean, e Enumeration 'Mode', count UInt64 inputs.
TEST(TypeMismatches, EveryMismatchIsReportedBeforeTheRun) {
  const std::string dir = TempDir("conformance-check");
  const std::string scenario = TwoUnits(R"({ "from": "a.y", "to": "b.u" },
      { "from": "a.y", "to": "b.n" }, { "from": "a.e_out", "to": "b.flag" },
      { "from": "a.e_out", "to": "b.count" }, { "from": "a.e_out", "to": "b.e" })");
  const RunResult r = RunFmi3(dir, scenario);
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log, HasSubstr("4 problems"));
  EXPECT_THAT(r.log, Not(HasSubstr("connections[0]")));
  EXPECT_THAT(r.log, HasSubstr("connections[1]: 'a.y' (Float64) cannot feed 'b.n' (Int32)"));
  EXPECT_THAT(r.log, HasSubstr("connections[2]: 'a.e_out' (Int32) cannot feed 'b.flag' (Boolean)"));
  EXPECT_THAT(r.log, HasSubstr("connections[3]: 'a.e_out' (Int32) cannot feed 'b.count' (UInt64): "
                               "an UInt64 does not hold every Int32 (narrowing)"));
  EXPECT_THAT(r.log, HasSubstr("connections[4]: 'a.e_out' (Int32) cannot feed 'b.e' "
                               "(Enumeration 'Mode')"));
}

// A String (or Binary) end is refused with the scenario too (issue 46, 7: a String output into a
// Real input failed only once the job ran): fmi3_inputs' blob is a Binary output. With a map
// (Connection.map), an integer feeds an Enumeration; a map on floats, an integer mapped to a
// Boolean, a map with a factor or of a number that is not whole are refused; all in one report.
TEST(TypeMismatches, StringsAndMapsAreCheckedBeforeTheRun) {
  const std::string dir = TempDir("conformance-check");
  const std::string scenario = TwoUnits(R"({ "from": "a.blob", "to": "b.u" },
      { "from": "a.e_out", "to": "b.e", "map": [ { "source": 1, "target": 3 } ] },
      { "from": "a.y", "to": "b.ud", "map": [ { "source": 1, "target": 3 } ] },
      { "from": "a.e_out", "to": "b.flag", "map": [ { "source": 1, "target": 1 } ] },
      { "from": "a.e_out", "to": "b.n", "factor": 2, "map": [ { "source": 1.5, "target": 1 } ] })");
  const RunResult r = RunFmi3(dir, scenario);
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log, HasSubstr("connections[0]: 'a.blob' (Binary) cannot feed 'b.u' (Float64): "
                               "Binary variables are recorded, not connected"));
  EXPECT_THAT(r.log, Not(HasSubstr("connections[1]")));
  EXPECT_THAT(r.log, HasSubstr("connections[2]: 'a.y' (Float64) cannot feed 'b.ud' (Float64): a "
                               "map needs integer, Enumeration or Boolean ends"));
  EXPECT_THAT(r.log, HasSubstr("connections[3]: 'a.e_out' (Int32) cannot feed 'b.flag' "
                               "(Boolean): a Boolean maps to a Boolean only"));
  EXPECT_THAT(r.log, HasSubstr("connections[4]: a map and a factor or offset exclude each other"));
  EXPECT_THAT(r.log, HasSubstr("connections[4].map[0].source must be a whole number, got 1.5"));
}

}  // namespace
}  // namespace cosimo
