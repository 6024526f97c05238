#include "units/src/models/affine_model.h"

#include <cassert>
#include <utility>

namespace cosimo::units {

AffineModel::AffineModel(AffineModelSpec spec) : spec_(std::move(spec)) {
  const Eigen::Index n = static_cast<Eigen::Index>(spec_.states.size());
  const Eigen::Index m = static_cast<Eigen::Index>(spec_.inputs.size());
  const Eigen::Index p = static_cast<Eigen::Index>(spec_.outputs.size());
  if (spec_.A.size() == 0) spec_.A = Eigen::MatrixXd::Zero(n, n);
  if (spec_.B.size() == 0) spec_.B = Eigen::MatrixXd::Zero(n, m);
  if (spec_.C.size() == 0) spec_.C = Eigen::MatrixXd::Zero(p, n);
  if (spec_.D.size() == 0) spec_.D = Eigen::MatrixXd::Zero(p, m);
  if (spec_.f.size() == 0) spec_.f = Eigen::VectorXd::Zero(n);
  if (spec_.g.size() == 0) spec_.g = Eigen::VectorXd::Zero(p);
  if (spec_.x0.size() == 0) spec_.x0 = Eigen::VectorXd::Zero(n);
  assert(spec_.A.rows() == n && spec_.A.cols() == n);
  assert(spec_.B.rows() == n && spec_.B.cols() == m);
  assert(spec_.C.rows() == p && spec_.C.cols() == n);
  assert(spec_.D.rows() == p && spec_.D.cols() == m);
  assert(spec_.f.size() == n && spec_.g.size() == p && spec_.x0.size() == n);
  direct_feedthrough_ = (spec_.D.array() != 0.0).any();
}

void AffineModel::Derivatives(double /*t*/, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                              Eigen::Ref<Eigen::VectorXd> dxdt) const {
  dxdt = spec_.f;
  dxdt.noalias() += spec_.A * x;
  if (u.size() > 0) dxdt.noalias() += spec_.B * u;
}

void AffineModel::Outputs(double /*t*/, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                          Eigen::Ref<Eigen::VectorXd> y) const {
  y = spec_.g;
  if (x.size() > 0) y.noalias() += spec_.C * x;
  if (u.size() > 0) y.noalias() += spec_.D * u;
}

bool AffineModel::Jacobians(double /*t*/, const Eigen::VectorXd& /*x*/,
                            const Eigen::VectorXd& /*u*/, Eigen::MatrixXd* A, Eigen::MatrixXd* B,
                            Eigen::MatrixXd* C, Eigen::MatrixXd* D) const {
  if (A != nullptr) *A = spec_.A;
  if (B != nullptr) *B = spec_.B;
  if (C != nullptr) *C = spec_.C;
  if (D != nullptr) *D = spec_.D;
  return true;
}

VariableInfo Variable(std::string name, Causality causality, std::string unit,
                      std::string description) {
  VariableInfo info;
  info.name = std::move(name);
  info.causality = causality;
  info.unit = std::move(unit);
  info.description = std::move(description);
  return info;
}

}  // namespace cosimo::units
