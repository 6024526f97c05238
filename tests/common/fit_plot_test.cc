// A fit's measured data against its best run (cosimo/common/fit_plot.h): the table of the
// samples with the best run's values at them (linear between rows, as the KPI AT), read back
// from its CSV, and the SVG plot drawn from it: one panel per measured column, one marker per
// sample, the best run's variable as a line.
#include "cosimo/common/fit_plot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace cosimo {
namespace {

using ::testing::HasSubstr;

// The best run: time 0, 0.5, ..., 4; a.x = 2 t, a.v = t^2 (in [m/s]).
ResultTable Best() {
  ResultTable table;
  table.columns = {"time", "a.x", "a.v"};
  for (int r = 0; r <= 8; ++r) {
    const double t = 0.5 * r;
    table.values.insert(table.values.end(), {t, 2 * t, t * t});
  }
  return table;
}

// Two measured columns: "pos" of a.x (factor 10, samples off the rows) and "speed" of a.v.
std::vector<MeasuredSeries> Measured() {
  return {{"pos", "a.x", {0.25, 1.0, 3.75}, {0.6, 1.9, 7.4}, 10.0},
          {"speed", "a.v", {0.0, 2.25}, {0.1, 5.0}, 1.0}};
}

TEST(FitPlotTest, TheMeasuredTableHasEachSampleWithTheBestRunsValueAndItsResidual) {
  const ResultTable table = MeasuredTable(Measured(), Best());
  ASSERT_EQ(table.columns, (std::vector<std::string>{"column", "variable", "time", "measured",
                                                     "simulated", "residual"}));
  ASSERT_EQ(table.rows(), 5u);
  // pos at 0.25: a.x = 0.5 exactly between the rows 0 and 0.5; residual 10 (0.5 - 0.6).
  EXPECT_EQ(table.strings[0], "pos");
  EXPECT_EQ(table.strings[1], "a.x");
  EXPECT_DOUBLE_EQ(table.values[2], 0.25);
  EXPECT_DOUBLE_EQ(table.values[3], 0.6);
  EXPECT_DOUBLE_EQ(table.values[4], 0.5);
  EXPECT_NEAR(table.values[5], 10 * (0.5 - 0.6), 1e-12);
  // speed at 2.25: t^2 linear between 2 (4) and 2.5 (6.25): 5.125; residual 0.125.
  EXPECT_EQ(table.strings[8], "speed");
  EXPECT_EQ(table.strings[9], "a.v");
  EXPECT_DOUBLE_EQ(table.values[4 * 6 + 4], 5.125);
  EXPECT_DOUBLE_EQ(table.values[4 * 6 + 5], 0.125);
  // A variable the best run lacks: NaN, not a wrong number.
  const ResultTable missing = MeasuredTable({{"q", "a.q", {1.0}, {2.0}, 1.0}}, Best());
  EXPECT_TRUE(std::isnan(missing.values[4]));
}

TEST(FitPlotTest, TheMeasuredSeriesReadBackFromTheCsv) {
  std::ostringstream csv;
  WriteCsv(csv, MeasuredTable(Measured(), Best()));
  absl::StatusOr<ResultTable> read = ReadCsv(csv.str());
  ASSERT_TRUE(read.ok()) << read.status();
  absl::StatusOr<std::vector<MeasuredSeries>> series = MeasuredSeriesOf(*read);
  ASSERT_TRUE(series.ok()) << series.status();
  ASSERT_EQ(series->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ((*series)[i].column, Measured()[i].column);
    EXPECT_EQ((*series)[i].variable, Measured()[i].variable);
    EXPECT_EQ((*series)[i].times, Measured()[i].times);
    EXPECT_EQ((*series)[i].values, Measured()[i].values);
  }
  // A results CSV is not a fit's measured data: the error names the first missing column.
  std::ostringstream results;
  WriteCsv(results, Best());
  absl::StatusOr<std::vector<MeasuredSeries>> not_fit = MeasuredSeriesOf(*ReadCsv(results.str()));
  ASSERT_FALSE(not_fit.ok());
  EXPECT_EQ(not_fit.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(not_fit.status().message(),
              HasSubstr("not a fit's measured data: no column 'column'"));
}

TEST(FitPlotTest, OnePanelPerMeasuredColumnWithAMarkerPerSampleAndTheBestRunAsALine) {
  PlotOptions options;
  options.title = "car fit";
  options.units = {{"a.v", "m/s"}};
  absl::StatusOr<std::string> svg = FitPlotSvg(Best(), Measured(), options);
  ASSERT_TRUE(svg.ok()) << svg.status();
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(svg->c_str()));
  // One marker per sample (labelled; the legend's markers are not).
  EXPECT_EQ(doc.select_nodes("//circle[@class='point'][title]").size(), 5u);
  EXPECT_EQ(doc.select_nodes("//circle[@class='point']/title[text()='pos at 0.25 s: 0.6']").size(),
            1u);
  EXPECT_EQ(doc.select_nodes("//polyline[@class='series'][@data-variable='a.x']").size(), 1u);
  EXPECT_EQ(doc.select_nodes("//polyline[@class='series'][@data-variable='a.v']").size(), 1u);
  for (const char* text : {"car fit", "pos (a.x)", "speed (a.v)", "[m/s]"}) {
    EXPECT_EQ(doc.select_nodes(("//text[text()='" + std::string(text) + "']").c_str()).size(), 1u)
        << text;
  }
  EXPECT_EQ(doc.select_nodes("//text[text()='measured']").size(), 2u);  // each panel's legend
  // The line's points: one per row of the best run.
  const std::string points =
      doc.select_node("//polyline[@data-variable='a.x']").node().attribute("points").value();
  EXPECT_EQ(std::count(points.begin(), points.end(), ','), 9);
}

TEST(FitPlotTest, AMeasuredVariableTheBestRunLacksIsNamed) {
  absl::StatusOr<std::string> svg = FitPlotSvg(Best(), {{"q", "a.q", {1.0}, {2.0}, 1.0}}, {});
  ASSERT_FALSE(svg.ok());
  EXPECT_EQ(svg.status().message(),
            "the best run's results have no numeric column 'a.q' (measured column 'q')");
  EXPECT_FALSE(FitPlotSvg(Best(), {}, {}).ok());
}

}  // namespace
}  // namespace cosimo
