// Fixed-point iteration on the coupling unknowns: z <- z + omega r, omega the constant
// algorithm.relaxation or, with algorithm.aitken, Aitken's dynamic relaxation (started from it).
#include <cmath>

#include "master/src/iterative.h"

namespace cosimo::master {
namespace {

class FixedPoint final : public IterativeAlgorithm {
 public:
  explicit FixedPoint(CoupledUnits& units)
      : IterativeAlgorithm(units),
        relaxation_(units.config().algorithm.relaxation),
        aitken_(units.config().algorithm.aitken),
        r_prev_(Eigen::VectorXd::Zero(units.num_unknowns())),
        dr_(Eigen::VectorXd::Zero(units.num_unknowns())) {}

 protected:
  void BeginAttempt() override { omega_ = relaxation_; }

  absl::Status Update(double /*t*/, double /*h*/, int m, double /*residual*/,
                      double /*last_residual*/, Rejection* /*rejection*/) override {
    if (aitken_ && m > 1) {
      dr_ = r_ - r_prev_;
      const double denominator = dr_.squaredNorm();
      if (denominator > 0.0) omega_ = -omega_ * r_prev_.dot(dr_) / denominator;
      if (!std::isfinite(omega_) || omega_ == 0.0) omega_ = relaxation_;
    }
    z_ += omega_ * r_;
    r_prev_ = r_;
    return absl::OkStatus();
  }

 private:
  const double relaxation_;
  const bool aitken_;
  double omega_ = 1.0;
  Eigen::VectorXd r_prev_, dr_;  // the previous residual, and the change from it
};

}  // namespace

std::unique_ptr<Algorithm> MakeFixedPoint(CoupledUnits& units) {
  return std::make_unique<FixedPoint>(units);
}

}  // namespace cosimo::master
