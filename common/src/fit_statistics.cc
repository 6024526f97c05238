// The standard errors, correlations and undetermined parameters of a fit (optimizer.h), by the
// singular value decomposition of the Jacobian with its columns scaled to unit norm: the scaling
// makes "near singular" independent of the parameters' units.
#include <cmath>
#include <limits>

#include "cosimo/common/optimizer.h"

namespace cosimo {
namespace {

constexpr double kSingular = 1e-8;  // singular value / largest below which: singular
constexpr double kInvolved = 0.1;   // a parameter's weight in such a direction that flags it

}  // namespace

FitStatistics ComputeFitStatistics(const Eigen::MatrixXd& jacobian,
                                   const Eigen::VectorXd& residuals, const Eigen::VectorXd& range) {
  const Eigen::Index m = jacobian.rows();
  const Eigen::Index n = jacobian.cols();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  FitStatistics out;
  out.undetermined.assign(n, false);
  out.residual_variance = m > n ? residuals.squaredNorm() / static_cast<double>(m - n) : kNaN;
  Eigen::VectorXd norms = jacobian.colwise().norm().transpose();
  Eigen::MatrixXd scaled = jacobian;
  for (Eigen::Index j = 0; j < n; ++j) {
    if (norms[j] > 0.0 && std::isfinite(norms[j])) {
      scaled.col(j) /= norms[j];
    } else {
      out.undetermined[j] = true;
      scaled.col(j).setZero();
    }
  }
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(scaled, Eigen::ComputeFullV);
  // n singular values, the missing ones (fewer residuals than parameters) 0.
  Eigen::VectorXd s = Eigen::VectorXd::Zero(n);
  s.head(svd.singularValues().size()) = svd.singularValues();
  const Eigen::MatrixXd& v = svd.matrixV();
  const double largest = s.size() > 0 ? s[0] : 0.0;
  // The pseudo-inverse of the scaled J^T J over the directions the data determine.
  Eigen::MatrixXd inverse = Eigen::MatrixXd::Zero(n, n);
  for (Eigen::Index i = 0; i < s.size(); ++i) {
    if (s[i] > kSingular * largest && largest > 0.0) {
      inverse += v.col(i) * v.col(i).transpose() / (s[i] * s[i]);
      continue;
    }
    for (Eigen::Index j = 0; j < n; ++j) {
      if (std::fabs(v(j, i)) > kInvolved) out.undetermined[j] = true;
    }
  }
  Eigen::MatrixXd covariance = out.residual_variance * inverse;
  for (Eigen::Index a = 0; a < n; ++a) {
    for (Eigen::Index b = 0; b < n; ++b) covariance(a, b) /= norms[a] * norms[b];
  }
  out.standard_errors.resize(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    out.standard_errors[j] = out.undetermined[j] ? kInf : std::sqrt(covariance(j, j));
    if (!(out.standard_errors[j] <= range[j])) out.undetermined[j] = true;
  }
  out.correlation.resize(n, n);
  for (Eigen::Index a = 0; a < n; ++a) {
    for (Eigen::Index b = 0; b < n; ++b) {
      const bool known = std::isfinite(out.standard_errors[a]) &&
                         std::isfinite(out.standard_errors[b]) && !out.undetermined[a] &&
                         !out.undetermined[b];
      out.correlation(a, b) =
          a == b ? 1.0
                 : (known ? covariance(a, b) / (out.standard_errors[a] * out.standard_errors[b])
                          : kNaN);
    }
  }
  return out;
}

}  // namespace cosimo
