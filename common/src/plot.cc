#include "cosimo/common/plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>

namespace cosimo {
namespace {

// Matplotlib's "tab10" colour cycle.
constexpr const char* kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
constexpr double kLeft = 78;     // room for the y tick labels and the unit
constexpr double kLegend = 210;  // room right of the plot area for the legend
constexpr double kTop = 30;      // the panel's title above its frame
constexpr double kBottom = 30;   // the x tick labels below the frame
constexpr double kTitle = 28;    // the plot's title above the first panel
constexpr double kAxisLabel = 22;

struct Panel {
  std::string name;
  std::vector<size_t> columns;
};

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void Add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  // A range that is empty or a single value is widened so that it can be drawn.
  void Widen() {
    if (lo > hi) {
      lo = 0;
      hi = 1;
    } else if (lo == hi) {
      const double pad = lo == 0 ? 1 : std::abs(lo) * 0.1;
      lo -= pad;
      hi += pad;
    } else {
      const double pad = (hi - lo) * 0.05;
      lo -= pad;
      hi += pad;
    }
  }
};

std::string UnitOf(const PlotOptions& options, const std::string& column) {
  auto it = options.units.find(column);
  return it == options.units.end() ? std::string() : it->second;
}

std::string FormatTick(double v, double step) {
  // As many decimals as the step needs, no more.
  const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
  char buffer[48];
  if (std::abs(v) < step * 1e-6) v = 0;  // -0 and rounding noise around zero
  if (std::abs(v) >= 1e6 || (std::abs(v) < 1e-3 && v != 0)) {
    std::snprintf(buffer, sizeof(buffer), "%.3g", v);
  } else {
    std::snprintf(buffer, sizeof(buffer), "%.*f", std::min(decimals, 12), v);
  }
  return buffer;
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

// The pixel points of one column, broken at NaN cells, thinned per pixel column.
std::vector<PlotCanvas::Points> Trace(const ResultTable& table, size_t column, double x0,
                                      double x_scale, double t0, double y0, double y_scale,
                                      double v0, bool thin) {
  const size_t width = table.columns.size();
  std::vector<PlotCanvas::Points> lines(1);
  long bucket = std::numeric_limits<long>::min();
  size_t bucket_start = 0;  // index in lines.back() where the current pixel column starts
  for (size_t r = 0; r < table.rows(); ++r) {
    const double t = table.values[r * width];
    const double v = table.values[r * width + column];
    if (!std::isfinite(t) || !std::isfinite(v)) {
      if (!lines.back().empty()) lines.emplace_back();
      bucket = std::numeric_limits<long>::min();
      continue;
    }
    const std::pair<double, double> p{x0 + (t - t0) * x_scale, y0 - (v - v0) * y_scale};
    PlotCanvas::Points& line = lines.back();
    const long b = static_cast<long>(std::floor(p.first));
    if (!thin || b != bucket) {
      bucket = b;
      bucket_start = line.size();
      line.push_back(p);
      continue;
    }
    // Within one pixel column keep first, lowest, highest (in their order) and last.
    PlotCanvas::Points column_points(line.begin() + static_cast<std::ptrdiff_t>(bucket_start),
                                     line.end());
    column_points.push_back(p);
    auto low = std::max_element(column_points.begin(), column_points.end(),
                                [](auto& a, auto& b) { return a.second < b.second; });
    auto high = std::min_element(column_points.begin(), column_points.end(),
                                 [](auto& a, auto& b) { return a.second < b.second; });
    PlotCanvas::Points kept{column_points.front()};
    for (auto it = column_points.begin() + 1; it + 1 < column_points.end(); ++it) {
      if (it == low || it == high) kept.push_back(*it);
    }
    kept.push_back(column_points.back());
    line.resize(bucket_start);
    line.insert(line.end(), kept.begin(), kept.end());
  }
  if (lines.back().empty()) lines.pop_back();
  return lines;
}

class SvgCanvas : public PlotCanvas {
 public:
  void Begin(double width, double height) override {
    char buffer[256];
    std::snprintf(buffer, sizeof(buffer),
                  "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                  "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
                  "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
                  width, height, width, height);
    out_ += buffer;
  }
  void Line(const Points& points, std::string_view color, double stroke_width,
            std::string_view series) override {
    out_ += "<polyline";
    if (!series.empty()) {
      out_ += " class=\"series\" data-variable=\"";
      Escape(series);
      out_ += "\"";
    }
    out_ += " fill=\"none\" stroke=\"";
    out_ += color;
    char buffer[48];
    std::snprintf(buffer, sizeof(buffer), "\" stroke-width=\"%g\" points=\"", stroke_width);
    out_ += buffer;
    for (size_t i = 0; i < points.size(); ++i) {
      std::snprintf(buffer, sizeof(buffer), "%s%.1f,%.1f", i == 0 ? "" : " ", points[i].first,
                    points[i].second);
      out_ += buffer;
    }
    out_ += "\"/>\n";
  }
  void Text(double x, double y, std::string_view text, double size, TextAnchor anchor,
            bool vertical) override {
    const char* anchors[] = {"start", "middle", "end"};
    char buffer[160];
    std::snprintf(buffer, sizeof(buffer),
                  "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%g\" text-anchor=\"%s\"", x, y, size,
                  anchors[static_cast<int>(anchor)]);
    out_ += buffer;
    if (vertical) {
      std::snprintf(buffer, sizeof(buffer), " transform=\"rotate(-90 %.1f %.1f)\"", x, y);
      out_ += buffer;
    }
    out_ += ">";
    Escape(text);
    out_ += "</text>\n";
  }
  void End() override { out_ += "</svg>\n"; }

  std::string Take() { return std::move(out_); }

 private:
  void Escape(std::string_view text) {
    for (char c : text) {
      switch (c) {
        case '<':
          out_ += "&lt;";
          break;
        case '>':
          out_ += "&gt;";
          break;
        case '&':
          out_ += "&amp;";
          break;
        case '"':
          out_ += "&quot;";
          break;
        default:
          out_ += c;
      }
    }
  }

  std::string out_;
};

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

namespace {

// A panel's edges on the canvas.
struct PanelBox {
  double top, bottom, right;
};

// A panel's grid, ticks and frame, its name above and its unit beside.
void DrawFrame(PlotCanvas& canvas, const PanelBox& box, const Range& values, double y_scale,
               const Range& time, double x_scale, const std::vector<double>& time_ticks,
               const std::string& name, const std::string& unit) {
  const double top = box.top, bottom = box.bottom, right = box.right;
  const double time_step = time_ticks.size() > 1 ? time_ticks[1] - time_ticks[0] : 1;
  const std::vector<double> value_ticks = NiceTicks(values.lo, values.hi, 5);
  const double value_step = value_ticks.size() > 1 ? value_ticks[1] - value_ticks[0] : 1;
  for (double v : value_ticks) {
    const double y = bottom - (v - values.lo) * y_scale;
    canvas.Line({{kLeft, y}, {right, y}}, "#e5e5e5", 1, "");
    canvas.Text(kLeft - 6, y + 4, FormatTick(v, value_step), 11, TextAnchor::kEnd, false);
  }
  for (double t : time_ticks) {
    const double x = kLeft + (t - time.lo) * x_scale;
    canvas.Line({{x, top}, {x, bottom}}, "#e5e5e5", 1, "");
    canvas.Text(x, bottom + 16, FormatTick(t, time_step), 11, TextAnchor::kMiddle, false);
  }
  canvas.Line({{kLeft, top}, {right, top}, {right, bottom}, {kLeft, bottom}, {kLeft, top}},
              "#333333", 1, "");
  if (!name.empty()) {
    canvas.Text(kLeft, top - 8, name, 13, TextAnchor::kStart, false);
  }
  if (!unit.empty()) {
    canvas.Text(16, (top + bottom) / 2, "[" + unit + "]", 12, TextAnchor::kMiddle, true);
  }
}

}  // namespace

absl::Status DrawPlot(const ResultTable& table, const PlotOptions& options, PlotCanvas& canvas) {
  if (table.columns.empty() || table.columns[0] != "time") {
    return absl::InvalidArgumentError("the results have no 'time' column first");
  }
  absl::StatusOr<std::vector<Panel>> panels = PanelsOf(table, options);
  if (!panels.ok()) return panels.status();
  const size_t width = table.columns.size();
  Range time;
  for (size_t r = 0; r < table.rows(); ++r) time.Add(table.values[r * width]);
  if (time.lo == time.hi) time.Widen();
  if (time.lo > time.hi) time = Range{0, 1};

  const double title = options.title.empty() ? 0 : kTitle;
  const double total_width = std::max(options.width, 400);
  const double panel_height = std::max(options.panel_height, 120);
  const double plot_width = total_width - kLeft - kLegend;
  const double total_height =
      title + panel_height * static_cast<double>(panels->size()) + kAxisLabel;
  const double x_scale = plot_width / (time.hi - time.lo);
  const bool thin = table.rows() > 4 * static_cast<size_t>(plot_width);
  const std::vector<double> time_ticks = NiceTicks(time.lo, time.hi, 8);

  canvas.Begin(total_width, total_height);
  if (!options.title.empty()) {
    canvas.Text(total_width / 2, 20, options.title, 16, TextAnchor::kMiddle, false);
  }
  size_t color = 0;
  for (size_t p = 0; p < panels->size(); ++p) {
    const Panel& panel = (*panels)[p];
    const double top = title + panel_height * static_cast<double>(p) + kTop;
    const double bottom = title + panel_height * static_cast<double>(p + 1) - kBottom;
    const double right = kLeft + plot_width;
    Range values;
    std::string unit = UnitOf(options, table.columns[panel.columns.front()]);
    for (size_t c : panel.columns) {
      for (size_t r = 0; r < table.rows(); ++r) values.Add(table.values[r * width + c]);
      if (UnitOf(options, table.columns[c]) != unit) unit.clear();
    }
    values.Widen();
    const double y_scale = (bottom - top) / (values.hi - values.lo);

    DrawFrame(canvas, {top, bottom, right}, values, y_scale, time, x_scale, time_ticks, panel.name,
              unit);

    // The series and their legend entries.
    double legend_y = top + 12;
    for (size_t c : panel.columns) {
      const char* stroke = kColors[color++ % std::size(kColors)];
      for (const PlotCanvas::Points& line :
           Trace(table, c, kLeft, x_scale, time.lo, bottom, y_scale, values.lo, thin)) {
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
  canvas.Text(kLeft + plot_width / 2, total_height - 6, "time [s]", 12, TextAnchor::kMiddle, false);
  canvas.End();
  return absl::OkStatus();
}

absl::StatusOr<std::string> PlotSvg(const ResultTable& table, const PlotOptions& options) {
  SvgCanvas canvas;
  if (absl::Status s = DrawPlot(table, options, canvas); !s.ok()) return s;
  return canvas.Take();
}

}  // namespace cosimo
