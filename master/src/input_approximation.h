// Input approximation on a communication step [t[N], t[N+1]] from the coupled outputs' sample
// history: zero-order hold, first-order hold, polynomial of degree n and cubic Hermite, as
// polynomial coefficients in s = t - t[N] (the form of StepRequest inputs).
//
// - Extrapolation (Jacobi, predictors): from the accepted samples at t[N], t[N-1], ...
//   ZOH: u = y[N]; FOH: the line through y[N-1], y[N]; POLYNOMIAL n: the polynomial through the
//   last n+1 samples; HERMITE: the cubic through values and derivatives at t[N-1] and t[N].
//   Early on, with fewer samples, the degree drops.
// - With a right end (Gauss-Seidel after its source; iterative unknowns at t[N+1]):
//   ZOH: u = value at t[N+1]; FOH: the line from y[N] to it; POLYNOMIAL n: through the last n
//   samples and it; HERMITE: the cubic from (y, y') at t[N] to (value, derivative) at t[N+1].
// All functions work on caller-owned storage (no allocation). Not thread safe per object.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "cosimo/v1/scenario.pb.h"

namespace cosimo::master {

constexpr int kMaxSamples = 6;  // POLYNOMIAL degree 5 needs 6 samples

// The last accepted outputs (and derivatives) of one unit; sample 0 is the newest.
class SampleHistory {
 public:
  void Reset(int num_outputs);
  void Push(double time, const Eigen::VectorXd& outputs, const Eigen::VectorXd& derivatives);
  int size() const { return size_; }
  double time(int back) const { return times_[Slot(back)]; }
  double value(int back, int output) const { return values_(output, Slot(back)); }
  double derivative(int back, int output) const { return derivatives_(output, Slot(back)); }

 private:
  int Slot(int back) const { return (head_ - back + kMaxSamples) % kMaxSamples; }
  double times_[kMaxSamples] = {};
  Eigen::MatrixXd values_;
  Eigen::MatrixXd derivatives_;
  int head_ = kMaxSamples - 1;
  int size_ = 0;
};

struct Approximation {
  v1::InputApproximation kind = v1::ZOH;
  int degree = 0;  // POLYNOMIAL only

  // Polynomial coefficients per input (the StepRequest order).
  int num_coefficients() const;
  // Order of the local extrapolation error (err ~ H^(order+1)), for step size control.
  int order() const { return num_coefficients() - 1; }
};

// Writes the coefficients of one input into `row` (size num_coefficients, zero padded).
// `t` is t[N] and must be the history's newest time; `h` the step size.
// has_end: a right-end value at t + h is given; has_end_derivative: also its derivative
// (HERMITE). Without a right end the result extrapolates the history.
void BuildInput(const Approximation& approx, const SampleHistory& history, int output, double h,
                bool has_end, double end_value, double end_derivative, double* row);

// Value and derivative of sum_k row[k] s^k at s.
void EvaluatePolynomial(const double* row, int count, double s, double* value, double* derivative);

// Monomial coefficients (in s) of the polynomial interpolating Hermite data at nodes (values,
// and derivatives where has_derivative). At most kMaxNodes conditions. Returns the number of
// coefficients written.
struct HermiteNode {
  double s = 0.0;
  double value = 0.0;
  bool has_derivative = false;
  double derivative = 0.0;
};
int InterpolateMonomial(const HermiteNode* nodes, int count, double* coefficients);

}  // namespace cosimo::master
