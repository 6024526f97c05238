// Scatter plots (cosimo/common/plot.h): one column of a table against another.
#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cosimo/common/plot.h"
#include "cosimo/v1/job_service.pb.h"
#include "plot_parts.h"

namespace cosimo {
namespace {

using plot_parts::kLeft;
using plot_parts::Range;

constexpr char kColor[] = "#1f77b4";
constexpr double kRight = 24;    // right of the frame
constexpr double kTop = 16;      // above the frame
constexpr double kTitle = 28;    // the title above that
constexpr double kBottom = 48;   // the x tick labels and the x label below the frame
constexpr double kCaption = 18;  // the caption below those

// The column `name` of the table, which must hold numbers.
absl::StatusOr<size_t> NumericColumn(const ResultTable& table, const std::string& name) {
  const std::vector<std::string> names = NumericColumns(table);
  const std::string numeric =
      names.empty() ? "it has no numeric column" : "numeric columns: " + absl::StrJoin(names, ", ");
  const auto it = std::find(table.columns.begin(), table.columns.end(), name);
  if (it == table.columns.end()) {
    return absl::InvalidArgumentError("no column '" + name + "' in the table (" + numeric + ")");
  }
  const size_t c = static_cast<size_t>(it - table.columns.begin());
  if (table.type(c) == ValueType::kString) {
    return absl::InvalidArgumentError("column '" + name + "' holds strings, not numbers (" +
                                      numeric + ")");
  }
  return c;
}

// The rows to draw, and how many are left out.
struct Selection {
  std::vector<size_t> rows;
  size_t failed = 0;      // status FAILED
  size_t not_finite = 0;  // x or y NaN or infinite
};

Selection SelectRows(const ResultTable& table, size_t x, size_t y) {
  // The "status" column's place among the columns of strings (their texts are row-major).
  std::optional<size_t> status;
  size_t texts = 0;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    if (table.type(c) != ValueType::kString) continue;
    if (table.columns[c] == "status") status = texts;
    ++texts;
  }
  const size_t width = table.columns.size();
  Selection selection;
  for (size_t r = 0; r < table.rows(); ++r) {
    const size_t text = r * texts + status.value_or(0);
    if (status && text < table.strings.size() &&
        table.strings[text] == v1::JobState_Name(v1::FAILED)) {
      ++selection.failed;
    } else if (!std::isfinite(table.values[r * width + x]) ||
               !std::isfinite(table.values[r * width + y])) {
      ++selection.not_finite;
    } else {
      selection.rows.push_back(r);
    }
  }
  return selection;
}

// "2 failed variants and 1 with NaN not shown", or empty when every row is shown.
std::string Caption(const Selection& s) {
  auto variants = [](size_t n) { return n == 1 ? " variant" : " variants"; };
  std::string caption;
  if (s.failed > 0) caption = absl::StrCat(s.failed, " failed", variants(s.failed));
  if (s.not_finite > 0) {
    absl::StrAppend(&caption, caption.empty() ? "" : " and ", s.not_finite,
                    caption.empty() ? variants(s.not_finite) : "", " with NaN");
  }
  return caption.empty() ? caption : caption + " not shown";
}

// What a marker's tooltip says: the variant (the "index" column) or row, and its x and y.
std::string PointLabel(const ResultTable& table, size_t row, size_t x, size_t y) {
  const size_t width = table.columns.size();
  const auto index = std::find(table.columns.begin(), table.columns.end(), "index");
  const size_t i = static_cast<size_t>(index - table.columns.begin());
  std::string label = index != table.columns.end() && table.type(i) != ValueType::kString
                          ? "variant " + FormatDouble(table.values[row * width + i])
                          : "row " + std::to_string(row + 1);
  absl::StrAppend(&label, ": ", table.columns[x], " = ",
                  FormatDouble(table.values[row * width + x]), ", ", table.columns[y], " = ",
                  FormatDouble(table.values[row * width + y]));
  return label;
}

}  // namespace

std::vector<std::string> NumericColumns(const ResultTable& table) {
  std::vector<std::string> names;
  for (size_t c = 0; c < table.columns.size(); ++c) {
    if (table.type(c) != ValueType::kString) names.push_back(table.columns[c]);
  }
  return names;
}

absl::Status DrawScatter(const ResultTable& table, const std::string& x, const std::string& y,
                         const ScatterOptions& options, PlotCanvas& canvas) {
  absl::StatusOr<size_t> xc = NumericColumn(table, x);
  if (!xc.ok()) return xc.status();
  absl::StatusOr<size_t> yc = NumericColumn(table, y);
  if (!yc.ok()) return yc.status();
  const Selection selection = SelectRows(table, *xc, *yc);
  const std::string caption = Caption(selection);
  const size_t width = table.columns.size();
  Range xs, ys;
  for (size_t r : selection.rows) {
    xs.Add(table.values[r * width + *xc]);
    ys.Add(table.values[r * width + *yc]);
  }
  xs.Widen();
  ys.Widen();

  const double total_width = std::max(options.width, 300);
  const double total_height = std::max(options.height, 200);
  const double top = (options.title.empty() ? 0 : kTitle) + kTop;
  const double bottom = total_height - kBottom - (caption.empty() ? 0 : kCaption);
  const double right = total_width - kRight;
  const plot_parts::Axis x_axis{xs, (right - kLeft) / (xs.hi - xs.lo), NiceTicks(xs.lo, xs.hi, 8)};
  const plot_parts::Axis y_axis{ys, (bottom - top) / (ys.hi - ys.lo), NiceTicks(ys.lo, ys.hi, 6)};

  canvas.Begin(total_width, total_height);
  if (!options.title.empty()) {
    canvas.Text(total_width / 2, 20, options.title, 16, TextAnchor::kMiddle, false);
  }
  plot_parts::DrawFrame(canvas, {top, bottom, right}, x_axis, y_axis, "", y);
  canvas.Text((kLeft + right) / 2, bottom + 36, x, 12, TextAnchor::kMiddle, false);
  const double radius = selection.rows.size() > 2000 ? 2 : 4;
  for (size_t r : selection.rows) {
    canvas.Marker(kLeft + (table.values[r * width + *xc] - xs.lo) * x_axis.scale,
                  bottom - (table.values[r * width + *yc] - ys.lo) * y_axis.scale, radius, kColor,
                  PointLabel(table, r, *xc, *yc));
  }
  if (!caption.empty()) {
    canvas.Text(kLeft, total_height - 8, caption, 11, TextAnchor::kStart, false);
  }
  canvas.End();
  return absl::OkStatus();
}

absl::StatusOr<std::string> PlotScatterSvg(const ResultTable& table, const std::string& x,
                                           const std::string& y, const ScatterOptions& options) {
  plot_parts::SvgCanvas canvas;
  if (absl::Status s = DrawScatter(table, x, y, options, canvas); !s.ok()) return s;
  return canvas.Take();
}

}  // namespace cosimo
