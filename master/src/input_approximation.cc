#include "master/src/input_approximation.h"

#include <algorithm>

namespace cosimo::master {
namespace {
constexpr int kMaxConditions = 8;
}  // namespace

void SampleHistory::Reset(int num_outputs) {
  values_ = Eigen::MatrixXd::Zero(num_outputs, kMaxSamples);
  derivatives_ = Eigen::MatrixXd::Zero(num_outputs, kMaxSamples);
  head_ = kMaxSamples - 1;
  size_ = 0;
}

void SampleHistory::Push(double time, const Eigen::VectorXd& outputs,
                         const Eigen::VectorXd& derivatives) {
  head_ = (head_ + 1) % kMaxSamples;
  times_[head_] = time;
  values_.col(head_) = outputs;
  if (derivatives.size() == values_.rows()) {
    derivatives_.col(head_) = derivatives;
  } else {
    derivatives_.col(head_).setZero();
  }
  size_ = std::min(size_ + 1, kMaxSamples);
}

int Approximation::num_coefficients() const {
  switch (kind) {
    case v1::FOH:
      return 2;
    case v1::HERMITE:
      return 4;
    case v1::POLYNOMIAL:
      return std::clamp(degree, 0, kMaxSamples - 1) + 1;
    default:
      return 1;
  }
}

int InterpolateMonomial(const HermiteNode* nodes, int count, double* coefficients) {
  // Newton divided differences with repeated nodes for derivative conditions.
  double z[kMaxConditions];
  double derivative[kMaxConditions];
  double table[kMaxConditions][kMaxConditions];
  int q = 0;
  for (int i = 0; i < count && q < kMaxConditions; ++i) {
    z[q] = nodes[i].s;
    table[q][0] = nodes[i].value;
    derivative[q] = 0.0;
    ++q;
    if (nodes[i].has_derivative && q < kMaxConditions) {
      z[q] = nodes[i].s;
      table[q][0] = nodes[i].value;
      derivative[q] = nodes[i].derivative;
      ++q;
    }
  }
  for (int j = 1; j < q; ++j) {
    for (int i = j; i < q; ++i) {
      if (z[i] == z[i - j]) {
        table[i][j] = derivative[i];  // only for j == 1: a node appears at most twice
      } else {
        table[i][j] = (table[i][j - 1] - table[i - 1][j - 1]) / (z[i] - z[i - j]);
      }
    }
  }
  // Horner expansion of the Newton form: P = dd[q-1]; P = P (s - z[i]) + dd[i].
  for (int k = 0; k < q; ++k) coefficients[k] = 0.0;
  if (q == 0) return 0;
  coefficients[0] = table[q - 1][q - 1];
  int degree = 0;
  for (int i = q - 2; i >= 0; --i) {
    // Multiply by (s - z[i]).
    coefficients[degree + 1] = coefficients[degree];
    for (int k = degree; k >= 1; --k) {
      coefficients[k] = coefficients[k - 1] - z[i] * coefficients[k];
    }
    coefficients[0] = -z[i] * coefficients[0];
    ++degree;
    coefficients[0] += table[i][i];
  }
  return q;
}

void EvaluatePolynomial(const double* row, int count, double s, double* value, double* derivative) {
  double v = 0.0;
  double d = 0.0;
  for (int k = count - 1; k >= 0; --k) {
    d = d * s + v;
    v = v * s + row[k];
  }
  *value = v;
  if (derivative != nullptr) *derivative = d;
}

void BuildInput(const Approximation& approx, const SampleHistory& history, int output, double h,
                bool has_end, double end_value, double end_derivative, double* row) {
  const int n = approx.num_coefficients();
  for (int k = 0; k < n; ++k) row[k] = 0.0;
  if (history.size() == 0) return;
  if (n == 1) {
    // ZOH (or POLYNOMIAL degree 0): the one interpolation condition is the value itself; the
    // per-step common case, without the divided-difference table.
    row[0] = has_end ? end_value : history.value(0, output);
    return;
  }
  const double t = history.time(0);
  HermiteNode nodes[kMaxSamples + 1];
  int count = 0;
  auto sample = [&](int back, bool with_derivative) {
    HermiteNode& node = nodes[count++];
    node.s = history.time(back) - t;
    node.value = history.value(back, output);
    node.has_derivative = with_derivative;
    node.derivative = history.derivative(back, output);
  };
  switch (approx.kind) {
    case v1::FOH:
      if (has_end) {
        sample(0, false);
        nodes[count++] = {h, end_value, false, 0.0};
      } else {
        for (int b = 0; b < std::min(2, history.size()); ++b) sample(b, false);
      }
      break;
    case v1::HERMITE:
      if (has_end) {
        sample(0, true);
        nodes[count++] = {h, end_value, true, end_derivative};
      } else {
        for (int b = 0; b < std::min(2, history.size()); ++b) sample(b, true);
      }
      break;
    case v1::POLYNOMIAL: {
      const int points = n;  // degree + 1 conditions
      if (has_end) {
        nodes[count++] = {h, end_value, false, 0.0};
        for (int b = 0; b < std::min(points - 1, history.size()); ++b) sample(b, false);
      } else {
        for (int b = 0; b < std::min(points, history.size()); ++b) sample(b, false);
      }
      break;
    }
    default:  // ZOH
      if (has_end) {
        nodes[count++] = {h, end_value, false, 0.0};
      } else {
        sample(0, false);
      }
      break;
  }
  double coefficients[kMaxConditions];
  const int q = InterpolateMonomial(nodes, count, coefficients);
  for (int k = 0; k < std::min(q, n); ++k) row[k] = coefficients[k];
}

}  // namespace cosimo::master
