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
#include <algorithm>
#include <cmath>
#include <limits>

#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "orchestrator/src/master/master_run.h"

namespace cosimo::orchestrator::master {
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
}  // namespace

bool MasterRun::DirectionalJacobian(double h) {
  // J(j, l) = sum_k dg_j/da_{i,k} da_{i,k}/dz_l - delta_jl for unknown l feeding input i of
  // unit U and g_j an output (derivative) of U. The input coefficients are affine in the
  // right-end data (divided differences with a frozen left end), so da/dz_l is the difference
  // of two BuildInput calls.
  jacobian_.setZero();
  jacobian_.diagonal().setConstant(-1.0);
  double row0[kMaxRow];
  double row1[kMaxRow];
  for (size_t u = 0; u < slots_.size(); ++u) {
    const UnitSlot& s = slots_[u];
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
      const Unknown& ul = unknowns_[l];
      const int i = ul.input;
      const Coupling::Source& src = s.sources[i];
      const SampleHistory& history = slots_[src.unit].history;
      BuildInput(s.approx, history, src.output, h, true, 0.0, 0.0, row0);
      BuildInput(s.approx, history, src.output, h, true, ul.derivative ? 0.0 : 1.0,
                 ul.derivative ? 1.0 : 0.0, row1);
      for (int k = 0; k < num_k; ++k) row1[k] -= row0[k];
      for (size_t j = 0; j < unknowns_.size(); ++j) {
        const Unknown& uj = unknowns_[j];
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

void MasterRun::ResidualWeights() {
  for (Eigen::Index j = 0; j < g_.size(); ++j) {
    weights_[j] = 1.0 / (tolerance_ * (1.0 + std::abs(g_[j])));
  }
}

absl::Status MasterRun::FiniteDifferenceJacobian(double t, double h, double scale, bool* rejected,
                                                 std::string* reason) {
  // J = d(g)/dz - I. Unit u's outputs depend only on u's own unknowns, so round c perturbs the
  // c-th unknown of every unit at once: max_u(num_unknowns) evaluations instead of nz.
  const Eigen::Index nz = z_.size();
  jacobian_.setZero();
  jacobian_.diagonal().setConstant(-1.0);
  int colors = 0;
  for (const UnitSlot& s : slots_) colors = std::max(colors, s.num_unknowns);
  const double relative = scale > 0.0 ? scale : kRelativePerturbation;
  for (int c = 0; c < colors; ++c) {
    z_pert_ = z_;
    for (const UnitSlot& s : slots_) {
      if (c >= s.num_unknowns) continue;
      const int l = s.first_unknown + c;
      z_pert_[l] += relative * std::max(1.0, std::abs(z_[l]));
    }
    COSIMO_RETURN_IF_ERROR(EvaluateStepMap(t, h, z_pert_, &g_pert_, rejected, reason));
    if (*rejected) return absl::OkStatus();
    for (Eigen::Index j = 0; j < nz; ++j) {
      const UnitSlot& s = slots_[unknowns_[j].source_unit];
      if (c >= s.num_unknowns) continue;
      const int l = s.first_unknown + c;
      jacobian_(j, l) += (g_pert_[j] - g_[j]) / (z_pert_[l] - z_[l]);
    }
  }
  return absl::OkStatus();
}

absl::Status MasterRun::KrylovSolve(double t, double h, bool* rejected, std::string* reason) {
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
    COSIMO_RETURN_IF_ERROR(EvaluateStepMap(t, h, z_pert_, &g_pert_, rejected, reason));
    ++krylov_iterations_;
    if (*rejected) return absl::OkStatus();
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

absl::Status MasterRun::NewtonUpdate(double t, double h, int /*m*/, double residual,
                                     double last_residual, bool* rejected, std::string* reason) {
  if (!linear_coupling_ && newton_jacobian_ == v1::Algorithm::DIRECTIONAL) {
    // The replies of this iteration's round carry the sensitivities (asked for while no
    // Jacobian of this attempt exists). The linearisation is at t[N], so it is the same for
    // every iteration of the attempt: factorise once.
    if (!have_jacobian_) {
      if (DirectionalJacobian(h)) {
        lu_.compute(jacobian_);
        have_jacobian_ = true;
      } else {
        newton_jacobian_ = v1::Algorithm::JFNK;
      }
    }
    want_sensitivities_ = false;
    if (have_jacobian_) {
      dz_.noalias() = lu_.solve(r_);
      z_ -= dz_;
      return absl::OkStatus();
    }
  }
  if (!linear_coupling_ && newton_jacobian_ == v1::Algorithm::JFNK) {
    COSIMO_RETURN_IF_ERROR(KrylovSolve(t, h, rejected, reason));
    if (*rejected) return absl::OkStatus();
    z_ -= dz_;
    return absl::OkStatus();
  }
  if (!have_jacobian_ || residual > 0.5 * last_residual) {
    COSIMO_RETURN_IF_ERROR(
        FiniteDifferenceJacobian(t, h, linear_coupling_ ? 1.0 : 0.0, rejected, reason));
    if (*rejected) return absl::OkStatus();
    lu_.compute(jacobian_);
    have_jacobian_ = true;
  }
  dz_.noalias() = lu_.solve(r_);
  z_ -= dz_;
  return absl::OkStatus();
}

}  // namespace cosimo::orchestrator::master
