// COSTARICA estimator: the check values of docs/algorithms.md (COSTARICA) and exactness for linear
// time-invariant units with polynomial inputs, against a fine classical RK4 written here.
#include "units/src/costarica/costarica.h"

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <random>

namespace cosimo::units::costarica {
namespace {

// u(s) = sum_k a(:, k) s^k.
Eigen::VectorXd PolyValue(const Eigen::MatrixXd& a, double s) {
  Eigen::VectorXd u = Eigen::VectorXd::Zero(a.rows());
  double p = 1.0;
  for (Eigen::Index k = 0; k < a.cols(); ++k) {
    u += p * a.col(k);
    p *= s;
  }
  return u;
}

// x' = A x + B u(s) + f, classical RK4 with `steps` steps on [0, delta].
Eigen::VectorXd Rk4(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, const Eigen::VectorXd& f,
                    const Eigen::MatrixXd& coeffs, Eigen::VectorXd x, double delta, int steps) {
  const double h = delta / steps;
  auto rhs = [&](double s, const Eigen::VectorXd& xs) -> Eigen::VectorXd {
    Eigen::VectorXd d = a * xs + f;
    if (b.cols() > 0) d += b * PolyValue(coeffs, s);
    return d;
  };
  for (int i = 0; i < steps; ++i) {
    const double s = i * h;
    const Eigen::VectorXd k1 = rhs(s, x);
    const Eigen::VectorXd k2 = rhs(s + h / 2, x + h / 2 * k1);
    const Eigen::VectorXd k3 = rhs(s + h / 2, x + h / 2 * k2);
    const Eigen::VectorXd k4 = rhs(s + h, x + h * k3);
    x += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return x;
}

Linearization Lti(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, const Eigen::MatrixXd& c,
                  const Eigen::MatrixXd& d, const Eigen::VectorXd& x, const Eigen::VectorXd& u0,
                  const Eigen::VectorXd& f, const Eigen::VectorXd& g, bool with_xdot) {
  Linearization lin;
  lin.A = a;
  lin.B = b;
  lin.C = c;
  lin.D = d;
  lin.x = x;
  if (with_xdot) lin.xdot = a * x + b * u0 + f;
  lin.y = c * x + d * u0 + g;
  return lin;
}

TEST(CostaricaTest, DesignCheckValueCubicInput) {
  // docs/algorithms.md, COSTARICA check: A = [[0,1],[-1,-1]], B = [0,1]', x~ = [1,0], u = 1 + 2s +
  // 3s^2 + 4s^3, delta = 0.5 gives x^ = [1.0563012299114, 0.3745917687280].
  Eigen::MatrixXd a(2, 2), b(2, 1), c = Eigen::MatrixXd::Identity(2, 2), d(2, 1);
  a << 0, 1, -1, -1;
  b << 0, 1;
  d.setZero();
  const Eigen::Vector2d x(1, 0);
  InputPolynomials u;
  u.coefficients.resize(1, 4);
  u.coefficients << 1, 2, 3, 4;
  for (bool with_xdot : {true, false}) {
    Estimator e;
    const Eigen::VectorXd u0 = u.coefficients.col(0);
    e.Prepare(Lti(a, b, c, d, x, u0, Eigen::Vector2d::Zero(), Eigen::Vector2d::Zero(), with_xdot),
              u0);
    EXPECT_EQ(e.degraded(), !with_xdot);
    e.Estimate(u, 0.5);
    EXPECT_NEAR(e.state()[0], 1.0563012299114, 1e-12);
    EXPECT_NEAR(e.state()[1], 0.3745917687280, 1e-12);
    EXPECT_NEAR(e.outputs()[0], 1.0563012299114, 1e-12);
  }
}

TEST(CostaricaTest, DesignCheckValueDoubleIntegrator) {
  // x'' = u, u = 1 + s, delta = 2, zero start: x = s^2/2 + s^3/6 -> 10/3, x' = s + s^2/2 -> 4.
  // A is singular: the Van Loan exponential needs no inverse.
  Eigen::MatrixXd a(2, 2), b(2, 1), c(1, 2), d(1, 1);
  a << 0, 1, 0, 0;
  b << 0, 1;
  c << 1, 0;
  d << 0;
  InputPolynomials u;
  u.coefficients.resize(1, 2);
  u.coefficients << 1, 1;
  Estimator e;
  const Eigen::VectorXd u0 = u.coefficients.col(0);
  e.Prepare(Lti(a, b, c, d, Eigen::Vector2d::Zero(), u0, Eigen::Vector2d::Zero(),
                Eigen::VectorXd::Zero(1), true),
            u0);
  e.Estimate(u, 2.0);
  EXPECT_NEAR(e.state()[0], 10.0 / 3.0, 1e-13);
  EXPECT_NEAR(e.state()[1], 4.0, 1e-13);
  EXPECT_NEAR(e.outputs()[0], 10.0 / 3.0, 1e-13);
  // dy/dt = C (A x + B u(delta)) = x'(2) = 4.
  EXPECT_NEAR(e.output_derivatives()[0], 4.0, 1e-13);
}

// Random stable (eigenvalues with negative real part) systems with state and output offsets
// (f, g), inputs of degree 0..3: the estimate equals the RK4 reference (RK4 error ~ h^4 with
// 4000 steps: below 1e-11 here) and dy/dt equals C x' + D u'.
TEST(CostaricaTest, ExactOnRandomStableLinearSystems) {
  std::mt19937 rng(20240605);
  std::uniform_real_distribution<double> uni(-1.0, 1.0);
  auto random = [&](Eigen::Index r, Eigen::Index c) {
    Eigen::MatrixXd m(r, c);
    for (Eigen::Index i = 0; i < r; ++i)
      for (Eigen::Index j = 0; j < c; ++j) m(i, j) = uni(rng);
    return m;
  };
  for (int trial = 0; trial < 24; ++trial) {
    const int n = 1 + trial % 4;
    const int m = 1 + trial % 2;
    const int p = 1 + (trial / 2) % 2;
    const int degree = trial % 4;
    Eigen::MatrixXd a = random(n, n);
    // Shift the spectrum left of the imaginary axis.
    const double shift = a.eigenvalues().real().maxCoeff() + 0.5;
    a -= shift * Eigen::MatrixXd::Identity(n, n);
    const Eigen::MatrixXd b = random(n, m), c = random(p, n), d = random(p, m);
    const Eigen::VectorXd x0 = random(n, 1), f = random(n, 1), g = random(p, 1);
    InputPolynomials u;
    u.coefficients = random(m, degree + 1);
    const double delta = 0.3 + 0.2 * (trial % 5);
    for (bool exact_f : {true, false}) {
      Estimator e;
      const Eigen::VectorXd u0 = u.coefficients.col(0);
      const Eigen::VectorXd f_used = exact_f ? f : Eigen::VectorXd::Zero(n);
      e.Prepare(Lti(a, b, c, d, x0, u0, f_used, g, true), u0);
      e.Estimate(u, delta);
      const Eigen::VectorXd x_ref = Rk4(a, b, f_used, u.coefficients, x0, delta, 4000);
      const Eigen::VectorXd u_end = PolyValue(u.coefficients, delta);
      Eigen::VectorXd du_end = Eigen::VectorXd::Zero(m);
      for (int k = 1; k <= degree; ++k) {
        du_end += k * std::pow(delta, k - 1) * u.coefficients.col(k);
      }
      const Eigen::VectorXd y_ref = c * x_ref + d * u_end + g;
      const Eigen::VectorXd dy_ref = c * (a * x_ref + b * u_end + f_used) + d * du_end;
      EXPECT_LT((e.state() - x_ref).lpNorm<Eigen::Infinity>(), 1e-11) << "trial " << trial;
      EXPECT_LT((e.outputs() - y_ref).lpNorm<Eigen::Infinity>(), 1e-11) << "trial " << trial;
      EXPECT_LT((e.output_derivatives() - dy_ref).lpNorm<Eigen::Infinity>(), 1e-10)
          << "trial " << trial;
    }
  }
}

TEST(CostaricaTest, DegradedIgnoresStateControlPart) {
  // x' = -x + 1 (f = 1), x(0) = 0, no input: with xdot the estimate is 1 - e^{-delta}; without
  // xdot (degraded, f_C = 0) it is the free response 0.
  Eigen::MatrixXd a(1, 1), b(1, 0), c(1, 1), d(1, 0);
  a << -1;
  c << 1;
  InputPolynomials u;
  u.coefficients.resize(0, 1);
  const Eigen::VectorXd x0 = Eigen::VectorXd::Zero(1), u0(0);
  Estimator full, degraded;
  full.Prepare(Lti(a, b, c, d, x0, u0, Eigen::VectorXd::Ones(1), Eigen::VectorXd::Zero(1), true),
               u0);
  degraded.Prepare(
      Lti(a, b, c, d, x0, u0, Eigen::VectorXd::Ones(1), Eigen::VectorXd::Zero(1), false), u0);
  full.Estimate(u, 1.0);
  degraded.Estimate(u, 1.0);
  EXPECT_NEAR(full.outputs()[0], 1.0 - std::exp(-1.0), 1e-14);
  EXPECT_TRUE(degraded.degraded());
  EXPECT_NEAR(degraded.outputs()[0], 0.0, 1e-15);
}

TEST(CostaricaTest, PropagatorOncePerStepSizeAndAffineFormAgrees) {
  Eigen::MatrixXd a(2, 2), b(2, 1), c(1, 2), d(1, 1);
  a << 0, 1, -4, -0.4;
  b << 0, 1;
  c << 1, 0.5;
  d << 0.25;
  const Eigen::Vector2d x0(0.3, -0.2);
  const Eigen::VectorXd u0 = Eigen::VectorXd::Constant(1, 0.7);
  Estimator e;
  e.Prepare(
      Lti(a, b, c, d, x0, u0, Eigen::Vector2d(0.1, 0.2), Eigen::VectorXd::Constant(1, 1), true),
      u0);
  InputPolynomials u;
  u.coefficients.resize(1, 4);
  for (int it = 0; it < 5; ++it) {
    u.coefficients << 0.7, 0.1 * it, -0.3, 0.05 * it;
    e.Estimate(u, 0.25);
  }
  EXPECT_EQ(e.num_propagator_computations(), 1);
  Eigen::MatrixXd gy, gd;
  Eigen::VectorXd y0, d0;
  e.AffineOutputs(0.25, 4, &gy, &y0, &gd, &d0);
  EXPECT_EQ(e.num_propagator_computations(), 1);
  const Eigen::Map<const Eigen::VectorXd> vec(u.coefficients.data(), 4);
  EXPECT_NEAR((gy * vec + y0)[0], e.outputs()[0], 1e-14);
  EXPECT_NEAR((gd * vec + d0)[0], e.output_derivatives()[0], 1e-13);
  e.Estimate(u, 0.5);
  EXPECT_EQ(e.num_propagator_computations(), 2);
}

}  // namespace
}  // namespace cosimo::units::costarica
