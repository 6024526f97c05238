// The designs of a sweep (cosimo/common/sweep_design.h): grid order and size, linspace and
// logspace, random samples fixed by the seed (recomputed here from std::mt19937_64's raw output,
// which C++ standardises), Latin hypercube strata (of uniform, log-uniform and normal
// distributions), the inverse normal CDF against known quantiles.
#include "cosimo/common/sweep_design.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

namespace cosimo {
namespace {

// [n]: the C++ standard's check value for std::mt19937_64 ([rand.predef]): the 10000th output
// of a default-constructed engine (seed 5489) is 9981545732273789042.
TEST(SweepDesignTest, TheEngineIsTheStandardOne) {
  std::mt19937_64 rng;
  rng.discard(9999);
  EXPECT_EQ(rng(), 9981545732273789042u);
}

TEST(SweepDesignTest, Uniform53UsesTheTop53Bits) {
  std::mt19937_64 a(42), b(42);
  for (int i = 0; i < 100; ++i) {
    const uint64_t raw = b();
    const double u = Uniform53(a);
    EXPECT_EQ(u, static_cast<double>(raw >> 11) / 9007199254740992.0);  // 2^53
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

TEST(SweepDesignTest, LinspaceAndLogspace) {
  EXPECT_EQ(Linspace(0.0, 1.0, 5), (std::vector<double>{0.0, 0.25, 0.5, 0.75, 1.0}));
  EXPECT_EQ(Linspace(3.0, 7.0, 1), (std::vector<double>{3.0}));
  const std::vector<double> lin = Linspace(0.1, 0.7, 4);  // the last is b exactly
  EXPECT_EQ(lin.back(), 0.7);
  EXPECT_DOUBLE_EQ(lin[1], 0.3);
  const std::vector<double> log = Logspace(1.0, 1000.0, 4);
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0], 1.0);
  EXPECT_DOUBLE_EQ(log[1], 10.0);
  EXPECT_DOUBLE_EQ(log[2], 100.0);
  EXPECT_EQ(log[3], 1000.0);
  EXPECT_EQ(Logspace(2.0, 8.0, 1), (std::vector<double>{2.0}));
}

TEST(SweepDesignTest, GridVariesTheFirstParameterSlowest) {
  const std::vector<std::vector<double>> grid = GridDesign({{1, 2}, {10, 20, 30}});
  const std::vector<std::vector<double>> expected = {{1, 10}, {1, 20}, {1, 30},
                                                     {2, 10}, {2, 20}, {2, 30}};
  EXPECT_EQ(grid, expected);
  EXPECT_EQ(GridDesign({{1, 2}, {3, 4}, {5, 6, 7}}).size(), 12u);
}

v1::Sweep RandomSweep(v1::SweepDesign::Kind kind, uint64_t seed, uint32_t samples) {
  v1::Sweep sweep;
  sweep.mutable_design()->set_kind(kind);
  sweep.mutable_design()->set_seed(seed);
  sweep.mutable_design()->set_samples(samples);
  v1::SweepParameter* u = sweep.add_parameters();
  u->add_uniform(-1.0);
  u->add_uniform(3.0);
  v1::SweepParameter* l = sweep.add_parameters();
  l->add_log_uniform(1e-3);
  l->add_log_uniform(1e3);
  return sweep;
}

// Draws in order: per variant, per parameter, one value. Recomputed from the raw engine.
TEST(SweepDesignTest, RandomSamplesAreFixedByTheSeed) {
  v1::Sweep sweep = RandomSweep(v1::SweepDesign::RANDOM, 7, 50);
  v1::SweepParameter* n = sweep.add_parameters();
  n->add_normal(10.0);
  n->add_normal(2.0);
  const std::vector<std::vector<double>> values = DesignValues(sweep);
  ASSERT_EQ(values.size(), 50u);
  ASSERT_EQ(VariantCount(sweep), 50u);
  std::mt19937_64 rng(7);
  auto u = [&] { return static_cast<double>(rng() >> 11) / 9007199254740992.0; };
  for (const std::vector<double>& v : values) {
    EXPECT_EQ(v[0], -1.0 + 4.0 * u());
    EXPECT_EQ(v[1], std::exp(std::log(1e-3) + (std::log(1e3) - std::log(1e-3)) * u()));
    const double u1 = u();
    const double u2 = u();
    EXPECT_EQ(v[2], 10.0 + 2.0 * std::sqrt(-2.0 * std::log(1.0 - u1)) *
                               std::cos(2.0 * 3.14159265358979323846 * u2));
  }
  EXPECT_EQ(DesignValues(sweep), values);  // the same again
  EXPECT_NE(DesignValues(RandomSweep(v1::SweepDesign::RANDOM, 8, 50))[0][0], values[0][0]);
}

// Each of the n strata of equal probability is hit exactly once per parameter.
TEST(SweepDesignTest, LatinHypercubeHitsEveryStratumOnce) {
  const int n = 37;
  const std::vector<std::vector<double>> values =
      DesignValues(RandomSweep(v1::SweepDesign::LATIN_HYPERCUBE, 3, n));
  ASSERT_EQ(values.size(), static_cast<size_t>(n));
  std::set<int> first, second;
  for (const std::vector<double>& v : values) {
    first.insert(static_cast<int>(std::floor((v[0] + 1.0) / 4.0 * n)));
    second.insert(static_cast<int>(std::floor((std::log10(v[1]) + 3.0) / 6.0 * n + 1e-9)));
    EXPECT_GE(v[0], -1.0);
    EXPECT_LT(v[0], 3.0);
  }
  EXPECT_EQ(first.size(), static_cast<size_t>(n));
  EXPECT_EQ(*first.begin(), 0);
  EXPECT_EQ(*first.rbegin(), n - 1);
  EXPECT_EQ(second.size(), static_cast<size_t>(n));
}

TEST(SweepDesignTest, LatinHypercubeOnTheUnitCubeFollowsItsDrawOrder) {
  std::mt19937_64 rng(11), check(11);
  const std::vector<std::vector<double>> points = LatinHypercube(5, 2, rng);
  auto u = [&] { return static_cast<double>(check() >> 11) / 9007199254740992.0; };
  for (int j = 0; j < 2; ++j) {
    std::vector<int> strata = {0, 1, 2, 3, 4};
    for (int i = 4; i >= 1; --i) std::swap(strata[i], strata[static_cast<int>(u() * (i + 1))]);
    for (int k = 0; k < 5; ++k) EXPECT_EQ(points[k][j], (strata[k] + u()) / 5.0);
  }
}

// Phi(x), the standard normal CDF.
double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// The quantiles: mpmath 1.2 at 60 digits, the root x of log ncdf(x) = log p (of ncdf(-x) =
// 1 - p above 0.5) for p the double itself, not the decimal written (0.99999999 is
// 0.99999998999999995, whose quantile is 9e-10 below the decimal's), rounded to 20 digits. They
// cover the three rational approximations of AS 241: |p - 0.5| <= 0.425 (0.075, 0.925 on the
// edge), the near tail (r = sqrt(-log p) <= 5) and the far tail.
TEST(SweepDesignTest, InverseNormalCdfMatchesKnownQuantiles) {
  const struct {
    double p, x;
  } quantiles[] = {{0.5, 0.0},
                   {0.975, 1.9599639845400538556},
                   {0.9, 1.2815515655446005935},
                   {0.3, -0.52440051270804081597},
                   {0.075, -1.4395314709384559349},
                   {0.925, 1.4395314709384562291},
                   {0.999, 3.0902323061678132778},
                   {0.001, -3.0902323061678135354},
                   {0.0001, -3.7190164854556805523},
                   {0.99999999, 5.6120012433055049826},
                   {1e-10, -6.3613409024040561991},
                   {1e-20, -9.2623400897984075796},
                   {1e-300, -37.047096299361199237},
                   {0.8413447460685429, 0.99999999999999990574}};
  for (const auto& [p, x] : quantiles) {
    EXPECT_NEAR(InverseNormalCdf(p), x, 1e-9) << "p = " << p;
    // In fact to a few units of the last place.
    EXPECT_NEAR(InverseNormalCdf(p), x, 4e-16 * std::max(1.0, std::abs(x))) << "p = " << p;
  }
  // Symmetric, and Phi of it gives p back across the whole range.
  for (double p = 1e-300; p < 0.5; p *= 3.7) {
    EXPECT_EQ(InverseNormalCdf(1.0 - p), -InverseNormalCdf(1.0 - (1.0 - p))) << p;
    EXPECT_NEAR(NormalCdf(InverseNormalCdf(p)), p, 1e-12 * p) << p;
  }
  EXPECT_EQ(InverseNormalCdf(0.0), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(InverseNormalCdf(1.0), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(InverseNormalCdf(1.5)));
  EXPECT_TRUE(std::isnan(InverseNormalCdf(-0.1)));
  EXPECT_TRUE(std::isnan(InverseNormalCdf(std::nan(""))));
}

v1::Sweep NormalHypercube(uint64_t seed, uint32_t samples, double mean, double sd) {
  v1::Sweep sweep;
  sweep.mutable_design()->set_kind(v1::SweepDesign::LATIN_HYPERCUBE);
  sweep.mutable_design()->set_seed(seed);
  sweep.mutable_design()->set_samples(samples);
  v1::SweepParameter* u = sweep.add_parameters();
  u->add_uniform(0.0);
  u->add_uniform(1.0);
  v1::SweepParameter* n = sweep.add_parameters();
  n->add_normal(mean);
  n->add_normal(sd);
  return sweep;
}

// Each of the n strata of equal probability of the normal holds exactly one sample: Phi of the
// standardised value falls in [i / n, (i + 1) / n) for one i each.
TEST(SweepDesignTest, LatinHypercubeOfANormalHitsEveryStratumOfEqualProbabilityOnce) {
  for (const int n : {1, 2, 7, 100, 2000}) {
    const std::vector<std::vector<double>> values = DesignValues(NormalHypercube(5, n, 10.0, 2.0));
    ASSERT_EQ(values.size(), static_cast<size_t>(n));
    std::vector<int> hits(n, 0);
    for (const std::vector<double>& v : values) {
      const double phi = NormalCdf((v[1] - 10.0) / 2.0);
      const int stratum = static_cast<int>(std::floor(phi * n));
      ASSERT_GE(stratum, 0) << v[1];
      ASSERT_LT(stratum, n) << v[1];
      ++hits[stratum];
    }
    EXPECT_EQ(std::count(hits.begin(), hits.end(), 1), n) << "n = " << n;
  }
}

// The values are mean + sd Phi^-1(u) of the unit hypercube's u (LatinHypercube, whose draw order
// LatinHypercubeOnTheUnitCubeFollowsItsDrawOrder checks): the same seed gives the same samples,
// another seed others.
TEST(SweepDesignTest, LatinHypercubeOfANormalIsFixedByTheSeed) {
  const std::vector<std::vector<double>> values = DesignValues(NormalHypercube(13, 50, -3.0, 0.5));
  EXPECT_EQ(DesignValues(NormalHypercube(13, 50, -3.0, 0.5)), values);
  std::mt19937_64 rng(13);
  const std::vector<std::vector<double>> unit = LatinHypercube(50, 2, rng);
  for (size_t k = 0; k < values.size(); ++k) {
    EXPECT_EQ(values[k][0], unit[k][0]);
    EXPECT_EQ(values[k][1], -3.0 + 0.5 * InverseNormalCdf(unit[k][1]));
  }
  const std::vector<std::vector<double>> other = DesignValues(NormalHypercube(14, 50, -3.0, 0.5));
  EXPECT_NE(other, values);
}

// With 2000 samples the sample mean and standard deviation are those asked for, closely: the
// strata make the hypercube's mean far better than random sampling's sd / sqrt(n) = 0.045.
TEST(SweepDesignTest, LatinHypercubeOfANormalHasTheGivenMeanAndSd) {
  const std::vector<std::vector<double>> values =
      DesignValues(NormalHypercube(21, 2000, 10.0, 2.0));
  double sum = 0;
  for (const std::vector<double>& v : values) sum += v[1];
  const double mean = sum / 2000.0;
  double squares = 0;
  for (const std::vector<double>& v : values) squares += (v[1] - mean) * (v[1] - mean);
  const double sd = std::sqrt(squares / 1999.0);
  EXPECT_NEAR(mean, 10.0, 0.005);
  EXPECT_NEAR(sd, 2.0, 0.02);
}

}  // namespace
}  // namespace cosimo
