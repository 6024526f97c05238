// Input approximation polynomials and the coupling graph, against hand-computed values.
#include "master/src/input_approximation.h"

#include <gtest/gtest.h>

#include <cmath>

#include "master/src/coupling_graph.h"

namespace cosimo::master {
namespace {

// Samples of f(t) = t^3 - 2 t + 1 (f' = 3 t^2 - 2) at t = 0, 0.5, 1.0, 1.5.
double F(double t) { return t * t * t - 2 * t + 1; }
double Df(double t) { return 3 * t * t - 2; }

SampleHistory Cubic() {
  SampleHistory h;
  h.Reset(1);
  for (double t : {0.0, 0.5, 1.0, 1.5}) {
    h.Push(t, Eigen::VectorXd::Constant(1, F(t)), Eigen::VectorXd::Constant(1, Df(t)));
  }
  return h;
}

double At(const double* row, int n, double s) {
  double v = 0.0, d = 0.0;
  EvaluatePolynomial(row, n, s, &v, &d);
  return v;
}

TEST(InputApproximationTest, ExtrapolationsReproducePolynomialsOfTheirDegree) {
  const SampleHistory h = Cubic();
  double row[8];
  const double t = 1.5, step = 0.5;
  BuildInput({v1::ZOH, 0}, h, 0, step, false, 0, 0, row);
  EXPECT_EQ(At(row, 1, step), F(t));
  BuildInput({v1::FOH, 0}, h, 0, step, false, 0, 0, row);
  EXPECT_NEAR(At(row, 2, step), 2 * F(1.5) - F(1.0), 1e-14);  // the line through 2 samples
  // Degree 3 through 4 samples, and cubic Hermite through two (value, derivative) pairs, are
  // exact for a cubic.
  BuildInput({v1::POLYNOMIAL, 3}, h, 0, step, false, 0, 0, row);
  EXPECT_NEAR(At(row, 4, step), F(t + step), 1e-12);
  BuildInput({v1::HERMITE, 0}, h, 0, step, false, 0, 0, row);
  EXPECT_NEAR(At(row, 4, step), F(t + step), 1e-12);
}

TEST(InputApproximationTest, RightEndInterpolation) {
  const SampleHistory h = Cubic();
  double row[8];
  const double step = 0.5, end = F(2.0), dend = Df(2.0);
  BuildInput({v1::ZOH, 0}, h, 0, step, true, end, dend, row);
  EXPECT_EQ(row[0], end);
  BuildInput({v1::FOH, 0}, h, 0, step, true, end, dend, row);
  EXPECT_NEAR(At(row, 2, 0.0), F(1.5), 1e-14);
  EXPECT_NEAR(At(row, 2, step), end, 1e-14);
  BuildInput({v1::HERMITE, 0}, h, 0, step, true, end, dend, row);
  for (double s : {0.0, 0.1, 0.25, 0.5}) EXPECT_NEAR(At(row, 4, s), F(1.5 + s), 1e-12);
  BuildInput({v1::POLYNOMIAL, 3}, h, 0, step, true, end, dend, row);
  for (double s : {0.0, 0.1, 0.25, 0.5}) EXPECT_NEAR(At(row, 4, s), F(1.5 + s), 1e-12);
}

TEST(InputApproximationTest, DegreeZeroIsTheHeldValueWithAnEmptyTail) {
  // One coefficient (ZOH, POLYNOMIAL degree 0): the newest sample, or the right end; the rest of
  // the caller's row is zero padded, and an empty history gives zero.
  const SampleHistory h = Cubic();
  for (const Approximation a : {Approximation{v1::ZOH, 0}, Approximation{v1::POLYNOMIAL, 0}}) {
    double row[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    BuildInput(a, h, 0, 0.5, false, 0, 0, row);
    EXPECT_EQ(row[0], F(1.5));
    EXPECT_EQ(row[1], 9.0);  // num_coefficients() == 1: nothing beyond is written
    BuildInput(a, h, 0, 0.5, true, F(2.0), Df(2.0), row);
    EXPECT_EQ(row[0], F(2.0));
    SampleHistory empty;
    empty.Reset(1);
    BuildInput(a, empty, 0, 0.5, true, F(2.0), 0, row);
    EXPECT_EQ(row[0], 0.0);
  }
}

TEST(CouplingGraphTest, GaussSeidelOrderAndLoops) {
  // 0 -> 1 -> 2, 2 -> 0; units 1 and 2 output reactive: reactive edges 0->1, 1->2.
  std::vector<UnitDescription> units(3);
  for (auto& u : units) {
    u.inputs = {{"u", Causality::kInput, "", ""}};
    u.outputs = {{"y", Causality::kOutput, "", ""}};
  }
  units[1].capabilities.output_reactive = true;
  units[2].capabilities.output_reactive = true;
  Coupling c;
  c.inputs = {{{2, 0}}, {{0, 0}}, {{1, 0}}};
  const std::vector<std::string> names = {"a", "b", "c"};
  absl::StatusOr<std::vector<int>> order = GaussSeidelOrder(names, units, c);
  ASSERT_TRUE(order.ok()) << order.status();
  EXPECT_EQ(*order, (std::vector<int>{0, 1, 2}));
  units[0].capabilities.input_reactive = true;  // closes the reactive loop
  order = GaussSeidelOrder(names, units, c);
  ASSERT_FALSE(order.ok());
  EXPECT_NE(order.status().message().find("'a', 'b', 'c'"), std::string::npos) << order.status();
}

}  // namespace
}  // namespace cosimo::master
