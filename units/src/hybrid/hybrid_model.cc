#include "units/src/hybrid/hybrid_model.h"

#include <limits>
#include <utility>

namespace cosimo::units {

HybridModel::HybridModel(const Model* inner, std::unique_ptr<Model> owned, DenseNet top,
                         DenseNet bottom, InnerJacobians jacobians)
    : inner_(inner),
      owned_(std::move(owned)),
      top_(std::move(top)),
      bottom_(std::move(bottom)),
      jacobians_(std::move(jacobians)) {
  a_.resize(inner_->num_states());
  f_.resize(inner_->num_states());
}

void HybridModel::Derivatives(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                              Eigen::Ref<Eigen::VectorXd> dxdt) const {
  top_.Forward(x, a_);
  inner_->Derivatives(t, a_, u, f_);
  bottom_.Forward(f_, dxdt);
}

void HybridModel::Outputs(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                          Eigen::Ref<Eigen::VectorXd> y) const {
  inner_->Outputs(t, x, u, y);
}

bool HybridModel::Jacobians(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                            Eigen::MatrixXd* A, Eigen::MatrixXd* B, Eigen::MatrixXd* C,
                            Eigen::MatrixXd* D) const {
  if (!evaluable_) {
    const Eigen::Index n = inner_->num_states(), m = inner_->num_inputs();
    const Eigen::Index p = inner_->num_outputs();
    A->setZero(n, n);
    B->setZero(n, m);
    C->setZero(p, n);
    D->setZero(p, m);
    return true;
  }
  top_.Forward(x, a_);
  top_.Jacobians(&jt_, nullptr);
  inner_->Derivatives(t, a_, u, f_);
  Eigen::VectorXd y(inner_->num_states());
  bottom_.Forward(f_, y);
  bottom_.Jacobians(&jb_, nullptr);
  bool ok = jacobians_(t, a_, u, &ai_, &bi_, C, D);
  if (ok && !top_.identity()) {
    Eigen::MatrixXd unused_a, unused_b;  // the outputs' Jacobians are taken at x itself
    ok = jacobians_(t, x, u, &unused_a, &unused_b, C, D);
  }
  if (!ok) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const Eigen::Index n = inner_->num_states(), m = inner_->num_inputs();
    const Eigen::Index p = inner_->num_outputs();
    A->setConstant(n, n, nan);
    B->setConstant(n, m, nan);
    C->setConstant(p, n, nan);
    D->setConstant(p, m, nan);
    return true;  // the Jacobians exist; this point failed (the unit reads the error)
  }
  m_.noalias() = jb_ * ai_;
  A->noalias() = m_ * jt_;
  B->noalias() = jb_ * bi_;
  return true;
}

Eigen::VectorXd HybridModel::Parameters() const {
  Eigen::VectorXd p(num_parameters());
  p << top_.Parameters(), bottom_.Parameters();
  return p;
}

void HybridModel::SetParameters(const Eigen::Ref<const Eigen::VectorXd>& p) {
  top_.SetParameters(p.head(top_.num_parameters()));
  bottom_.SetParameters(p.tail(bottom_.num_parameters()));
}

bool HybridModel::Sensitivities(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                                const Eigen::Ref<const Eigen::MatrixXd>& S,
                                Eigen::Ref<Eigen::VectorXd> dxdt,
                                Eigen::Ref<Eigen::MatrixXd> dS) const {
  const Eigen::Index pt = top_.num_parameters(), pb = bottom_.num_parameters();
  top_.Forward(x, a_);
  top_.Jacobians(&jt_, &pt_);
  inner_->Derivatives(t, a_, u, f_);
  bottom_.Forward(f_, dxdt);
  bottom_.Jacobians(&jb_, &pb_);
  if (!jacobians_(t, a_, u, &ai_, &bi_, &ci_, &di_)) return false;
  m_.noalias() = jb_ * ai_;
  // dS = M (J_top S + [P_top, 0]) + [0, P_bottom], with M = J_bottom A_inner.
  jt_ = jt_ * S;  // n x (pt + pb)
  if (pt > 0) jt_.leftCols(pt) += pt_;
  dS.noalias() = m_ * jt_;
  if (pb > 0) dS.rightCols(pb) += pb_;
  return true;
}

}  // namespace cosimo::units
