// What the time plots (plot.cc) and the scatter plots (plot_scatter.cc) share: the value range
// of an axis, tick labels, the frame of a panel and the SVG canvas. Private to cosimo_common.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "cosimo/common/plot.h"

namespace cosimo::plot_parts {

constexpr double kLeft = 78;  // the frame's left edge: room for the y tick labels and label

// The finite values of an axis.
struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void Add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  // A range that is empty or a single value is widened so that it can be drawn; any other is
  // padded by 5 % on both sides.
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

// A tick's label with as many decimals as the step between ticks needs, no more.
std::string FormatTick(double v, double step);

// The pixel points of column `column` of `table` (its first column time): (x0 + (t - t0)
// x_scale, y0 - (v - v0) y_scale), broken into lines at NaN cells; with `thin`, a pixel column's
// points are thinned to its first, lowest, highest and last.
std::vector<PlotCanvas::Points> Trace(const ResultTable& table, size_t column, double x0,
                                      double x_scale, double t0, double y0, double y_scale,
                                      double v0, bool thin);

// A panel's edges on the canvas (its left edge is kLeft).
struct PanelBox {
  double top, bottom, right;
};

// An axis of a panel: its range, pixels per unit of value, its ticks.
struct Axis {
  Range range;
  double scale;
  std::vector<double> ticks;
};

// A panel's grid, tick labels and frame; `name` above its top left corner, `y_label` written
// upwards left of the tick labels (either may be empty).
void DrawFrame(PlotCanvas& canvas, const PanelBox& box, const Axis& x, const Axis& y,
               const std::string& name, const std::string& y_label);

// The layout of the time plots (plot.cc, fit_plot.cc): `panels` panels stacked under the
// options' title (if any), one time axis, a legend right of each panel.
struct TimePanels {
  // `time`: the data's times (a single time is widened, none gives 0 to 1); `rows`: the table's
  // rows, thinned when over 4 a pixel column.
  TimePanels(const PlotOptions& options, Range time, size_t panels, size_t rows);

  // Panel `p`'s edges.
  PanelBox Box(size_t p) const;
  Axis TimeAxis() const { return {time, x_scale, time_ticks}; }
  // The canvas begun, with the title.
  void Begin(PlotCanvas& canvas, const std::string& title_text) const;
  // The time axis's label, and the canvas ended.
  void End(PlotCanvas& canvas) const;

  Range time;
  double title;  // its height: 0 without one
  double total_width, panel_height, plot_width, total_height;
  double x_scale;
  bool thin;
  std::vector<double> time_ticks;
};

// Writes SVG text: data lines are <polyline class="series" data-variable="...">, markers
// <circle class="point"> with their label as a <title>.
class SvgCanvas : public PlotCanvas {
 public:
  void Begin(double width, double height) override;
  void Line(const Points& points, std::string_view color, double stroke_width,
            std::string_view series) override;
  void Marker(double x, double y, double radius, std::string_view color,
              std::string_view label) override;
  void Text(double x, double y, std::string_view text, double size, TextAnchor anchor,
            bool vertical) override;
  void End() override;

  std::string Take() { return std::move(out_); }

 private:
  void Escape(std::string_view text);

  std::string out_;
};

}  // namespace cosimo::plot_parts
