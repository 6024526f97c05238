// The KPIs (cosimo/common/kpi.h) against analytic cases: y = t^2 sampled at t = 0, 0.5, ..., 2.
#include "cosimo/common/kpi.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace cosimo {
namespace {

const std::vector<double> kT = {0.0, 0.5, 1.0, 1.5, 2.0};
const std::vector<double> kY = {0.0, 0.25, 1.0, 2.25, 4.0};  // t^2

double Kpi(v1::Kpi::Kind kind, double level = 0.0) { return KpiOfSeries(kind, kT, kY, level); }

TEST(KpiTest, FinalMinMax) {
  EXPECT_EQ(Kpi(v1::Kpi::FINAL), 4.0);
  EXPECT_EQ(Kpi(v1::Kpi::MIN), 0.0);
  EXPECT_EQ(Kpi(v1::Kpi::MAX), 4.0);
}

// The trapezoid rule on t^2 over [0, 2] with h = 0.5 overestimates the exact 8/3 by
// (b - a) h^2 f'' / 12 = 2 * 0.25 * 2 / 12 = 1/12: 2.75, exact in binary.
TEST(KpiTest, IntegralAndMeanByTheTrapezoidRule) {
  EXPECT_DOUBLE_EQ(Kpi(v1::Kpi::INTEGRAL), 8.0 / 3.0 + 1.0 / 12.0);
  EXPECT_EQ(Kpi(v1::Kpi::INTEGRAL), 2.75);
  EXPECT_EQ(Kpi(v1::Kpi::MEAN), 2.75 / 2.0);
}

// RMS: sqrt of the trapezoid integral of y^2 = t^4 (0, 1/16, 1, 81/16, 16) over the span:
// h/2 (0 + 2/16 + 2 + 162/16 + 16) = 7.0625; the exact integral 32/5 is below it.
TEST(KpiTest, RmsByTheTrapezoidRuleOfTheSquare) {
  EXPECT_DOUBLE_EQ(Kpi(v1::Kpi::RMS), std::sqrt(7.0625 / 2.0));
  EXPECT_GT(Kpi(v1::Kpi::RMS), std::sqrt(6.4 / 2.0));
}

// AT interpolates linearly between the rows around the time: at 1.25, halfway between
// y(1) = 1 and y(1.5) = 2.25: 1.625; a row's own value at its time; NaN outside [0, 2].
TEST(KpiTest, AtInterpolatesLinearlyBetweenRows) {
  EXPECT_EQ(Kpi(v1::Kpi::AT, 1.25), 1.625);
  EXPECT_EQ(Kpi(v1::Kpi::AT, 0.0), 0.0);
  EXPECT_EQ(Kpi(v1::Kpi::AT, 1.5), 2.25);
  EXPECT_EQ(Kpi(v1::Kpi::AT, 2.0), 4.0);
  EXPECT_DOUBLE_EQ(Kpi(v1::Kpi::AT, 0.1), 0.05);
  EXPECT_TRUE(std::isnan(Kpi(v1::Kpi::AT, 2.5)));
  EXPECT_TRUE(std::isnan(Kpi(v1::Kpi::AT, -0.1)));
  // Repeated times (an event's two rows): the last row's value at that time.
  EXPECT_EQ(KpiOfSeries(v1::Kpi::AT, {0.0, 1.0, 1.0, 2.0}, {0.0, 1.0, 5.0, 6.0}, 1.0), 5.0);
}

// Linear interpolation between the two rows that straddle the level: 2 lies between
// y(1) = 1 and y(1.5) = 2.25, at 1 + 0.5 * (2 - 1) / (2.25 - 1) = 1.4.
TEST(KpiTest, FirstCrossingInterpolatesLinearly) {
  EXPECT_DOUBLE_EQ(Kpi(v1::Kpi::FIRST_CROSSING, 2.0), 1.4);
  EXPECT_EQ(Kpi(v1::Kpi::FIRST_CROSSING, 0.0), 0.0);           // y_0 on the level
  EXPECT_EQ(Kpi(v1::Kpi::FIRST_CROSSING, 1.0), 1.0);           // a row on the level
  EXPECT_TRUE(std::isnan(Kpi(v1::Kpi::FIRST_CROSSING, 5.0)));  // never reached
  // Falling: y = 4 - t^2 crosses 2 where t^2 = 2 by the rows, i.e. at 1.4 too.
  std::vector<double> falling;
  for (double y : kY) falling.push_back(4.0 - y);
  EXPECT_DOUBLE_EQ(KpiOfSeries(v1::Kpi::FIRST_CROSSING, kT, falling, 2.0), 1.4);
}

TEST(KpiTest, OneRowAndNaN) {
  EXPECT_EQ(KpiOfSeries(v1::Kpi::MEAN, {1.0}, {-3.0}, 0.0), -3.0);
  EXPECT_EQ(KpiOfSeries(v1::Kpi::RMS, {1.0}, {-3.0}, 0.0), 3.0);
  EXPECT_EQ(KpiOfSeries(v1::Kpi::INTEGRAL, {1.0}, {-3.0}, 0.0), 0.0);
  EXPECT_TRUE(std::isnan(KpiOfSeries(v1::Kpi::MAX, {0.0, 1.0}, {1.0, NAN}, 0.0)));
}

TEST(KpiTest, ComputeKpiReadsTheColumnOfATable) {
  ResultTable table;
  table.columns = {"time", "plant.y", "plant.s"};
  table.types = {ValueType::kReal, ValueType::kReal, ValueType::kString};
  for (size_t i = 0; i < kT.size(); ++i) {
    table.values.insert(table.values.end(), {kT[i], kY[i], NAN});
    table.strings.push_back("x");
  }
  v1::Kpi kpi;
  kpi.set_variable("plant.y");
  kpi.set_kind(v1::Kpi::INTEGRAL);
  absl::StatusOr<double> value = ComputeKpi(kpi, table);
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, 2.75);
  EXPECT_EQ(KpiName(kpi), "integral(plant.y)");
  kpi.set_variable("plant.z");
  EXPECT_EQ(ComputeKpi(kpi, table).status().message(),
            "KPI integral(plant.z): the results have no column 'plant.z'");
  kpi.set_variable("plant.s");
  EXPECT_FALSE(ComputeKpi(kpi, table).ok());
  kpi.set_kind(v1::Kpi::FIRST_CROSSING);
  kpi.set_level(30);
  EXPECT_EQ(KpiName(kpi), "first_crossing(plant.s@30)");
}

}  // namespace
}  // namespace cosimo
