// FMI 1.0 conformance (issue 43): `cosimo run MODEL.fmu` on the FMI 1.0 test FMUs with the
// default record, as a user would run an FMI 1.0 export, against the analytic oscillator; their
// negated aliases; a failing FMI 1.0 call's message. (The msd cases of conformance_test.cc run
// them through a scenario too.) CTest label `conformance`.
//
// fmi1_msd_cs and fmi1_msd_me (tests/fmus/fmi1_msd.xml.in) are the msd FMUs in FMI 1.0: x(0) = 1,
// v(0) = 0, m = c = 1, cf = 0.2, DefaultExperiment stopTime 10; `position` an alias of x, neg_x
// and neg_v negated aliases of x and v (FMI 1.0 section 2.10: alias="negatedAlias", the value is
// minus the variable's).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/conformance/conformance_util.h"

namespace cosimo {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;
using testing::WriteFile;

class Fmi1Conformance : public ::testing::TestWithParam<const char*> {};

// The unit is named after the modelName, every output recorded, until DefaultExperiment's
// stopTime; the Model Exchange FMU is integrated by CVODE at DefaultExperiment's tolerance.
TEST_P(Fmi1Conformance, CosimoRunModelFmuRunsWithTheDefaultRecord) {
  const std::string dir = TempDir("conformance-fmi1");
  const RunResult r = CosimoRun(dir, GetParam(), {Fmu(GetParam())});
  ASSERT_EQ(r.code, 0) << r.log;
  EXPECT_THAT(r.table.names, ElementsAre("time", "msd.x", "msd.v", "msd.steps", "msd.position"));
  ASSERT_FALSE(r.table.rows.empty());
  EXPECT_EQ(r.table.rows.back()[0], 10.0);
  ExpectInBand(r.table, "msd.x", MsdX, GetParam());
  ExpectInBand(r.table, "msd.v", MsdV, GetParam());
  ExpectInBand(r.table, "msd.position", MsdX, GetParam());
}

TEST_P(Fmi1Conformance, NegatedAliasesAreRecordedNegated) {
  const bool me = std::string(GetParam()).find("_me") != std::string::npos;
  const std::string dir = TempDir("conformance-fmi1");
  WriteFile(dir + "/s.json",
            OneFmuScenario(GetParam(), 10.0, 0.01, me ? kMe : "", {"neg_x", "neg_v", "undamped"}));
  const RunResult r = CosimoRun(dir, "negated", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  ExpectInBand(
      r.table, "u.neg_x", [](double t) { return -MsdX(t); }, GetParam());
  ExpectInBand(
      r.table, "u.neg_v", [](double t) { return -MsdV(t); }, GetParam());
  ExpectInBand(
      r.table, "u.undamped", [](double) { return 0.0; }, GetParam());  // damping is true
}

INSTANTIATE_TEST_SUITE_P(Fmus, Fmi1Conformance, ::testing::Values("fmi1_msd_cs", "fmi1_msd_me"));

// A failing call names the unit, the FMI 1.0 function, the status it returned and the time, and
// what the FMU logged; the run fails.
TEST(Fmi1ConformanceErrors, AFailingCallIsNamedWithItsStatus) {
  const std::string dir = TempDir("conformance-fmi1");
  const RunResult r = CosimoRun(dir, "error", {Fmu("fmi1_error")});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log, HasSubstr("unit 'msd': fmiDoStep returned fmiError at t=0."));
  EXPECT_THAT(r.log, HasSubstr("reaches fail_time=0.5"));
}

}  // namespace
}  // namespace cosimo
