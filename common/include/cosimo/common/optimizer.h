// Least-squares optimisers for calibration (docs/calibration.md): CMA-ES (gradient-free, a
// population per generation) and Levenberg-Marquardt (a finite-difference Jacobian per
// iteration). Both minimise ||r(x)||^2 over the unit box [0, 1]^n (the calibration maps each
// parameter's [lower, upper], linearly or in log, onto [0, 1]), and both ask for their points in
// batches, each batch evaluated at once (by a calibration, as one sweep of variants on the pool).
// A point that cannot be evaluated (its variant failed) has no residuals: an objective of +inf.
//
// Deterministic: the same problem, options and seed give the same points and results bit for
// bit (CMA-ES draws from std::mt19937_64 through Uniform53/StandardNormal, sweep_design.h).
// Stateless functions; the batch function is called from the caller's thread only.
#pragma once

#include <Eigen/Dense>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace cosimo {

// The residuals of one point; nullopt when it could not be evaluated.
using Residuals = std::optional<Eigen::VectorXd>;
// Evaluates every point of a batch (each in [0, 1]^n); one Residuals each, in order. An error
// (a cancel, a lost service) ends the optimisation with it.
using BatchFunction =
    std::function<absl::StatusOr<std::vector<Residuals>>(const std::vector<Eigen::VectorXd>&)>;

// The Jacobian of the residuals at `x` (residuals `r` there), computed otherwise than by forward
// differences of the batch function (forward sensitivities, calibration.h); adds the runs it took
// to *evaluations. The optimisers below take one (empty: forward differences).
using JacobianFunction = std::function<absl::StatusOr<Eigen::MatrixXd>(
    const Eigen::VectorXd& x, const Eigen::VectorXd& r, int* evaluations)>;

// ||r||^2, +inf without residuals or with a non-finite one.
double SumOfSquares(const Residuals& r);

struct OptimizerOptions {
  int max_iterations = 100;    // generations (CMA-ES) or Jacobians (Levenberg-Marquardt)
  int population = 0;          // CMA-ES: points per generation; 0: 4 + floor(3 ln n)
  double initial_step = 0.3;   // CMA-ES: the first sigma, in units of the box
  double f_tolerance = 1e-10;  // relative change of the objective that stops
  double x_tolerance = 1e-8;   // step (LM) or spread (CMA-ES) in units of the box that stops
  double diff_step = 1e-6;     // LM and the final Jacobian: forward-difference step in the box
  uint64_t seed = 0;           // CMA-ES
};

// One iteration's line of the history: after it, the best point so far and its objective.
struct IterationRecord {
  int iteration = 0;    // 1, 2, ...
  int evaluations = 0;  // points evaluated so far, in all
  double objective = 0.0;
  Eigen::VectorXd x;  // in the box
};

struct OptimizerResult {
  Eigen::VectorXd x;  // the best point evaluated, in the box
  double objective = 0.0;
  Eigen::VectorXd residuals;  // at x
  // The forward-difference Jacobian of the residuals at x in the box (rows: residuals; columns:
  // parameters), evaluated as one batch at the end (or Levenberg-Marquardt's last one at x).
  Eigen::MatrixXd jacobian;
  int iterations = 0;
  int evaluations = 0;
  std::string stop_reason;  // "max_iterations", "f_tolerance", "x_tolerance", ...
  std::vector<IterationRecord> history;
};

using IterationCallback = std::function<void(const IterationRecord&)>;

// CMA-ES ((mu/mu_w, lambda), Hansen's "The CMA Evolution Strategy: A Tutorial", 2016, the
// default parameters of its table 1) from the mean `start` with sigma initial_step; points
// outside the box are reflected into it (x -> -x below 0, 2 - x above 1, repeatedly) and the
// reflected point is both evaluated and used in the update. Stops after max_iterations
// generations, when sigma times the largest standard deviation of C is below x_tolerance, or when
// the best objectives of the last 10 generations differ by less than f_tolerance times their
// smallest. Then the Jacobian at the best point (`jacobian`'s, or one batch of diff_step).
[[nodiscard]] absl::StatusOr<OptimizerResult> MinimizeCmaes(const Eigen::VectorXd& start,
                                                            const OptimizerOptions& options,
                                                            const BatchFunction& evaluate,
                                                            const IterationCallback& on_iteration,
                                                            const JacobianFunction& jacobian = {});

// Levenberg-Marquardt with Marquardt's scaling (J^T J + mu diag(J^T J)) and Nielsen's update of
// mu, steps projected onto the box. Each iteration's Jacobian is `jacobian`'s, or one batch of
// forward differences (diff_step; backward at the upper bound), with the point itself where its
// residuals are not known yet; each trial step one batch of one point. An iteration ends with an
// accepted step. Stops after max_iterations Jacobians, when the step is below x_tolerance, when
// an accepted step lowers the objective by less than f_tolerance times it, or when mu grows
// beyond 1e16 (no step lowers it).
[[nodiscard]] absl::StatusOr<OptimizerResult> MinimizeLevenbergMarquardt(
    const Eigen::VectorXd& start, const OptimizerOptions& options, const BatchFunction& evaluate,
    const IterationCallback& on_iteration, const JacobianFunction& jacobian = {});

// The forward-difference Jacobian at `x` (residuals `r` there) from one batch of n points.
[[nodiscard]] absl::StatusOr<Eigen::MatrixXd> FiniteDifferenceJacobian(
    const Eigen::VectorXd& x, const Eigen::VectorXd& r, double step, const BatchFunction& evaluate,
    int* evaluations);
// `jacobian`'s when given, else FiniteDifferenceJacobian's (step options.diff_step).
[[nodiscard]] absl::StatusOr<Eigen::MatrixXd> JacobianAt(
    const Eigen::VectorXd& x, const Eigen::VectorXd& r, const OptimizerOptions& options,
    const BatchFunction& evaluate, const JacobianFunction& jacobian, int* evaluations);

// What the data say about the estimates, from the Jacobian J of the residuals with respect to
// the parameters at the optimum and the residuals r there (m residuals, n parameters):
// covariance sigma^2 (J^T J)^-1, sigma^2 = ||r||^2 / (m - n). A parameter is undetermined when
// J^T J is near singular in its direction (a singular value of J with its columns scaled to unit
// norm below 1e-8 times the largest, and the parameter's weight in that singular vector above
// 0.1; or a zero column) or when its standard error exceeds `range` (its upper - lower bound):
// its standard error is then +inf when singular, and its correlations NaN.
struct FitStatistics {
  Eigen::VectorXd standard_errors;
  Eigen::MatrixXd correlation;
  std::vector<bool> undetermined;
  double residual_variance = 0.0;  // sigma^2
};
FitStatistics ComputeFitStatistics(const Eigen::MatrixXd& jacobian,
                                   const Eigen::VectorXd& residuals, const Eigen::VectorXd& range);

}  // namespace cosimo
