// Dormand-Prince 5(4) (Hairer, Norsett, Wanner, Solving ODEs I, Table II.5.2) with local
// extrapolation (the 5th-order solution is propagated), FSAL within a communication step, and
// the standard step-size controller h_new = h * clamp(0.9 err^(-1/5), 0.2, 5).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>

#include "units/src/solvers/solver_util.h"
#include "units/src/solvers/solvers.h"

namespace cosimo::units {
namespace {

constexpr double kC2 = 1.0 / 5.0, kC3 = 3.0 / 10.0, kC4 = 4.0 / 5.0, kC5 = 8.0 / 9.0;
constexpr double kA21 = 1.0 / 5.0;
constexpr double kA31 = 3.0 / 40.0, kA32 = 9.0 / 40.0;
constexpr double kA41 = 44.0 / 45.0, kA42 = -56.0 / 15.0, kA43 = 32.0 / 9.0;
constexpr double kA51 = 19372.0 / 6561.0, kA52 = -25360.0 / 2187.0, kA53 = 64448.0 / 6561.0,
                 kA54 = -212.0 / 729.0;
constexpr double kA61 = 9017.0 / 3168.0, kA62 = -355.0 / 33.0, kA63 = 46732.0 / 5247.0,
                 kA64 = 49.0 / 176.0, kA65 = -5103.0 / 18656.0;
constexpr double kA71 = 35.0 / 384.0, kA73 = 500.0 / 1113.0, kA74 = 125.0 / 192.0,
                 kA75 = -2187.0 / 6784.0, kA76 = 11.0 / 84.0;
// Error coefficients: 5th-order weights minus 4th-order weights.
constexpr double kE1 = 71.0 / 57600.0, kE3 = -71.0 / 16695.0, kE4 = 71.0 / 1920.0,
                 kE5 = -17253.0 / 339200.0, kE6 = 22.0 / 525.0, kE7 = -1.0 / 40.0;

constexpr int kMaxSubsteps = 100000;  // per communication step

struct Rk45History {
  double next_step = 0.0;
};

class Rk45Solver final : public Solver {
 public:
  Rk45Solver(double initial_step, double tolerance, std::string unit_name)
      : initial_step_(initial_step), tolerance_(tolerance), unit_name_(std::move(unit_name)) {
    next_step_ = initial_step_;
  }
  std::string name() const override { return "RK45"; }

  SolverOutcome Integrate(const Model& model, const InputPolynomials& inputs, double t0, double h,
                          Eigen::VectorXd& x) override {
    const Eigen::Index nx = model.num_states();
    SolverOutcome outcome;
    if (nx == 0) {
      outcome.substeps = 1;
      return outcome;
    }
    EnsureSize(u_, model.num_inputs());
    for (Eigen::VectorXd& k : k_) EnsureSize(k, nx);
    EnsureSize(stage_, nx);
    EnsureSize(x5_, nx);
    EnsureSize(error_, nx);

    inputs.Value(0.0, u_);
    model.Derivatives(t0, x, u_, k_[0]);
    double h_try = next_step_ > 0.0 ? next_step_ : InitialStep(x, k_[0], h);
    double s = 0.0;
    int substeps = 0;
    int attempts = 0;
    while (s < h) {
      if (CheckAbandon(attempts)) return Abandoned(name(), t0 + s);
      if (++attempts > kMaxSubsteps) {
        outcome.status = StepStatus::kRejected;
        outcome.message = "unit '" + unit_name_ + "': RK45 needed more than " +
                          std::to_string(kMaxSubsteps) + " substeps from t=" + FormatNumber(t0) +
                          " to t=" + FormatNumber(t0 + h) + "; retry with a smaller step";
        return outcome;
      }
      const double remaining = h - s;
      const bool last = h_try >= remaining * (1.0 - 1e-12);
      const double hs = last ? remaining : h_try;
      const double err = Attempt(model, inputs, t0, s, hs, x);
      if (err <= 1.0) {
        x = x5_;
        k_[0] = k_[6];  // FSAL: k7 is F at the new point
        s = last ? h : s + hs;
        ++substeps;
        const double factor = err == 0.0 ? 5.0 : std::clamp(0.9 * std::pow(err, -0.2), 0.2, 5.0);
        const double proposal = hs * factor;
        // A substep shortened to land on t0 + h says little about the natural step size.
        next_step_ = (last && hs < h_try) ? std::max(h_try, proposal) : proposal;
        h_try = next_step_;
      } else {
        const double factor = std::isfinite(err) ? std::max(0.2, 0.9 * std::pow(err, -0.2)) : 0.2;
        h_try = hs * factor;
        const double min_step = MinStep(t0 + s);
        if (h_try < min_step) {
          outcome.status = StepStatus::kFailed;
          outcome.message = "unit '" + unit_name_ + "': RK45 cannot meet the tolerance " +
                            FormatNumber(tolerance_) + " at t=" + FormatNumber(t0 + s) +
                            " even with the minimal step " + FormatNumber(min_step);
          return outcome;
        }
      }
    }
    outcome.substeps = substeps;
    return outcome;
  }

  std::shared_ptr<const void> SaveHistory() const override {
    auto history = std::make_shared<Rk45History>();
    history->next_step = next_step_;
    return history;
  }
  void RestoreHistory(const std::shared_ptr<const void>& history) override {
    if (history == nullptr) {
      Reset();
      return;
    }
    next_step_ = static_cast<const Rk45History*>(history.get())->next_step;
  }
  void WriteHistory(const std::shared_ptr<const void>& history, StateWriter* out) const override {
    out->Bool(history != nullptr);
    if (history != nullptr) out->Double(static_cast<const Rk45History*>(history.get())->next_step);
  }
  std::shared_ptr<const void> ReadHistory(StateReader* in) const override {
    if (!in->Bool()) return nullptr;
    auto history = std::make_shared<Rk45History>();
    history->next_step = in->Double();
    return history;
  }
  void Reset() override { next_step_ = initial_step_; }

 private:
  static double MinStep(double t) {
    return 16.0 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(t));
  }

  // Hairer's first guess: 1% of the ratio of the state's scale to its rate, at most h.
  double InitialStep(const Eigen::VectorXd& x, const Eigen::VectorXd& f, double h) const {
    const Eigen::ArrayXd scale = tolerance_ + tolerance_ * x.array().abs();
    const double d0 = std::sqrt((x.array() / scale).square().mean());
    const double d1 = std::sqrt((f.array() / scale).square().mean());
    const double guess = (d0 < 1e-5 || d1 < 1e-5) ? 1e-6 : 0.01 * d0 / d1;
    return std::min(guess, h);
  }

  // One Dormand-Prince step of size hs from offset s; leaves the 5th-order result in x5_ and
  // F there in k_[6]; returns the scaled RMS error (infinity if not finite).
  double Attempt(const Model& model, const InputPolynomials& inputs, double t0, double s, double hs,
                 const Eigen::VectorXd& x) {
    const double t = t0 + s;
    std::array<Eigen::VectorXd, 7>& k = k_;
    stage_ = x + hs * kA21 * k[0];
    inputs.Value(s + kC2 * hs, u_);
    model.Derivatives(t + kC2 * hs, stage_, u_, k[1]);
    stage_ = x + hs * (kA31 * k[0] + kA32 * k[1]);
    inputs.Value(s + kC3 * hs, u_);
    model.Derivatives(t + kC3 * hs, stage_, u_, k[2]);
    stage_ = x + hs * (kA41 * k[0] + kA42 * k[1] + kA43 * k[2]);
    inputs.Value(s + kC4 * hs, u_);
    model.Derivatives(t + kC4 * hs, stage_, u_, k[3]);
    stage_ = x + hs * (kA51 * k[0] + kA52 * k[1] + kA53 * k[2] + kA54 * k[3]);
    inputs.Value(s + kC5 * hs, u_);
    model.Derivatives(t + kC5 * hs, stage_, u_, k[4]);
    stage_ = x + hs * (kA61 * k[0] + kA62 * k[1] + kA63 * k[2] + kA64 * k[3] + kA65 * k[4]);
    inputs.Value(s + hs, u_);
    model.Derivatives(t + hs, stage_, u_, k[5]);
    x5_ = x + hs * (kA71 * k[0] + kA73 * k[2] + kA74 * k[3] + kA75 * k[4] + kA76 * k[5]);
    model.Derivatives(t + hs, x5_, u_, k[6]);
    error_ = hs * (kE1 * k[0] + kE3 * k[2] + kE4 * k[3] + kE5 * k[4] + kE6 * k[5] + kE7 * k[6]);
    const double err = std::sqrt(
        (error_.array() / (tolerance_ + tolerance_ * x.array().abs().max(x5_.array().abs())))
            .square()
            .mean());
    return std::isfinite(err) ? err : std::numeric_limits<double>::infinity();
  }

  double initial_step_;
  double tolerance_;
  std::string unit_name_;
  double next_step_ = 0.0;
  Eigen::VectorXd u_, stage_, x5_, error_;
  std::array<Eigen::VectorXd, 7> k_;
};

}  // namespace

std::unique_ptr<Solver> NewRk45Solver(double initial_step, double tolerance,
                                      std::string unit_name) {
  return std::make_unique<Rk45Solver>(initial_step, tolerance, std::move(unit_name));
}

}  // namespace cosimo::units
