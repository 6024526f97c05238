// Newton on the coupling residual r(z) = g(z) - z of one macro step: the update z <- z - dz with
// J dz = r, J = dg/dz - I, and the three sources of J (algorithm.newton_jacobian):
//
// - FINITE_DIFFERENCES: dense J by tentative rounds, one unknown of every unit per round (a
//   unit's outputs depend only on its own inputs: a column colouring); kept (chord) while the
//   residual falls by at least a factor 2.
// - DIRECTIONAL: J from the units' own sensitivities of their outputs at t[N+1] to their input
//   coefficients (StepReply::output_sensitivity, from A, B, C, D at t[N]), chained with the
//   (linear) map from the unknowns to the input coefficients. No extra rounds.
// - JFNK: GMRES on the weighted system, each product J v by one extra tentative round,
//   (g(z + eps v) - g(z)) / eps - v (IFOSMONDI-JFM style).
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "master/src/iterative.h"

namespace cosimo::master {
namespace {
// GMRES stops when the weighted linear residual |W (r - J dz)|_2 is below
// max(kForcing |W r|_2, kAbsoluteTarget): the new coupling residual of an affine step map is
// then within tolerance (|W r|_inf <= 1). GMRES on nz unknowns ends in at most nz iterations,
// so a tight forcing term costs little and saves Newton iterations.
constexpr double kForcing = 1e-6;
constexpr double kAbsoluteTarget = 0.5;
// Largest relative perturbation of an unknown in a finite-difference product.
constexpr double kRelativePerturbation = 1e-7;
constexpr int kMaxRow = 8;
// JFNK: the largest Krylov space per Newton iteration (GMRES without restart).
constexpr int kMaxKrylovDimension = 40;

class Newton final : public IterativeAlgorithm {
 public:
  Newton(CoupledUnits& units, v1::Algorithm::NewtonJacobian jacobian, double perturbation);

 protected:
  void BeginAttempt() override { have_jacobian_ = false; }
  // DIRECTIONAL asks for the units' sensitivities until this attempt has its Jacobian.
  bool WantSensitivities() const override {
    return jacobian_kind_ == v1::Algorithm::DIRECTIONAL && !have_jacobian_;
  }
  absl::Status Update(double t, double h, int m, double residual, double last_residual,
                      Rejection* rejection) override;

 private:
  // J from the sensitivities in the units' replies of the last round (DIRECTIONAL). False,
  // with a warning, when a unit gave none.
  bool DirectionalJacobian(double h);
  // Finite-difference Jacobian of r(z) = g(z) - z, perturbing one unknown of every unit per
  // round (a unit's outputs depend on its own inputs only).
  absl::Status FiniteDifferenceJacobian(double t, double h, Rejection* rejection);
  // Jacobian-free Newton-Krylov: GMRES on the scaled system, each product J v by one extra
  // tentative round (g(z + eps v) - g(z)) / eps - v.
  absl::Status KrylovSolve(double t, double h, Rejection* rejection);
  // Residual weights w_j = 1 / (tol (1 + |g_j|)): the convergence test is |w r|_inf <= 1.
  void ResidualWeights();

  v1::Algorithm::NewtonJacobian jacobian_kind_;  // DIRECTIONAL falls back to JFNK for good
  const double perturbation_;                    // relative, finite differences
  Eigen::VectorXd g_pert_, z_pert_, dz_;
  Eigen::MatrixXd jacobian_;
  Eigen::PartialPivLU<Eigen::MatrixXd> lu_;
  bool have_jacobian_ = false;  // jacobian_ / lu_ hold a factorised Jacobian of this attempt
  // JFNK (GMRES): Krylov basis (nz x (krylov_dim + 1), scaled space), Hessenberg matrix
  // ((krylov_dim + 1) x krylov_dim), Givens rotations.
  int krylov_dim_ = 0;
  Eigen::MatrixXd krylov_basis_;
  Eigen::MatrixXd hessenberg_;
  Eigen::VectorXd givens_c_, givens_s_, krylov_rhs_, krylov_y_;
  Eigen::VectorXd weights_, work_;  // residual weights; scratch of size nz
};

Newton::Newton(CoupledUnits& units, v1::Algorithm::NewtonJacobian jacobian, double perturbation)
    : IterativeAlgorithm(units),
      jacobian_kind_(jacobian),
      perturbation_(perturbation > 0.0 ? perturbation : kRelativePerturbation) {
  const Eigen::Index nz = units.num_unknowns();
  for (Eigen::VectorXd* v : {&g_pert_, &z_pert_, &dz_, &work_}) *v = Eigen::VectorXd::Zero(nz);
  weights_ = Eigen::VectorXd::Ones(nz);
  jacobian_ = Eigen::MatrixXd::Zero(nz, nz);
  lu_ = Eigen::PartialPivLU<Eigen::MatrixXd>(nz);
  // Also DIRECTIONAL: it may fall back to JFNK.
  if (jacobian_kind_ != v1::Algorithm::FINITE_DIFFERENCES) {
    krylov_dim_ = static_cast<int>(std::min<Eigen::Index>(nz, kMaxKrylovDimension));
    krylov_basis_ = Eigen::MatrixXd::Zero(nz, krylov_dim_ + 1);
    hessenberg_ = Eigen::MatrixXd::Zero(krylov_dim_ + 1, std::max(krylov_dim_, 1));
    for (Eigen::VectorXd* v : {&givens_c_, &givens_s_, &krylov_y_, &krylov_rhs_}) {
      *v = Eigen::VectorXd::Zero(krylov_dim_ + 1);
    }
  }
}

bool Newton::DirectionalJacobian(double h) {
  const std::vector<Unknown>& unknowns = units_.unknowns();
  // J(j, l) = sum_k dg_j/da_{i,k} da_{i,k}/dz_l - delta_jl for unknown l feeding input i of
  // unit U and g_j an output (derivative) of U. The input coefficients are affine in the
  // right-end data (divided differences with a frozen left end), so da/dz_l is the difference
  // of two BuildInput calls.
  jacobian_.setZero();
  jacobian_.diagonal().setConstant(-1.0);
  double row0[kMaxRow];
  double row1[kMaxRow];
  for (size_t u = 0; u < units_.slots().size(); ++u) {
    const UnitSlot& s = units_.slots()[u];
    if (s.num_unknowns == 0) continue;
    const StepReply& reply = s.response.step;
    const int num_k = s.approx.num_coefficients();
    const Eigen::Index columns = static_cast<Eigen::Index>(s.num_inputs) * num_k;
    if (reply.output_sensitivity.rows() != s.num_outputs ||
        reply.output_sensitivity.cols() != columns ||
        reply.derivative_sensitivity.rows() != s.num_outputs ||
        reply.derivative_sensitivity.cols() != columns) {
      spdlog::warn(
          "unit '{}' gave no sensitivities ({}x{}, expected {}x{}); NEWTON falls back "
          "to JFNK for the rest of the run",
          s.name, reply.output_sensitivity.rows(), reply.output_sensitivity.cols(), s.num_outputs,
          columns);
      return false;
    }
    for (int l = s.first_unknown; l < s.first_unknown + s.num_unknowns; ++l) {
      const Unknown& ul = unknowns[l];
      const int i = ul.input;
      const Coupling::Source& src = s.sources[i];
      const SampleHistory& history = units_.slots()[src.unit].history;
      BuildInput(s.approx, history, src.output, h, true, 0.0, 0.0, row0);
      BuildInput(s.approx, history, src.output, h, true, ul.derivative ? 0.0 : 1.0,
                 ul.derivative ? 1.0 : 0.0, row1);
      for (int k = 0; k < num_k; ++k) row1[k] -= row0[k];
      for (size_t j = 0; j < unknowns.size(); ++j) {
        const Unknown& uj = unknowns[j];
        if (uj.source_unit != static_cast<int>(u)) continue;
        const Eigen::MatrixXd& sens =
            uj.derivative ? reply.derivative_sensitivity : reply.output_sensitivity;
        double v = 0.0;
        for (int k = 0; k < num_k; ++k) v += sens(uj.source_output, k * s.num_inputs + i) * row1[k];
        jacobian_(static_cast<Eigen::Index>(j), l) += v;
      }
    }
  }
  return true;
}

void Newton::ResidualWeights() {
  for (Eigen::Index j = 0; j < g_.size(); ++j) {
    weights_[j] = 1.0 / (tolerance_ * (1.0 + std::abs(g_[j])));
  }
}

absl::Status Newton::FiniteDifferenceJacobian(double t, double h, Rejection* rejection) {
  const std::vector<Unknown>& unknowns = units_.unknowns();
  // J = d(g)/dz - I. Unit u's outputs depend only on u's own unknowns, so round c perturbs the
  // c-th unknown of every unit at once: max_u(num_unknowns) evaluations instead of nz.
  const Eigen::Index nz = z_.size();
  jacobian_.setZero();
  jacobian_.diagonal().setConstant(-1.0);
  int colors = 0;
  for (const UnitSlot& s : units_.slots()) colors = std::max(colors, s.num_unknowns);
  const double relative = perturbation_;
  for (int c = 0; c < colors; ++c) {
    z_pert_ = z_;
    for (const UnitSlot& s : units_.slots()) {
      if (c >= s.num_unknowns) continue;
      const int l = s.first_unknown + c;
      z_pert_[l] += relative * std::max(1.0, std::abs(z_[l]));
    }
    COSIMO_RETURN_IF_ERROR(units_.EvaluateStepMap(t, h, z_pert_, false, &g_pert_, rejection));
    if (rejection->rejected) return absl::OkStatus();
    for (Eigen::Index j = 0; j < nz; ++j) {
      const UnitSlot& s = units_.slots()[unknowns[j].source_unit];
      if (c >= s.num_unknowns) continue;
      const int l = s.first_unknown + c;
      jacobian_(j, l) += (g_pert_[j] - g_[j]) / (z_pert_[l] - z_[l]);
    }
  }
  return absl::OkStatus();
}

absl::Status Newton::KrylovSolve(double t, double h, Rejection* rejection) {
  // Solve (W J W^-1) x = W r for x = W dz by GMRES (modified Gram-Schmidt Arnoldi, Givens
  // rotations), W = diag(weights_). Every operator application is one tentative round.
  ResidualWeights();
  const Eigen::Index nz = z_.size();
  work_ = r_.cwiseProduct(weights_);
  const double beta = work_.norm();
  dz_.setZero();
  if (!(beta > 0.0)) return absl::OkStatus();
  const double target = std::max(kForcing * beta, kAbsoluteTarget);
  krylov_basis_.col(0) = work_ / beta;
  krylov_rhs_.setZero();
  krylov_rhs_[0] = beta;
  int used = 0;
  for (int k = 0; k < krylov_dim_; ++k) {
    // Unscaled direction p = W^-1 v_k; eps keeps every |eps p_j| <= 1e-7 max(1, |z_j|).
    work_ = krylov_basis_.col(k).cwiseQuotient(weights_);
    double eps = std::numeric_limits<double>::infinity();
    for (Eigen::Index j = 0; j < nz; ++j) {
      if (work_[j] != 0.0) {
        eps = std::min(eps,
                       kRelativePerturbation * std::max(1.0, std::abs(z_[j])) / std::abs(work_[j]));
      }
    }
    if (!std::isfinite(eps)) break;
    z_pert_ = z_ + eps * work_;
    COSIMO_RETURN_IF_ERROR(units_.EvaluateStepMap(t, h, z_pert_, false, &g_pert_, rejection));
    if (rejection->rejected) return absl::OkStatus();
    // w = W ((g(z + eps p) - g(z)) / eps - p).
    work_ = ((g_pert_ - g_) / eps - work_).cwiseProduct(weights_);
    for (int i = 0; i <= k; ++i) {
      const double hik = work_.dot(krylov_basis_.col(i));
      hessenberg_(i, k) = hik;
      work_ -= hik * krylov_basis_.col(i);
    }
    const double next = work_.norm();
    hessenberg_(k + 1, k) = next;
    if (next > 0.0) krylov_basis_.col(k + 1) = work_ / next;
    // Apply the previous rotations to column k, then a new one zeroing H(k+1, k).
    for (int i = 0; i < k; ++i) {
      const double a = hessenberg_(i, k);
      const double b = hessenberg_(i + 1, k);
      hessenberg_(i, k) = givens_c_[i] * a + givens_s_[i] * b;
      hessenberg_(i + 1, k) = -givens_s_[i] * a + givens_c_[i] * b;
    }
    const double a = hessenberg_(k, k);
    const double b = hessenberg_(k + 1, k);
    const double rho = std::hypot(a, b);
    givens_c_[k] = rho > 0.0 ? a / rho : 1.0;
    givens_s_[k] = rho > 0.0 ? b / rho : 0.0;
    hessenberg_(k, k) = rho;
    hessenberg_(k + 1, k) = 0.0;
    krylov_rhs_[k + 1] = -givens_s_[k] * krylov_rhs_[k];
    krylov_rhs_[k] = givens_c_[k] * krylov_rhs_[k];
    used = k + 1;
    if (std::abs(krylov_rhs_[k + 1]) <= target || !(next > 0.0)) break;
  }
  if (used == 0) return absl::OkStatus();
  // Back substitution on the rotated (upper triangular) Hessenberg matrix.
  for (int i = used - 1; i >= 0; --i) {
    double v = krylov_rhs_[i];
    for (int k = i + 1; k < used; ++k) v -= hessenberg_(i, k) * krylov_y_[k];
    krylov_y_[i] = hessenberg_(i, i) != 0.0 ? v / hessenberg_(i, i) : 0.0;
  }
  for (int k = 0; k < used; ++k) dz_ += krylov_y_[k] * krylov_basis_.col(k);
  dz_.array() /= weights_.array();
  return absl::OkStatus();
}

absl::Status Newton::Update(double t, double h, int /*m*/, double residual, double last_residual,
                            Rejection* rejection) {
  if (jacobian_kind_ == v1::Algorithm::DIRECTIONAL) {
    // The replies of this iteration's round carry the sensitivities (asked for while no
    // Jacobian of this attempt exists). The linearisation is at t[N], so it is the same for
    // every iteration of the attempt: factorise once.
    if (!have_jacobian_) {
      if (DirectionalJacobian(h)) {
        lu_.compute(jacobian_);
        have_jacobian_ = true;
      } else {
        jacobian_kind_ = v1::Algorithm::JFNK;
      }
    }
    if (have_jacobian_) {
      dz_.noalias() = lu_.solve(r_);
      z_ -= dz_;
      return absl::OkStatus();
    }
  }
  if (jacobian_kind_ == v1::Algorithm::JFNK) {
    COSIMO_RETURN_IF_ERROR(KrylovSolve(t, h, rejection));
    if (rejection->rejected) return absl::OkStatus();
    z_ -= dz_;
    return absl::OkStatus();
  }
  // FINITE_DIFFERENCES: the Jacobian is kept (chord) while the residual falls by at least a
  // factor 2.
  if (!have_jacobian_ || residual > 0.5 * last_residual) {
    COSIMO_RETURN_IF_ERROR(FiniteDifferenceJacobian(t, h, rejection));
    if (rejection->rejected) return absl::OkStatus();
    lu_.compute(jacobian_);
    have_jacobian_ = true;
  }
  dz_.noalias() = lu_.solve(r_);
  z_ -= dz_;
  return absl::OkStatus();
}

}  // namespace

std::unique_ptr<Algorithm> MakeNewton(CoupledUnits& units, v1::Algorithm::NewtonJacobian jacobian,
                                      double perturbation) {
  return std::make_unique<Newton>(units, jacobian, perturbation);
}

}  // namespace cosimo::master
