// The COSTARICA estimator (docs/algorithms.md; seed 001, section 3): answers a tentative step of a
// unit that cannot roll back from its linearisation at t[N], without moving the unit in time.
//
// With polynomial inputs u(t[N] + s) = sum_k a_k s^k (k = 0..K-1) and delta = t[N+1] - t[N]:
//
//   x^(t[N+1]) = e^{A delta} x~ + sum_k k! Gamma_k B a_k + Gamma_0 f_C
//   y^(t[N+1]) = C x^ + D u(delta) + y_C
//   dy^/dt     = C (A x^ + B u(delta) + f_C) + D u'(delta)
//   f_C = xdot(t[N]) - A x~ - B u_lin     (zero in the degraded version, without xdot)
//   y_C = y~ - C x~ - D u_lin
//   Gamma_k B = int_0^delta e^{A (delta - s)} B s^k / k! ds
//
// where u_lin is the input at which the unit was linearised. All Gamma_k B (and Gamma_0 for f_C)
// come from one exponential of a Van Loan block matrix, so singular A is fine. They depend on
// (A, B, delta, K) only and are recomputed only when delta or K changes; an estimate is then a
// few matrix-vector products into preallocated buffers (no allocation once sized).
//
// Call order: Prepare (once per t[N]) { SetStep? Estimate* }*. Not thread safe.
#pragma once

#include <Eigen/Core>

#include "cosimo/common/unit_api.h"
#include "cosimo/units/unit.h"

namespace cosimo::units::costarica {

// The top block row of exp(M delta) for the Van Loan matrix of (A, B) with K input monomials:
//   phi = e^{A delta}, gamma0 = Gamma_0 (n x n, the response to a constant unit forcing),
//   gamma_b = [Gamma_0 B, Gamma_1 B, ..., Gamma_{K-1} B] (n x m K).
struct Propagator {
  Eigen::MatrixXd phi;
  Eigen::MatrixXd gamma0;
  Eigen::MatrixXd gamma_b;
};
void ComputePropagator(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double delta,
                       int num_monomials, Propagator* out);

class Estimator {
 public:
  // Takes the linearisation at t[N] and the inputs u_lin used for it. `degraded` (no xdot)
  // sets f_C = 0. Sizes must agree (checked by the caller, UnitHost).
  void Prepare(const Linearization& lin, const Eigen::VectorXd& u_lin);
  bool degraded() const { return degraded_; }

  // Recomputes the Van Loan exponential if (delta, num_monomials) changed.
  void SetStep(double delta, int num_monomials);

  // Estimates the state, outputs and output derivatives at t[N] + delta for `inputs`
  // (inputs.order() <= the prepared number of monomials is handled by SetStep).
  void Estimate(const InputPolynomials& inputs, double delta);

  const Eigen::VectorXd& state() const { return x_hat_; }
  const Eigen::VectorXd& outputs() const { return y_hat_; }
  const Eigen::VectorXd& output_derivatives() const { return dy_hat_; }

  // The affine map of the estimated outputs in the input coefficients, for one linear solve of
  // the coupling (MISSILES): y^ = gy * vec(a) + y0, dy^/dt = gd * vec(a) + d0, where vec(a)
  // stacks the coefficient columns (a_0, a_1, ..., a_{K-1}), each of size m.
  void AffineOutputs(double delta, int num_monomials, Eigen::MatrixXd* gy, Eigen::VectorXd* y0,
                     Eigen::MatrixXd* gd, Eigen::VectorXd* d0);

  int num_propagator_computations() const { return num_propagators_; }

 private:
  Eigen::MatrixXd a_, b_, c_, d_;
  Eigen::VectorXd x0_, f_c_, y_c_;
  bool degraded_ = false;

  double delta_ = -1.0;
  int num_monomials_ = 0;
  Propagator prop_;
  int num_propagators_ = 0;

  // Scratch.
  Eigen::VectorXd x_hat_, y_hat_, dy_hat_, u_end_, du_end_, dx_;
};

}  // namespace cosimo::units::costarica
