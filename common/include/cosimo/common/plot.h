// Plots of a table (cosimo/common/csv.h), two kinds:
// - Time plots of a results table: one panel per group of columns, by default one per unit (the
//   part of a column's name before its first '.'), sharing the time axis, with a legend and axis
//   labels that carry units where they are known. A table of any length stays a plot of bounded
//   size: a series with more points than four per pixel column is thinned to the first, lowest,
//   highest and last point of each pixel column, so no peak is lost. A NaN cell breaks the line.
// - Scatter plots of one column against another, one marker per row: a KPI of a sweep table
//   (cosimo/common/kpi.h) against a parameter, say.
//
// DrawPlot and DrawScatter lay a plot out and draw it on a PlotCanvas (pixel coordinates, y
// downwards): PlotSvg's and PlotScatterSvg's canvas writes SVG text, and `cosimo plot` adds a
// Cairo canvas for PNG. Stateless; no I/O; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/csv.h"

namespace cosimo {

struct PlotOptions {
  // The columns to plot, in this order; empty: every Real, Integer and Boolean column but time.
  std::vector<std::string> variables;
  bool one_panel = false;                    // all variables in one panel instead of one per unit
  std::map<std::string, std::string> units;  // column -> physical unit, for the labels
  std::string title;                         // above the first panel; may be empty
  int width = 960;                           // pixels
  int panel_height = 260;                    // pixels, per panel
};

enum class TextAnchor { kStart, kMiddle, kEnd };

// What DrawPlot draws on. Colours are "#rrggbb".
class PlotCanvas {
 public:
  using Points = std::vector<std::pair<double, double>>;

  virtual ~PlotCanvas() = default;
  virtual void Begin(double width, double height) = 0;
  // `series`: the column a data line belongs to; empty for frames, grid lines and legend marks.
  virtual void Line(const Points& points, std::string_view color, double stroke_width,
                    std::string_view series) = 0;
  // A data point: a filled circle of `radius` centred on (x, y); `label` says what it is (a
  // tooltip in SVG), may be empty.
  virtual void Marker(double x, double y, double radius, std::string_view color,
                      std::string_view label) = 0;
  virtual void Text(double x, double y, std::string_view text, double size, TextAnchor anchor,
                    bool vertical) = 0;
  virtual void End() = 0;
};

// Errors: a column named in `variables` that the table lacks or that holds strings, a table
// without a "time" column, nothing to plot.
[[nodiscard]] absl::Status DrawPlot(const ResultTable& table, const PlotOptions& options,
                                    PlotCanvas& canvas);
[[nodiscard]] absl::StatusOr<std::string> PlotSvg(const ResultTable& table,
                                                  const PlotOptions& options);

struct ScatterOptions {
  std::string title;  // above the plot; may be empty
  int width = 720;    // pixels
  int height = 480;   // pixels
};

// A scatter plot of column `y` against column `x` of `table`: axes with ticks, labelled with the
// columns' names, and one marker per row but those left out: a row whose "status" column (a
// column of strings, as in a sweep table) says FAILED, and a row whose x or y is NaN (or
// infinite). A caption under the axes counts them ("2 failed variants not shown"). Errors
// (kInvalidArgument): `x` or `y` is not a column of the table, or a column of strings; the
// message names it and lists the numeric columns.
[[nodiscard]] absl::Status DrawScatter(const ResultTable& table, const std::string& x,
                                       const std::string& y, const ScatterOptions& options,
                                       PlotCanvas& canvas);
[[nodiscard]] absl::StatusOr<std::string> PlotScatterSvg(const ResultTable& table,
                                                         const std::string& x, const std::string& y,
                                                         const ScatterOptions& options);

// The names of the table's numeric columns (all but the columns of strings), in order: what
// DrawScatter can draw.
std::vector<std::string> NumericColumns(const ResultTable& table);

// Tick positions for an axis over [lo, hi]: multiples of 1, 2 or 5 times a power of ten, about
// `target` of them, all inside the range.
std::vector<double> NiceTicks(double lo, double hi, int target);

}  // namespace cosimo
