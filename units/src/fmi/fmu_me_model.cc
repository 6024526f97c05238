#include "units/src/fmi/fmu_me_model.h"

#include <limits>

namespace cosimo::units::fmu {

InputPolynomials Shift(const InputPolynomials& p, double d) {
  InputPolynomials q;
  q.coefficients = p.coefficients;
  const int n = p.order();
  for (int k = 0; k < n; ++k) {
    for (Eigen::Index i = 0; i < p.coefficients.rows(); ++i) {
      double sum = 0.0, binomial = 1.0,
             power = 1.0;  // C(j, k) d^(j-k) for j = k, k+1, ...
      for (int j = k; j < n; ++j) {
        sum += binomial * power * p.coefficients(i, j);
        binomial = binomial * (j + 1) / (j + 1 - k);
        power *= d;
      }
      q.coefficients(i, k) = sum;
    }
  }
  return q;
}

void MeModel::Derivatives(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                          Eigen::Ref<Eigen::VectorXd> dxdt) const {
  if (!error_.ok() || !Keep(SetPoint(t, x, u)) ||
      !Keep(instance_->GetDerivatives(dxdt.data(), static_cast<size_t>(dxdt.size())))) {
    dxdt.setConstant(std::numeric_limits<double>::quiet_NaN());
  }
}

void MeModel::Outputs(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                      Eigen::Ref<Eigen::VectorXd> y) const {
  if (y.size() == 0) return;
  if (!error_.ok() || !Keep(SetPoint(t, x, u)) ||
      !Keep(instance_->Get(*outputs_group_, y.data()))) {
    y.setConstant(std::numeric_limits<double>::quiet_NaN());
  }
}

absl::Status MeModel::SetPoint(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u) const {
  instance_->set_time(t);
  if (absl::Status s = instance_->SetTime(t); !s.ok()) return s;
  if (x.size() > 0) {
    if (absl::Status s = instance_->SetContinuousStates(x.data(), static_cast<size_t>(x.size()));
        !s.ok()) {
      return s;
    }
  }
  if (inputs_group_->size() == 0) return absl::OkStatus();
  return instance_->Set(*inputs_group_, u.data());
}

}  // namespace cosimo::units::fmu
