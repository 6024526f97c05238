// `cosimo fit` (docs/calibration.md) on synthetic data the test makes from known parameters: the
// scenario run in this process with the true values, its recorded variable interpolated
// linearly at measurement times between the communication points, plus normal noise of a known
// deviation. The estimates must lie within 3 standard errors of the truth: the car's mass and
// friction (Levenberg-Marquardt, here: one calibration job of the in-process orchestrator; its
// measured data beside the best run in measured.csv, and `cosimo plot` of them), a test
// FMU's stiffness and damping (here, by its forward sensitivities and by finite differences), and
// over the service (CMA-ES, one calibration job) a parameter with no effect on the data, flagged as
// not determined, with the same seed giving the same iterations bit for bit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

// GCC 12 warns falsely about std::string's inlined copies here too (-Wstringop-overread, its
// bug 105651; tests/CMakeLists.txt turns off its siblings for every test).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif

#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cosimo/common/csv.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sweep_design.h"
#include "tests/integration/fixture.h"
#include "tests/integration/process.h"

namespace cosimo::testing {
namespace {

// The measured CSV "time,measured": `variable` of `scenario` (run here) at `times`, linear
// between rows, plus sigma * N(0, 1) noise from std::mt19937_64(seed).
std::string MeasuredCsv(const std::string& scenario_json, const std::string& variable,
                        const std::vector<double>& times, double sigma, uint64_t seed) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(scenario_json);
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  const master::MasterResult r = InProcess(*scenario);
  const size_t w = r.columns.size();
  const size_t c = static_cast<size_t>(std::find(r.columns.begin(), r.columns.end(), variable) -
                                       r.columns.begin());
  EXPECT_LT(c, w);
  std::mt19937_64 rng(seed);
  std::string csv = "time,measured\n";
  for (double t : times) {
    size_t i = 0;
    while (i + 2 < r.rows() && r.values[(i + 1) * w] <= t) ++i;
    const double t0 = r.values[i * w], t1 = r.values[(i + 1) * w];
    const double y0 = r.values[i * w + c], y1 = r.values[(i + 1) * w + c];
    const double y = y0 + (t - t0) / (t1 - t0) * (y1 - y0) + sigma * StandardNormal(rng);
    csv += FormatDouble(t) + "," + FormatDouble(y) + "\n";
  }
  return csv;
}

std::vector<double> Times(double first, double step, int n) {
  std::vector<double> t;
  for (int i = 0; i < n; ++i) t.push_back(first + step * i);
  return t;
}

// estimates.csv's row of `name`: estimate, standard error, determined.
struct Estimate {
  double value = NAN, standard_error = NAN;
  std::string determined;
};
Estimate ReadEstimate(const std::string& dir, const std::string& name) {
  absl::StatusOr<ResultTable> t = ReadCsvFile(dir + "/estimates.csv");
  EXPECT_TRUE(t.ok()) << t.status();
  if (!t.ok()) return {};
  const size_t w = t->columns.size();
  for (size_t r = 0; r < t->rows(); ++r) {
    if (t->strings[2 * r] == name) {
      return {t->values[r * w + 1], t->values[r * w + 2], t->strings[2 * r + 1]};
    }
  }
  ADD_FAILURE() << "no estimate of " << name;
  return {};
}

void ExpectWithinThreeStandardErrors(const std::string& dir, const std::string& name,
                                     double truth) {
  const Estimate e = ReadEstimate(dir, name);
  EXPECT_EQ(e.determined, "yes") << name;
  EXPECT_GT(e.standard_error, 0.0) << name;
  EXPECT_LE(std::fabs(e.value - truth), 3.0 * e.standard_error)
      << name << " = " << e.value << " +- " << e.standard_error << ", truth " << truth;
}

// `cosimo fit` (with `extra` arguments) of the calibration `calibration(jacobian)` for each of
// the two `jacobians` in `dir` (DIR/<jacobian>.json, its results in DIR/<jacobian>, its log in
// `logs`); then the same estimates and standard errors of `parameters` both ways, within 1 % of
// a standard error.
void FitBothWays(const std::string& dir,
                 const std::function<std::string(const std::string&)>& calibration,
                 const std::array<std::string, 2>& jacobians, const std::vector<std::string>& extra,
                 const std::vector<std::string>& parameters,
                 std::map<std::string, std::string>* logs) {
  for (const std::string& jacobian : jacobians) {
    WriteFile(dir + "/" + jacobian + ".json", calibration(jacobian));
    std::vector<std::string> argv = {BinDir() + "/cosimo", "fit", dir + "/" + jacobian + ".json",
                                     "--out-dir", dir + "/" + jacobian};
    argv.insert(argv.end(), extra.begin(), extra.end());
    Process fit(argv, dir + "/" + jacobian + ".log");
    ASSERT_EQ(fit.Wait(std::chrono::seconds(300)), 0) << fit.log();
    (*logs)[jacobian] = fit.log();
  }
  for (const std::string& name : parameters) {
    const Estimate a = ReadEstimate(dir + "/" + jacobians[0], name);
    const Estimate b = ReadEstimate(dir + "/" + jacobians[1], name);
    EXPECT_NEAR(a.value, b.value, 0.01 * b.standard_error) << name;
    EXPECT_NEAR(a.standard_error, b.standard_error, 0.01 * b.standard_error) << name;
  }
}

// measured.csv of a fit with a linear loss and one measured column of `samples` samples: the
// best run's values at the measured times (between its rows), residuals whose squares sum to the
// fit's objective; and `cosimo plot` of the folder draws them: a marker per sample, the best run
// as a line.
void ExpectTheMeasuredDataBesideTheBestRun(const std::string& dir, const ResultTable& best,
                                           const ResultTable& iterations, size_t samples) {
  absl::StatusOr<ResultTable> measured = ReadCsvFile(dir + "/measured.csv");
  ASSERT_TRUE(measured.ok()) << measured.status();
  ASSERT_EQ(measured->columns, (std::vector<std::string>{"column", "variable", "time", "measured",
                                                         "simulated", "residual"}));
  ASSERT_EQ(measured->rows(), samples);
  const size_t w = measured->columns.size();
  double sum = 0;
  for (size_t r = 0; r < samples; ++r) {
    const double t = measured->values[r * w + 2], simulated = measured->values[r * w + 4];
    // Between the best run's rows around t (0.1 s apart): the line through them there.
    const size_t row = static_cast<size_t>(t / 0.1);
    const double y0 = best.values[row * 2 + 1], y1 = best.values[(row + 1) * 2 + 1];
    EXPECT_NEAR(simulated, y0 + (t - best.values[row * 2]) / 0.1 * (y1 - y0), 1e-9) << t;
    sum += std::pow(measured->values[r * w + 5], 2);
  }
  const double objective = iterations.values[iterations.values.size() - iterations.columns.size() +
                                             2];  // the last iteration's best objective
  EXPECT_NEAR(sum, objective, 1e-9 * objective);
  Process plot({BinDir() + "/cosimo", "plot", dir, "--out", dir + "/fit.svg"}, dir + "/plot.log");
  ASSERT_EQ(plot.Wait(std::chrono::seconds(60)), 0) << plot.log();
  const std::string svg = ReadFile(dir + "/fit.svg");
  size_t markers = 0;
  for (size_t at = svg.find("<title>measured at "); at != std::string::npos;
       at = svg.find("<title>measured at ", at + 1)) {
    ++markers;
  }
  EXPECT_EQ(markers, samples);
  EXPECT_THAT(svg, ::testing::HasSubstr("class=\"series\" data-variable=\"vehicle.v\""));
}

// The car with a gain k = 300, so that the friction matters: v' = (k (40 - v) - c_f v) / m.
std::string Car(double m, double c_f, const std::string& extra_unit = "") {
  return R"({"name": "car", "stop_time": 10,
    "units": [
      {"name": "controller", "builtin": {"model": "car_controller", "parameters": {"k": 300}}},
      {"name": "vehicle", "builtin": {"model": "car_vehicle", "parameters": {"m": )" +
         FormatDouble(m) + R"(, "c_f": )" + FormatDouble(c_f) +
         R"(}}, "solver": {"method": "RK4", "step": 0.01}})" + extra_unit + R"(],
    "connections": [ {"from": "vehicle.v", "to": "controller.v"},
                     {"from": "controller.F", "to": "vehicle.F"} ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.1}, "record": ["vehicle.v"]})";
}

TEST(FitCommandTest, TheCarsMassAndFrictionWithinThreeStandardErrors) {
  const std::string dir = TempDir("cosimo-fit");
  WriteFile(dir + "/car.json", Car(1500, 10));
  // Measured off the communication points (0.25, 0.55, ...), deviation 0.05 m/s.
  WriteFile(dir + "/bench.csv",
            MeasuredCsv(Car(1200, 60), "vehicle.v", Times(0.25, 0.3, 33), 0.05, 5));
  WriteFile(dir + "/fit.json", R"({"scenario_file": "car.json",
    "parameters": [ {"name": "vehicle.m", "start": 1800, "lower": 500, "upper": 3000},
                    {"name": "vehicle.c_f", "start": 20, "lower": 1, "upper": 500, "scale": "log"} ],
    "data": {"csv": "bench.csv",
             "columns": [ {"column": "measured", "variable": "vehicle.v",
                           "standard_deviation": 0.05} ]},
    "optimizer": {"kind": "levenberg_marquardt", "max_iterations": 30}})");
  Process fit({BinDir() + "/cosimo", "fit", dir + "/fit.json", "--out-dir", dir + "/out",
               "--parallel", "2"},
              dir + "/fit.log");
  ASSERT_EQ(fit.Wait(std::chrono::seconds(300)), 0) << fit.log();
  EXPECT_THAT(fit.log(), ::testing::HasSubstr("iteration 1 ("));
  ExpectWithinThreeStandardErrors(dir + "/out", "vehicle.m", 1200);
  ExpectWithinThreeStandardErrors(dir + "/out", "vehicle.c_f", 60);
  absl::StatusOr<ResultTable> best = ReadCsvFile(dir + "/out/best.csv");
  ASSERT_TRUE(best.ok()) << best.status();
  EXPECT_EQ(best->columns, (std::vector<std::string>{"time", "vehicle.v"}));
  EXPECT_EQ(best->rows(), 101u);
  absl::StatusOr<ResultTable> iterations = ReadCsvFile(dir + "/out/iterations.csv");
  ASSERT_TRUE(iterations.ok());
  EXPECT_GE(iterations->rows(), 2u);
  ExpectTheMeasuredDataBesideTheBestRun(dir + "/out", *best, *iterations, 33);
  std::filesystem::remove_all(dir);
}

// The car's fit by Levenberg-Marquardt with each kind of Jacobian: forward sensitivities (the
// default for built-in units: one run per Jacobian) and finite differences of variants; the same
// estimates and standard errors.
TEST(FitCommandTest, SensitivitiesAndFiniteDifferencesGiveTheSameEstimates) {
  const std::string dir = TempDir("cosimo-fit-jacobians");
  WriteFile(dir + "/car.json", Car(1500, 10));
  WriteFile(dir + "/bench.csv",
            MeasuredCsv(Car(1200, 60), "vehicle.v", Times(0.25, 0.3, 33), 0.05, 5));
  std::map<std::string, std::string> logs;
  ASSERT_NO_FATAL_FAILURE(FitBothWays(
      dir,
      [](const std::string& jacobian) {
        return R"({"scenario_file": "car.json",
      "parameters": [ {"name": "vehicle.m", "start": 1800, "lower": 500, "upper": 3000},
                      {"name": "vehicle.c_f", "start": 20, "lower": 1, "upper": 500,
                       "scale": "log"} ],
      "data": {"csv": "bench.csv",
               "columns": [ {"column": "measured", "variable": "vehicle.v",
                             "standard_deviation": 0.05} ]},
      "optimizer": {"kind": "levenberg_marquardt", "max_iterations": 30, "jacobian": ")" +
               jacobian + R"("}})";
      },
      {"auto", "finite_differences"}, {}, {"vehicle.m", "vehicle.c_f"}, &logs));
  EXPECT_THAT(logs["auto"], ::testing::HasSubstr("Jacobian: forward sensitivities\n"));
  EXPECT_THAT(logs["finite_differences"],
              ::testing::HasSubstr("Jacobian: finite differences of variants (no forward "
                                   "sensitivities: optimizer.jacobian finite_differences)"));
  ExpectWithinThreeStandardErrors(dir + "/auto", "vehicle.m", 1200);
  ExpectWithinThreeStandardErrors(dir + "/auto", "vehicle.c_f", 60);
  std::filesystem::remove_all(dir);
}

// A test FMU run as Model Exchange (a solver): "sensitivities" takes the forward sensitivities
// of the FMU unit (one more instance of it per parameter and side), which give the estimates and
// standard errors finite differences of variants give; "auto" takes the latter, and says why.
TEST(FitCommandTest, AnFmusStiffnessAndDampingWithinThreeStandardErrors) {
  const std::string dir = TempDir("cosimo-fit-fmu");
  auto msd = [](double c, double cf) {
    return R"({"name": "msd", "stop_time": 5,
      "units": [ {"name": "msd", "fmu": {"path": ")" +
           std::string(COSIMO_BINARY_DIR) + R"(/fmus/fmi2_msd.fmu"}, "parameters": {"c": )" +
           FormatDouble(c) + R"(, "cf": )" + FormatDouble(cf) +
           R"(}, "solver": {"method": "RK4", "step": 0.01}} ],
      "algorithm": {"step_size": 0.05}, "record": ["msd.x"]})";
  };
  WriteFile(dir + "/msd.json", msd(2, 1));
  WriteFile(dir + "/x.csv", MeasuredCsv(msd(4, 0.4), "msd.x", Times(0.03, 0.1, 49), 0.01, 9));
  std::map<std::string, std::string> logs;
  ASSERT_NO_FATAL_FAILURE(FitBothWays(
      dir,
      [](const std::string& jacobian) {
        return R"({"scenario_file": "msd.json",
      "parameters": [ {"name": "msd.c", "start": 3, "lower": 0.5, "upper": 20},
                      {"name": "msd.cf", "start": 0.8, "lower": 0.01, "upper": 5,
                       "scale": "log"} ],
      "data": {"csv": "x.csv", "columns": [ {"column": "measured", "variable": "msd.x",
                                            "standard_deviation": 0.01} ]},
      "optimizer": {"kind": "levenberg_marquardt", "max_iterations": 30, "jacobian": ")" +
               jacobian + R"("}})";
      },
      {"sensitivities", "auto"}, {"--parallel", "2"}, {"msd.c", "msd.cf"}, &logs));
  // Forced, the FMU's sensitivities; under auto finite differences, which cost several times
  // less for an FMU (fig12.fmu.jacobians).
  EXPECT_THAT(logs["sensitivities"], ::testing::HasSubstr("Jacobian: forward sensitivities\n"));
  EXPECT_THAT(logs["auto"], ::testing::HasSubstr("unit 'msd' is an FMU: its sensitivities take"));
  ExpectWithinThreeStandardErrors(dir + "/sensitivities", "msd.c", 4);
  ExpectWithinThreeStandardErrors(dir + "/sensitivities", "msd.cf", 0.4);
  std::filesystem::remove_all(dir);
}

// Busch's dual-mass oscillator of examples/dual_mass.json (two units: mass 1 with its spring c1,
// mass 2 with the coupling spring c_c; Newton over the two, mass 1 without rollback) with
// c1 = `c1` and c_c = `c_c`.
std::string DualMass(double c1, double c_c) {
  return R"({"name": "dual_mass", "start_time": 0, "stop_time": 3,
    "units": [
      { "name": "m1", "builtin": { "model": "dual_mass_oscillator_1", "parameters": {"c1": )" +
         FormatDouble(c1) + R"(} }, "rollback": "FORBID" },
      { "name": "m2", "builtin": { "model": "dual_mass_oscillator_2", "parameters": {"c_c": )" +
         FormatDouble(c_c) + R"(} } } ],
    "connections": [ { "from": "m1.x1", "to": "m2.x1" }, { "from": "m1.v1", "to": "m2.v1" },
                     { "from": "m2.F_c", "to": "m1.F_c" } ],
    "algorithm": { "kind": "NEWTON", "step_size": 0.01, "input_approximation": "HERMITE",
                   "tolerance": 1e-10, "max_iterations": 20 },
    "record": [ "m1.x1", "m1.v1", "m2.x2", "m2.v2", "m2.F_c" ]})";
}

TEST(FitCommandTest, TheDualMassSpringsAcrossTwoUnitsWithinThreeStandardErrors) {
  const std::string dir = TempDir("cosimo-fit-dual-mass");
  WriteFile(dir + "/dual_mass.json", DualMass(10, 100));
  // Both masses' positions, deviation 0.002 m, each with noise of its own.
  const std::string x1 = MeasuredCsv(DualMass(14, 80), "m1.x1", Times(0.015, 0.05, 59), 0.002, 3);
  const std::string x2 = MeasuredCsv(DualMass(14, 80), "m2.x2", Times(0.015, 0.05, 59), 0.002, 4);
  std::string csv = "time,x1,x2\n";
  for (size_t a = x1.find('\n') + 1, b = x2.find('\n') + 1; a < x1.size();) {
    const size_t a_end = x1.find('\n', a), b_end = x2.find('\n', b);
    csv += x1.substr(a, a_end - a) + "," +
           x2.substr(x2.find(',', b) + 1, b_end - x2.find(',', b) - 1) + "\n";
    a = a_end + 1;
    b = b_end + 1;
  }
  WriteFile(dir + "/x.csv", csv);
  WriteFile(dir + "/fit.json", R"({"scenario_file": "dual_mass.json",
    "parameters": [ {"name": "m1.c1", "start": 10, "lower": 1, "upper": 50},
                    {"name": "m2.c_c", "start": 100, "lower": 20, "upper": 300, "scale": "log"} ],
    "data": {"csv": "x.csv", "columns": [
      {"column": "x1", "variable": "m1.x1", "standard_deviation": 0.002},
      {"column": "x2", "variable": "m2.x2", "standard_deviation": 0.002} ]},
    "optimizer": {"kind": "levenberg_marquardt", "max_iterations": 30}})");
  Process fit({BinDir() + "/cosimo", "fit", dir + "/fit.json", "--out-dir", dir + "/out",
               "--parallel", "2"},
              dir + "/fit.log");
  ASSERT_EQ(fit.Wait(std::chrono::seconds(300)), 0) << fit.log();
  EXPECT_THAT(fit.log(), ::testing::HasSubstr("(no forward sensitivities: the algorithm is "
                                              "NEWTON"));
  ExpectWithinThreeStandardErrors(dir + "/out", "m1.c1", 14);
  ExpectWithinThreeStandardErrors(dir + "/out", "m2.c_c", 80);
  std::filesystem::remove_all(dir);
}

class FitServiceTest : public DistributedTest {};

// A second vehicle, connected to nothing: its mass changes nothing that is measured.
TEST_F(FitServiceTest, AParameterTheDataCannotDetermineIsFlaggedAndASeedRepeatsTheSearch) {
  StartWorkers(2, {"--slots", "2"});
  const std::string spare =
      R"(, {"name": "spare", "builtin": {"model": "car_vehicle", "parameters": {"m": 1000}}})";
  WriteFile(dir_ + "/car.json", Car(1500, 60, spare));
  WriteFile(dir_ + "/bench.csv",
            MeasuredCsv(Car(1200, 60, spare), "vehicle.v", Times(0.25, 0.3, 33), 0.05, 5));
  WriteFile(dir_ + "/fit.json", R"({"name": "spare", "scenario_file": "car.json",
    "parameters": [ {"name": "vehicle.m", "start": 1800, "lower": 500, "upper": 3000},
                    {"name": "spare.m", "start": 1000, "lower": 500, "upper": 3000} ],
    "data": {"csv": "bench.csv", "columns": [ {"column": "measured", "variable": "vehicle.v",
                                               "standard_deviation": 0.05} ]},
    "optimizer": {"kind": "cmaes", "max_iterations": 5, "population": 6}, "seed": 4})");
  for (const char* out : {"/a", "/b"}) {
    Process fit({BinDir() + "/cosimo", "fit", dir_ + "/fit.json", "--out-dir", dir_ + out,
                 "--orchestrator", orchestrator_->address()},
                dir_ + out + ".log");
    ASSERT_EQ(fit.Wait(std::chrono::seconds(300)), 0) << fit.log();
    EXPECT_THAT(fit.log(), ::testing::HasSubstr("NOT DETERMINED by the data"));
  }
  const Estimate e = ReadEstimate(dir_ + "/a", "spare.m");
  EXPECT_EQ(e.determined, "no");
  EXPECT_TRUE(std::isinf(e.standard_error));
  EXPECT_EQ(ReadEstimate(dir_ + "/a", "vehicle.m").determined, "yes");
  EXPECT_EQ(ReadFile(dir_ + "/a/iterations.csv"), ReadFile(dir_ + "/b/iterations.csv"));
  // Each fit was one calibration job of the service, its generations variants of it.
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::vector<v1::JobStatus>> jobs = client.List();
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 2u);
  for (const v1::JobStatus& job : *jobs) {
    EXPECT_TRUE(job.has_fit()) << job.name();
    // 5 generations, the Jacobian from one run of the sensitivities: the spare unit's mass moves
    // nothing measured, its column is zero.
    EXPECT_EQ(job.fit().result().evaluations(), 5u * 6u + 1u);
    EXPECT_EQ(job.fit().result().jacobian(), "forward sensitivities");
  }
}

}  // namespace
}  // namespace cosimo::testing
