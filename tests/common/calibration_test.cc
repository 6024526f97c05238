// Calibrations (cosimo/common/calibration.h): the file's checks (every problem at once, each
// naming its field), the measured CSV, the sweep of a batch, and the fit loop on a fake sweep
// runner that evaluates y = a exp(-b t) analytically at the sweep's AT KPIs' times, on data made
// from known a, b with noise of a known deviation.
#include "cosimo/common/calibration.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "cosimo/common/kpi.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sensitivities.h"
#include "cosimo/common/sweep_design.h"

namespace cosimo {
namespace {

namespace fs = std::filesystem;

std::string Problems(const std::string& json) {
  absl::StatusOr<v1::Calibration> c = ParseCalibrationJson(json);
  EXPECT_TRUE(c.ok()) << c.status();
  return std::string(ValidateCalibration(c.ok() ? *c : v1::Calibration()).message());
}

TEST(CalibrationTest, EveryProblemIsNamedAtOnce) {
  EXPECT_EQ(Problems(R"({"scenario_file": "car.json",
    "parameters": [ {"name": "vehicle.m", "start": 1000, "lower": 500, "upper": 3000} ],
    "data": {"csv": "m.csv", "columns": [ {"column": "v", "variable": "vehicle.v"} ]}})"),
            "");
  EXPECT_EQ(Problems(R"({"parameters": [
      {"name": "vehicle.m", "start": 5000, "lower": 500, "upper": 3000},
      {"name": "vehicle.c_f", "start": 1, "lower": 0, "upper": 2, "scale": "log"},
      {"name": "vehicle.m", "start": 1, "lower": 2, "upper": 1, "scale": "ln"} ],
    "data": {"columns": [ {"column": "v", "variable": "v", "weight": 2, "standard_deviation": 1} ]},
    "objective": {"loss": "l1"}, "optimizer": {"kind": "nelder_mead", "diff_step": 0.5}})"),
            "12 problems:\n"
            "  scenario_file: missing (or give the base scenario inline as scenario)\n"
            "  parameters[0].start: 5000 is outside [500, 3000]\n"
            "  parameters[1].lower: must be > 0 for \"scale\": \"log\"\n"
            "  parameters[2].scale: 'ln' is not one of linear, log\n"
            "  parameters[2]: lower (2) must be below upper (1)\n"
            "  parameters[2].name: 'vehicle.m' is estimated twice\n"
            "  data.csv: missing (the measured data's CSV file)\n"
            "  data.columns[0].variable: 'v' is not of the form <unit>.<variable>\n"
            "  data.columns[0]: give weight or standard_deviation, not both\n"
            "  objective.loss: 'l1' is not one of linear, soft_l1, huber, cauchy\n"
            "  optimizer.kind: 'nelder_mead' is not one of cmaes, levenberg_marquardt\n"
            "  optimizer.diff_step: must be in (0, 0.1] (a fraction of the range)");
  EXPECT_THAT(std::string(ParseCalibrationJson(R"({"parameter": []})").status().message()),
              testing::HasSubstr("parameter: no such field"));
}

class CalibrationFileTest : public testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() / ("calibration_test_" + std::to_string(::getpid()) + "_" +
                                     testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    Write("car.json", R"({"name": "car", "stop_time": 2,
      "units": [ {"name": "vehicle", "builtin": {"model": "car_vehicle"}} ],
      "algorithm": {"kind": "JACOBI", "step_size": 0.5}, "record": ["vehicle.v"]})");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(CalibrationFileTest, TheCsvsColumnsAreReadWithTheirFactors) {
  Write("m.csv", "time,v,F\n0,1,\n0.5,2,7\n1.5,3,8\n");
  Write("fit.json", R"({"scenario_file": "car.json",
    "parameters": [ {"name": "vehicle.m", "start": 1000, "lower": 500, "upper": 3000} ],
    "data": {"csv": "m.csv", "columns": [
      {"column": "v", "variable": "vehicle.v", "standard_deviation": 0.5},
      {"column": "F", "variable": "vehicle.F", "weight": 4} ]}})");
  absl::StatusOr<LoadedCalibration> loaded = LoadCalibrationFile(Path("fit.json"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->base.name(), "car");
  ASSERT_EQ(loaded->data.size(), 2u);
  EXPECT_EQ(loaded->data[0].times, (std::vector<double>{0, 0.5, 1.5}));
  EXPECT_EQ(loaded->data[0].factor, 2.0);
  EXPECT_EQ(loaded->data[1].times, (std::vector<double>{0.5, 1.5}));  // the empty cell: missing
  EXPECT_EQ(loaded->data[1].factor, 2.0);
  EXPECT_EQ(loaded->samples(), 5u);
  // The batch's sweep: a LIST of the points, one AT KPI per sample.
  v1::Sweep sweep = CalibrationSweep(*loaded, {{1000}, {2000}});
  sweep.set_scenario_file("car.json");  // the base goes with it, as in a submission
  EXPECT_EQ(DesignValues(sweep), (std::vector<std::vector<double>>{{1000}, {2000}}));
  ASSERT_EQ(sweep.kpis_size(), 5);
  EXPECT_EQ(sweep.kpis(4).name(), "d1_1");
  EXPECT_EQ(sweep.kpis(4).time(), 1.5);
  EXPECT_TRUE(ValidateSweep(sweep).ok()) << ValidateSweep(sweep);
  // vehicle.F is not recorded; 1.5 s is within [0, 2].
  auto accept = [](const v1::Scenario&) { return absl::OkStatus(); };
  EXPECT_THAT(std::string(CheckCalibrationAgainstBase(*loaded, accept).message()),
              testing::HasSubstr("vehicle.F"));
}

TEST_F(CalibrationFileTest, MissingColumnsAndBadTimesAreNamed) {
  Write("m.csv", "time,v\n0,1\n1,2\n1,3\n");
  Write("fit.json", R"({"scenario_file": "car.json",
    "parameters": [ {"name": "vehicle.m", "start": 1000, "lower": 500, "upper": 3000} ],
    "data": {"csv": "m.csv", "columns": [ {"column": "v", "variable": "vehicle.v"},
                                          {"column": "x", "variable": "vehicle.v"} ]}})");
  EXPECT_EQ(std::string(LoadCalibrationFile(Path("fit.json")).status().message()),
            Path("fit.json") +
                ": 2 problems:\n  data.csv: row 3: the times (first column) must be finite and "
                "strictly increasing\n  data.columns[1].column: 'x' is not a column of m.csv");
}

// The analytic model y = a exp(-b t) as a sweep runner: the table of the sweep's LIST variants
// with their AT KPIs; a variant with b > 1.9 "fails".
ResultTable RunAnalytic(const v1::Sweep& sweep) {
  ResultTable table = SweepTableColumns(sweep);
  const std::vector<std::vector<double>> points = DesignValues(sweep);
  for (size_t k = 0; k < points.size(); ++k) {
    SweepOutcome outcome;
    outcome.status = points[k][1] > 1.9 ? v1::FAILED : v1::SUCCEEDED;
    for (const v1::Kpi& kpi : sweep.kpis()) {
      if (outcome.status == v1::SUCCEEDED) {
        outcome.kpis.push_back(points[k][0] * std::exp(-points[k][1] * kpi.time()));
      }
    }
    AddSweepRow(&table, k, points[k], outcome);
  }
  return table;
}

// Data of a = 2, b = 0.5 at t = 0, 0.1, ..., 4 with normal noise of deviation 0.02 (seed 3).
LoadedCalibration DecayCalibration(const std::string& optimizer, const std::string& scale,
                                   uint64_t noise_seed = 3) {
  LoadedCalibration loaded;
  v1::Calibration& c = loaded.calibration;
  for (const auto& [name, start, lower, upper] :
       {std::tuple{"plant.a", 1.0, 0.1, 10.0}, std::tuple{"plant.b", 1.0, 0.01, 2.0}}) {
    v1::CalibrationParameter* p = c.add_parameters();
    p->set_name(name);
    p->set_start(start);
    p->set_lower(lower);
    p->set_upper(upper);
    p->set_scale(scale);
  }
  c.mutable_optimizer()->set_kind(optimizer);
  c.mutable_optimizer()->set_max_iterations(optimizer == "cmaes" ? 150 : 50);
  c.set_seed(11);
  MeasuredSeries s{"y", "plant.y", {}, {}, 1.0 / 0.02};
  std::mt19937_64 rng(noise_seed);
  for (int i = 0; i <= 40; ++i) {
    s.times.push_back(0.1 * i);
    s.values.push_back(2.0 * std::exp(-0.5 * 0.1 * i) + 0.02 * StandardNormal(rng));
  }
  loaded.data.push_back(s);
  return loaded;
}

void ExpectWithinThreeStandardErrors(const CalibrationResult& r) {
  ASSERT_EQ(r.estimates.size(), 2u);
  EXPECT_NEAR(r.estimates[0], 2.0, 3.0 * r.statistics.standard_errors[0]);
  EXPECT_NEAR(r.estimates[1], 0.5, 3.0 * r.statistics.standard_errors[1]);
  // With residuals in standard deviations, sigma^2 estimates 1.
  EXPECT_NEAR(r.statistics.residual_variance, 1.0, 0.5);
  EXPECT_LT(r.statistics.standard_errors[0], 0.05);
  EXPECT_FALSE(r.statistics.undetermined[0]);
  EXPECT_FALSE(r.statistics.undetermined[1]);
  EXPECT_GT(r.statistics.correlation(0, 1), 0.0);  // a larger a wants a faster decay
}

TEST(CalibrationRunTest, LevenbergMarquardtRecoversTheTruthWithinThreeStandardErrors) {
  absl::StatusOr<CalibrationResult> r =
      RunCalibration(DecayCalibration("levenberg_marquardt", ""), RunAnalytic, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectWithinThreeStandardErrors(*r);
}

TEST(CalibrationRunTest, CmaesOnALogScaleRecoversTheTruthWithinThreeStandardErrors) {
  const LoadedCalibration loaded = DecayCalibration("cmaes", "log");
  std::vector<IterationRecord> seen;
  absl::StatusOr<CalibrationResult> r =
      RunCalibration(loaded, RunAnalytic, [&](const IterationRecord& i) { seen.push_back(i); });
  ASSERT_TRUE(r.ok()) << r.status();
  ExpectWithinThreeStandardErrors(*r);
  EXPECT_EQ(seen.size(), r->optimizer.history.size());
  const ResultTable history = IterationsTable(loaded, r->optimizer);
  EXPECT_EQ(history.columns, (std::vector<std::string>{"iteration", "evaluations", "objective",
                                                       "plant.a", "plant.b"}));
  EXPECT_EQ(history.rows(), seen.size());
  const ResultTable estimates = EstimatesTable(loaded, *r);
  EXPECT_EQ(estimates.rows(), 2u);
  EXPECT_EQ(estimates.strings[0], "plant.a");
  EXPECT_EQ(estimates.strings[1], "yes");
}

// RunAnalytic's variants with their forward sensitivities: the KPIs of
// CalibrationSensitivitySweep, "plant.d(y)/d(plant.a)" = exp(-b t) and
// "plant.d(y)/d(plant.b)" = -a t exp(-b t).
ResultTable RunAnalyticSensitivities(const v1::Sweep& sweep) {
  ResultTable table = SweepTableColumns(sweep);
  const std::vector<std::vector<double>> points = DesignValues(sweep);
  for (size_t k = 0; k < points.size(); ++k) {
    const double a = points[k][0], b = points[k][1];
    SweepOutcome outcome;
    outcome.status = v1::SUCCEEDED;
    for (const v1::Kpi& kpi : sweep.kpis()) {
      const double t = kpi.time(), y = a * std::exp(-b * t);
      const std::string& v = kpi.variable();
      outcome.kpis.push_back(v == "plant.y"                                    ? y
                             : v == "plant." + SensitivityName("y", "plant.a") ? y / a
                                                                               : -t * y);
    }
    AddSweepRow(&table, k, points[k], outcome);
  }
  return table;
}

// The Jacobians from sensitivities go through the loss and the box map as the finite
// differences' do: a robust loss on a log scale finds the same estimates and standard errors.
TEST(CalibrationRunTest, SensitivitiesThroughTheLossAndTheBoxEqualFiniteDifferences) {
  for (const char* optimizer : {"levenberg_marquardt", "cmaes"}) {
    LoadedCalibration loaded = DecayCalibration(optimizer, "log");
    loaded.calibration.mutable_objective()->set_loss("soft_l1");
    loaded.calibration.mutable_objective()->set_f_scale(2.0);
    absl::StatusOr<CalibrationResult> fd = RunCalibration(loaded, RunAnalytic, nullptr);
    ASSERT_TRUE(fd.ok()) << fd.status();
    EXPECT_EQ(fd->jacobian, "finite differences of variants");
    absl::StatusOr<CalibrationResult> exact =
        RunCalibrationBatches(loaded, CalibrationBatches(loaded, RunAnalytic), nullptr,
                              CalibrationSensitivityBatches(loaded, RunAnalyticSensitivities));
    ASSERT_TRUE(exact.ok()) << exact.status();
    EXPECT_EQ(exact->jacobian, "forward sensitivities") << optimizer;
    for (int j = 0; j < 2; ++j) {
      const double se = fd->statistics.standard_errors[j];
      EXPECT_NEAR(exact->estimates[j], fd->estimates[j], 1e-3 * se) << optimizer << " " << j;
      EXPECT_NEAR(exact->statistics.standard_errors[j], se, 1e-4 * se) << optimizer << " " << j;
    }
    // One run per Jacobian instead of one per parameter.
    EXPECT_LT(exact->optimizer.evaluations, fd->optimizer.evaluations) << optimizer;
  }
}

TEST(CalibrationRunTest, TheJacobiansPathIsChosenAndItsRefusalNamed) {
  const ScenarioCheck any = [](const v1::Scenario&) { return absl::OkStatus(); };
  LoadedCalibration loaded = DecayCalibration("levenberg_marquardt", "");
  absl::StatusOr<v1::Scenario> base = ParseScenarioJson(R"({"name": "p", "stop_time": 4,
    "units": [ {"name": "plant", "fmu": {"path": "plant.fmu"}} ], "algorithm": {"step_size": 0.1},
    "record": ["plant.y"]})");
  ASSERT_TRUE(base.ok()) << base.status();
  loaded.base = *base;
  absl::StatusOr<std::string> why = WhyNoSensitivities(loaded, any);
  ASSERT_TRUE(why.ok()) << why.status();
  EXPECT_THAT(*why, ::testing::HasSubstr("unit 'plant' is an FMU run as Co-Simulation, which "
                                         "does not give its equations: give it a solver"));
  loaded.calibration.mutable_optimizer()->set_jacobian("sensitivities");
  why = WhyNoSensitivities(loaded, any);
  EXPECT_EQ(why.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(why.status().message(),
              ::testing::HasSubstr("optimizer.jacobian: forward sensitivities cannot be had: "
                                   "unit 'plant' is an FMU run as Co-Simulation"));
  // Refused up front, at the calibration's check (the submission, `cosimo fit`'s start), not
  // when the job starts.
  const absl::Status checked = CheckCalibrationAgainstBase(loaded, any);
  EXPECT_EQ(checked.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(checked.message(),
              ::testing::HasSubstr("optimizer.jacobian: forward sensitivities cannot be had: "
                                   "unit 'plant' is an FMU run as Co-Simulation"));
  loaded.calibration.mutable_optimizer()->set_jacobian("auto");
  EXPECT_TRUE(CheckCalibrationAgainstBase(loaded, any).ok()) << "auto falls back";
  loaded.calibration.mutable_optimizer()->set_jacobian("sensitivities");
  // Run as Model Exchange (a solver) the FMU can give them; what its model description refuses
  // the scenario check says, as its reason.
  loaded.base.mutable_units(0)->mutable_solver()->set_method(v1::Solver::RK4);
  why = WhyNoSensitivities(loaded, any);
  ASSERT_TRUE(why.ok()) << why.status();
  EXPECT_EQ(*why, "");
  // Under auto an FMU's are not taken: they cost several times the finite differences (fig12).
  loaded.calibration.mutable_optimizer()->set_jacobian("auto");
  why = WhyNoSensitivities(loaded, any);
  ASSERT_TRUE(why.ok()) << why.status();
  EXPECT_THAT(*why, ::testing::HasSubstr("unit 'plant' is an FMU: its sensitivities take 1 + 2 x "
                                         "(its parameters) instances of it"));
  loaded.calibration.mutable_optimizer()->set_jacobian("sensitivities");
  const ScenarioCheck refusing = [](const v1::Scenario&) {
    return absl::InvalidArgumentError(
        "units[0] ('plant').sensitivities: the FMU has 1 event "
        "indicators (state events)");
  };
  EXPECT_TRUE(CheckCalibrationAgainstBase(loaded, any).ok());
  EXPECT_THAT(std::string(CheckCalibrationAgainstBase(loaded, refusing).message()),
              ::testing::HasSubstr("the FMU has 1 event indicators"));
  why = WhyNoSensitivities(loaded, refusing);
  EXPECT_EQ(why.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(why.status().message(), ::testing::HasSubstr("the FMU has 1 event indicators"));
  loaded.calibration.mutable_optimizer()->set_jacobian("finite_difference");
  EXPECT_THAT(std::string(ValidateCalibration(loaded.calibration).message()),
              ::testing::HasSubstr("optimizer.jacobian: 'finite_difference' is not one of auto, "
                                   "sensitivities, finite_differences"));
}

// A robust loss keeps an outlier from pulling the fit: one sample 50 deviations off.
TEST(CalibrationRunTest, ASoftL1LossResistsAnOutlier) {
  LoadedCalibration loaded = DecayCalibration("levenberg_marquardt", "");
  loaded.data[0].values[10] += 1.0;
  absl::StatusOr<CalibrationResult> plain = RunCalibration(loaded, RunAnalytic, nullptr);
  loaded.calibration.mutable_objective()->set_loss("soft_l1");
  absl::StatusOr<CalibrationResult> robust = RunCalibration(loaded, RunAnalytic, nullptr);
  ASSERT_TRUE(plain.ok() && robust.ok());
  EXPECT_LT(std::fabs(robust->estimates[0] - 2.0), std::fabs(plain->estimates[0] - 2.0));
  EXPECT_NEAR(robust->estimates[0], 2.0, 0.03);
}

// The reported standard errors against the spread of the estimates over 20 noise seeds (the same
// truth, the same deviation): within a factor 2 of each other.
TEST(CalibrationRunTest, StandardErrorsMatchTheSpreadOfRepeatedFitsWithinAFactorTwo) {
  constexpr int kSeeds = 20;
  std::vector<double> a, b;
  double se_a = 0.0, se_b = 0.0;
  for (int seed = 0; seed < kSeeds; ++seed) {
    absl::StatusOr<CalibrationResult> r = RunCalibration(
        DecayCalibration("levenberg_marquardt", "", 100 + seed), RunAnalytic, nullptr);
    ASSERT_TRUE(r.ok()) << r.status();
    a.push_back(r->estimates[0]);
    b.push_back(r->estimates[1]);
    se_a += r->statistics.standard_errors[0] / kSeeds;
    se_b += r->statistics.standard_errors[1] / kSeeds;
  }
  auto spread = [](const std::vector<double>& x) {
    double mean = 0.0, sum = 0.0;
    for (double v : x) mean += v / static_cast<double>(x.size());
    for (double v : x) sum += (v - mean) * (v - mean);
    return std::sqrt(sum / static_cast<double>(x.size() - 1));
  };
  const double ratio_a = se_a / spread(a), ratio_b = se_b / spread(b);
  EXPECT_GT(ratio_a, 0.5);
  EXPECT_LT(ratio_a, 2.0);
  EXPECT_GT(ratio_b, 0.5);
  EXPECT_LT(ratio_b, 2.0);
}

// A calibration job's message carries the calibration and its samples exactly, and back.
TEST(CalibrationJobTest, TheJobCarriesTheCalibrationAndItsSamplesExactly) {
  LoadedCalibration loaded = DecayCalibration("cmaes", "");
  loaded.calibration.set_scenario_file("plant.json");
  loaded.calibration.mutable_data()->set_csv("y.csv");
  v1::MeasuredColumn* column = loaded.calibration.mutable_data()->add_columns();
  column->set_column("y");
  column->set_variable("plant.y");
  column->set_standard_deviation(0.02);
  v1::Scenario base;
  base.set_name("plant");
  const v1::CalibrationJob job = ToCalibrationJob(loaded);
  absl::StatusOr<LoadedCalibration> back = FromCalibrationJob(job, base);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->base.name(), "plant");
  ASSERT_EQ(back->data.size(), 1u);
  EXPECT_EQ(back->data[0].times, loaded.data[0].times);
  EXPECT_EQ(back->data[0].values, loaded.data[0].values);
  EXPECT_EQ(back->data[0].factor, loaded.data[0].factor);
  EXPECT_EQ(back->calibration.parameters_size(), 2);

  v1::CalibrationJob two = job;
  *two.add_samples() = job.samples(0);
  EXPECT_THAT(std::string(FromCalibrationJob(two, base).status().message()),
              testing::HasSubstr("calibration.samples: 2 series for 1 data.columns"));
  v1::CalibrationJob unordered = job;
  unordered.mutable_samples(0)->set_times(3, 0.0);
  EXPECT_THAT(std::string(FromCalibrationJob(unordered, base).status().message()),
              testing::HasSubstr("calibration.samples[0].times[3]"));
  v1::CalibrationJob invalid = job;
  invalid.mutable_calibration()->mutable_parameters(0)->set_lower(20.0);
  EXPECT_THAT(std::string(FromCalibrationJob(invalid, base).status().message()),
              testing::HasSubstr("calibration.parameters[0]"));
}

}  // namespace
}  // namespace cosimo
