#include "cosimo/common/plot.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "plot_parts.h"

namespace cosimo {
namespace {

using plot_parts::kLeft;
using plot_parts::Range;
using plot_parts::Trace;

// Matplotlib's "tab10" colour cycle.
constexpr const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

struct Panel {
  std::string name;
  std::vector<size_t> columns;
};

std::string UnitOf(const PlotOptions& options, const std::string& column) {
  auto it = options.units.find(column);
  return it == options.units.end() ? std::string() : it->second;
}

absl::StatusOr<std::vector<Panel>> PanelsOf(const ResultTable& table, const PlotOptions& options) {
  std::vector<size_t> columns;
  if (options.variables.empty()) {
    for (size_t c = 1; c < table.columns.size(); ++c) {
      if (table.type(c) != ValueType::kString) columns.push_back(c);
    }
  } else {
    for (const std::string& name : options.variables) {
      auto it = std::find(table.columns.begin(), table.columns.end(), name);
      if (it == table.columns.end()) {
        return absl::InvalidArgumentError("the results have no column '" + name + "'");
      }
      const size_t c = static_cast<size_t>(it - table.columns.begin());
      if (table.type(c) == ValueType::kString) {
        return absl::InvalidArgumentError("column '" + name + "' holds strings, not numbers");
      }
      columns.push_back(c);
    }
  }
  if (columns.empty()) return absl::InvalidArgumentError("the results have no numeric column");
  std::vector<Panel> panels;
  for (size_t c : columns) {
    const std::string& name = table.columns[c];
    const std::string group = options.one_panel ? "" : name.substr(0, name.find('.'));
    auto it =
        std::find_if(panels.begin(), panels.end(), [&](const Panel& p) { return p.name == group; });
    if (it == panels.end()) it = panels.insert(panels.end(), Panel{group, {}});
    it->columns.push_back(c);
  }
  return panels;
}

}  // namespace

std::vector<double> NiceTicks(double lo, double hi, int target) {
  std::vector<double> ticks;
  if (!(hi > lo) || target < 1 || !std::isfinite(hi - lo)) return ticks;
  const double raw = (hi - lo) / target;
  const int exponent = static_cast<int>(std::floor(std::log10(raw)));
  // A tick is n * 10^exponent with n an integer multiple of 1, 2, 5 or 10; computed with one
  // rounding (a division for negative exponents) so that 0.6 is 0.6, not 0.6000000000000001.
  const double power = std::pow(10.0, std::abs(exponent));
  auto value = [&](double n) { return exponent < 0 ? n / power : n * power; };
  double multiple = 10;
  for (double m : {1.0, 2.0, 5.0}) {
    if (value(m) >= raw) {
      multiple = m;
      break;
    }
  }
  const double step = value(multiple);
  for (double k = std::ceil(lo / step - 1e-9); value(k * multiple) <= hi + step * 1e-9; k += 1) {
    ticks.push_back(value(k * multiple));
  }
  return ticks;
}

absl::Status DrawPlot(const ResultTable& table, const PlotOptions& options, PlotCanvas& canvas) {
  if (table.columns.empty() || table.columns[0] != "time") {
    return absl::InvalidArgumentError("the results have no 'time' column first");
  }
  absl::StatusOr<std::vector<Panel>> panels = PanelsOf(table, options);
  if (!panels.ok()) return panels.status();
  const size_t width = table.columns.size();
  Range time;
  for (size_t r = 0; r < table.rows(); ++r) time.Add(table.values[r * width]);
  const plot_parts::TimePanels layout(options, time, panels->size(), table.rows());

  layout.Begin(canvas, options.title);
  size_t color = 0;
  for (size_t p = 0; p < panels->size(); ++p) {
    const Panel& panel = (*panels)[p];
    const plot_parts::PanelBox box = layout.Box(p);
    const double top = box.top, bottom = box.bottom, right = box.right;
    Range values;
    std::string unit = UnitOf(options, table.columns[panel.columns.front()]);
    for (size_t c : panel.columns) {
      for (size_t r = 0; r < table.rows(); ++r) values.Add(table.values[r * width + c]);
      if (UnitOf(options, table.columns[c]) != unit) unit.clear();
    }
    values.Widen();
    const double y_scale = (bottom - top) / (values.hi - values.lo);

    plot_parts::DrawFrame(canvas, box, layout.TimeAxis(),
                          {values, y_scale, NiceTicks(values.lo, values.hi, 5)}, panel.name,
                          unit.empty() ? "" : "[" + unit + "]");

    // The series and their legend entries.
    double legend_y = top + 12;
    for (size_t c : panel.columns) {
      const char* stroke = kColors[color++ % std::size(kColors)];
      for (const PlotCanvas::Points& line : Trace(table, c, kLeft, layout.x_scale, layout.time.lo,
                                                  bottom, y_scale, values.lo, layout.thin)) {
        canvas.Line(line, stroke, 1.5, table.columns[c]);
      }
      canvas.Line({{right + 12, legend_y - 4}, {right + 32, legend_y - 4}}, stroke, 2.5, "");
      std::string label = table.columns[c];
      const std::string column_unit = UnitOf(options, label);
      if (unit.empty() && !column_unit.empty()) label += " [" + column_unit + "]";
      if (label.size() > 30) label = label.substr(0, 29) + "~";
      canvas.Text(right + 38, legend_y, label, 11, TextAnchor::kStart, false);
      legend_y += 16;
    }
  }
  layout.End(canvas);
  return absl::OkStatus();
}

absl::StatusOr<std::string> PlotSvg(const ResultTable& table, const PlotOptions& options) {
  plot_parts::SvgCanvas canvas;
  if (absl::Status s = DrawPlot(table, options, canvas); !s.ok()) return s;
  return canvas.Take();
}

}  // namespace cosimo
