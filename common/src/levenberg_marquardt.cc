// Levenberg-Marquardt on the unit box and the forward-difference Jacobian (optimizer.h); the
// damping's update is Nielsen's (H. B. Nielsen, "Damping parameter in Marquardt's method",
// IMM-REP-1999-05): mu *= max(1/3, 1 - (2 rho - 1)^3) on a step accepted, mu *= nu, nu *= 2 on
// one refused.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "cosimo/common/optimizer.h"

namespace cosimo {

double SumOfSquares(const Residuals& r) {
  if (!r.has_value() || !r->allFinite()) return std::numeric_limits<double>::infinity();
  return r->squaredNorm();
}

absl::StatusOr<Eigen::MatrixXd> FiniteDifferenceJacobian(const Eigen::VectorXd& x,
                                                         const Eigen::VectorXd& r, double step,
                                                         const BatchFunction& evaluate,
                                                         int* evaluations) {
  const Eigen::Index n = x.size();
  std::vector<Eigen::VectorXd> points;
  std::vector<double> h(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    h[j] = x[j] + step <= 1.0 ? step : -step;  // backward at the upper face
    points.push_back(x);
    points.back()[j] += h[j];
  }
  absl::StatusOr<std::vector<Residuals>> rs = evaluate(points);
  if (!rs.ok()) return rs.status();
  *evaluations += static_cast<int>(n);
  Eigen::MatrixXd jacobian(r.size(), n);
  for (Eigen::Index j = 0; j < n; ++j) {
    const Residuals& rj = (*rs)[j];
    if (!rj.has_value() || rj->size() != r.size() || !rj->allFinite()) {
      return absl::FailedPreconditionError(absl::StrCat("the Jacobian's point ", j, " (parameter ",
                                                        j, " moved by ", h[j],
                                                        " of its range) could not be evaluated"));
    }
    jacobian.col(j) = (*rj - r) / h[j];
  }
  return jacobian;
}

absl::StatusOr<Eigen::MatrixXd> JacobianAt(const Eigen::VectorXd& x, const Eigen::VectorXd& r,
                                           const OptimizerOptions& options,
                                           const BatchFunction& evaluate,
                                           const JacobianFunction& jacobian, int* evaluations) {
  if (jacobian) return jacobian(x, r, evaluations);
  return FiniteDifferenceJacobian(x, r, options.diff_step, evaluate, evaluations);
}

namespace {

// The point and what is known at it.
struct Point {
  Eigen::VectorXd x, r;
  double f = 0.0;
};

// One evaluated point, or an error when it could not be evaluated and `required`.
absl::StatusOr<Residuals> EvaluateOne(const Eigen::VectorXd& x, const BatchFunction& evaluate) {
  absl::StatusOr<std::vector<Residuals>> r = evaluate({x});
  if (!r.ok()) return r.status();
  return (*r)[0];
}

// The damped Gauss-Newton step from `p` with Jacobian `j`, projected onto the box.
Eigen::VectorXd TrialPoint(const Point& p, const Eigen::MatrixXd& j, double mu) {
  const Eigen::MatrixXd a = j.transpose() * j;
  const Eigen::VectorXd g = j.transpose() * p.r;
  Eigen::MatrixXd damped = a;
  for (Eigen::Index i = 0; i < a.rows(); ++i) damped(i, i) += mu * std::max(a(i, i), 1e-12);
  const Eigen::VectorXd step = damped.ldlt().solve(-g);
  return (p.x + step).cwiseMax(0.0).cwiseMin(1.0);
}

// Gain ratio: actual over predicted reduction of ||r||^2 for the step d.
double GainRatio(const Point& p, const Eigen::MatrixXd& j, const Eigen::VectorXd& d, double f) {
  const Eigen::VectorXd predicted_r = p.r + j * d;
  const double predicted = p.f - predicted_r.squaredNorm();
  return predicted > 0.0 ? (p.f - f) / predicted : -1.0;
}

}  // namespace

absl::StatusOr<OptimizerResult> MinimizeLevenbergMarquardt(const Eigen::VectorXd& start,
                                                           const OptimizerOptions& options,
                                                           const BatchFunction& evaluate,
                                                           const IterationCallback& on_iteration,
                                                           const JacobianFunction& jacobian) {
  OptimizerResult out;
  absl::StatusOr<Residuals> r0 = EvaluateOne(start, evaluate);
  if (!r0.ok()) return r0.status();
  out.evaluations = 1;
  if (!std::isfinite(SumOfSquares(*r0))) {
    return absl::FailedPreconditionError("the start point could not be evaluated");
  }
  Point p{start, **r0, SumOfSquares(*r0)};
  double mu = 1e-3, nu = 2.0;
  out.stop_reason = "max_iterations";
  while (out.iterations < options.max_iterations && out.stop_reason == "max_iterations") {
    absl::StatusOr<Eigen::MatrixXd> j =
        JacobianAt(p.x, p.r, options, evaluate, jacobian, &out.evaluations);
    if (!j.ok()) return j.status();
    out.jacobian = *j;
    ++out.iterations;
    while (true) {  // trial steps until one lowers the objective
      const Eigen::VectorXd x = TrialPoint(p, *j, mu);
      const Eigen::VectorXd d = x - p.x;
      if (d.lpNorm<Eigen::Infinity>() < options.x_tolerance) {
        out.stop_reason = "x_tolerance";
        break;
      }
      absl::StatusOr<Residuals> r = EvaluateOne(x, evaluate);
      if (!r.ok()) return r.status();
      ++out.evaluations;
      const double f = SumOfSquares(*r);
      const double rho = std::isfinite(f) ? GainRatio(p, *j, d, f) : -1.0;
      if (rho > 0.0) {
        const double t = 2.0 * rho - 1.0;
        mu *= std::max(1.0 / 3.0, 1.0 - t * t * t);
        nu = 2.0;
        if (p.f - f <= options.f_tolerance * p.f) out.stop_reason = "f_tolerance";
        p = Point{x, **r, f};
        break;
      }
      mu *= nu;
      nu *= 2.0;
      if (mu > 1e16) {
        out.stop_reason = "no_descent";
        break;
      }
    }
    out.history.push_back({out.iterations, out.evaluations, p.f, p.x});
    if (on_iteration) on_iteration(out.history.back());
  }
  out.x = p.x;
  out.objective = p.f;
  out.residuals = p.r;
  if (out.stop_reason == "max_iterations" || out.stop_reason == "f_tolerance") {
    // The last step moved: the Jacobian at the point reached.
    absl::StatusOr<Eigen::MatrixXd> j =
        JacobianAt(p.x, p.r, options, evaluate, jacobian, &out.evaluations);
    if (!j.ok()) return j.status();
    out.jacobian = *std::move(j);
  }
  return out;
}

}  // namespace cosimo
