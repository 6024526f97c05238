// The two-step scheme for second-order systems (the tutorial's "Godunov" scheme, also known as
// Stormer's or the central-difference method): with positions q and accelerations a(q, v, u, t)
// (the second half of F),
//   q(t+h) = 2 q(t) - q(t-h) + h^2 a(t)                       (uniform steps)
//   q(t+h) = q(t) + (h/h_p) (q(t) - q(t-h_p)) + h (h+h_p)/2 a(t)   (previous step h_p != h)
// The second form is exact for quadratics, so the scheme stays second order when the step
// changes. A communication step is cut into equal substeps no longer than `step`. Velocities are
// the derivative at t+h of the quadratic through the last three positions (second order; for
// uniform steps v(t+h) = (3 q(t+h) - 4 q(t) + q(t-h)) / (2h)). The first substep (no history yet)
// is one RK4 substep. The history (q(t-h_p), h_p) is saved with snapshots.
#include <cmath>
#include <memory>
#include <string>

#include "units/src/solvers/solver_util.h"
#include "units/src/solvers/solvers.h"

namespace cosimo::units {
namespace {

struct CentralDifferenceHistory {
  bool valid = false;
  Eigen::VectorXd previous_positions;  // q(t - h_p)
  double previous_step = 0.0;          // h_p
};

class CentralDifferenceSolver final : public Solver {
 public:
  explicit CentralDifferenceSolver(double step) : step_(step), starter_(NewRk4Solver(step)) {}
  std::string name() const override { return "CENTRAL_DIFFERENCE"; }

  SolverOutcome Integrate(const Model& model, const InputPolynomials& inputs, double t0, double h,
                          Eigen::VectorXd& x) override {
    const Eigen::Index nx = model.num_states();
    const Eigen::Index nq = nx / 2;
    EnsureSize(u_, model.num_inputs());
    EnsureSize(f_, nx);
    EnsureSize(q_next_, nq);
    EnsureSize(history_.previous_positions, nq);
    SolverOutcome outcome;
    // Equal substeps no longer than `step`, so the scheme stays uniform inside a communication
    // step (and across steps of the same size).
    const std::optional<int> count = CountSubsteps(h, step_);
    if (!count) return TooManySubsteps(name(), h, step_);
    const int n = *count;
    const double uniform = h / n;
    for (int i = 0; i < n; ++i) {
      const double s = i * uniform;
      if (CheckAbandon(i)) return Abandoned(name(), t0 + s);
      const double hs = (i + 1 == n ? h : (i + 1) * uniform) - s;
      if (!history_.valid) {
        // Start: one RK4 substep, remembering q(t).
        history_.previous_positions = x.head(nq);
        SolverOutcome start = StartSubstep(model, inputs, t0, s, hs, x);
        if (start.status != StepStatus::kOk) return start;
        history_.previous_step = hs;
        history_.valid = true;
        continue;
      }
      const double hp = history_.previous_step;
      inputs.Value(s, u_);
      model.Derivatives(t0 + s, x, u_, f_);
      const Eigen::Ref<const Eigen::VectorXd> q = x.head(nq);
      const Eigen::Ref<const Eigen::VectorXd> q_prev = history_.previous_positions;
      q_next_ = q + (hs / hp) * (q - q_prev) + (0.5 * hs * (hs + hp)) * f_.tail(nq);
      // Velocity at t+h from the quadratic through q(t-hp), q(t), q(t+h).
      // d1 = (q(t+h) - q(t))/h, d0 = (q(t) - q(t-hp))/hp, v = d1 + (d1 - d0) h / (h + hp).
      const double w = hs / (hs + hp);
      x.tail(nq) = (1.0 + w) / hs * (q_next_ - q) - w / hp * (q - q_prev);
      history_.previous_positions = x.head(nq);
      x.head(nq) = q_next_;
      history_.previous_step = hs;
      if (!AllFinite(x)) {
        outcome.status = StepStatus::kDiverged;
        outcome.message =
            "CENTRAL_DIFFERENCE: the state is no longer finite at t=" + FormatNumber(t0 + s);
        return outcome;
      }
    }
    outcome.substeps = n;
    return outcome;
  }

  std::shared_ptr<const void> SaveHistory() const override {
    return std::make_shared<CentralDifferenceHistory>(history_);
  }
  void RestoreHistory(const std::shared_ptr<const void>& history) override {
    if (history == nullptr) {
      Reset();
      return;
    }
    const auto& saved = *static_cast<const CentralDifferenceHistory*>(history.get());
    history_.valid = saved.valid;
    history_.previous_positions = saved.previous_positions;
    history_.previous_step = saved.previous_step;
  }
  void WriteHistory(const std::shared_ptr<const void>& history, StateWriter* out) const override {
    out->Bool(history != nullptr);
    if (history == nullptr) return;
    const auto& saved = *static_cast<const CentralDifferenceHistory*>(history.get());
    out->Bool(saved.valid);
    out->Vector(saved.previous_positions);
    out->Double(saved.previous_step);
  }
  std::shared_ptr<const void> ReadHistory(StateReader* in) const override {
    if (!in->Bool()) return nullptr;
    auto history = std::make_shared<CentralDifferenceHistory>();
    history->valid = in->Bool();
    history->previous_positions = in->Vector();
    history->previous_step = in->Double();
    return history;
  }
  void Reset() override { history_.valid = false; }

 private:
  // One RK4 substep [s, s + hs], with inputs shifted so the starter sees u(t0 + s + .).
  SolverOutcome StartSubstep(const Model& model, const InputPolynomials& inputs, double t0,
                             double s, double hs, Eigen::VectorXd& x) {
    if (s == 0.0) return starter_->Integrate(model, inputs, t0, hs, x);
    shifted_.coefficients = inputs.coefficients;
    ShiftPolynomials(s, &shifted_);
    return starter_->Integrate(model, shifted_, t0 + s, hs, x);
  }

  // Re-expands u(s + r) as a polynomial in r (Taylor shift by s).
  static void ShiftPolynomials(double s, InputPolynomials* p) {
    Eigen::MatrixXd& c = p->coefficients;
    const Eigen::Index order = c.cols();
    for (Eigen::Index k = 0; k < order; ++k) {
      for (Eigen::Index j = order - 2; j >= k; --j) c.col(j) += s * c.col(j + 1);
    }
  }

  double step_;
  std::unique_ptr<Solver> starter_;
  CentralDifferenceHistory history_;
  Eigen::VectorXd u_, f_, q_next_;
  InputPolynomials shifted_;
};

}  // namespace

std::unique_ptr<Solver> NewCentralDifferenceSolver(double step) {
  return std::make_unique<CentralDifferenceSolver>(step);
}

}  // namespace cosimo::units
