// Exact integration of an affine model x' = A x + B u(s) + f with polynomial inputs
// u(s) = sum_k a_k s^k (k < K): with Gamma_k = int_0^h e^{A(h-s)} s^k / k! ds,
//   x(h) = e^{Ah} x(0) + sum_k k! Gamma_k [B f] [a_k; (k == 0)].
// Every Gamma_k comes from one matrix exponential of the Van Loan block matrix
//   M = [[A, Bf, 0, ..., 0], [0, 0, I, 0, ...], ..., [0, ..., 0]]   (Bf = [B f], I of size m+1),
// exp(M h) = [[e^{Ah}, Gamma_0 Bf, Gamma_1 Bf, ...], ...], which needs no inverse of A.
// The blocks are cached per (h, K); a step with a cached size is two matrix-vector products.
// Not thread safe (the cache).
#include <unsupported/Eigen/MatrixFunctions>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "units/src/solvers/solver_util.h"
#include "units/src/solvers/solvers.h"

namespace cosimo::units {
namespace {

constexpr size_t kCacheSize = 8;
constexpr double kSameStep = 1e-14;  // relative

class ExactSolver final : public Solver {
 public:
  explicit ExactSolver(const Model& model) {
    const int n = model.num_states();
    const int m = model.num_inputs();
    Eigen::MatrixXd c, d;
    const Eigen::VectorXd zero_x = Eigen::VectorXd::Zero(n);
    const Eigen::VectorXd zero_u = Eigen::VectorXd::Zero(m);
    model.Jacobians(0.0, zero_x, zero_u, &a_, &b_, &c, &d);
    f_.resize(n);
    model.Derivatives(0.0, zero_x, zero_u, f_);
    bf_.resize(n, m + 1);
    bf_ << b_, f_;
    next_.resize(n);
  }
  std::string name() const override { return "EXACT"; }

  SolverOutcome Integrate(const Model& model, const InputPolynomials& inputs, double /*t0*/,
                          double h, Eigen::VectorXd& x) override {
    SolverOutcome outcome;
    outcome.substeps = 1;
    const int n = model.num_states();
    if (n == 0) return outcome;
    const int m = model.num_inputs();
    const int order = m == 0 ? 1 : std::max(1, inputs.order());
    const Entry& entry = Lookup(h, order);
    // Weights w = [k! a_k ; k! (k == 0)] stacked over k.
    EnsureSize(weights_, static_cast<Eigen::Index>(order) * (m + 1));
    double factorial = 1.0;
    for (int k = 0; k < order; ++k) {
      if (k > 0) factorial *= k;
      for (int i = 0; i < m; ++i) {
        weights_[k * (m + 1) + i] = factorial * inputs.coefficients(i, k);
      }
      weights_[k * (m + 1) + m] = k == 0 ? 1.0 : 0.0;
    }
    next_.noalias() = entry.phi * x;
    next_.noalias() += entry.gamma * weights_;
    x = next_;
    return outcome;
  }

  // A rollback keeps the cache (SaveHistory gives nothing), but a checkpoint carries it: an entry
  // is reused for step sizes a few ulps apart, so a fresh cache would give other last bits.
  void WriteHistory(const std::shared_ptr<const void>& /*history*/,
                    StateWriter* out) const override {
    out->U64(cache_.size());
    for (const Entry& entry : cache_) {
      out->Double(entry.h);
      out->U64(static_cast<uint64_t>(entry.order));
      out->Matrix(entry.phi);
      out->Matrix(entry.gamma);
    }
  }
  std::shared_ptr<const void> ReadHistory(StateReader* in) const override {
    const uint64_t count = in->U64();
    if (count > kCacheSize) return nullptr;  // corrupt: the reader's Finish says so below
    auto cache = std::make_shared<std::vector<Entry>>(count);
    for (Entry& entry : *cache) {
      entry.h = in->Double();
      entry.order = static_cast<int>(in->U64());
      entry.phi = in->Matrix();
      entry.gamma = in->Matrix();
    }
    return cache;
  }
  void RestoreHistory(const std::shared_ptr<const void>& history) override {
    if (history != nullptr) cache_ = *static_cast<const std::vector<Entry>*>(history.get());
  }

 private:
  struct Entry {
    double h = 0.0;
    int order = 0;
    Eigen::MatrixXd phi;    // e^{Ah}, n x n
    Eigen::MatrixXd gamma;  // [Gamma_0 Bf, Gamma_1 Bf, ...], n x K (m+1)
  };

  const Entry& Lookup(double h, int order) {
    // Step sizes computed as t[N+1] - t[N] differ in their last bits from step to step; those
    // share an entry (the error of reusing it is a few ulps of h).
    for (const Entry& entry : cache_) {
      if (entry.order == order && std::abs(entry.h - h) <= kSameStep * std::abs(h)) return entry;
    }
    const Eigen::Index n = a_.rows();
    const Eigen::Index w = bf_.cols();
    const Eigen::Index size = n + order * w;
    Eigen::MatrixXd block = Eigen::MatrixXd::Zero(size, size);
    block.topLeftCorner(n, n) = a_ * h;
    block.block(0, n, n, w) = bf_ * h;
    for (int k = 0; k + 1 < order; ++k) {
      block.block(n + k * w, n + (k + 1) * w, w, w) = Eigen::MatrixXd::Identity(w, w) * h;
    }
    const Eigen::MatrixXd exp_block = block.exp();
    Entry entry;
    entry.h = h;
    entry.order = order;
    entry.phi = exp_block.topLeftCorner(n, n);
    entry.gamma = exp_block.block(0, n, n, order * w);
    if (cache_.size() >= kCacheSize) cache_.erase(cache_.begin());
    cache_.push_back(std::move(entry));
    return cache_.back();
  }

  Eigen::MatrixXd a_, b_, bf_;
  Eigen::VectorXd f_, next_, weights_;
  std::vector<Entry> cache_;
};

}  // namespace

std::unique_ptr<Solver> NewExactSolver(const Model& model) {
  return std::make_unique<ExactSolver>(model);
}

}  // namespace cosimo::units
