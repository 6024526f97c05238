#include "master/src/iterative.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"

namespace cosimo::master {

IterativeAlgorithm::IterativeAlgorithm(CoupledUnits& units)
    : units_(units), tolerance_(units.config().algorithm.tolerance) {
  for (Eigen::VectorXd* v : {&z_, &g_, &r_, &z_pred_}) {
    *v = Eigen::VectorXd::Zero(units.num_unknowns());
  }
}

absl::Status IterativeAlgorithm::DoStep(double t, double h, Attempt* attempt) {
  const AlgorithmSettings& settings = units_.config().algorithm;
  units_.Predict(h, &z_pred_);
  z_ = z_pred_;
  BeginAttempt();
  double first_residual = 0.0;
  double last_residual = std::numeric_limits<double>::infinity();
  int worst = -1;
  for (int m = 1; m <= settings.max_iterations; ++m) {
    Rejection rejection;
    COSIMO_RETURN_IF_ERROR(units_.EvaluateStepMap(t, h, z_, WantSensitivities(), &g_, &rejection));
    attempt->iterations = m;
    if (rejection.rejected) {
      attempt->reason = std::move(rejection.reason);
      return absl::OkStatus();
    }
    r_ = g_ - z_;
    const double residual = units_.ScaledResidual(r_, g_, &worst);
    if (residual <= 1.0) {
      attempt->error = units_.ErrorEstimate(h, g_);
      attempt->converged_easily = m <= 3;
      if (attempt->error > 1.0) {
        attempt->reason = absl::StrCat("error estimate ", attempt->error,
                                       " x adaptive.tolerance (interpolation error of the "
                                       "converged inputs)");
        return absl::OkStatus();
      }
      attempt->accepted = true;
      return absl::OkStatus();
    }
    if (m == 1) first_residual = residual;
    if (!std::isfinite(residual) || residual > 1e8 * std::max(1.0, first_residual)) {
      attempt->reason = absl::StrCat(v1::Algorithm::Kind_Name(settings.kind), " diverged after ", m,
                                     " iterations (residual ", residual * tolerance_, " on ",
                                     units_.DescribeUnknown(worst), ")");
      return absl::OkStatus();
    }
    COSIMO_RETURN_IF_ERROR(Update(t, h, m, residual, last_residual, &rejection));
    if (rejection.rejected) {
      attempt->reason = std::move(rejection.reason);
      return absl::OkStatus();
    }
    last_residual = residual;
  }
  attempt->reason =
      absl::StrCat(v1::Algorithm::Kind_Name(settings.kind),
                   " did not converge in max_iterations=", settings.max_iterations,
                   " (largest coupling residual ", std::abs(worst >= 0 ? r_[worst] : 0.0), " on ",
                   units_.DescribeUnknown(worst), ", tolerance ", tolerance_, ")");
  return absl::OkStatus();
}

}  // namespace cosimo::master
