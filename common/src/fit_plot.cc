#include "cosimo/common/fit_plot.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "absl/strings/str_cat.h"
#include "cosimo/common/kpi.h"
#include "plot_parts.h"

namespace cosimo {
namespace {

using plot_parts::kLeft;
using plot_parts::Range;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr char kMeasuredColor[] = "#d62728";
constexpr char kSimulatedColor[] = "#1f77b4";

// The index of column `name` of `table`, or its size.
size_t ColumnOf(const ResultTable& table, const std::string& name) {
  return static_cast<size_t>(std::find(table.columns.begin(), table.columns.end(), name) -
                             table.columns.begin());
}

// The time column and column `c` of `table` as series.
void SeriesOf(const ResultTable& table, size_t c, std::vector<double>* t, std::vector<double>* y) {
  const size_t width = table.columns.size();
  for (size_t r = 0; r < table.rows(); ++r) {
    t->push_back(table.values[r * width]);
    y->push_back(table.values[r * width + c]);
  }
}

}  // namespace

ResultTable MeasuredTable(const std::vector<MeasuredSeries>& data, const ResultTable& best) {
  ResultTable table;
  table.columns.assign(std::begin(kMeasuredColumns), std::end(kMeasuredColumns));
  table.types = {ValueType::kString, ValueType::kString, ValueType::kReal,
                 ValueType::kReal,   ValueType::kReal,   ValueType::kReal};
  for (const MeasuredSeries& s : data) {
    std::vector<double> t, y;
    const size_t c = ColumnOf(best, s.variable);
    const bool has = c > 0 && c < best.columns.size() && best.type(c) != ValueType::kString;
    if (has) SeriesOf(best, c, &t, &y);
    for (size_t k = 0; k < s.times.size() && k < s.values.size(); ++k) {
      const double simulated = has ? KpiOfSeries(v1::Kpi::AT, t, y, s.times[k]) : kNaN;
      table.values.insert(table.values.end(), {kNaN, kNaN, s.times[k], s.values[k], simulated,
                                               s.factor * (simulated - s.values[k])});
      table.strings.push_back(s.column);
      table.strings.push_back(s.variable);
    }
  }
  return table;
}

std::vector<MeasuredSeries> MeasuredSeriesOf(const v1::CalibrationJob& job) {
  std::vector<MeasuredSeries> out;
  for (const v1::MeasuredSamples& s : job.samples()) {
    out.push_back({s.column(),
                   s.variable(),
                   {s.times().begin(), s.times().end()},
                   {s.values().begin(), s.values().end()},
                   s.factor()});
  }
  return out;
}

absl::StatusOr<std::vector<MeasuredSeries>> MeasuredSeriesOf(const ResultTable& table) {
  size_t at[std::size(kMeasuredColumns)];
  for (size_t i = 0; i < std::size(kMeasuredColumns); ++i) {
    at[i] = ColumnOf(table, kMeasuredColumns[i]);
    if (at[i] == table.columns.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "not a fit's measured data: no column '", kMeasuredColumns[i],
          "' (measured.csv of `cosimo fit` or `cosimo results` of a calibration job has "
          "column,variable,time,measured,simulated,residual)"));
    }
  }
  // The text columns' places among the table's columns of strings.
  auto text_index = [&](size_t column) {
    size_t k = 0;
    for (size_t c = 0; c < column; ++c) k += table.type(c) == ValueType::kString ? 1 : 0;
    return k;
  };
  if (table.type(at[0]) != ValueType::kString || table.type(at[1]) != ValueType::kString) {
    return absl::InvalidArgumentError(
        "not a fit's measured data: its columns 'column' and 'variable' must hold names");
  }
  const size_t width = table.columns.size(), texts = table.string_columns();
  const size_t column_text = text_index(at[0]), variable_text = text_index(at[1]);
  std::vector<MeasuredSeries> out;
  for (size_t r = 0; r < table.rows(); ++r) {
    const std::string& column = table.strings[r * texts + column_text];
    const std::string& variable = table.strings[r * texts + variable_text];
    const double t = table.values[r * width + at[2]], v = table.values[r * width + at[3]];
    if (!std::isfinite(t) || std::isnan(v)) {
      return absl::InvalidArgumentError(absl::StrCat("measured data row ", r + 1, " (", column,
                                                     "): its time and measured value must be "
                                                     "numbers"));
    }
    auto it = std::find_if(out.begin(), out.end(), [&](const MeasuredSeries& s) {
      return s.column == column && s.variable == variable;
    });
    if (it == out.end()) it = out.insert(out.end(), MeasuredSeries{column, variable, {}, {}, 1.0});
    it->times.push_back(t);
    it->values.push_back(v);
  }
  return out;
}

absl::Status DrawFitPlot(const ResultTable& best, const std::vector<MeasuredSeries>& measured,
                         const PlotOptions& options, PlotCanvas& canvas) {
  if (best.columns.empty() || best.columns[0] != "time") {
    return absl::InvalidArgumentError("the best run's results have no 'time' column first");
  }
  if (measured.empty()) return absl::InvalidArgumentError("no measured data to plot");
  std::vector<size_t> columns;
  Range time;
  const size_t width = best.columns.size();
  for (size_t r = 0; r < best.rows(); ++r) time.Add(best.values[r * width]);
  for (const MeasuredSeries& s : measured) {
    const size_t c = ColumnOf(best, s.variable);
    if (c == 0 || c == width || best.type(c) == ValueType::kString) {
      return absl::InvalidArgumentError("the best run's results have no numeric column '" +
                                        s.variable + "' (measured column '" + s.column + "')");
    }
    columns.push_back(c);
    for (double t : s.times) time.Add(t);
  }
  const plot_parts::TimePanels layout(options, time, measured.size(), best.rows());
  const double x_scale = layout.x_scale, t0 = layout.time.lo;

  layout.Begin(canvas, options.title);
  for (size_t p = 0; p < measured.size(); ++p) {
    const MeasuredSeries& s = measured[p];
    const size_t c = columns[p];
    const plot_parts::PanelBox box = layout.Box(p);
    const double top = box.top, bottom = box.bottom, right = box.right;
    Range values;
    for (size_t r = 0; r < best.rows(); ++r) values.Add(best.values[r * width + c]);
    for (double v : s.values) values.Add(v);
    values.Widen();
    const double y_scale = (bottom - top) / (values.hi - values.lo);
    auto unit = options.units.find(s.variable);
    plot_parts::DrawFrame(canvas, box, layout.TimeAxis(),
                          {values, y_scale, NiceTicks(values.lo, values.hi, 5)},
                          s.column + " (" + s.variable + ")",
                          unit == options.units.end() ? "" : "[" + unit->second + "]");
    for (const PlotCanvas::Points& line :
         plot_parts::Trace(best, c, kLeft, x_scale, t0, bottom, y_scale, values.lo, layout.thin)) {
      canvas.Line(line, kSimulatedColor, 1.5, s.variable);
    }
    for (size_t k = 0; k < s.times.size() && k < s.values.size(); ++k) {
      if (!std::isfinite(s.values[k])) continue;
      canvas.Marker(kLeft + (s.times[k] - t0) * x_scale,
                    bottom - (s.values[k] - values.lo) * y_scale, 2.5, kMeasuredColor,
                    absl::StrCat(s.column, " at ", FormatDouble(s.times[k]),
                                 " s: ", FormatDouble(s.values[k])));
    }
    // The legend: the line, then the markers.
    const double legend_y = top + 12;
    canvas.Line({{right + 12, legend_y - 4}, {right + 32, legend_y - 4}}, kSimulatedColor, 2.5, "");
    canvas.Text(right + 38, legend_y, "simulated (best run)", 11, TextAnchor::kStart, false);
    canvas.Marker(right + 22, legend_y + 12, 2.5, kMeasuredColor, "");
    canvas.Text(right + 38, legend_y + 16, "measured", 11, TextAnchor::kStart, false);
  }
  layout.End(canvas);
  return absl::OkStatus();
}

absl::StatusOr<std::string> FitPlotSvg(const ResultTable& best,
                                       const std::vector<MeasuredSeries>& measured,
                                       const PlotOptions& options) {
  plot_parts::SvgCanvas canvas;
  if (absl::Status s = DrawFitPlot(best, measured, options, canvas); !s.ok()) return s;
  return canvas.Take();
}

}  // namespace cosimo
