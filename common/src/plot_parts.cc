#include "plot_parts.h"

#include <cstdio>
#include <iterator>
#include <limits>

namespace cosimo::plot_parts {

std::string FormatTick(double v, double step) {
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

void DrawFrame(PlotCanvas& canvas, const PanelBox& box, const Axis& x, const Axis& y,
               const std::string& name, const std::string& y_label) {
  const double top = box.top, bottom = box.bottom, right = box.right;
  const double x_step = x.ticks.size() > 1 ? x.ticks[1] - x.ticks[0] : 1;
  const double y_step = y.ticks.size() > 1 ? y.ticks[1] - y.ticks[0] : 1;
  for (double v : y.ticks) {
    const double at = bottom - (v - y.range.lo) * y.scale;
    canvas.Line({{kLeft, at}, {right, at}}, "#e5e5e5", 1, "");
    canvas.Text(kLeft - 6, at + 4, FormatTick(v, y_step), 11, TextAnchor::kEnd, false);
  }
  for (double v : x.ticks) {
    const double at = kLeft + (v - x.range.lo) * x.scale;
    canvas.Line({{at, top}, {at, bottom}}, "#e5e5e5", 1, "");
    canvas.Text(at, bottom + 16, FormatTick(v, x_step), 11, TextAnchor::kMiddle, false);
  }
  canvas.Line({{kLeft, top}, {right, top}, {right, bottom}, {kLeft, bottom}, {kLeft, top}},
              "#333333", 1, "");
  if (!name.empty()) {
    canvas.Text(kLeft, top - 8, name, 13, TextAnchor::kStart, false);
  }
  if (!y_label.empty()) {
    canvas.Text(16, (top + bottom) / 2, y_label, 12, TextAnchor::kMiddle, true);
  }
}

namespace {

constexpr double kLegend = 210;  // room right of the plot area for the legend
constexpr double kTop = 30;      // the panel's title above its frame
constexpr double kBottom = 30;   // the x tick labels below the frame
constexpr double kTitle = 28;    // the plot's title above the first panel
constexpr double kAxisLabel = 22;

}  // namespace

TimePanels::TimePanels(const PlotOptions& options, Range time_range, size_t panels, size_t rows)
    : time(time_range) {
  if (time.lo == time.hi) time.Widen();
  if (time.lo > time.hi) time = Range{0, 1};
  title = options.title.empty() ? 0 : kTitle;
  total_width = std::max(options.width, 400);
  panel_height = std::max(options.panel_height, 120);
  plot_width = total_width - kLeft - kLegend;
  total_height = title + panel_height * static_cast<double>(panels) + kAxisLabel;
  x_scale = plot_width / (time.hi - time.lo);
  thin = rows > 4 * static_cast<size_t>(plot_width);
  time_ticks = NiceTicks(time.lo, time.hi, 8);
}

PanelBox TimePanels::Box(size_t p) const {
  return {title + panel_height * static_cast<double>(p) + kTop,
          title + panel_height * static_cast<double>(p + 1) - kBottom, kLeft + plot_width};
}

void TimePanels::Begin(PlotCanvas& canvas, const std::string& title_text) const {
  canvas.Begin(total_width, total_height);
  if (!title_text.empty()) {
    canvas.Text(total_width / 2, 20, title_text, 16, TextAnchor::kMiddle, false);
  }
}

void TimePanels::End(PlotCanvas& canvas) const {
  canvas.Text(kLeft + plot_width / 2, total_height - 6, "time [s]", 12, TextAnchor::kMiddle, false);
  canvas.End();
}

void SvgCanvas::Begin(double width, double height) {
  char buffer[256];
  std::snprintf(buffer, sizeof(buffer),
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
                "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
                width, height, width, height);
  out_ += buffer;
}

void SvgCanvas::Line(const Points& points, std::string_view color, double stroke_width,
                     std::string_view series) {
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

void SvgCanvas::Marker(double x, double y, double radius, std::string_view color,
                       std::string_view label) {
  char buffer[160];
  std::snprintf(buffer, sizeof(buffer),
                "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"%g\" fill=\"%.*s\" "
                "fill-opacity=\"0.75\" stroke=\"%.*s\" stroke-width=\"0.8\">",
                x, y, radius, static_cast<int>(color.size()), color.data(),
                static_cast<int>(color.size()), color.data());
  out_ += buffer;
  if (!label.empty()) {
    out_ += "<title>";
    Escape(label);
    out_ += "</title>";
  }
  out_ += "</circle>\n";
}

void SvgCanvas::Text(double x, double y, std::string_view text, double size, TextAnchor anchor,
                     bool vertical) {
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

void SvgCanvas::End() { out_ += "</svg>\n"; }

void SvgCanvas::Escape(std::string_view text) {
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

}  // namespace cosimo::plot_parts
