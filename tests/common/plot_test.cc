#include "cosimo/common/plot.h"

#include <gtest/gtest.h>

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
