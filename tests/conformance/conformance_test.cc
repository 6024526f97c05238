// The conformance runner (issue 29): every test FMU of tests/fmus run through `cosimo run` as a
// user would, as Co-Simulation and as Model Exchange, and its results compared with results
// computed independently (analytic solutions) within the FMI cross-check band: an error of at
// most 1e-3 of the signal's range on at least 99% of the points. CTest label `conformance`.
//
// Also: `cosimo run X.fmu` with the default record succeeds on every FMU in tests/fmus/ that
// is not broken on purpose, for FMI 1, FMI 2 and FMI 3 alike.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/conformance/conformance_util.h"
#include "tests/integration/process.h"

namespace cosimo {
namespace {

namespace fs = std::filesystem;
using testing::BinDir;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Process;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

// The ball dropped from 1 m at rest, g = 9.81, restitution 0.7: h(t) in closed form, bounce by
// bounce.
double BallH(double t) {
  const double g = 9.81, e = 0.7;
  double t0 = 0.0, h0 = 1.0, v0 = 0.0;
  for (int bounce = 0; bounce < 50; ++bounce) {
    // Next impact: h0 + v0 s - g s^2 / 2 = 0.
    const double s = (v0 + std::sqrt(v0 * v0 + 2.0 * g * h0)) / g;
    if (t <= t0 + s) {
      const double tau = t - t0;
      return h0 + v0 * tau - 0.5 * g * tau * tau;
    }
    const double v_impact = v0 - g * s;
    t0 += s, h0 = 0.0, v0 = -e * v_impact;
  }
  return 0.0;
}

struct Case {
  const char* fmu;
  bool me;  // run as Model Exchange (with a solver), else Co-Simulation
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.fmu << (c.me ? " ME" : " CS"); }

class MsdConformance : public ::testing::TestWithParam<Case> {};

TEST_P(MsdConformance, MatchesTheAnalyticOscillator) {
  const Case c = GetParam();
  const std::string dir = TempDir("conformance-msd");
  WriteFile(dir + "/s.json", OneFmuScenario(c.fmu, 10.0, 0.01, c.me ? kMe : "", {"x", "v"}));
  const RunResult r = CosimoRun(dir, "msd", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  ExpectInBand(r.table, "u.x", MsdX, c.fmu);
  ExpectInBand(r.table, "u.v", MsdV, c.fmu);
}

INSTANTIATE_TEST_SUITE_P(Fmus, MsdConformance,
                         ::testing::Values(Case{"fmi2_msd", false}, Case{"fmi2_msd", true},
                                           Case{"fmi3_msd", false}, Case{"fmi3_msd", true},
                                           Case{"fmi2_msd_me", true}, Case{"fmi1_msd_cs", false},
                                           Case{"fmi1_msd_me", true}),
                         [](const auto& info) {
                           return std::string(info.param.fmu) + (info.param.me ? "_ME" : "_CS");
                         });

class BallConformance : public ::testing::TestWithParam<Case> {};

// FMI 3 early return (issue 29, 1): fmi3_bouncing_ball_sloppy returns "early" at the end of
// every step at its own clock t_start + n h, 1.09 for the caller's 1.089 + 0.001 say. FMI 3.0.1
// section 4.2.1 (fmi3DoStep): lastSuccessfulTime is the FMU's own time, and an early return is
// handled in Event Mode. The steps of 1 ms make the two clocks disagree in the last bits often.
TEST_P(BallConformance, MatchesTheAnalyticBounces) {
  const Case c = GetParam();
  const std::string dir = TempDir("conformance-ball");
  WriteFile(dir + "/s.json", OneFmuScenario(c.fmu, 1.9, 0.001, c.me ? kMe : "", {"h"}));
  const RunResult r = CosimoRun(dir, "ball", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  ExpectInBand(r.table, "u.h", BallH, c.fmu);
}

INSTANTIATE_TEST_SUITE_P(
    Fmus, BallConformance,
    ::testing::Values(Case{"fmi2_bouncing_ball", false}, Case{"fmi2_bouncing_ball", true},
                      Case{"fmi3_bouncing_ball", false}, Case{"fmi3_bouncing_ball", true},
                      Case{"fmi3_bouncing_ball_events", false},
                      Case{"fmi3_bouncing_ball_sloppy", false}),
    [](const auto& info) { return std::string(info.param.fmu) + (info.param.me ? "_ME" : "_CS"); });

class InputsConformance : public ::testing::TestWithParam<Case> {};

// Unconnected inputs (issue 29, 2): neither connected nor in `parameters`, an input keeps the
// FMU's start value (FMI 2.0.4 section 2.2.7, FMI 3.0.1 section 2.4.7: start is the input's
// value until the importer sets another). Setting 0 fails the FMU: 0 is no item of its
// Enumeration input. x' = ud integrates the discrete input's start value 3, which Model
// Exchange may set only in Event Mode (FMI 2.0.4 section 3.2.3, FMI 3.0.1 section 3.2.1).
TEST_P(InputsConformance, UnconnectedInputsKeepTheirStartValues) {
  const Case c = GetParam();
  const bool fmi3 = std::string(c.fmu).rfind("fmi3", 0) == 0;
  const std::string dir = TempDir("conformance-inputs");
  WriteFile(dir + "/s.json",
            OneFmuScenario(c.fmu, 1.0, 0.01, c.me ? kMe : "", {"y", "x", "sum", "e_out"}));
  const RunResult r = CosimoRun(dir, "inputs", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  ExpectInBand(
      r.table, "u.y", [](double) { return 2.0; }, c.fmu);  // k u = 1 * 2
  ExpectInBand(
      r.table, "u.x", [](double t) { return 3.0 * t; }, c.fmu);
  // u + ud + n + e + flag (+ count, FMI 3) = 2 + 3 + 4 + 1 + 1 (+ 6)
  ExpectInBand(
      r.table, "u.sum", [fmi3](double) { return fmi3 ? 17.0 : 11.0; }, c.fmu);
  ExpectInBand(
      r.table, "u.e_out", [](double) { return 1.0; }, c.fmu);
}

// `parameters` naming an input (issue 29, 3): the value is the input's start value and stays
// while the input is unconnected (an SSP binding k = 13 and u = 14: y = 182, as the exporting
// tool computes), Enumeration and discrete inputs included.
TEST_P(InputsConformance, ParametersNamingInputsHoldThem) {
  const Case c = GetParam();
  const std::string dir = TempDir("conformance-inputs");
  WriteFile(dir + "/s.json", OneFmuScenario(c.fmu, 1.0, 0.01, c.me ? kMe : "", {"y", "x", "e_out"},
                                            R"({ "k": 13, "u": 14, "ud": -2, "e": 3 })"));
  const RunResult r = CosimoRun(dir, "held", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  ExpectInBand(
      r.table, "u.y", [](double) { return 182.0; }, c.fmu);
  ExpectInBand(
      r.table, "u.x", [](double t) { return -2.0 * t; }, c.fmu);
  ExpectInBand(
      r.table, "u.e_out", [](double) { return 3.0; }, c.fmu);
}

INSTANTIATE_TEST_SUITE_P(Fmus, InputsConformance,
                         ::testing::Values(Case{"fmi2_inputs", false}, Case{"fmi2_inputs", true},
                                           Case{"fmi3_inputs", false}, Case{"fmi3_inputs", true}),
                         [](const auto& info) {
                           return std::string(info.param.fmu) + (info.param.me ? "_ME" : "_CS");
                         });

// Table inputs into discrete and integer inputs (issue 29, 5 and 6). A table stepping ud from 1
// to 4 at t = 0.5 drives the Model Exchange FMU's discrete input: set in Event Mode at the
// communication points, x = t, then 0.5 + 4 (t - 0.5). A linear table feeding a discrete input
// holds its previous sample (an interpolated 1.5000000000000004 is no value the signal had); a
// sample that is not an integer, sent to the Enumeration input, is an error naming the input,
// never a rounded value.
TEST(TableIntoDiscreteInputs, ADiscreteRealInputIsSetInEventMode) {
  for (const char* fmu : {"fmi2_inputs", "fmi3_inputs"}) {
    const std::string dir = TempDir("conformance-table");
    WriteFile(dir + "/ud.csv", "time,ud\n0,1\n0.5,1\n0.5,4\n1,4\n");
    WriteFile(dir + "/s.json", R"({ "name": "t", "stop_time": 1,
      "units": [ { "name": "u", "fmu": { "path": ")" +
                                   Fmu(fmu) + R"(" }, "solver": )" + kMe +
                                   R"( },
                 { "name": "tab", "table": { "path": "ud.csv" } } ],
      "connections": [ { "from": "tab.ud", "to": "u.ud" } ],
      "algorithm": { "kind": "JACOBI", "step_size": 0.05 }, "record": [ "u.x" ] })");
    const RunResult r = CosimoRun(dir, "table", {dir + "/s.json"});
    ASSERT_EQ(r.code, 0) << fmu << ": " << r.log;
    ExpectInBand(
        r.table, "u.x", [](double t) { return t <= 0.5 ? t : 0.5 + 4.0 * (t - 0.5); }, fmu);
  }
}

TEST(TableIntoDiscreteInputs, ALinearTableHoldsItsSamplesForADiscreteInput) {
  for (const char* fmu : {"fmi2_inputs", "fmi3_inputs"}) {
    for (const char* solver : {"", kMe}) {
      const std::string dir = TempDir("conformance-table");
      WriteFile(dir + "/ud.csv", "time,ud,e\n0,1,1\n0.5,2,2\n1,3,3\n");
      WriteFile(dir + "/s.json", R"({ "name": "t", "stop_time": 1,
        "units": [ { "name": "u", "fmu": { "path": ")" +
                                     Fmu(fmu) + "\" }" +
                                     (*solver != 0 ? std::string(", \"solver\": ") + solver : "") +
                                     R"( },
                   { "name": "tab", "table": { "path": "ud.csv" } } ],
        "connections": [ { "from": "tab.ud", "to": "u.ud" }, { "from": "tab.e", "to": "u.e" } ],
        "algorithm": { "kind": "JACOBI", "step_size": 0.1 }, "record": [ "u.x", "u.e_out" ] })");
      const RunResult r = CosimoRun(dir, "linear", {dir + "/s.json"});
      ASSERT_EQ(r.code, 0) << fmu << ": " << r.log;
      const std::string what = std::string(fmu) + (*solver != 0 ? " ME" : " CS");
      ExpectInBand(
          r.table, "u.x", [](double t) { return t <= 0.5 ? t : 0.5 + 2.0 * (t - 0.5); }, what);
      // The outputs at the end of a step [t, t + h] follow the inputs of t (ZOH): e_out is 2
      // from t = 0.6 on, and the sample 3 of t = 1 comes after the run.
      ExpectInBand(
          r.table, "u.e_out", [](double t) { return t <= 0.5 + 1e-9 ? 1.0 : 2.0; }, what);
    }
  }
}

TEST(TableIntoDiscreteInputs, ANonIntegerValueForAnIntegerInputIsAnError) {
  for (const char* fmu : {"fmi2_inputs", "fmi3_inputs"}) {
    const std::string dir = TempDir("conformance-table");
    WriteFile(dir + "/e.csv", "time,e\n0,1\n0.5,1.5\n1,2\n");
    WriteFile(dir + "/s.json", R"({ "name": "t", "stop_time": 1,
      "units": [ { "name": "u", "fmu": { "path": ")" +
                                   Fmu(fmu) + R"(" } },
                 { "name": "tab", "table": { "path": "e.csv" } } ],
      "connections": [ { "from": "tab.e", "to": "u.e" } ],
      "algorithm": { "kind": "JACOBI", "step_size": 0.25 }, "record": [ "u.y" ] })");
    const RunResult r = CosimoRun(dir, "table", {dir + "/s.json"});
    EXPECT_NE(r.code, 0) << fmu;
    EXPECT_THAT(r.log, HasSubstr("input 'e' (Int")) << fmu;
    EXPECT_THAT(r.log, HasSubstr("was sent 1.5")) << fmu;
  }
}

// `cosimo run X.fmu` with the default record (issue 29, 7): on every test FMU that is not
// broken on purpose, FMI 1, FMI 2 and FMI 3, Model-Exchange-only ones included (CVODE is
// picked).
TEST(DefaultRun, EveryTestFmuRuns) {
  const std::vector<std::string> broken = {"error",    "crash",  "evil",
                                           "absolute", "link",   "missing_dep",
                                           "msd_se",   "refuse", "no_event_mode"};
  const std::string dir = TempDir("conformance-default");
  int runs = 0;
  for (const auto& entry : fs::directory_iterator(std::string(COSIMO_BINARY_DIR) + "/fmus")) {
    const std::string name = entry.path().stem().string();
    if (entry.path().extension() != ".fmu") continue;
    if (std::any_of(broken.begin(), broken.end(),
                    [&](const std::string& b) { return name.find(b) != std::string::npos; })) {
      continue;
    }
    const RunResult r = CosimoRun(dir, name, {entry.path().string(), "--stop-time", "0.5"});
    EXPECT_EQ(r.code, 0) << name << ": " << r.log;
    EXPECT_GT(r.table.rows.size(), 1u) << name;
    ++runs;
  }
  EXPECT_GE(runs, 15);
}

// FMI 3 Binary variables (issue 29, 4) are recorded as hexadecimal text, two digits a byte
// (fmi3GetBinary), by default like every output.
TEST(DefaultRun, ABinaryOutputIsRecordedAsHex) {
  const std::string dir = TempDir("conformance-default");
  const RunResult r = CosimoRun(dir, "binary", {Fmu("fmi3_inputs")});
  ASSERT_EQ(r.code, 0) << r.log;
  ASSERT_GE(r.table.Column("inputs.blob"), 0);
  EXPECT_THAT(ReadFile(dir + "/binary.csv"), HasSubstr("cafe01"));
}

// Many Modelica exports have no outputs: their continuous states and derivatives are recorded.
TEST(DefaultRun, AnFmuWithoutOutputsRecordsItsStatesAndDerivatives) {
  const std::string dir = TempDir("conformance-default");
  const RunResult r = CosimoRun(dir, "locals", {Fmu("fmi2_msd_locals")});
  ASSERT_EQ(r.code, 0) << r.log;
  EXPECT_THAT(r.log, HasSubstr("no output to record: recording its continuous states and their "
                               "derivatives (4 variables)"));
  ExpectInBand(r.table, "msd.x", MsdX, "fmi2_msd_locals");
  ExpectInBand(r.table, "msd.v", MsdV, "fmi2_msd_locals");
  ExpectInBand(r.table, "msd.der_x", MsdV, "fmi2_msd_locals");
}

// Scheduled Execution runs the partitions of input clocks (clocks_test.cc): an FMU that offers
// only it and has no such clock has nothing to run, and the scenario check says so (exit code 2).
TEST(DefaultRun, AScheduledExecutionOnlyFmuWithoutClocksIsRefusedAsSuch) {
  const std::string dir = TempDir("conformance-default");
  const RunResult r = CosimoRun(dir, "se", {Fmu("fmi3_msd_se")});
  EXPECT_EQ(r.code, 2) << r.log;
  EXPECT_THAT(r.log, HasSubstr("offers only Scheduled Execution and has no input clock"));
  EXPECT_THAT(r.log, Not(HasSubstr("give the unit a solver")));
}

// fmi3InstantiateCoSimulation returning NULL: the error carries what the FMU logged before.
TEST(DefaultRun, AnInstanceRefusedSaysWhatTheFmuLogged) {
  const std::string dir = TempDir("conformance-default");
  const RunResult r = CosimoRun(dir, "refuse", {Fmu("fmi3_refuse")});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log, HasSubstr("fmi3InstantiateCoSimulation returned NULL"));
  EXPECT_THAT(r.log, HasSubstr("the FMU logged: no licence for this host"));
}

TEST(DefaultRun, AModelExchangeOnlyFmuGetsCvodeAndSaysSo) {
  const std::string dir = TempDir("conformance-default");
  const RunResult r = CosimoRun(dir, "me", {Fmu("fmi2_msd_me"), "--stop-time", "10"});
  ASSERT_EQ(r.code, 0) << r.log;
  EXPECT_THAT(r.log, HasSubstr("offers only Model Exchange: solver CVODE"));
  ExpectInBand(r.table, "msd.x", MsdX, "fmi2_msd_me");
}

// FMI 3 arrays (issue 29, 4). fmi3_arrays: Y[i,j] = A[i,j] (u[j] + t), v[j] = u[j] + t, with A
// 2x3 (start 1 .. 6) and u of n = 3 values (a structural parameter; start 0.5 0.25 0.125).
// FMI 3.0.1 section 2.4.7.6: an array's values in row-major order, element i,j named
// "Y[i,j]" with 1-based indices; fmi3Get/SetFloat64 transfer all of an array's values for its
// one value reference (section 2.2.6.2).
constexpr double kArrayA[2][3] = {{1, 2, 3}, {4, 5, 6}};
constexpr double kArrayU[3] = {0.5, 0.25, 0.125};

std::string ArrayElement(const char* name, int i, int j) {
  return std::string("u.") + name + "[" + std::to_string(i + 1) + "," + std::to_string(j + 1) + "]";
}

class ArraysConformance : public ::testing::TestWithParam<bool> {};

TEST_P(ArraysConformance, AWholeArrayRecordsOneColumnPerElementInRowMajorOrder) {
  const bool me = GetParam();
  const std::string dir = TempDir("conformance-arrays");
  WriteFile(dir + "/s.json",
            OneFmuScenario("fmi3_arrays", 1.0, 0.01, me ? kMe : "", {"Y", "v", "s", "n"}));
  const RunResult r = CosimoRun(dir, "arrays", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  EXPECT_THAT(r.table.names, ::testing::ElementsAre("time", "u.Y[1,1]", "u.Y[1,2]", "u.Y[1,3]",
                                                    "u.Y[2,1]", "u.Y[2,2]", "u.Y[2,3]", "u.v[1]",
                                                    "u.v[2]", "u.v[3]", "u.s", "u.n"));
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      ExpectInBand(
          r.table, ArrayElement("Y", i, j),
          [=](double t) { return kArrayA[i][j] * (kArrayU[j] + t); }, me ? "ME" : "CS");
    }
  }
  for (int j = 0; j < 3; ++j) {
    ExpectInBand(
        r.table, "u.v[" + std::to_string(j + 1) + "]", [=](double t) { return kArrayU[j] + t; },
        me ? "ME" : "CS");
  }
  ExpectInBand(
      r.table, "u.s", [](double t) { return 21.0 * t + 0.5 * 5 + 0.25 * 7 + 0.125 * 9; },
      me ? "ME" : "CS");
}

// Array parameters from JSON lists, nested per dimension or flat (row-major), an array input
// named in `parameters` held while unconnected, and one element set alone.
TEST_P(ArraysConformance, ArrayParametersAndInputsAreSetFromLists) {
  const bool me = GetParam();
  const std::string dir = TempDir("conformance-arrays");
  WriteFile(dir + "/s.json",
            OneFmuScenario("fmi3_arrays", 1.0, 0.01, me ? kMe : "", {"Y"},
                           R"({ "A": [[2, 0, 0], [0, 0, -1]], "u": [1, 2, 3], "u[2]": 5 })"));
  const RunResult r = CosimoRun(dir, "lists", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  const double a[2][3] = {{2, 0, 0}, {0, 0, -1}};
  // "u[2]": 5 is applied after "u" (parameters are applied in name order).
  const double u[3] = {1, 5, 3};
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      ExpectInBand(
          r.table, ArrayElement("Y", i, j), [=](double t) { return a[i][j] * (u[j] + t); },
          me ? "ME" : "CS");
    }
  }
  WriteFile(dir + "/flat.json", OneFmuScenario("fmi3_arrays", 1.0, 0.01, me ? kMe : "", {"Y"},
                                               R"({ "A": [0, 0, 0, 0, 0, 7] })"));
  const RunResult flat = CosimoRun(dir, "flat", {dir + "/flat.json"});
  ASSERT_EQ(flat.code, 0) << flat.log;
  ExpectInBand(
      flat.table, "u.Y[2,3]", [](double t) { return 7.0 * (0.125 + t); }, "flat");
  ExpectInBand(
      flat.table, "u.Y[1,1]", [](double) { return 0.0; }, "flat");
}

INSTANTIATE_TEST_SUITE_P(Fmus, ArraysConformance, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "ME" : "CS"; });

TEST(Arrays, AListOfTheWrongLengthIsRefusedNamingTheParameterAndTheShape) {
  const std::string dir = TempDir("conformance-arrays");
  WriteFile(dir + "/s.json",
            OneFmuScenario("fmi3_arrays", 1.0, 0.1, "", {"Y"}, R"({ "A": [1, 2, 3] })"));
  const RunResult r = CosimoRun(dir, "short", {dir + "/s.json"});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log, HasSubstr("parameter 'A': the list has 3 values"));
  EXPECT_THAT(r.log, HasSubstr("(2x3) takes a list of 6 numbers in row-major order"));
}

// Two units: a's v feeds b's u as a whole (same shape: element by element), and one element of
// a's Y feeds one element of c's u. Jacobi with zero-order hold: what a unit records at t_k+1
// is the input it held over [t_k, t_k+1], its source's output at t_k.
TEST(Arrays, ArraysOfTheSameShapeConnectElementByElement) {
  const std::string dir = TempDir("conformance-arrays");
  const std::string fmu = Fmu("fmi3_arrays");
  WriteFile(dir + "/s.json", R"({ "name": "arrays", "stop_time": 1,
    "units": [ { "name": "a", "fmu": { "path": ")" +
                                 fmu + R"(" } },
               { "name": "b", "fmu": { "path": ")" +
                                 fmu + R"(" } },
               { "name": "c", "fmu": { "path": ")" +
                                 fmu + R"(" } } ],
    "connections": [ { "from": "a.v", "to": "b.u" }, { "from": "a.Y[2,3]", "to": "c.u[1]" } ],
    "algorithm": { "kind": "JACOBI", "step_size": 0.1 },
    "record": [ "a.v", "a.Y[2,3]", "b.u", "c.u" ] })");
  const RunResult r = CosimoRun(dir, "connected", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  ASSERT_GE(r.table.rows.size(), 10u);
  const Table& t = r.table;
  for (size_t k = 1; k < t.rows.size(); ++k) {
    for (int j = 1; j <= 3; ++j) {
      const std::string e = "[" + std::to_string(j) + "]";
      EXPECT_NEAR(t.rows[k][t.Column("b.u" + e)], t.rows[k - 1][t.Column("a.v" + e)], 1e-12)
          << "row " << k << " element " << j;
    }
    EXPECT_NEAR(t.rows[k][t.Column("c.u[1]")], t.rows[k - 1][t.Column("a.Y[2,3]")], 1e-12);
    // c's other elements are not connected: they keep their start values.
    EXPECT_EQ(t.rows[k][t.Column("c.u[2]")], 0.25);
    EXPECT_EQ(t.rows[k][t.Column("c.u[3]")], 0.125);
  }
}

TEST(Arrays, ArraysOfDifferentShapesAreRefused) {
  const std::string dir = TempDir("conformance-arrays");
  const std::string fmu = Fmu("fmi3_arrays");
  WriteFile(dir + "/s.json", R"({ "name": "arrays", "stop_time": 1,
    "units": [ { "name": "a", "fmu": { "path": ")" +
                                 fmu + R"(" } },
               { "name": "b", "fmu": { "path": ")" +
                                 fmu + R"(" } } ],
    "connections": [ { "from": "a.Y", "to": "b.u" } ],
    "algorithm": { "kind": "JACOBI", "step_size": 0.1 } })");
  const RunResult r = CosimoRun(dir, "shapes", {dir + "/s.json"});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log, HasSubstr("connections[0]: 'a.Y' (6 values, last 'Y[2,3]') and 'b.u' (3 "
                               "values, last 'u[3]') are not of the same shape"));
}

// Built-in models (issue 29, 3 and 8): a parameter naming an input holds it while it is
// unconnected (car_vehicle's F = 1576 N: m v' = F - c_f v from v0 = 0), and der(<state>) is
// recordable as docs/models.md says, here (F - c_f v) / m.
TEST(Builtins, AParameterHoldsAnInputAndDerOfAStateIsRecorded) {
  const std::string dir = TempDir("conformance-builtin");
  WriteFile(dir + "/s.json", R"json({ "name": "b", "stop_time": 10,
    "units": [ { "name": "vehicle", "builtin": { "model": "car_vehicle" },
                 "parameters": { "F": 1576 }, "solver": { "method": "RK4", "step": 0.01 } } ],
    "algorithm": { "kind": "JACOBI", "step_size": 0.1 },
    "record": [ "vehicle.v", "vehicle.der(v)" ] })json");
  const RunResult r = CosimoRun(dir, "builtin", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  const double m = 1576.0, c_f = 0.5, f = 1576.0;
  const auto v = [&](double t) { return f / c_f * (1.0 - std::exp(-c_f * t / m)); };
  ExpectInBand(r.table, "vehicle.v", v, "car_vehicle");
  ExpectInBand(
      r.table, "vehicle.der(v)", [&](double t) { return (f - c_f * v(t)) / m; }, "car_vehicle");
}

TEST(Builtins, AParameterNamingAConnectedInputIsRefused) {
  const std::string dir = TempDir("conformance-builtin");
  WriteFile(dir + "/s.json", R"({ "name": "b", "stop_time": 1,
    "units": [ { "name": "controller", "builtin": { "model": "car_controller" } },
               { "name": "vehicle", "builtin": { "model": "car_vehicle" },
                 "parameters": { "F": 1576 } } ],
    "connections": [ { "from": "controller.F", "to": "vehicle.F" },
                     { "from": "vehicle.v", "to": "controller.v" } ],
    "algorithm": { "kind": "JACOBI", "step_size": 0.1 } })");
  const RunResult r = CosimoRun(dir, "connected", {dir + "/s.json"});
  EXPECT_NE(r.code, 0);
  EXPECT_THAT(r.log,
              HasSubstr("parameters.F gives a value to input 'F', which a connection feeds"));
}

}  // namespace
}  // namespace cosimo
