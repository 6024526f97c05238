// Conformance of the flags Cosimo passes to FMI calls (issue 46): each test runs a test FMU of
// tests/fmus that computes wrongly, or refuses, when Cosimo passes a flag the standard did not
// require. CTest label `conformance`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/conformance/conformance_util.h"

namespace cosimo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;
using testing::WriteFile;

// noSetFMUStatePriorToCurrentPoint (issue 46, 1). FMI 2.0.4 section 4.2.2: "fmi2True if
// fmi2SetFMUstate will no longer be called for time instants prior to currentCommunicationPoint
// in this simulation run [the slave can use this flag to flush a result buffer]" (FMI 3.0.1
// section 4.2.1 likewise for fmi3DoStep). fmiX_msd_flush restart every step from their last
// committed states when told false, as OSP's quarter-truck FMUs do: the oscillator would stay
// at x = 1. Cosimo's rollback restores only the start of the step being tried, which is not
// before the current communication point, so it says true, and with a non-iterative master
// (Jacobi) and with one that rolls back (fixed point, tentative steps) alike.
class NoSetPriorConformance : public ::testing::TestWithParam<const char*> {};

TEST_P(NoSetPriorConformance, TheFmuIsToldItsStepsAreFinal) {
  const std::string fmu = GetParam();
  for (const char* kind : {"JACOBI", "FIXED_POINT"}) {
    const std::string dir = TempDir("conformance-flush");
    std::string scenario = OneFmuScenario(fmu, 10.0, 0.01, "", {"x", "v"});
    const std::string jacobi = R"("kind": "JACOBI")";
    scenario.replace(scenario.find(jacobi), jacobi.size(),
                     std::string(R"("kind": ")") + kind + "\"");
    WriteFile(dir + "/s.json", scenario);
    const RunResult r = CosimoRun(dir, "flush", {dir + "/s.json"});
    ASSERT_EQ(r.code, 0) << kind << ": " << r.log;
    ExpectInBand(r.table, "u.x", MsdX, fmu + " " + kind);
    ExpectInBand(r.table, "u.v", MsdV, fmu + " " + kind);
  }
}

INSTANTIATE_TEST_SUITE_P(Fmus, NoSetPriorConformance,
                         ::testing::Values("fmi2_msd_flush", "fmi3_msd_flush"),
                         [](const auto& info) { return std::string(info.param); });

// FMI 3 hasEventMode="false" (issue 46, 4): every FMI 3 test FMU without hasEventMode refuses
// to be instantiated with eventModeUsed or earlyReturnAllowed (tests/fmus/fmi3_framework.c,
// after FMI 3.0.1 section 2.3.1: eventModeUsed "may only be fmi3True, if hasEventMode =
// fmi3True"), as the Reference FMU Roberts does. Cosimo asks for both only where the
// <CoSimulation> element declares hasEventMode: the FMUs without it run, the one with it
// handles its events in Event Mode.
TEST(EventModeConformance, EventModeIsRequestedOnlyWhereDeclared) {
  for (const char* fmu : {"fmi3_msd", "fmi3_msd_nostate", "fmi3_inputs", "fmi3_probe",
                          "fmi3_bouncing_ball", "fmi3_bouncing_ball_events"}) {
    const std::string dir = TempDir("conformance-event-mode");
    const RunResult r = CosimoRun(dir, fmu, {Fmu(fmu), "--stop-time", "0.5"});
    EXPECT_EQ(r.code, 0) << fmu << ": " << r.log;
    EXPECT_THAT(r.log, Not(HasSubstr("is not supported"))) << fmu;
  }
}

}  // namespace
}  // namespace cosimo
