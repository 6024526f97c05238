// One attempt of a macro step [t, t + h]: Jacobi (fan-out), Gauss-Seidel (in reactive order),
// fixed point (constant or Aitken relaxation), Newton (its update and Jacobians are in
// newton.cc), and the one linear solve when every unit is estimated.
#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "orchestrator/src/master/master_run.h"

namespace cosimo::orchestrator::master {
namespace {
constexpr int kMaxRow = 8;
}  // namespace

void MasterRun::FillInputsExtrapolated(UnitSlot& slot, double h, bool use_fresh) {
  double row[kMaxRow];
  const int n = slot.approx.num_coefficients();
  Eigen::MatrixXd& c = slot.command.step.inputs.coefficients;
  for (int i = 0; i < slot.num_inputs; ++i) {
    const Coupling::Source& src = slot.sources[i];
    if (src.unit < 0) {
      c.row(i).setZero();
      continue;
    }
    const UnitSlot& source = slots_[src.unit];
    if (use_fresh && source.stepped) {
      const StepReply& fresh = source.response.step;
      const double d =
          fresh.derivatives.size() == source.num_outputs ? fresh.derivatives[src.output] : 0.0;
      BuildInput(slot.approx, source.history, src.output, h, true, fresh.outputs[src.output], d,
                 row);
    } else {
      BuildInput(slot.approx, source.history, src.output, h, false, 0.0, 0.0, row);
    }
    for (int k = 0; k < n; ++k) c(i, k) = row[k];
  }
}

void MasterRun::FillInputsFromUnknowns(UnitSlot& slot, double h, const Eigen::VectorXd& z) {
  double row[kMaxRow];
  const int n = slot.approx.num_coefficients();
  Eigen::MatrixXd& c = slot.command.step.inputs.coefficients;
  for (int i = 0; i < slot.num_inputs; ++i) {
    const Coupling::Source& src = slot.sources[i];
    if (src.unit < 0) {
      c.row(i).setZero();
      continue;
    }
    const int dv = slot.derivative_unknown[i];
    BuildInput(slot.approx, slots_[src.unit].history, src.output, h, true, z[slot.value_unknown[i]],
               dv >= 0 ? z[dv] : 0.0, row);
    for (int k = 0; k < n; ++k) c(i, k) = row[k];
  }
}

void MasterRun::Predict(double h, Eigen::VectorXd* z) const {
  double row[kMaxRow];
  for (size_t j = 0; j < unknowns_.size(); ++j) {
    const Unknown& u = unknowns_[j];
    const UnitSlot& slot = slots_[u.unit];
    BuildInput(slot.approx, slots_[u.source_unit].history, u.source_output, h, false, 0.0, 0.0,
               row);
    double value = 0.0;
    double derivative = 0.0;
    EvaluatePolynomial(row, slot.approx.num_coefficients(), h, &value, &derivative);
    (*z)[static_cast<Eigen::Index>(j)] = u.derivative ? derivative : value;
  }
}

double MasterRun::ScaledResidual(const Eigen::VectorXd& r, const Eigen::VectorXd& ref,
                                 int* worst) const {
  double largest = 0.0;
  *worst = -1;
  for (Eigen::Index j = 0; j < r.size(); ++j) {
    const double e = std::abs(r[j]) / (tolerance_ * (1.0 + std::abs(ref[j])));
    if (!(e <= largest)) {  // also catches NaN
      largest = e;
      *worst = static_cast<int>(j);
      if (std::isnan(e)) return std::numeric_limits<double>::infinity();
    }
  }
  return largest;
}

double MasterRun::ErrorEstimate(const Eigen::VectorXd& /*predicted*/,
                                const Eigen::VectorXd& actual) const {
  // The interpolation error of an order-p input approximation on [t[N], t[N] + h] is about
  // |f^(p+1)| / (p+1)! h^(p+1); the (p+1)-th divided difference through the p+1 newest accepted
  // samples and the new value at t[N] + h estimates f^(p+1) / (p+1)!. So the estimate scales as
  // h^(p+1) whatever the previous steps were. -1: no estimate (off).
  if (error_tolerance_ <= 0.0) return -1.0;
  double largest = -1.0;
  for (size_t j = 0; j < unknowns_.size(); ++j) {
    const Unknown& u = unknowns_[j];
    if (u.derivative) continue;
    const SampleHistory& history = slots_[u.source_unit].history;
    // With fewer samples (first steps) a lower-order estimate: conservative, never absent.
    const int p = std::min(slots_[u.unit].approx.order(), history.size() - 1);
    if (p < 0 || p + 2 > kMaxRow) continue;
    const auto k = static_cast<Eigen::Index>(j);
    const double h = h_attempt_;
    if (p == 0 && slots_[u.unit].approx.order() >= 1) {
      // First step: the deviation from the tangent at t[N] (h^2 y''/2; zero derivatives when
      // the source gives none make it the ZOH estimate).
      const double tangent =
          history.value(0, u.source_output) + h * history.derivative(0, u.source_output);
      largest = std::max(largest, std::abs(actual[k] - tangent) /
                                      (error_tolerance_ * (1.0 + std::abs(actual[k]))));
      continue;
    }
    double nodes[kMaxRow];
    double table[kMaxRow];
    nodes[0] = h;
    table[0] = actual[k];
    for (int b = 0; b <= p; ++b) {
      nodes[b + 1] = history.time(b) - history.time(0);
      table[b + 1] = history.value(b, u.source_output);
    }
    const int q = p + 2;
    for (int level = 1; level < q; ++level) {
      for (int i = q - 1; i >= level; --i) {
        table[i] = (table[i] - table[i - 1]) / (nodes[i] - nodes[i - level]);
      }
    }
    const double estimate = std::abs(table[q - 1]) * std::pow(h, p + 1);
    largest = std::max(largest, estimate / (error_tolerance_ * (1.0 + std::abs(actual[k]))));
    if (std::isnan(largest)) return std::numeric_limits<double>::infinity();
  }
  return largest;
}

std::string MasterRun::DescribeUnknown(int j) const {
  if (j < 0) return "(none)";
  const Unknown& u = unknowns_[j];
  return absl::StrCat(u.derivative ? "d/dt of " : "", names_[u.source_unit], ".",
                      descriptions_[u.source_unit].outputs[u.source_output].name, " -> ",
                      names_[u.unit], ".", descriptions_[u.unit].inputs[u.input].name);
}

absl::Status MasterRun::AwaitStep(UnitSlot& slot, double t, double h, bool* rejected,
                                  std::string* reason) {
  // The context is formatted only on failure: this runs once per unit per step.
  if (absl::Status s = slot.proxy->Await(&slot.response); !s.ok()) {
    return Annotate(s, absl::StrCat("unit '", slot.name, "' on step [", t, ", ", t + h, "]"));
  }
  const StepReply& reply = slot.response.step;
  switch (reply.status) {
    case StepStatus::kOk:
    case StepStatus::kEnded:
      if (reply.outputs.size() != slot.num_outputs) {
        return absl::InternalError(absl::StrCat("unit '", slot.name, "' replied ",
                                                reply.outputs.size(), " outputs at t=", t + h,
                                                "; it declares ", slot.num_outputs));
      }
      return absl::OkStatus();
    case StepStatus::kRejected:
    case StepStatus::kDiverged:
      *rejected = true;
      if (!reason->empty()) *reason += "; ";
      *reason += absl::StrCat("unit '", slot.name, "' ", StepStatusName(reply.status), ": ",
                              reply.message);
      return absl::OkStatus();
    case StepStatus::kFailed:
      break;
  }
  return absl::AbortedError(absl::StrCat("at t=", t, ": unit '", slot.name, "' failed on step [", t,
                                         ", ", t + h, "]: ", reply.message));
}

absl::Status MasterRun::NonIterativeAttempt(double t, double h, bool tentative, Attempt* attempt) {
  h_attempt_ = h;
  const StepMode mode = tentative ? StepMode::kTentative : StepMode::kFinal;
  bool rejected = false;
  std::string reason;
  for (UnitSlot& s : slots_) {
    s.stepped = false;
    s.command.step.time = t;
    s.command.step.step = h;
    s.command.step.mode = mode;
  }
  if (kind_ == v1::Algorithm::GAUSS_SEIDEL) {
    for (int u : order_) {
      UnitSlot& s = slots_[u];
      FillInputsExtrapolated(s, h, /*use_fresh=*/true);
      SendStep(s);
      COSIMO_RETURN_IF_ERROR(AwaitStep(s, t, h, &rejected, &reason));
      s.stepped = true;
      if (rejected) break;
    }
  } else {
    // Jacobi: fan the step out to every unit before awaiting any reply.
    for (UnitSlot& s : slots_) {
      FillInputsExtrapolated(s, h, /*use_fresh=*/false);
      SendStep(s);
    }
    absl::Status first;
    for (UnitSlot& s : slots_) {
      absl::Status st = AwaitStep(s, t, h, &rejected, &reason);
      if (first.ok()) first = st;
    }
    COSIMO_RETURN_IF_ERROR(first);
  }
  attempt->iterations = 1;
  attempt->converged_easily = true;
  if (rejected) {
    attempt->reason = reason;
    return absl::OkStatus();
  }
  if (adaptive_) {
    // Error estimate: the extrapolated inputs at t[N+1] against the outputs they stood for.
    Predict(h, &z_pred_);
    for (size_t j = 0; j < unknowns_.size(); ++j) {
      const Unknown& u = unknowns_[j];
      const StepReply& reply = slots_[u.source_unit].response.step;
      g_[static_cast<Eigen::Index>(j)] = u.derivative ? 0.0 : reply.outputs[u.source_output];
    }
    attempt->error = ErrorEstimate(z_pred_, g_);
    if (attempt->error > 1.0) {
      attempt->reason = absl::StrCat("error estimate ", attempt->error,
                                     " x adaptive.tolerance (interpolation error of the inputs)");
      return absl::OkStatus();
    }
  }
  attempt->accepted = true;
  return absl::OkStatus();
}

absl::Status MasterRun::EvaluateStepMap(double t, double h, const Eigen::VectorXd& z,
                                        Eigen::VectorXd* g, bool* rejected, std::string* reason) {
  for (UnitSlot& s : slots_) {
    s.command.step.time = t;
    s.command.step.step = h;
    s.command.step.mode = StepMode::kTentative;
    s.command.step.sensitivities = want_sensitivities_;
    FillInputsFromUnknowns(s, h, z);
    SendStep(s);
  }
  absl::Status first;
  for (UnitSlot& s : slots_) {
    absl::Status st = AwaitStep(s, t, h, rejected, reason);
    if (first.ok()) first = st;
  }
  COSIMO_RETURN_IF_ERROR(first);
  if (*rejected) return absl::OkStatus();
  for (size_t j = 0; j < unknowns_.size(); ++j) {
    const Unknown& u = unknowns_[j];
    const UnitSlot& source = slots_[u.source_unit];
    const StepReply& reply = source.response.step;
    double v = 0.0;
    if (u.derivative) {
      if (reply.derivatives.size() != source.num_outputs) {
        return absl::FailedPreconditionError(
            absl::StrCat("at t=", t, ": unit '", source.name,
                         "' gave no output derivatives, needed for the "
                         "HERMITE input ",
                         DescribeUnknown(static_cast<int>(j))));
      }
      v = reply.derivatives[u.source_output];
    } else {
      v = reply.outputs[u.source_output];
    }
    (*g)[static_cast<Eigen::Index>(j)] = v;
  }
  return absl::OkStatus();
}

absl::Status MasterRun::IterativeAttempt(double t, double h, Attempt* attempt) {
  h_attempt_ = h;
  Predict(h, &z_pred_);
  z_ = z_pred_;
  const bool newton = kind_ == v1::Algorithm::NEWTON || linear_coupling_;
  const bool directional = newton && !linear_coupling_;
  double omega = relaxation_;
  have_jacobian_ = false;
  double first_residual = 0.0;
  double last_residual = std::numeric_limits<double>::infinity();
  int worst = -1;
  for (int m = 1; m <= max_iterations_; ++m) {
    bool rejected = false;
    std::string reason;
    want_sensitivities_ =
        directional && !have_jacobian_ && newton_jacobian_ == v1::Algorithm::DIRECTIONAL;
    COSIMO_RETURN_IF_ERROR(EvaluateStepMap(t, h, z_, &g_, &rejected, &reason));
    want_sensitivities_ = false;
    attempt->iterations = m;
    if (rejected) {
      attempt->reason = reason;
      return absl::OkStatus();
    }
    r_ = g_ - z_;
    const double residual = ScaledResidual(r_, g_, &worst);
    if (residual <= 1.0) {
      attempt->error = ErrorEstimate(z_pred_, g_);
      attempt->converged_easily = m <= 3;
      if (attempt->error > 1.0) {
        attempt->reason = absl::StrCat("error estimate ", attempt->error,
                                       " x adaptive.tolerance (interpolation error of the "
                                       "converged inputs)");
        return absl::OkStatus();
      }
      attempt->accepted = true;
      return absl::OkStatus();
    }
    if (m == 1) first_residual = residual;
    if (!std::isfinite(residual) || residual > 1e8 * std::max(1.0, first_residual)) {
      attempt->reason = absl::StrCat(v1::Algorithm::Kind_Name(kind_), " diverged after ", m,
                                     " iterations (residual ", residual * tolerance_, " on ",
                                     DescribeUnknown(worst), ")");
      return absl::OkStatus();
    }
    if (newton) {
      COSIMO_RETURN_IF_ERROR(NewtonUpdate(t, h, m, residual, last_residual, &rejected, &reason));
      if (rejected) {
        attempt->reason = reason;
        return absl::OkStatus();
      }
    } else {
      if (aitken_ && m > 1) {
        dz_ = r_ - r_prev_;
        const double denominator = dz_.squaredNorm();
        if (denominator > 0.0) omega = -omega * r_prev_.dot(dz_) / denominator;
        if (!std::isfinite(omega) || omega == 0.0) omega = relaxation_;
      }
      z_ += omega * r_;
      r_prev_ = r_;
    }
    last_residual = residual;
  }
  attempt->reason = absl::StrCat(
      v1::Algorithm::Kind_Name(kind_), " did not converge in max_iterations=", max_iterations_,
      " (largest coupling residual ", std::abs(worst >= 0 ? r_[worst] : 0.0), " on ",
      DescribeUnknown(worst), ", tolerance ", tolerance_, ")");
  return absl::OkStatus();
}

void MasterRun::SendStep(UnitSlot& slot) {
  slot.command.kind = UnitCommand::Kind::kStep;
  slot.command.step.commit_previous = slot.commit_pending;
  slot.commit_pending = false;
  slot.proxy->Send(slot.command);
}

absl::Status MasterRun::CommitAll(double t) {
  for (UnitSlot& s : slots_) {
    if (s.rolls_back) {
      s.commit_pending = true;  // its response still holds the tentative step's reply
      continue;
    }
    s.command.kind = UnitCommand::Kind::kCommit;
    s.proxy->Send(s.command);
  }
  absl::Status first;
  for (UnitSlot& s : slots_) {
    if (s.rolls_back) continue;
    absl::Status st = s.proxy->Await(&s.response);
    if (!st.ok()) st = Annotate(st, absl::StrCat("unit '", s.name, "' commit at t=", t));
    if (st.ok() && s.response.step.status != StepStatus::kOk &&
        s.response.step.status != StepStatus::kEnded) {
      st = absl::AbortedError(
          absl::StrCat("at t=", t, ": unit '", s.name, "' ", StepStatusName(s.response.step.status),
                       " on commit (its real integration): ", s.response.step.message));
    }
    if (first.ok()) first = st;
  }
  return first;
}

absl::Status MasterRun::RejectAll(double t) {
  for (UnitSlot& s : slots_) {
    if (s.commit_pending) continue;
    s.command.kind = UnitCommand::Kind::kReject;
    s.proxy->Send(s.command);
  }
  absl::Status first;
  for (UnitSlot& s : slots_) {
    if (s.commit_pending) continue;
    absl::Status st = s.proxy->Await(&s.response);
    if (!st.ok()) st = Annotate(st, absl::StrCat("unit '", s.name, "' reject at t=", t));
    if (first.ok()) first = st;
  }
  return first;
}

}  // namespace cosimo::orchestrator::master
