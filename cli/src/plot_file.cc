#include "cosimo/client/plot_file.h"

#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cairo_api.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/fit_plot.h"

namespace cosimo::client {
namespace {

// Draws on a Cairo image surface; Write saves it as PNG.
class CairoCanvas : public PlotCanvas {
 public:
  explicit CairoCanvas(const CairoApi& cairo) : cairo_(cairo) {}
  ~CairoCanvas() override {
    if (cr_ != nullptr) cairo_.cairo_destroy(cr_);
    if (surface_ != nullptr) cairo_.cairo_surface_destroy(surface_);
  }
  void Begin(double width, double height) override {
    surface_ = cairo_.cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(width),
                                                 static_cast<int>(height));
    cr_ = cairo_.cairo_create(surface_);
    cairo_.cairo_set_source_rgb(cr_, 1, 1, 1);
    cairo_.cairo_paint(cr_);
    cairo_.cairo_select_font_face(cr_, "sans-serif", CAIRO_FONT_SLANT_NORMAL,
                                  CAIRO_FONT_WEIGHT_NORMAL);
  }
  void Line(const Points& points, std::string_view color, double stroke_width,
            std::string_view) override {
    if (points.empty()) return;
    SetColor(color);
    cairo_.cairo_set_line_width(cr_, stroke_width);
    cairo_.cairo_set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
    cairo_.cairo_move_to(cr_, points[0].first, points[0].second);
    for (size_t i = 1; i < points.size(); ++i) {
      cairo_.cairo_line_to(cr_, points[i].first, points[i].second);
    }
    cairo_.cairo_stroke(cr_);
  }
  void Marker(double x, double y, double radius, std::string_view color,
              std::string_view) override {
    SetColor(color, 0.75);
    cairo_.cairo_new_path(cr_);
    cairo_.cairo_arc(cr_, x, y, radius, 0, 2 * M_PI);
    cairo_.cairo_fill_preserve(cr_);
    SetColor(color);
    cairo_.cairo_set_line_width(cr_, 0.8);
    cairo_.cairo_stroke(cr_);
  }
  void Text(double x, double y, std::string_view text, double size, TextAnchor anchor,
            bool vertical) override {
    const std::string s(text);
    SetColor("#222222");
    cairo_.cairo_set_font_size(cr_, size);
    cairo_text_extents_t extents;
    cairo_.cairo_text_extents(cr_, s.c_str(), &extents);
    const double shift = anchor == TextAnchor::kStart    ? 0
                         : anchor == TextAnchor::kMiddle ? extents.x_advance / 2
                                                         : extents.x_advance;
    cairo_.cairo_save(cr_);
    cairo_.cairo_translate(cr_, x, y);
    if (vertical) cairo_.cairo_rotate(cr_, -M_PI / 2);
    cairo_.cairo_move_to(cr_, -shift, 0);
    cairo_.cairo_show_text(cr_, s.c_str());
    cairo_.cairo_restore(cr_);
  }
  void End() override { cairo_.cairo_surface_flush(surface_); }

  absl::Status Write(const std::string& path) {
    const cairo_status_t status = cairo_.cairo_surface_write_to_png(surface_, path.c_str());
    if (status != CAIRO_STATUS_SUCCESS) {
      return absl::PermissionDeniedError("cannot write '" + path +
                                         "': " + cairo_.cairo_status_to_string(status));
    }
    return absl::OkStatus();
  }

 private:
  void SetColor(std::string_view hex, double alpha = 1.0) {
    const unsigned rgb = static_cast<unsigned>(std::stoul(std::string(hex.substr(1)), nullptr, 16));
    cairo_.cairo_set_source_rgba(cr_, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                                 (rgb & 0xff) / 255.0, alpha);
  }

  const CairoApi& cairo_;
  cairo_surface_t* surface_ = nullptr;
  cairo_t* cr_ = nullptr;
};

// Units from the metadata beside the CSV, where it has them; a missing or older file adds none.
void AddUnits(const std::string& csv_path, PlotOptions& options) {
  std::ifstream in(csv_path + ".meta.json");
  if (!in) return;
  const nlohmann::json meta = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object() || !meta.contains("variables") || !meta["variables"].is_array()) return;
  for (const nlohmann::json& v : meta["variables"]) {
    if (!v.is_object() || !v.contains("name") || !v.contains("unit")) continue;
    if (!v["name"].is_string() || !v["unit"].is_string()) continue;
    const std::string unit = v["unit"].get<std::string>();
    if (!unit.empty()) options.units.emplace(v["name"].get<std::string>(), unit);
  }
}

// Whether `out_path` names a PNG (else an SVG); an error when it names neither.
absl::StatusOr<bool> IsPng(const std::string& out_path) {
  const std::string ext = std::filesystem::path(out_path).extension().string();
  if (ext != ".svg" && ext != ".png") {
    return absl::InvalidArgumentError("--out '" + out_path +
                                      "': the name must end in .svg or .png");
  }
  return ext == ".png";
}

absl::Status WriteSvg(const std::string& out_path, const absl::StatusOr<std::string>& svg) {
  if (!svg.ok()) return svg.status();
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  out << *svg;
  out.close();
  if (!out) return absl::PermissionDeniedError("cannot write '" + out_path + "'");
  return absl::OkStatus();
}

}  // namespace

absl::Status WritePlotFile(const std::string& csv_path, const std::string& out_path,
                           PlotOptions options) {
  absl::StatusOr<bool> png = IsPng(out_path);
  if (!png.ok()) return png.status();
  absl::StatusOr<ResultTable> table = ReadCsvFile(csv_path);
  if (!table.ok()) return table.status();
  AddUnits(csv_path, options);
  if (options.title.empty()) options.title = std::filesystem::path(csv_path).filename().string();
  if (*png) {
    absl::StatusOr<const CairoApi*> cairo = Cairo();
    if (!cairo.ok()) return cairo.status();
    CairoCanvas canvas(**cairo);
    if (absl::Status s = DrawPlot(*table, options, canvas); !s.ok()) return s;
    return canvas.Write(out_path);
  }
  return WriteSvg(out_path, PlotSvg(*table, options));
}

absl::Status WriteScatterFile(const std::string& csv_path, const std::string& out_path,
                              const std::string& x, const std::string& y, ScatterOptions options) {
  absl::StatusOr<bool> png = IsPng(out_path);
  if (!png.ok()) return png.status();
  absl::StatusOr<ResultTable> table = ReadCsvFile(csv_path);
  if (!table.ok()) return table.status();
  if (options.title.empty()) options.title = std::filesystem::path(csv_path).filename().string();
  if (*png) {
    absl::StatusOr<const CairoApi*> cairo = Cairo();
    if (!cairo.ok()) return cairo.status();
    CairoCanvas canvas(**cairo);
    if (absl::Status s = DrawScatter(*table, x, y, options, canvas); !s.ok()) return s;
    return canvas.Write(out_path);
  }
  return WriteSvg(out_path, PlotScatterSvg(*table, x, y, options));
}

absl::Status WriteFitPlotFile(const std::string& fit_path, const std::string& out_path,
                              PlotOptions options) {
  absl::StatusOr<bool> png = IsPng(out_path);
  if (!png.ok()) return png.status();
  std::error_code ec;
  const bool folder = std::filesystem::is_directory(fit_path, ec);
  const std::filesystem::path dir =
      folder ? std::filesystem::path(fit_path) : std::filesystem::path(fit_path).parent_path();
  const std::string measured_path = (dir / "measured.csv").string();
  if (folder && !std::filesystem::exists(measured_path, ec)) {
    return absl::InvalidArgumentError(
        "'" + fit_path +
        "' is a folder but not a fit's: it has no measured.csv (`cosimo fit` and `cosimo results` "
        "of a calibration job write measured.csv beside best.csv)");
  }
  absl::StatusOr<ResultTable> measured_table = ReadCsvFile(folder ? measured_path : fit_path);
  if (!measured_table.ok()) return measured_table.status();
  absl::StatusOr<std::vector<MeasuredSeries>> measured = MeasuredSeriesOf(*measured_table);
  if (!measured.ok()) {
    return absl::InvalidArgumentError((folder ? measured_path : fit_path) + ": " +
                                      std::string(measured.status().message()));
  }
  const std::string best_path = (dir / "best.csv").string();
  absl::StatusOr<ResultTable> best = ReadCsvFile(best_path);
  if (!best.ok()) {
    return absl::InvalidArgumentError(
        "a fit's plot needs the best run's results beside its "
        "measured.csv: " +
        std::string(best.status().message()));
  }
  AddUnits(best_path, options);
  if (options.title.empty()) {
    options.title = std::filesystem::path(dir).lexically_normal().filename().string() +
                    ": measured against the best run";
  }
  if (*png) {
    absl::StatusOr<const CairoApi*> cairo = Cairo();
    if (!cairo.ok()) return cairo.status();
    CairoCanvas canvas(**cairo);
    if (absl::Status s = DrawFitPlot(*best, *measured, options, canvas); !s.ok()) return s;
    return canvas.Write(out_path);
  }
  return WriteSvg(out_path, FitPlotSvg(*best, *measured, options));
}

}  // namespace cosimo::client
