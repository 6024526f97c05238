// fig12 (issue 44, calibration; docs/calibration.md#standard-errors-and-undetermined-parameters):
// do the standard errors a fit reports say how far its estimates scatter? Synthetic data from
// known parameters through the simulation itself, with normal noise of a known deviation, fitted
// (Levenberg-Marquardt, each batch's variants run in this process over LocalUnits) for 20 noise
// seeds: per parameter, the root mean square of the 20 reported standard errors against the
// standard deviation of the 20 estimates, which must agree within a factor 2 (a ratio in
// [0.5, 2]); the note counts the estimates within 3 reported standard errors of the truth.
// Three problems: the car (examples/car.json with a gain of 300: the mass and the friction),
// Busch's dual-mass oscillator split in two units under Newton iteration (examples/dual_mass.json:
// the spring and damper of mass 1 in one unit, the coupling's in the other), and the test FMU
// fmi2_msd run as Model Exchange (its stiffness and damping; when the FMU is given).
// The fits take their Jacobians from forward sensitivities, as a job does for these units
// (docs/calibration.md#the-jacobian); the same 20 fits with finite differences of variants
// give fig12.<problem>.jacobians: the time of the first over that of the second, and the note
// says how far their estimates differ (in reported standard errors).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>

#include "absl/strings/str_cat.h"
#include "cosimo/common/calibration.h"
#include "cosimo/common/kpi.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "cosimo/common/sweep.h"
#include "cosimo/common/sweep_design.h"
#include "cosimo/master/local_unit.h"
#include "cosimo/master/master.h"
#include "figures.h"

namespace cosimo::bench {
namespace {

// One calibration problem: the base scenario at the truth, the calibration (without its data),
// the measured variables (their columns), when and with what noise they are measured.
struct Problem {
  std::string name;
  std::string scenario_json;  // at the true parameters
  std::string calibration_json;
  std::vector<std::string> variables;
  std::vector<double> times;
  double sigma = 0.0;
  std::vector<double> truth;  // in the calibration's parameter order
};

std::vector<double> Times(double first, double step, int n) {
  std::vector<double> t;
  for (int i = 0; i < n; ++i) t.push_back(first + step * i);
  return t;
}

Problem Car() {
  return {"car (mass, friction)",
          R"({"name": "car", "stop_time": 10,
    "units": [
      {"name": "controller", "builtin": {"model": "car_controller", "parameters": {"k": 300}}},
      {"name": "vehicle", "builtin": {"model": "car_vehicle",
                                      "parameters": {"m": 1200, "c_f": 60}},
       "solver": {"method": "RK4", "step": 0.01}}],
    "connections": [ {"from": "vehicle.v", "to": "controller.v"},
                     {"from": "controller.F", "to": "vehicle.F"} ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.1}, "record": ["vehicle.v"]})",
          R"({"scenario_file": "the car",
    "parameters": [ {"name": "vehicle.m", "start": 1800, "lower": 500, "upper": 3000},
                    {"name": "vehicle.c_f", "start": 20, "lower": 1, "upper": 500,
                     "scale": "log"} ],
    "data": {"csv": "made here", "columns": [{"column": "v", "variable": "vehicle.v",
                                              "standard_deviation": 0.05}]},
    "optimizer": {"kind": "levenberg_marquardt", "max_iterations": 30}})",
          {"vehicle.v"},
          Times(0.25, 0.3, 33),
          0.05,
          {1200, 60}};
}

Problem DualMass() {
  return {"dual-mass oscillator (c1, d1 in m1; c_c, d_c in m2)",
          R"({"name": "dual_mass", "start_time": 0, "stop_time": 3,
    "units": [
      { "name": "m1", "builtin": { "model": "dual_mass_oscillator_1",
                                   "parameters": {"c1": 14, "d1": 1.5} }, "rollback": "FORBID" },
      { "name": "m2", "builtin": { "model": "dual_mass_oscillator_2",
                                   "parameters": {"c_c": 80, "d_c": 2} } } ],
    "connections": [ { "from": "m1.x1", "to": "m2.x1" }, { "from": "m1.v1", "to": "m2.v1" },
                     { "from": "m2.F_c", "to": "m1.F_c" } ],
    "algorithm": { "kind": "NEWTON", "step_size": 0.01, "input_approximation": "HERMITE",
                   "tolerance": 1e-10, "max_iterations": 20 },
    "record": [ "m1.x1", "m2.x2" ]})",
          R"({"scenario_file": "the dual-mass oscillator",
    "parameters": [ {"name": "m1.c1", "start": 10, "lower": 1, "upper": 50},
                    {"name": "m1.d1", "start": 1, "lower": 0.1, "upper": 10, "scale": "log"},
                    {"name": "m2.c_c", "start": 100, "lower": 20, "upper": 300, "scale": "log"},
                    {"name": "m2.d_c", "start": 1, "lower": 0.1, "upper": 10, "scale": "log"} ],
    "data": {"csv": "made here", "columns": [
      {"column": "x1", "variable": "m1.x1", "standard_deviation": 0.002},
      {"column": "x2", "variable": "m2.x2", "standard_deviation": 0.002} ]},
    "optimizer": {"kind": "levenberg_marquardt", "max_iterations": 30}})",
          {"m1.x1", "m2.x2"},
          Times(0.015, 0.05, 59),
          0.002,
          {14, 1.5, 80, 2}};
}

// The project's test FMU (fmi2_msd.fmu, mass-spring-damper) run as Model Exchange by RK4, alone:
// its stiffness and damping from its position, as FitCommandTest's FMU fit. Its sensitivities
// come from the FMU (docs/calibration.md#fmu-units-sensitivities): 1 + 2 x 2 instances of it.
Problem FmuMsd(const std::string& fmu_path) {
  return {"the test FMU fmi2_msd run as Model Exchange (c, cf)",
          R"({"name": "msd", "stop_time": 5,
    "units": [ {"name": "msd", "fmu": {"path": ")" +
              fmu_path + R"("}, "parameters": {"c": 4, "cf": 0.4},
                "solver": {"method": "RK4", "step": 0.01}} ],
    "algorithm": {"step_size": 0.05}, "record": ["msd.x"]})",
          R"({"scenario_file": "the FMU",
    "parameters": [ {"name": "msd.c", "start": 3, "lower": 0.5, "upper": 20},
                    {"name": "msd.cf", "start": 0.8, "lower": 0.01, "upper": 5, "scale": "log"} ],
    "data": {"csv": "made here", "columns": [{"column": "x", "variable": "msd.x",
                                              "standard_deviation": 0.01}]},
    "optimizer": {"kind": "levenberg_marquardt", "max_iterations": 30}})",
          {"msd.x"},
          Times(0.03, 0.1, 49),
          0.01,
          {4, 0.4}};
}

// A batch's variants back to back in this process over LocalUnits.
absl::StatusOr<ResultTable> RunHere(const v1::Scenario& base, const v1::Sweep& sweep) {
  const std::vector<std::vector<double>> values = DesignValues(sweep);
  ResultTable table = SweepTableColumns(sweep);
  for (size_t k = 0; k < values.size(); ++k) {
    const auto start = std::chrono::steady_clock::now();
    COSIMO_ASSIGN_OR_RETURN(v1::Scenario scenario, VariantScenario(base, sweep, values[k]));
    COSIMO_ASSIGN_OR_RETURN(master::MasterResult result,
                            master::RunInProcess(scenario, LoadUnitsFor(scenario, "here")));
    SweepOutcome outcome;
    outcome.EndWithKpis(sweep, result, start);
    AddSweepRow(&table, k, values[k], outcome);
  }
  return table;
}

struct Fits {
  std::vector<std::vector<double>> estimates, standard_errors;  // per seed, per parameter
};

// The problem's fit for noise seeds 1 .. seeds: its truth simulated once, the measured variables
// at the times (linear between rows, as the fit's residuals take them) plus sigma N(0, 1) noise
// from std::mt19937_64(seed), column after column; Jacobians from forward sensitivities or by
// finite differences.
absl::StatusOr<Fits> RepeatedFits(const Problem& p, int seeds, int max_iterations,
                                  bool sensitivities) {
  COSIMO_ASSIGN_OR_RETURN(v1::Scenario truth, ParseScenarioJson(p.scenario_json));
  COSIMO_ASSIGN_OR_RETURN(master::MasterResult r,
                          master::RunInProcess(truth, LoadUnitsFor(truth, "here")));
  std::vector<std::vector<double>> clean;
  for (const std::string& variable : p.variables) {
    clean.emplace_back();
    for (double t : p.times) {
      v1::Kpi at;
      at.set_variable(variable);
      at.set_kind(v1::Kpi::AT);
      at.set_time(t);
      COSIMO_ASSIGN_OR_RETURN(double v, ComputeKpi(at, r));
      clean.back().push_back(v);
    }
  }
  LoadedCalibration loaded;
  loaded.base = truth;  // the parameters fitted are set in every variant
  COSIMO_ASSIGN_OR_RETURN(loaded.calibration, ParseCalibrationJson(p.calibration_json));
  loaded.calibration.mutable_optimizer()->set_max_iterations(static_cast<uint32_t>(max_iterations));
  const SweepFunction run = [&](const v1::Sweep& sweep) { return RunHere(truth, sweep); };
  Fits fits;
  for (int seed = 1; seed <= seeds; ++seed) {
    std::mt19937_64 rng(static_cast<uint64_t>(seed));
    loaded.data.clear();
    for (size_t c = 0; c < p.variables.size(); ++c) {
      MeasuredSeries s{loaded.calibration.data().columns(static_cast<int>(c)).column(),
                       p.variables[c], p.times, clean[c], 1.0 / p.sigma};
      for (double& v : s.values) v += p.sigma * StandardNormal(rng);
      loaded.data.push_back(std::move(s));
    }
    BatchFunction jacobians;
    v1::Scenario sensitivity_base;
    if (sensitivities) {
      COSIMO_ASSIGN_OR_RETURN(sensitivity_base, CalibrationSensitivityBase(loaded));
      jacobians = CalibrationSensitivityBatches(
          loaded, [&](const v1::Sweep& sweep) { return RunHere(sensitivity_base, sweep); });
    }
    COSIMO_ASSIGN_OR_RETURN(
        CalibrationResult result,
        RunCalibrationBatches(loaded, CalibrationBatches(loaded, run), nullptr, jacobians));
    if (sensitivities && result.jacobian != "forward sensitivities") {
      return absl::InternalError("figure 12: a fit's Jacobian was " + result.jacobian);
    }
    fits.estimates.push_back(result.estimates);
    const Eigen::VectorXd& se = result.statistics.standard_errors;
    fits.standard_errors.emplace_back(se.data(), se.data() + se.size());
  }
  return fits;
}

absl::Status ProblemFigures(const Problem& p, const std::string& id, const Options& options,
                            Report* report) {
  const int seeds = options.smoke ? 2 : 20;
  const int max_iterations = options.smoke ? 2 : 30;
  auto start = std::chrono::steady_clock::now();
  COSIMO_ASSIGN_OR_RETURN(Fits fits, RepeatedFits(p, seeds, max_iterations, true));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  start = std::chrono::steady_clock::now();
  COSIMO_ASSIGN_OR_RETURN(Fits differences, RepeatedFits(p, seeds, max_iterations, false));
  const double fd_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double apart = 0;  // the largest difference of the two paths' estimates, in standard errors
  for (int s = 0; s < seeds; ++s) {
    for (size_t j = 0; j < p.truth.size(); ++j) {
      apart = std::max(apart, std::fabs(fits.estimates[s][j] - differences.estimates[s][j]) /
                                  fits.standard_errors[s][j]);
    }
  }
  report->Add({absl::StrCat(id, ".jacobians"),
               absl::StrCat(p.name, ": time of ", seeds,
                            " fits with Jacobians from forward sensitivities / by finite "
                            "differences of variants"),
               seconds, fd_seconds, "s", seconds / fd_seconds, "", true,
               absl::StrCat("one run per Jacobian against ", p.truth.size(),
                            ", run back to back in-process; estimates at most ",
                            absl::SixDigits(apart), " standard errors apart")});
  COSIMO_ASSIGN_OR_RETURN(v1::Calibration c, ParseCalibrationJson(p.calibration_json));
  for (size_t j = 0; j < p.truth.size(); ++j) {
    double mean = 0, mean_se2 = 0;
    int within = 0;
    for (int s = 0; s < seeds; ++s) {
      const double e = fits.estimates[s][j], se = fits.standard_errors[s][j];
      mean += e / seeds;
      mean_se2 += se * se / seeds;
      within += std::fabs(e - p.truth[j]) <= 3 * se ? 1 : 0;
    }
    double spread2 = 0;
    for (int s = 0; s < seeds; ++s) spread2 += std::pow(fits.estimates[s][j] - mean, 2);
    const double spread = std::sqrt(spread2 / (seeds - 1)), reported = std::sqrt(mean_se2);
    const double ratio = reported / spread;
    const std::string& name = c.parameters(static_cast<int>(j)).name();
    report->Add({absl::StrCat(id, ".", name),
                 absl::StrCat(p.name, ": ", name,
                              ", the RMS of the reported standard errors / the standard deviation "
                              "of the estimates over ",
                              seeds, " noise seeds"),
                 reported, spread, "", ratio, "0.5 - 2",
                 options.smoke || (ratio >= 0.5 && ratio <= 2.0),
                 absl::StrCat("truth ", p.truth[j], ", mean estimate ", absl::SixDigits(mean), "; ",
                              within, " of ", seeds,
                              " estimates within 3 reported standard "
                              "errors of the truth; ",
                              seeds, " Levenberg-Marquardt fits on forward sensitivities in ",
                              absl::SixDigits(seconds), " s in-process")});
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunFitErrorFigures(const Options& options, Report* report) {
  COSIMO_RETURN_IF_ERROR(ProblemFigures(Car(), "fig12.car", options, report));
  COSIMO_RETURN_IF_ERROR(ProblemFigures(DualMass(), "fig12.dual_mass", options, report));
  if (options.fmu_path.empty()) return absl::OkStatus();
  return ProblemFigures(FmuMsd(options.fmu_path), "fig12.fmu", options, report);
}

}  // namespace cosimo::bench
