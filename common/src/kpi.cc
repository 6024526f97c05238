#include "cosimo/common/kpi.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace cosimo {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Trapezoid rule over the rows, of f(y).
template <typename F>
double Trapezoid(const std::vector<double>& t, const std::vector<double>& y, F f) {
  double sum = 0.0;
  for (size_t i = 0; i + 1 < t.size(); ++i)
    sum += 0.5 * (f(y[i]) + f(y[i + 1])) * (t[i + 1] - t[i]);
  return sum;
}

double FirstCrossing(const std::vector<double>& t, const std::vector<double>& y, double level) {
  if (y[0] == level) return t[0];
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    const double a = y[i] - level;
    const double b = y[i + 1] - level;
    if (b == 0.0) return t[i + 1];
    if ((a < 0.0 && b > 0.0) || (a > 0.0 && b < 0.0)) {
      return t[i] + (t[i + 1] - t[i]) * (a / (a - b));
    }
  }
  return kNaN;
}

// y at `at`, linear between the rows around it; NaN outside [t_0, t_N].
double ValueAt(const std::vector<double>& t, const std::vector<double>& y, double at) {
  if (!(at >= t.front() && at <= t.back())) return kNaN;
  const size_t i = static_cast<size_t>(std::upper_bound(t.begin(), t.end(), at) - t.begin());
  if (i == t.size() || t[i - 1] == at) return y[i - 1];  // i >= 1: t_0 <= at
  const double s = (at - t[i - 1]) / (t[i] - t[i - 1]);
  return y[i - 1] + s * (y[i] - y[i - 1]);
}

}  // namespace

double KpiOfSeries(v1::Kpi::Kind kind, const std::vector<double>& times,
                   const std::vector<double>& values, double level) {
  if (values.empty() || times.size() != values.size()) return kNaN;
  const bool any_nan =
      std::any_of(values.begin(), values.end(), [](double v) { return std::isnan(v); });
  const double span = times.back() - times.front();
  switch (kind) {
    case v1::Kpi::FINAL:
      return values.back();
    case v1::Kpi::FIRST_CROSSING:
      return FirstCrossing(times, values, level);
    case v1::Kpi::AT:
      return ValueAt(times, values, level);
    default:
      break;
  }
  if (any_nan) return kNaN;
  switch (kind) {
    case v1::Kpi::MIN:
      return *std::min_element(values.begin(), values.end());
    case v1::Kpi::MAX:
      return *std::max_element(values.begin(), values.end());
    case v1::Kpi::INTEGRAL:
      return Trapezoid(times, values, [](double v) { return v; });
    case v1::Kpi::MEAN:
      if (span <= 0.0) return values.front();
      return Trapezoid(times, values, [](double v) { return v; }) / span;
    case v1::Kpi::RMS:
      if (span <= 0.0) return std::fabs(values.front());
      return std::sqrt(Trapezoid(times, values, [](double v) { return v * v; }) / span);
    default:
      return kNaN;
  }
}

absl::StatusOr<double> ComputeKpi(const v1::Kpi& kpi, const ResultTable& table) {
  const auto it = std::find(table.columns.begin(), table.columns.end(), kpi.variable());
  if (it == table.columns.end() || it == table.columns.begin()) {
    return absl::NotFoundError(
        absl::StrCat("KPI ", KpiName(kpi), ": the results have no column '", kpi.variable(), "'"));
  }
  const size_t column = static_cast<size_t>(it - table.columns.begin());
  if (table.type(column) == ValueType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat("KPI ", KpiName(kpi), ": '", kpi.variable(), "' holds strings"));
  }
  const size_t rows = table.rows();
  if (rows == 0) {
    return absl::InvalidArgumentError(absl::StrCat("KPI ", KpiName(kpi), ": no results rows"));
  }
  const size_t width = table.columns.size();
  std::vector<double> times(rows), values(rows);
  for (size_t r = 0; r < rows; ++r) {
    times[r] = table.values[r * width];
    values[r] = table.values[r * width + column];
  }
  return KpiOfSeries(kpi.kind(), times, values,
                     kpi.kind() == v1::Kpi::AT ? kpi.time() : kpi.level());
}

std::string KpiName(const v1::Kpi& kpi) {
  if (!kpi.name().empty()) return kpi.name();
  std::string name =
      absl::StrCat(absl::AsciiStrToLower(v1::Kpi::Kind_Name(kpi.kind())), "(", kpi.variable());
  if (kpi.kind() == v1::Kpi::FIRST_CROSSING) absl::StrAppend(&name, "@", FormatDouble(kpi.level()));
  if (kpi.kind() == v1::Kpi::AT) absl::StrAppend(&name, "@", FormatDouble(kpi.time()));
  return name + ")";
}

ResultTable SweepTableColumns(const v1::Sweep& sweep) {
  ResultTable table;
  table.columns.push_back("index");
  for (const v1::SweepParameter& p : sweep.parameters()) table.columns.push_back(p.name());
  for (const v1::Kpi& kpi : sweep.kpis()) table.columns.push_back(KpiName(kpi));
  table.columns.insert(table.columns.end(), {"status", "wall_time_s", "message"});
  table.types.assign(table.columns.size(), ValueType::kReal);
  table.types[0] = ValueType::kInteger;  // the variant's index (whole in the double: exact)
  table.types[table.columns.size() - 3] = ValueType::kString;
  table.types[table.columns.size() - 1] = ValueType::kString;
  return table;
}

SweepOutcome& SweepOutcome::End(v1::JobState end_status, std::string end_message,
                                std::chrono::steady_clock::time_point start) {
  status = end_status;
  message = std::move(end_message);
  wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return *this;
}

SweepOutcome& SweepOutcome::EndWithKpis(const v1::Sweep& sweep, const ResultTable& results,
                                        std::chrono::steady_clock::time_point start) {
  kpis.clear();
  for (const v1::Kpi& kpi : sweep.kpis()) {
    absl::StatusOr<double> value = ComputeKpi(kpi, results);
    if (!value.ok()) {
      kpis.clear();
      return End(v1::FAILED, std::string(value.status().message()), start);
    }
    kpis.push_back(*value);
  }
  return End(v1::SUCCEEDED, "", start);
}

void AddSweepRow(ResultTable* table, uint64_t index, const std::vector<double>& values,
                 const SweepOutcome& outcome) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  table->values.push_back(static_cast<double>(index));
  table->values.insert(table->values.end(), values.begin(), values.end());
  const size_t count = table->columns.size() - 4 - values.size();
  for (size_t i = 0; i < count; ++i) {
    table->values.push_back(i < outcome.kpis.size() ? outcome.kpis[i] : kNaN);
  }
  table->values.insert(table->values.end(), {kNaN, outcome.wall_s, kNaN});
  table->strings.insert(table->strings.end(), {v1::JobState_Name(outcome.status), outcome.message});
}

}  // namespace cosimo
