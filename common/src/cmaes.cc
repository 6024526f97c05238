// CMA-ES (optimizer.h): Hansen's tutorial (arXiv:1604.00772), the (mu/mu_w, lambda) strategy with
// the default parameters of its table 1, on the unit box with reflection at its faces.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <numeric>
#include <random>

#include "cosimo/common/optimizer.h"
#include "cosimo/common/sweep_design.h"

namespace cosimo {
namespace {

// x folded into [0, 1] by reflection at 0 and 1 (period 2).
double Reflect(double x) {
  double y = std::fmod(std::fabs(x), 2.0);
  return y > 1.0 ? 2.0 - y : y;
}

// The strategy's constants for n parameters and lambda points (tutorial, table 1).
struct Constants {
  int lambda = 0;
  int mu = 0;
  Eigen::VectorXd weights;  // mu positive weights, summing to 1
  double mueff = 0, cc = 0, cs = 0, c1 = 0, cmu = 0, damps = 0, chi_n = 0;

  Constants(int n, int population) {
    const double dn = n;
    lambda = population > 0 ? population : 4 + static_cast<int>(std::floor(3.0 * std::log(dn)));
    lambda = std::max(lambda, 2);
    mu = lambda / 2;
    weights.resize(mu);
    for (int i = 0; i < mu; ++i) weights[i] = std::log((lambda + 1) / 2.0) - std::log(i + 1.0);
    weights /= weights.sum();
    mueff = 1.0 / weights.squaredNorm();
    cc = (4.0 + mueff / dn) / (dn + 4.0 + 2.0 * mueff / dn);
    cs = (mueff + 2.0) / (dn + mueff + 5.0);
    c1 = 2.0 / ((dn + 1.3) * (dn + 1.3) + mueff);
    cmu = std::min(1.0 - c1, 2.0 * (mueff - 2.0 + 1.0 / mueff) / ((dn + 2.0) * (dn + 2.0) + mueff));
    damps = 1.0 + 2.0 * std::max(0.0, std::sqrt((mueff - 1.0) / (dn + 1.0)) - 1.0) + cs;
    chi_n = std::sqrt(dn) * (1.0 - 1.0 / (4.0 * dn) + 1.0 / (21.0 * dn * dn));
  }
};

// The search's state between generations.
struct State {
  Eigen::VectorXd mean, pc, ps;
  Eigen::MatrixXd c;
  double sigma = 0.3;
  int generation = 0;
};

// One generation's points: mean + sigma B D z, reflected into the box.
std::vector<Eigen::VectorXd> Sample(const State& s, int lambda, std::mt19937_64& rng) {
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(s.c);
  const Eigen::VectorXd d = eigen.eigenvalues().cwiseMax(0.0).cwiseSqrt();
  const Eigen::MatrixXd bd = eigen.eigenvectors() * d.asDiagonal();
  std::vector<Eigen::VectorXd> points;
  for (int k = 0; k < lambda; ++k) {
    Eigen::VectorXd z(s.mean.size());
    for (Eigen::Index i = 0; i < z.size(); ++i) z[i] = StandardNormal(rng);
    Eigen::VectorXd x = s.mean + s.sigma * (bd * z);
    for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = Reflect(x[i]);
    points.push_back(std::move(x));
  }
  return points;
}

// The update of the mean, the paths, C and sigma from the points ranked by objective.
void Update(State& s, const Constants& k, const std::vector<Eigen::VectorXd>& points,
            const std::vector<int>& order) {
  const Eigen::Index n = s.mean.size();
  const Eigen::VectorXd old = s.mean;
  Eigen::MatrixXd steps(n, k.mu);  // (x_i:lambda - old mean) / sigma
  for (int i = 0; i < k.mu; ++i) steps.col(i) = (points[order[i]] - old) / s.sigma;
  const Eigen::VectorXd step = steps * k.weights;
  s.mean = old + s.sigma * step;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(s.c);
  const Eigen::VectorXd inv_d = eigen.eigenvalues().cwiseMax(1e-300).cwiseSqrt().cwiseInverse();
  const Eigen::MatrixXd inv_sqrt_c =
      eigen.eigenvectors() * inv_d.asDiagonal() * eigen.eigenvectors().transpose();
  s.ps = (1.0 - k.cs) * s.ps + std::sqrt(k.cs * (2.0 - k.cs) * k.mueff) * (inv_sqrt_c * step);
  ++s.generation;
  const double ps_norm = s.ps.norm() / std::sqrt(1.0 - std::pow(1.0 - k.cs, 2.0 * s.generation));
  const bool hsig = ps_norm / k.chi_n < 1.4 + 2.0 / (static_cast<double>(n) + 1.0);
  s.pc = (1.0 - k.cc) * s.pc + (hsig ? std::sqrt(k.cc * (2.0 - k.cc) * k.mueff) : 0.0) * step;
  const double lost = hsig ? 0.0 : k.c1 * k.cc * (2.0 - k.cc);
  s.c = (1.0 - k.c1 - k.cmu + lost) * s.c + k.c1 * s.pc * s.pc.transpose() +
        k.cmu * steps * k.weights.asDiagonal() * steps.transpose();
  s.c = 0.5 * (s.c + s.c.transpose());
  s.sigma *= std::exp((k.cs / k.damps) * (s.ps.norm() / k.chi_n - 1.0));
  s.sigma = std::min(s.sigma, 1.0);  // the box is the unit: no wider search
}

// Whether the last (up to) 10 generations' best objectives differ by less than tol times the
// smallest.
bool Flat(const std::deque<double>& recent, double tol) {
  if (recent.size() < 10) return false;
  const auto [lo, hi] = std::minmax_element(recent.begin(), recent.end());
  return std::isfinite(*hi) && *hi - *lo <= tol * std::fabs(*lo);
}

}  // namespace

absl::StatusOr<OptimizerResult> MinimizeCmaes(const Eigen::VectorXd& start,
                                              const OptimizerOptions& options,
                                              const BatchFunction& evaluate,
                                              const IterationCallback& on_iteration,
                                              const JacobianFunction& jacobian) {
  const Eigen::Index n = start.size();
  const Constants k(static_cast<int>(n), options.population);
  State s{start,
          Eigen::VectorXd::Zero(n),
          Eigen::VectorXd::Zero(n),
          Eigen::MatrixXd::Identity(n, n),
          options.initial_step,
          0};
  std::mt19937_64 rng(options.seed);
  OptimizerResult out;
  out.objective = std::numeric_limits<double>::infinity();
  out.x = start;
  std::deque<double> recent;
  out.stop_reason = "max_iterations";
  while (out.iterations < options.max_iterations) {
    const std::vector<Eigen::VectorXd> points = Sample(s, k.lambda, rng);
    absl::StatusOr<std::vector<Residuals>> r = evaluate(points);
    if (!r.ok()) return r.status();
    out.evaluations += k.lambda;
    std::vector<double> f(points.size());
    for (size_t i = 0; i < points.size(); ++i) f[i] = SumOfSquares((*r)[i]);
    std::vector<int> order(points.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return f[a] < f[b]; });
    if (f[order[0]] < out.objective) {
      out.objective = f[order[0]];
      out.x = points[order[0]];
      out.residuals = *(*r)[order[0]];
    }
    Update(s, k, points, order);
    ++out.iterations;
    out.history.push_back({out.iterations, out.evaluations, out.objective, out.x});
    if (on_iteration) on_iteration(out.history.back());
    recent.push_back(f[order[0]]);
    if (recent.size() > 10) recent.pop_front();
    if (s.sigma * s.c.diagonal().cwiseSqrt().maxCoeff() < options.x_tolerance) {
      out.stop_reason = "x_tolerance";
      break;
    }
    if (Flat(recent, options.f_tolerance)) {
      out.stop_reason = "f_tolerance";
      break;
    }
  }
  if (!std::isfinite(out.objective)) {
    return absl::FailedPreconditionError("no point of the search could be evaluated");
  }
  absl::StatusOr<Eigen::MatrixXd> j =
      JacobianAt(out.x, out.residuals, options, evaluate, jacobian, &out.evaluations);
  if (!j.ok()) return j.status();
  out.jacobian = *std::move(j);
  return out;
}

}  // namespace cosimo
