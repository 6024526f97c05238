#include "units/src/costarica/costarica.h"

#include <cmath>
#include <unsupported/Eigen/MatrixFunctions>

namespace cosimo::units::costarica {

void ComputePropagator(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double delta,
                       int num_monomials, Propagator* out) {
  // Van Loan block matrix on z = [x (n); f (n); w_0 (m); ...; w_{K-1} (m)] with
  //   x' = A x + f + B w_0,  f' = 0,  w_j' = w_{j+1},  w_{K-1}' = 0,
  // so w_0(s) = sum_j w_j(0) s^j / j! and the top block row of exp(M delta) is
  //   [e^{A delta}, Gamma_0, Gamma_0 B, Gamma_1 B, ..., Gamma_{K-1} B].
  const Eigen::Index n = a.rows();
  const Eigen::Index m = b.cols();
  const Eigen::Index k = num_monomials;
  const Eigen::Index size = 2 * n + m * k;
  Eigen::MatrixXd big = Eigen::MatrixXd::Zero(size, size);
  big.topLeftCorner(n, n) = a * delta;
  big.block(0, n, n, n) = Eigen::MatrixXd::Identity(n, n) * delta;
  if (k > 0) big.block(0, 2 * n, n, m) = b * delta;
  for (Eigen::Index j = 0; j + 1 < k; ++j) {
    big.block(2 * n + j * m, 2 * n + (j + 1) * m, m, m) = Eigen::MatrixXd::Identity(m, m) * delta;
  }
  const Eigen::MatrixXd expm = big.exp();
  out->phi = expm.topLeftCorner(n, n);
  out->gamma0 = expm.block(0, n, n, n);
  out->gamma_b = expm.block(0, 2 * n, n, m * k);
}

void Estimator::Prepare(const Linearization& lin, const Eigen::VectorXd& u_lin) {
  a_ = lin.A;
  b_ = lin.B;
  c_ = lin.C;
  d_ = lin.D;
  x0_ = lin.x;
  degraded_ = lin.xdot.size() == 0;
  const Eigen::Index n = x0_.size();
  if (degraded_) {
    f_c_ = Eigen::VectorXd::Zero(n);
  } else {
    f_c_ = lin.xdot - a_ * x0_;
    if (b_.cols() > 0) f_c_.noalias() -= b_ * u_lin;
  }
  y_c_ = lin.y - c_ * x0_;
  if (d_.cols() > 0) y_c_.noalias() -= d_ * u_lin;
  // The propagator depends on A and B, which changed.
  delta_ = -1.0;
  x_hat_.resize(n);
  dx_.resize(n);
  y_hat_.resize(y_c_.size());
  dy_hat_.resize(y_c_.size());
  u_end_.resize(b_.cols());
  du_end_.resize(b_.cols());
}

void Estimator::SetStep(double delta, int num_monomials) {
  if (num_monomials < 1) num_monomials = 1;
  if (delta == delta_ && num_monomials <= num_monomials_) return;
  ComputePropagator(a_, b_, delta, num_monomials, &prop_);
  delta_ = delta;
  num_monomials_ = num_monomials;
  ++num_propagators_;
}

void Estimator::Estimate(const InputPolynomials& inputs, double delta) {
  SetStep(delta, inputs.order());
  const Eigen::Index m = b_.cols();
  x_hat_.noalias() = prop_.phi * x0_;
  x_hat_.noalias() += prop_.gamma0 * f_c_;
  u_end_.setZero();
  du_end_.setZero();
  double factorial = 1.0;
  double power = 1.0;       // delta^k
  double power_prev = 0.0;  // delta^(k-1)
  for (int k = 0; k < inputs.order() && m > 0; ++k) {
    if (k > 0) factorial *= k;
    x_hat_.noalias() +=
        factorial * (prop_.gamma_b.middleCols(k * m, m) * inputs.coefficients.col(k));
    u_end_ += power * inputs.coefficients.col(k);
    if (k > 0) du_end_ += (k * power_prev) * inputs.coefficients.col(k);
    power_prev = power;
    power *= delta;
  }
  y_hat_ = y_c_;
  y_hat_.noalias() += c_ * x_hat_;
  if (m > 0) y_hat_.noalias() += d_ * u_end_;
  dx_ = f_c_;
  dx_.noalias() += a_ * x_hat_;
  if (m > 0) dx_.noalias() += b_ * u_end_;
  dy_hat_.noalias() = c_ * dx_;
  if (m > 0) dy_hat_.noalias() += d_ * du_end_;
}

void Estimator::AffineOutputs(double delta, int num_monomials, Eigen::MatrixXd* gy,
                              Eigen::VectorXd* y0, Eigen::MatrixXd* gd, Eigen::VectorXd* d0) {
  SetStep(delta, num_monomials);
  const Eigen::Index m = b_.cols();
  const Eigen::Index p = c_.rows();
  const Eigen::VectorXd x_free = prop_.phi * x0_ + prop_.gamma0 * f_c_;
  *y0 = c_ * x_free + y_c_;
  *d0 = c_ * (a_ * x_free + f_c_);
  gy->resize(p, m * num_monomials);
  gd->resize(p, m * num_monomials);
  double factorial = 1.0;
  for (int k = 0; k < num_monomials; ++k) {
    if (k > 0) factorial *= k;
    const Eigen::MatrixXd gamma_k = factorial * prop_.gamma_b.middleCols(k * m, m);
    const double power = std::pow(delta, k);
    const double dpower = k == 0 ? 0.0 : k * std::pow(delta, k - 1);
    gy->middleCols(k * m, m) = c_ * gamma_k + power * d_;
    gd->middleCols(k * m, m) = c_ * (a_ * gamma_k) + power * (c_ * b_) + dpower * d_;
  }
}

}  // namespace cosimo::units::costarica
