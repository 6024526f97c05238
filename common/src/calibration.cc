// Reading and checking calibrations, the box map, the batch sweep and the residuals
// (cosimo/common/calibration.h).
#include "cosimo/common/calibration.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sensitivities.h"
#include "json_fields.h"

namespace cosimo {
namespace {

namespace fs = std::filesystem;
using Problems = std::vector<std::string>;

const std::set<std::string> kScales = {"", "linear", "log"};
const std::set<std::string> kLosses = {"", "linear", "soft_l1", "huber", "cauchy"};
const std::set<std::string> kOptimizers = {"", "cmaes", "levenberg_marquardt"};

void CheckParameter(const v1::CalibrationParameter& p, const std::string& field,
                    Problems& problems) {
  if (p.name().empty()) problems.push_back(field + ".name: missing");
  if (kScales.count(p.scale()) == 0) {
    problems.push_back(field + ".scale: '" + p.scale() + "' is not one of linear, log");
  }
  if (!std::isfinite(p.lower()) || !std::isfinite(p.upper()) || !std::isfinite(p.start())) {
    problems.push_back(field + ": start, lower and upper must be finite");
  } else if (!(p.lower() < p.upper())) {
    problems.push_back(absl::StrCat(field, ": lower (", FormatDouble(p.lower()),
                                    ") must be below upper (", FormatDouble(p.upper()), ")"));
  } else if (p.start() < p.lower() || p.start() > p.upper()) {
    problems.push_back(absl::StrCat(field, ".start: ", FormatDouble(p.start()), " is outside [",
                                    FormatDouble(p.lower()), ", ", FormatDouble(p.upper()), "]"));
  } else if (p.scale() == "log" && p.lower() <= 0.0) {
    problems.push_back(field + ".lower: must be > 0 for \"scale\": \"log\"");
  }
}

void CheckData(const v1::MeasuredData& data, Problems& problems) {
  if (data.csv().empty()) problems.push_back("data.csv: missing (the measured data's CSV file)");
  if (data.columns_size() == 0) problems.push_back("data.columns: at least one is needed");
  for (int i = 0; i < data.columns_size(); ++i) {
    const v1::MeasuredColumn& c = data.columns(i);
    const std::string field = absl::StrCat("data.columns[", i, "]");
    if (c.column().empty()) problems.push_back(field + ".column: missing");
    if (absl::StatusOr<VariableRef> ref = ParseVariableRef(c.variable(), field + ".variable");
        !ref.ok()) {
      problems.push_back(std::string(ref.status().message()));
    }
    if (!(c.weight() >= 0.0) || !std::isfinite(c.weight())) {
      problems.push_back(field + ".weight: must be finite and > 0");
    }
    if (!(c.standard_deviation() >= 0.0) || !std::isfinite(c.standard_deviation())) {
      problems.push_back(field + ".standard_deviation: must be finite and > 0");
    }
    if (c.weight() > 0.0 && c.standard_deviation() > 0.0) {
      problems.push_back(field + ": give weight or standard_deviation, not both");
    }
  }
}

void CheckOptimizer(const v1::Calibration& c, Problems& problems) {
  const v1::CalibrationObjective& objective = c.objective();
  if (kLosses.count(objective.loss()) == 0) {
    problems.push_back("objective.loss: '" + objective.loss() +
                       "' is not one of linear, soft_l1, huber, cauchy");
  }
  if (!(objective.f_scale() >= 0.0) || !std::isfinite(objective.f_scale())) {
    problems.push_back("objective.f_scale: must be finite and > 0");
  }
  const v1::CalibrationOptimizer& o = c.optimizer();
  if (kOptimizers.count(o.kind()) == 0) {
    problems.push_back("optimizer.kind: '" + o.kind() +
                       "' is not one of cmaes, levenberg_marquardt");
  }
  if (!(o.initial_step() >= 0.0 && o.initial_step() <= 1.0)) {
    problems.push_back("optimizer.initial_step: must be in (0, 1] (a fraction of the range)");
  }
  if (!(o.diff_step() >= 0.0 && o.diff_step() <= 0.1)) {
    problems.push_back("optimizer.diff_step: must be in (0, 0.1] (a fraction of the range)");
  }
  for (const auto& [name, value] :
       {std::pair{"f_tolerance", o.f_tolerance()}, std::pair{"x_tolerance", o.x_tolerance()}}) {
    if (!(value >= 0.0) || !std::isfinite(value)) {
      problems.push_back(absl::StrCat("optimizer.", name, ": must be finite and >= 0"));
    }
  }
  if (o.population() == 1) problems.push_back("optimizer.population: must be >= 2");
  if (!o.jacobian().empty() && o.jacobian() != "auto" && o.jacobian() != "sensitivities" &&
      o.jacobian() != "finite_differences") {
    problems.push_back("optimizer.jacobian: '" + o.jacobian() +
                       "' is not one of auto, sensitivities, finite_differences");
  }
}

// The measured CSV's columns that the calibration maps, as series; problems name the fields.
absl::StatusOr<std::vector<MeasuredSeries>> ReadData(const v1::MeasuredData& data,
                                                     const std::string& file) {
  absl::StatusOr<ResultTable> table = ReadCsvFile(file);
  if (!table.ok())
    return absl::Status(table.status().code(),
                        "data.csv: " + std::string(table.status().message()));
  Problems problems;
  const size_t rows = table->rows(), width = table->columns.size();
  for (size_t r = 0; r < rows; ++r) {
    const double t = table->values[r * width];
    if (!std::isfinite(t) || (r > 0 && !(t > table->values[(r - 1) * width]))) {
      problems.push_back(absl::StrCat("data.csv: row ", r + 1,
                                      ": the times (first column) must be "
                                      "finite and strictly increasing"));
      break;
    }
  }
  std::vector<MeasuredSeries> out;
  for (int i = 0; i < data.columns_size(); ++i) {
    const v1::MeasuredColumn& c = data.columns(i);
    const auto it = std::find(table->columns.begin() + 1, table->columns.end(), c.column());
    if (width == 0 || it == table->columns.end()) {
      problems.push_back(absl::StrCat("data.columns[", i, "].column: '", c.column(),
                                      "' is not a column of ", data.csv()));
      continue;
    }
    const size_t k = static_cast<size_t>(it - table->columns.begin());
    MeasuredSeries s{c.column(), c.variable(), {}, {}, 1.0};
    if (c.standard_deviation() > 0.0) s.factor = 1.0 / c.standard_deviation();
    if (c.weight() > 0.0) s.factor = std::sqrt(c.weight());
    for (size_t r = 0; r < rows; ++r) {
      const double v = table->values[r * width + k];
      if (std::isnan(v)) continue;  // a missing sample
      s.times.push_back(table->values[r * width]);
      s.values.push_back(v);
    }
    if (s.times.empty()) problems.push_back(absl::StrCat("data.columns[", i, "]: no samples"));
    out.push_back(std::move(s));
  }
  if (!problems.empty()) return ProblemsStatus(problems);
  return out;
}

double Lower(const v1::CalibrationParameter& p) {
  return p.scale() == "log" ? std::log(p.lower()) : p.lower();
}
double Upper(const v1::CalibrationParameter& p) {
  return p.scale() == "log" ? std::log(p.upper()) : p.upper();
}

}  // namespace

size_t LoadedCalibration::samples() const {
  size_t n = 0;
  for (const MeasuredSeries& s : data) n += s.times.size();
  return n;
}

absl::StatusOr<v1::Calibration> ParseCalibrationJson(std::string_view json) {
  v1::Calibration calibration;
  if (absl::Status s = ParseJsonMessage(json, "calibration", &calibration); !s.ok()) return s;
  return calibration;
}

absl::Status ValidateCalibration(const v1::Calibration& c) {
  Problems problems;
  if (!c.has_scenario() && c.scenario_file().empty()) {
    problems.push_back("scenario_file: missing (or give the base scenario inline as scenario)");
  }
  if (c.parameters_size() == 0) problems.push_back("parameters: at least one is needed");
  std::set<std::string> names;
  for (int i = 0; i < c.parameters_size(); ++i) {
    const std::string field = absl::StrCat("parameters[", i, "]");
    CheckParameter(c.parameters(i), field, problems);
    if (!c.parameters(i).name().empty() && !names.insert(c.parameters(i).name()).second) {
      problems.push_back(field + ".name: '" + c.parameters(i).name() + "' is estimated twice");
    }
  }
  CheckData(c.data(), problems);
  CheckOptimizer(c, problems);
  return ProblemsStatus(problems);
}

absl::StatusOr<LoadedCalibration> LoadCalibrationFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read calibration file '" + path + "'");
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto named = [&](const absl::Status& s) {
    return absl::Status(s.code(), path + ": " + std::string(s.message()));
  };
  absl::StatusOr<v1::Calibration> calibration = ParseCalibrationJson(buffer.str());
  if (!calibration.ok()) return named(calibration.status());
  if (absl::Status s = ValidateCalibration(*calibration); !s.ok()) return named(s);
  LoadedCalibration loaded{*calibration, {}, {}};
  absl::StatusOr<v1::Scenario> base =
      LoadBaseScenario(calibration->has_scenario() ? &calibration->scenario() : nullptr,
                       calibration->scenario_file(), path);
  if (!base.ok()) return base.status();
  loaded.base = *std::move(base);
  const fs::path dir = fs::absolute(fs::path(path)).parent_path();
  const fs::path csv = (dir / calibration->data().csv()).lexically_normal();
  absl::StatusOr<std::vector<MeasuredSeries>> data = ReadData(calibration->data(), csv.string());
  if (!data.ok()) return named(data.status());
  loaded.data = *std::move(data);
  return loaded;
}

std::vector<double> FromBox(const v1::Calibration& calibration, const Eigen::VectorXd& z) {
  std::vector<double> out;
  for (int i = 0; i < calibration.parameters_size(); ++i) {
    const v1::CalibrationParameter& p = calibration.parameters(i);
    const double u = Lower(p) + (Upper(p) - Lower(p)) * z[i];
    out.push_back(std::clamp(p.scale() == "log" ? std::exp(u) : u, p.lower(), p.upper()));
  }
  return out;
}

Eigen::VectorXd ToBox(const v1::Calibration& calibration, const std::vector<double>& values) {
  Eigen::VectorXd z(calibration.parameters_size());
  for (int i = 0; i < calibration.parameters_size(); ++i) {
    const v1::CalibrationParameter& p = calibration.parameters(i);
    const double u = p.scale() == "log" ? std::log(values[i]) : values[i];
    z[i] = std::clamp((u - Lower(p)) / (Upper(p) - Lower(p)), 0.0, 1.0);
  }
  return z;
}

v1::Sweep CalibrationSweep(const LoadedCalibration& loaded,
                           const std::vector<std::vector<double>>& points) {
  v1::Sweep sweep;
  sweep.set_name(loaded.calibration.name().empty() ? loaded.base.name()
                                                   : loaded.calibration.name());
  sweep.mutable_design()->set_kind(v1::SweepDesign::LIST);
  for (int i = 0; i < loaded.calibration.parameters_size(); ++i) {
    v1::SweepParameter* p = sweep.add_parameters();
    p->set_name(loaded.calibration.parameters(i).name());
    for (const std::vector<double>& point : points) p->add_values(point[i]);
  }
  for (size_t c = 0; c < loaded.data.size(); ++c) {
    const MeasuredSeries& s = loaded.data[c];
    for (size_t k = 0; k < s.times.size(); ++k) {
      v1::Kpi* kpi = sweep.add_kpis();
      kpi->set_name(absl::StrCat("d", c, "_", k));
      kpi->set_variable(s.variable);
      kpi->set_kind(v1::Kpi::AT);
      kpi->set_time(s.times[k]);
    }
  }
  return sweep;
}

absl::StatusOr<v1::Scenario> CalibrationSensitivityBase(const LoadedCalibration& loaded) {
  std::vector<std::string> parameters, measured;
  for (const v1::CalibrationParameter& p : loaded.calibration.parameters()) {
    parameters.push_back(p.name());
  }
  for (const MeasuredSeries& s : loaded.data) measured.push_back(s.variable);
  return SensitivityScenario(loaded.base, parameters, measured);
}

v1::Sweep CalibrationSensitivitySweep(const LoadedCalibration& loaded,
                                      const std::vector<std::vector<double>>& points) {
  v1::Sweep sweep = CalibrationSweep(loaded, points);
  for (size_t c = 0; c < loaded.data.size(); ++c) {
    const MeasuredSeries& s = loaded.data[c];
    const size_t dot = s.variable.find('.');
    for (size_t k = 0; k < s.times.size(); ++k) {
      for (int j = 0; j < loaded.calibration.parameters_size(); ++j) {
        v1::Kpi* kpi = sweep.add_kpis();
        kpi->set_name(absl::StrCat("s", c, "_", k, "_", j));
        kpi->set_variable(
            s.variable.substr(0, dot + 1) +
            SensitivityName(s.variable.substr(dot + 1), loaded.calibration.parameters(j).name()));
        kpi->set_kind(v1::Kpi::AT);
        kpi->set_time(s.times[k]);
      }
    }
  }
  return sweep;
}

std::optional<Eigen::MatrixXd> RowSensitivities(const LoadedCalibration& loaded,
                                                const ResultTable& table, size_t row) {
  const size_t width = table.columns.size();
  const auto n = static_cast<size_t>(loaded.calibration.parameters_size());
  const size_t first = static_cast<size_t>(
      std::find(table.columns.begin(), table.columns.end(), "s0_0_0") - table.columns.begin());
  if (row >= table.rows() || first + loaded.samples() * n > width) return std::nullopt;
  Eigen::MatrixXd jacobian(static_cast<Eigen::Index>(loaded.samples()),
                           static_cast<Eigen::Index>(n));
  size_t column = first;
  Eigen::Index i = 0;
  for (size_t c = 0; c < loaded.data.size(); ++c) {
    const MeasuredSeries& s = loaded.data[c];
    for (size_t k = 0; k < s.times.size(); ++k, ++i) {
      for (size_t j = 0; j < n; ++j, ++column) {
        if (table.columns[column] != absl::StrCat("s", c, "_", k, "_", j)) return std::nullopt;
        const double d = table.values[row * width + column];
        if (!std::isfinite(d)) return std::nullopt;
        jacobian(i, static_cast<Eigen::Index>(j)) = s.factor * d;
      }
    }
  }
  return jacobian;
}

absl::Status CheckCalibrationAgainstBase(const LoadedCalibration& loaded,
                                         const ScenarioCheck& check) {
  std::vector<double> start;
  for (const v1::CalibrationParameter& p : loaded.calibration.parameters()) {
    start.push_back(p.start());
  }
  const v1::Sweep sweep = CalibrationSweep(loaded, {start});
  if (absl::Status s = CheckSweepAgainstBase(sweep, loaded.base, check); !s.ok()) return s;
  Problems problems;
  const double t0 = loaded.base.start_time(), t1 = loaded.base.stop_time();
  for (size_t c = 0; c < loaded.data.size(); ++c) {
    const MeasuredSeries& s = loaded.data[c];
    if (s.times.front() < t0 || s.times.back() > t1) {
      problems.push_back(absl::StrCat("data.columns[", c, "]: its times [",
                                      FormatDouble(s.times.front()), ", ",
                                      FormatDouble(s.times.back()),
                                      "] reach outside the scenario's [start_time, stop_time] = [",
                                      FormatDouble(t0), ", ", FormatDouble(t1), "]"));
    }
  }
  // Forced sensitivities that cannot be had are refused here, at submission, not when the job
  // starts (under "auto" the fit says why it took finite differences instead).
  if (problems.empty() && loaded.calibration.optimizer().jacobian() == "sensitivities") {
    absl::StatusOr<std::string> why = WhyNoSensitivities(loaded, check);
    if (!why.ok()) return why.status();
  }
  return ProblemsStatus(problems);
}

Residuals RowResiduals(const LoadedCalibration& loaded, const ResultTable& table, size_t row) {
  const size_t width = table.columns.size();
  // The KPIs' columns follow each other in the table (SweepTableColumns), from "d0_0" on.
  const size_t first = static_cast<size_t>(
      std::find(table.columns.begin(), table.columns.end(), "d0_0") - table.columns.begin());
  if (row >= table.rows() || first + loaded.samples() > width) return std::nullopt;
  Eigen::VectorXd r(static_cast<Eigen::Index>(loaded.samples()));
  Eigen::Index i = 0;
  for (size_t c = 0; c < loaded.data.size(); ++c) {
    const MeasuredSeries& s = loaded.data[c];
    for (size_t k = 0; k < s.times.size(); ++k, ++i) {
      const size_t column = first + static_cast<size_t>(i);
      if (table.columns[column] != absl::StrCat("d", c, "_", k)) return std::nullopt;
      const double simulated = table.values[row * width + column];
      if (!std::isfinite(simulated)) return std::nullopt;
      r[i] = s.factor * (simulated - s.values[k]);
    }
  }
  return r;
}

}  // namespace cosimo
