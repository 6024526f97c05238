#include "units/src/models/linearizer.h"

#include <algorithm>
#include <cmath>

namespace cosimo::units {
namespace {

double Perturbation(double value, double relative) {
  return relative * std::max(1.0, std::abs(value));
}

}  // namespace

Linearizer::Linearizer(const Model& model)
    : model_(model),
      xp_(model.num_states()),
      up_(model.num_inputs()),
      fp_(model.num_states()),
      fm_(model.num_states()),
      yp_(model.num_outputs()),
      ym_(model.num_outputs()) {
  Eigen::MatrixXd a, b, c, d;
  const Eigen::VectorXd x0 = model.InitialState();
  const Eigen::VectorXd u0 = Eigen::VectorXd::Zero(model.num_inputs());
  analytic_ = model.Jacobians(0.0, x0, u0, &a, &b, &c, &d);
}

void Linearizer::StateJacobian(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                               Eigen::MatrixXd* A) {
  const int n = model_.num_states();
  if (analytic_) {
    model_.Jacobians(t, x, u, A, &b_, &c_, &d_);
    return;
  }
  A->resize(n, n);
  xp_ = x;
  for (int j = 0; j < n; ++j) {
    const double e = Perturbation(x[j], kRelativeStep);
    xp_[j] = x[j] + e;
    model_.Derivatives(t, xp_, u, fp_);
    xp_[j] = x[j] - e;
    model_.Derivatives(t, xp_, u, fm_);
    xp_[j] = x[j];
    A->col(j) = (fp_ - fm_) / (2.0 * e);
  }
}

void Linearizer::Jacobians(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                           Eigen::MatrixXd* A, Eigen::MatrixXd* B, Eigen::MatrixXd* C,
                           Eigen::MatrixXd* D) {
  const int n = model_.num_states();
  const int m = model_.num_inputs();
  const int p = model_.num_outputs();
  if (analytic_) {
    model_.Jacobians(t, x, u, A, B, C, D);
    return;
  }
  A->resize(n, n);
  B->resize(n, m);
  C->resize(p, n);
  D->resize(p, m);
  xp_ = x;
  for (int j = 0; j < n; ++j) {
    const double e = Perturbation(x[j], kRelativeStep);
    xp_[j] = x[j] + e;
    model_.Derivatives(t, xp_, u, fp_);
    model_.Outputs(t, xp_, u, yp_);
    xp_[j] = x[j] - e;
    model_.Derivatives(t, xp_, u, fm_);
    model_.Outputs(t, xp_, u, ym_);
    xp_[j] = x[j];
    A->col(j) = (fp_ - fm_) / (2.0 * e);
    C->col(j) = (yp_ - ym_) / (2.0 * e);
  }
  up_ = u;
  for (int j = 0; j < m; ++j) {
    const double e = Perturbation(u[j], kRelativeStep);
    up_[j] = u[j] + e;
    model_.Derivatives(t, x, up_, fp_);
    model_.Outputs(t, x, up_, yp_);
    up_[j] = u[j] - e;
    model_.Derivatives(t, x, up_, fm_);
    model_.Outputs(t, x, up_, ym_);
    up_[j] = u[j];
    B->col(j) = (fp_ - fm_) / (2.0 * e);
    D->col(j) = (yp_ - ym_) / (2.0 * e);
  }
}

}  // namespace cosimo::units
