#include "units/src/fmi/fmu_me_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

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
    return;
  }
  if (!check_finite_ || !non_finite_.ok()) return;
  for (Eigen::Index k = 0; k < dxdt.size(); ++k) {
    if (std::isfinite(dxdt(k))) continue;
    const std::string state =
        static_cast<size_t>(k) < states_.size() ? states_[static_cast<size_t>(k)].name : "?";
    non_finite_ = absl::FailedPreconditionError(absl::StrCat(
        "unit '", unit_name_, "': state derivative 'der(", state, ")' is ", dxdt(k), " at t=", t,
        " (set algorithm.allow_non_finite to record non-finite values and go on)"));
    return;
  }
}

absl::Status MeModel::TakeNonFinite() {
  absl::Status s = non_finite_;
  non_finite_ = absl::OkStatus();
  return s;
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

absl::Status CentralDifferences(const StateOutputFunction& f, const Eigen::VectorXd& x_at,
                                const Eigen::VectorXd& u_at, Eigen::Index p, Linearization* lin) {
  const Eigen::Index n = x_at.size(), m = u_at.size();
  lin->A.resize(n, n);
  lin->B.resize(n, m);
  lin->C.resize(p, n);
  lin->D.resize(p, m);
  Eigen::VectorXd dx_plus(n), dx_minus(n), y_plus(p), y_minus(p);
  for (Eigen::Index j = 0; j < n + m; ++j) {
    Eigen::VectorXd x = x_at, u = u_at;
    double& value = j < n ? x[j] : u[j - n];
    const double delta = 1e-6 * std::max(1.0, std::abs(value));
    const double base = value;
    value = base + delta;
    if (absl::Status s = f(x, u, &dx_plus, &y_plus); !s.ok()) return s;
    value = base - delta;
    if (absl::Status s = f(x, u, &dx_minus, &y_minus); !s.ok()) return s;
    const Eigen::VectorXd dcol = (dx_plus - dx_minus) / (2.0 * delta);
    const Eigen::VectorXd ycol = (y_plus - y_minus) / (2.0 * delta);
    if (j < n) {
      lin->A.col(j) = dcol;
      lin->C.col(j) = ycol;
    } else {
      lin->B.col(j - n) = dcol;
      lin->D.col(j - n) = ycol;
    }
  }
  return absl::OkStatus();
}

}  // namespace cosimo::units::fmu
