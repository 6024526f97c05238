// The calibration optimisers (cosimo/common/optimizer.h) on analytic least-squares problems whose
// minimum is known: an exponential decay y = a exp(-b t) sampled without noise (minimum at the
// true a, b with objective 0), a straight line (the standard errors of linear regression in
// closed form), and models whose data cannot determine a parameter.
#include "cosimo/common/optimizer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace cosimo {
namespace {

// y = a exp(-b t) at t = 0, 0.2, ..., 4; a in [0, 5], b in [0, 2] mapped linearly on the box.
constexpr double kA = 2.0, kB = 0.5;
Eigen::VectorXd Decay(double a, double b) {
  Eigen::VectorXd y(21);
  for (int i = 0; i < 21; ++i) y[i] = a * std::exp(-b * 0.2 * i);
  return y;
}
double A(const Eigen::VectorXd& z) { return 5.0 * z[0]; }
double B(const Eigen::VectorXd& z) { return 2.0 * z[1]; }

// Residuals of a batch, counting the batches and their sizes.
struct DecayProblem {
  std::vector<size_t> batches;
  BatchFunction Function() {
    return [this](const std::vector<Eigen::VectorXd>& points) {
      batches.push_back(points.size());
      std::vector<Residuals> out;
      for (const Eigen::VectorXd& z : points) {
        out.emplace_back(Decay(A(z), B(z)) - Decay(kA, kB));
      }
      return absl::StatusOr<std::vector<Residuals>>(out);
    };
  }
};

TEST(OptimizerTest, LevenbergMarquardtFitsAnExponentialDecay) {
  DecayProblem problem;
  OptimizerOptions options;
  const Eigen::VectorXd start = Eigen::Vector2d(0.2, 0.2);  // a = 1, b = 0.4
  absl::StatusOr<OptimizerResult> r =
      MinimizeLevenbergMarquardt(start, options, problem.Function(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(A(r->x), kA, 1e-6);
  EXPECT_NEAR(B(r->x), kB, 1e-6);
  EXPECT_LT(r->objective, 1e-12);
  EXPECT_LT(r->iterations, 30);
  // The Jacobians are batches of one point per parameter (its columns, in parallel).
  EXPECT_EQ(problem.batches[1], 2u);
  // The history's objective never rises.
  for (size_t i = 1; i < r->history.size(); ++i) {
    EXPECT_LE(r->history[i].objective, r->history[i - 1].objective);
  }
  ASSERT_EQ(r->jacobian.rows(), 21);
  // dr/dz_a at the optimum: 5 exp(-b t); at t = 0 it is 5.
  EXPECT_NEAR(r->jacobian(0, 0), 5.0, 1e-4);
}

TEST(OptimizerTest, CmaesFitsAnExponentialDecayInGenerations) {
  DecayProblem problem;
  OptimizerOptions options;
  options.max_iterations = 200;
  options.population = 8;
  options.seed = 7;
  options.x_tolerance = 1e-9;
  const Eigen::VectorXd start = Eigen::Vector2d(0.2, 0.2);
  absl::StatusOr<OptimizerResult> r = MinimizeCmaes(start, options, problem.Function(), nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NEAR(A(r->x), kA, 1e-5);
  EXPECT_NEAR(B(r->x), kB, 1e-5);
  // Every generation is one batch of the population; then one Jacobian batch.
  for (size_t i = 0; i + 1 < problem.batches.size(); ++i) EXPECT_EQ(problem.batches[i], 8u);
  EXPECT_EQ(problem.batches.back(), 2u);
  EXPECT_EQ(r->evaluations, 8 * r->iterations + 2);
  EXPECT_NE(r->stop_reason, "max_iterations");
}

// The same seed, the same search bit for bit; another seed, other points.
TEST(OptimizerTest, CmaesIsDeterministicForASeed) {
  OptimizerOptions options;
  options.max_iterations = 15;
  auto run = [&](uint64_t seed) {
    DecayProblem problem;
    options.seed = seed;
    absl::StatusOr<OptimizerResult> r =
        MinimizeCmaes(Eigen::Vector2d(0.5, 0.5), options, problem.Function(), nullptr);
    EXPECT_TRUE(r.ok());
    return *r;
  };
  const OptimizerResult a = run(1), b = run(1), c = run(2);
  ASSERT_EQ(a.history.size(), b.history.size());
  for (size_t i = 0; i < a.history.size(); ++i) {
    EXPECT_EQ(a.history[i].objective, b.history[i].objective);
    EXPECT_EQ(a.history[i].x, b.history[i].x);
  }
  EXPECT_NE(a.history[0].x, c.history[0].x);
}

// CMA-ES stays in the box: a minimum outside it (a = 7 > 5) ends on its face.
TEST(OptimizerTest, CmaesReflectsIntoTheBox) {
  std::vector<double> seen;
  BatchFunction f = [&](const std::vector<Eigen::VectorXd>& points) {
    std::vector<Residuals> out;
    for (const Eigen::VectorXd& z : points) {
      seen.push_back(z[0]);
      out.emplace_back(Eigen::VectorXd::Constant(1, 5.0 * z[0] - 7.0));
    }
    return absl::StatusOr<std::vector<Residuals>>(out);
  };
  OptimizerOptions options;
  options.max_iterations = 60;
  absl::StatusOr<OptimizerResult> r =
      MinimizeCmaes(Eigen::VectorXd::Constant(1, 0.5), options, f, nullptr);
  ASSERT_TRUE(r.ok());
  for (double z : seen) EXPECT_TRUE(z >= 0.0 && z <= 1.0) << z;
  EXPECT_GT(r->x[0], 0.999);
}

// Linear regression y = c0 + c1 t: J = [1, t], cov = s^2 (J^T J)^-1 with s^2 = SSR / (m - 2);
// for t = 0, 1, 2, 3: J^T J = [[4, 6], [6, 14]], inverse [[14, -6], [-6, 4]] / 20.
TEST(OptimizerTest, StandardErrorsOfALineAreTheClosedForm) {
  Eigen::MatrixXd j(4, 2);
  j << 1, 0, 1, 1, 1, 2, 1, 3;
  const Eigen::VectorXd r = Eigen::Vector4d(0.1, -0.2, 0.2, -0.1);  // SSR 0.1, s^2 0.05
  const FitStatistics s = ComputeFitStatistics(j, r, Eigen::Vector2d(100, 100));
  EXPECT_DOUBLE_EQ(s.residual_variance, 0.05);
  EXPECT_NEAR(s.standard_errors[0], std::sqrt(0.05 * 14 / 20), 1e-12);
  EXPECT_NEAR(s.standard_errors[1], std::sqrt(0.05 * 4 / 20), 1e-12);
  EXPECT_NEAR(s.correlation(0, 1), -6.0 / std::sqrt(14.0 * 4.0), 1e-12);
  EXPECT_EQ(s.correlation(0, 0), 1.0);
  EXPECT_FALSE(s.undetermined[0]);
  EXPECT_FALSE(s.undetermined[1]);
}

// y = a b t determines only the product: J's columns are parallel, both flagged, infinite
// standard errors; a parameter with no effect (a zero column) is flagged and the other kept.
TEST(OptimizerTest, ParametersTheDataDoNotDetermineAreFlagged) {
  Eigen::MatrixXd j(3, 2);
  j << 2, 1, 4, 2, 6, 3;  // d(ab t)/da = b t, /db = a t at a = 1, b = 2
  const FitStatistics product =
      ComputeFitStatistics(j, Eigen::Vector3d(0.1, 0, -0.1), Eigen::Vector2d(10, 10));
  EXPECT_TRUE(product.undetermined[0]);
  EXPECT_TRUE(product.undetermined[1]);
  EXPECT_TRUE(std::isinf(product.standard_errors[0]));
  EXPECT_TRUE(std::isnan(product.correlation(0, 1)));
  Eigen::MatrixXd k(3, 2);
  k << 1, 0, 2, 0, 3, 0;
  const FitStatistics unused =
      ComputeFitStatistics(k, Eigen::Vector3d(0.1, 0, -0.1), Eigen::Vector2d(10, 10));
  EXPECT_FALSE(unused.undetermined[0]);
  EXPECT_TRUE(unused.undetermined[1]);
  EXPECT_NEAR(unused.standard_errors[0], std::sqrt(0.02 / 14.0), 1e-12);  // m - n = 1
  // A standard error wider than the parameter's range flags it too.
  const FitStatistics wide = ComputeFitStatistics(k.col(0), Eigen::Vector3d(0.1, 0, -0.1),
                                                  Eigen::VectorXd::Constant(1, 1e-3));
  EXPECT_TRUE(wide.undetermined[0]);
}

// A batch function's error (a cancel) ends the search with it.
TEST(OptimizerTest, TheBatchFunctionsErrorEndsTheSearch) {
  BatchFunction f = [](const std::vector<Eigen::VectorXd>&) {
    return absl::StatusOr<std::vector<Residuals>>(absl::CancelledError("canceled"));
  };
  EXPECT_EQ(MinimizeCmaes(Eigen::Vector2d(0.5, 0.5), {}, f, nullptr).status().code(),
            absl::StatusCode::kCancelled);
  EXPECT_EQ(MinimizeLevenbergMarquardt(Eigen::Vector2d(0.5, 0.5), {}, f, nullptr).status().code(),
            absl::StatusCode::kCancelled);
}

}  // namespace
}  // namespace cosimo
