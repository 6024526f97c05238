#include "cosimo/common/plot.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <pugixml.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace cosimo {
namespace {

// time, a.x = sin(t), a.v = cos(t), b.on (Boolean), b.label (String), over `rows` rows.
ResultTable Table(size_t rows) {
  ResultTable table;
  table.columns = {"time", "a.x", "a.v", "b.on", "b.label"};
  table.types = {ValueType::kReal, ValueType::kReal, ValueType::kReal, ValueType::kBoolean,
                 ValueType::kString};
  for (size_t r = 0; r < rows; ++r) {
    const double t = 10.0 * static_cast<double>(r) / static_cast<double>(rows - 1);
    table.values.insert(table.values.end(),
                        {t, std::sin(t), std::cos(t), t > 5 ? 1.0 : 0.0, std::nan("")});
    table.strings.push_back("s" + std::to_string(r));
  }
  return table;
}

// The data polylines of an SVG plot: variable -> the point count of each of its polylines.
std::map<std::string, std::vector<size_t>> Series(const pugi::xml_document& svg) {
  std::map<std::string, std::vector<size_t>> series;
  for (pugi::xpath_node node : svg.select_nodes("//polyline[@class='series']")) {
    std::istringstream points(node.node().attribute("points").value());
    size_t count = 0;
    std::string point;
    while (points >> point) ++count;
    series[node.node().attribute("data-variable").value()].push_back(count);
  }
  return series;
}

pugi::xml_document Parse(const std::string& text) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_string(text.c_str());
  EXPECT_TRUE(parsed) << parsed.description() << " at offset " << parsed.offset;
  return doc;
}

TEST(PlotTest, OnePanelPerUnitEverySeriesWithEveryPointAndItsLegend) {
  PlotOptions options;
  options.units = {{"a.x", "m"}, {"a.v", "m"}};
  options.title = "demo <&>";
  absl::StatusOr<std::string> svg = PlotSvg(Table(50), options);
  ASSERT_TRUE(svg.ok()) << svg.status();
  pugi::xml_document doc = Parse(*svg);
  EXPECT_STREQ(doc.first_child().name(), "svg");
  const auto series = Series(doc);
  ASSERT_EQ(series.size(), 3u);  // the string column is left out
  for (const char* name : {"a.x", "a.v", "b.on"}) {
    ASSERT_EQ(series.count(name), 1u) << name;
    EXPECT_EQ(series.at(name), std::vector<size_t>{50}) << name;
  }
  std::set<std::string> texts;
  for (pugi::xpath_node node : doc.select_nodes("//text")) texts.insert(node.node().text().get());
  for (const char* text : {"a", "b", "a.x", "a.v", "b.on", "[m]", "time [s]", "demo <&>"}) {
    EXPECT_EQ(texts.count(text), 1u) << text;
  }
  // Two panels: two frames (closed five-point lines) and the title.
  size_t frames = 0;
  for (pugi::xpath_node node : doc.select_nodes("//polyline[not(@class)]")) {
    std::istringstream points(node.node().attribute("points").value());
    std::string first, p, last;
    points >> first;
    size_t n = 1;
    while (points >> p) {
      last = p;
      ++n;
    }
    if (n == 5 && first == last) ++frames;
  }
  EXPECT_EQ(frames, 2u);
}

TEST(PlotTest, ChosenVariablesInOnePanelAndTheirErrors) {
  PlotOptions options;
  options.variables = {"a.v", "b.on"};
  options.one_panel = true;
  absl::StatusOr<std::string> svg = PlotSvg(Table(20), options);
  ASSERT_TRUE(svg.ok()) << svg.status();
  const auto series = Series(Parse(*svg));
  EXPECT_EQ(series.size(), 2u);
  EXPECT_EQ(series.count("a.x"), 0u);

  options.variables = {"a.nope"};
  EXPECT_NE(PlotSvg(Table(20), options).status().message().find("no column 'a.nope'"),
            std::string::npos);
  options.variables = {"b.label"};
  EXPECT_NE(PlotSvg(Table(20), options).status().message().find("'b.label' holds strings"),
            std::string::npos);
  ResultTable no_time = Table(3);
  no_time.columns[0] = "t";
  EXPECT_FALSE(PlotSvg(no_time, {}).ok());
}

TEST(PlotTest, NanBreaksTheLine) {
  ResultTable table = Table(30);
  table.values[10 * 5 + 1] = std::nan("");  // row 10 of a.x
  const auto series = Series(Parse(*PlotSvg(table, {})));
  EXPECT_EQ(series.at("a.x"), (std::vector<size_t>{10, 19}));
  EXPECT_EQ(series.at("a.v"), std::vector<size_t>{30});
}

TEST(PlotTest, LongSeriesAreThinnedButKeepTheirPeaks) {
  ResultTable table = Table(200000);
  // One spike far above the sine that a thinned line must still reach.
  table.values[123457 * 5 + 1] = 50.0;
  PlotOptions options;
  options.variables = {"a.x"};
  absl::StatusOr<std::string> svg = PlotSvg(table, options);
  ASSERT_TRUE(svg.ok());
  pugi::xml_document doc = Parse(*svg);
  pugi::xpath_node line = doc.select_node("//polyline[@class='series']");
  std::istringstream points(line.node().attribute("points").value());
  size_t count = 0;
  double top = 1e9, bottom = -1e9;
  std::string point;
  while (points >> point) {
    ++count;
    const double y = std::stod(point.substr(point.find(',') + 1));
    top = std::min(top, y);
    bottom = std::max(bottom, y);
  }
  // At most four points per pixel column of a 672-pixel-wide plot area.
  EXPECT_LE(count, 4u * 673u);
  EXPECT_GT(count, 672u);
  // The spike is the panel's highest value: it is drawn at the top of the value range, which
  // Widen pads by 5 %; the sine's lowest point near the bottom.
  EXPECT_LT(top, 45.0);
  EXPECT_GT(bottom, 200.0);
}

// A sweep table (cosimo/common/kpi.h's columns) of 6 variants: a grid of vehicle.m (1000, 1500,
// 2000) and controller.k (500, 1000); the vehicle.m = 2000 variants failed (NaN KPIs) and variant
// 2 never crossed (first_crossing NaN). final(vehicle.v) = 40 - m / 1000 + k / 1000.
ResultTable SweepTable() {
  ResultTable table;
  table.columns = {"index",          "vehicle.m", "controller.k", "final(vehicle.v)",
                   "first_crossing", "status",    "wall_time_s",  "message"};
  table.types = {ValueType::kReal, ValueType::kReal,   ValueType::kReal, ValueType::kReal,
                 ValueType::kReal, ValueType::kString, ValueType::kReal, ValueType::kString};
  const double nan = std::nan("");
  for (int i = 0; i < 6; ++i) {
    const double m = 1000 + 500 * (i / 2), k = 500 + 500 * (i % 2);
    const bool failed = i >= 4;
    table.values.insert(table.values.end(),
                        {static_cast<double>(i), m, k, failed ? nan : 40 - m / 1000 + k / 1000,
                         failed || i == 2 ? nan : 1.0 + i, nan, 0.07, nan});
    table.strings.insert(table.strings.end(), {failed ? "FAILED" : "SUCCEEDED",
                                               failed ? "parameter 'm' must be > 0" : ""});
  }
  return table;
}

struct Point {
  double x, y;
  std::string label;
};

std::vector<Point> Markers(const pugi::xml_document& svg) {
  std::vector<Point> points;
  for (pugi::xpath_node node : svg.select_nodes("//circle[@class='point']")) {
    points.push_back({node.node().attribute("cx").as_double(),
                      node.node().attribute("cy").as_double(),
                      node.node().child("title").text().get()});
  }
  return points;
}

std::set<std::string> Texts(const pugi::xml_document& svg) {
  std::set<std::string> texts;
  for (pugi::xpath_node node : svg.select_nodes("//text")) texts.insert(node.node().text().get());
  return texts;
}

// The frame: the closed five-point polyline, as (left, top, right, bottom).
std::vector<double> Frame(const pugi::xml_document& svg) {
  for (pugi::xpath_node node : svg.select_nodes("//polyline[@stroke='#333333']")) {
    std::istringstream points(node.node().attribute("points").value());
    std::vector<double> xs, ys;
    std::string p;
    while (points >> p) {
      xs.push_back(std::stod(p.substr(0, p.find(','))));
      ys.push_back(std::stod(p.substr(p.find(',') + 1)));
    }
    if (xs.size() == 5) {
      return {*std::min_element(xs.begin(), xs.end()), *std::min_element(ys.begin(), ys.end()),
              *std::max_element(xs.begin(), xs.end()), *std::max_element(ys.begin(), ys.end())};
    }
  }
  ADD_FAILURE() << "no frame";
  return {0, 0, 1, 1};
}

TEST(PlotScatterTest, OneMarkerPerSucceededRowWhereItsValuesAre) {
  ScatterOptions options;
  options.title = "car sweep";
  absl::StatusOr<std::string> svg =
      PlotScatterSvg(SweepTable(), "vehicle.m", "final(vehicle.v)", options);
  ASSERT_TRUE(svg.ok()) << svg.status();
  pugi::xml_document doc = Parse(*svg);
  const std::vector<Point> points = Markers(doc);
  ASSERT_EQ(points.size(), 4u);  // variants 4 and 5 failed
  EXPECT_EQ(points[0].label, "variant 0: vehicle.m = 1000, final(vehicle.v) = 39.5");
  EXPECT_EQ(points[3].label, "variant 3: vehicle.m = 1500, final(vehicle.v) = 39.5");
  // Each marker where its values put it: the axes span the values and 5 % more on each side
  // (x: 1000 to 1500, y: 39 to 39.5).
  const std::vector<double> frame = Frame(doc);
  const double xs[] = {1000, 1000, 1500, 1500}, ys[] = {39.5, 40, 39, 39.5};
  for (size_t i = 0; i < 4; ++i) {
    const double fx = (xs[i] - 975) / 550, fy = (ys[i] - 38.95) / 1.1;
    EXPECT_NEAR(points[i].x, frame[0] + fx * (frame[2] - frame[0]), 0.11) << i;
    EXPECT_NEAR(points[i].y, frame[3] - fy * (frame[3] - frame[1]), 0.11) << i;
  }
  const std::set<std::string> texts = Texts(doc);
  for (const char* text : {"car sweep", "vehicle.m", "final(vehicle.v)", "1000", "1500", "39.0",
                           "40.0", "2 failed variants not shown"}) {
    EXPECT_EQ(texts.count(text), 1u) << text;
  }
}

TEST(PlotScatterTest, RowsWithNanAreLeftOutAndCounted) {
  pugi::xml_document doc =
      Parse(*PlotScatterSvg(SweepTable(), "controller.k", "first_crossing", {}));
  const std::vector<Point> points = Markers(doc);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[1].label, "variant 1: controller.k = 1000, first_crossing = 2");
  EXPECT_EQ(Texts(doc).count("2 failed variants and 1 with NaN not shown"), 1u);

  // A table without a status column: a NaN alone; every row shown: no caption.
  ResultTable plain = Table(5);
  plain.values[2 * 5 + 1] = std::nan("");
  doc = Parse(*PlotScatterSvg(plain, "a.x", "a.v", {}));
  EXPECT_EQ(Markers(doc).size(), 4u);
  EXPECT_EQ(Markers(doc)[2].label.substr(0, 6), "row 4:");
  EXPECT_EQ(Texts(doc).count("1 variant with NaN not shown"), 1u);
  doc = Parse(*PlotScatterSvg(Table(5), "time", "b.on", {}));
  EXPECT_EQ(Markers(doc).size(), 5u);
  for (const std::string& text : Texts(doc)) EXPECT_EQ(text.find("not shown"), std::string::npos);
}

TEST(PlotScatterTest, AColumnOfStringsOrNoColumnIsAnErrorListingTheNumericOnes) {
  const std::string numeric =
      "(numeric columns: index, vehicle.m, controller.k, final(vehicle.v), first_crossing, "
      "wall_time_s)";
  absl::StatusOr<std::string> svg = PlotScatterSvg(SweepTable(), "vehicle.mass", "index", {});
  ASSERT_FALSE(svg.ok());
  EXPECT_EQ(svg.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(svg.status().message(), "no column 'vehicle.mass' in the table " + numeric);
  svg = PlotScatterSvg(SweepTable(), "vehicle.m", "status", {});
  ASSERT_FALSE(svg.ok());
  EXPECT_EQ(svg.status().message(), "column 'status' holds strings, not numbers " + numeric);
  EXPECT_EQ(NumericColumns(Table(2)), (std::vector<std::string>{"time", "a.x", "a.v", "b.on"}));
}

TEST(PlotScatterTest, EveryVariantFailedIsAnEmptyPlotThatSaysSo) {
  ResultTable table = SweepTable();
  for (size_t r = 0; r < table.rows(); ++r) table.strings[r * 2] = "FAILED";
  absl::StatusOr<std::string> svg = PlotScatterSvg(table, "vehicle.m", "final(vehicle.v)", {});
  ASSERT_TRUE(svg.ok()) << svg.status();
  pugi::xml_document doc = Parse(*svg);
  EXPECT_TRUE(Markers(doc).empty());
  EXPECT_EQ(Texts(doc).count("6 failed variants not shown"), 1u);
}

TEST(PlotTest, NiceTicksAreRoundAndInsideTheRange) {
  EXPECT_EQ(NiceTicks(0, 10, 5), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(NiceTicks(-0.3, 0.7, 5), (std::vector<double>{-0.2, 0, 0.2, 0.4, 0.6}));
  const std::vector<double> ticks = NiceTicks(1234.5, 1789.2, 6);
  ASSERT_FALSE(ticks.empty());
  for (double t : ticks) {
    EXPECT_GE(t, 1234.5);
    EXPECT_LE(t, 1789.2);
    EXPECT_EQ(std::fmod(t, 100.0), 0.0) << t;
  }
  EXPECT_TRUE(NiceTicks(1, 1, 5).empty());
}

}  // namespace
}  // namespace cosimo
