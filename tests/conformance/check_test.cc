// What `cosimo run` (and `cosimo submit`, the same checks: units/src/scenario_check.cc) says
// about a scenario before anything runs (issue 46). CTest label `conformance`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace cosimo
