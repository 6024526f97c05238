#include "master/src/coupled_units.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "master/src/fan_out.h"

namespace cosimo::master {
namespace {
constexpr int kMaxRow = 8;

// Writes the slot's input coefficients for [t, t + h]; `end(i, source, &value, &derivative)`
// gives input i's right end at t + h and returns false to extrapolate it from the history.
template <typename RightEnd>
void FillInputs(UnitSlot& slot, const std::vector<UnitSlot>& slots, double h, RightEnd end) {
  double row[kMaxRow];
  const int n = slot.approx.num_coefficients();
  Eigen::MatrixXd& c = slot.command.step.inputs.coefficients;
  for (int i = 0; i < slot.num_inputs; ++i) {
    const Coupling::Source& src = slot.sources[i];
    if (src.unit < 0) {
      c.row(i).setZero();
      continue;
    }
    const UnitSlot& source = slots[src.unit];
    if (static_cast<size_t>(i) < slot.clocked_inputs.size() &&
        slot.clocked_inputs[static_cast<size_t>(i)]) {
      // A clock or clocked input: the source's value at t, held (docs/fmi.md, "Clocks": a
      // receiver sees a tick at the communication point that ends the sender's step).
      c.row(i).setZero();
      if (source.history.size() > 0) c(i, 0) = source.history.value(0, src.output);
      continue;
    }
    double value = 0.0;
    double derivative = 0.0;
    const bool has_end = end(i, source, &value, &derivative);
    BuildInput(slot.approx, source.history, src.output, h, has_end, value, derivative, row);
    for (int k = 0; k < n; ++k) c(i, k) = row[k];
  }
}

}  // namespace

void Rejection::Add(const std::string& why) {
  rejected = true;
  if (!reason.empty()) reason += "; ";
  reason += why;
}

CoupledUnits::CoupledUnits(const MasterConfig& config)
    : config_(config), slots_(MakeSlots(config)) {
  for (int u = 0; u < static_cast<int>(slots_.size()); ++u) {
    UnitSlot& s = slots_[u];
    s.first_unknown = static_cast<int>(unknowns_.size());
    for (int i = 0; i < s.num_inputs; ++i) {
      const Coupling::Source& src = s.sources[i];
      if (src.unit < 0) continue;
      s.value_unknown[i] = static_cast<int>(unknowns_.size());
      unknowns_.push_back({u, i, false, src.unit, src.output});
      if (s.approx.kind == v1::HERMITE) {
        s.derivative_unknown[i] = static_cast<int>(unknowns_.size());
        unknowns_.push_back({u, i, true, src.unit, src.output});
      }
    }
    s.num_unknowns = static_cast<int>(unknowns_.size()) - s.first_unknown;
  }
}

void CoupledUnits::FillInputsExtrapolated(UnitSlot& slot, double h, bool use_fresh) {
  FillInputs(slot, slots_, h, [&](int i, const UnitSlot& source, double* value, double* d) {
    if (!use_fresh || !source.stepped) return false;
    const int o = slot.sources[i].output;
    const StepReply& fresh = source.response.step;
    *value = fresh.outputs[o];
    *d = fresh.derivatives.size() == source.num_outputs ? fresh.derivatives[o] : 0.0;
    return true;
  });
}

void CoupledUnits::FillInputsFromUnknowns(UnitSlot& slot, double h, const Eigen::VectorXd& z) {
  FillInputs(slot, slots_, h, [&](int i, const UnitSlot&, double* value, double* d) {
    *value = z[slot.value_unknown[i]];
    const int dv = slot.derivative_unknown[i];
    *d = dv >= 0 ? z[dv] : 0.0;
    return true;
  });
}

void CoupledUnits::Predict(double h, Eigen::VectorXd* z) const {
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

void CoupledUnits::PrepareStep(UnitSlot& slot, double t, double h, StepMode mode,
                               bool sensitivities) {
  UnitCommand& c = slot.command;
  c.kind = UnitCommand::Kind::kStep;
  c.step.time = t;
  c.step.step = h;
  c.step.mode = mode;
  c.step.sensitivities = sensitivities;
  c.step.commit_previous = slot.commit_pending;
  slot.commit_pending = false;
}

absl::Status CoupledUnits::CheckStep(UnitSlot& slot, absl::Status awaited, double t, double h,
                                     Rejection* rejection) const {
  // Once per unit per step: the common case returns here, the rest (which formats) is a
  // function of its own, so that this one saves no registers.
  const StepReply& reply = slot.response.step;
  if (ABSL_PREDICT_TRUE(awaited.ok() &&
                        (reply.status == StepStatus::kOk || reply.status == StepStatus::kEnded) &&
                        reply.outputs.size() == slot.num_outputs)) {
    return absl::OkStatus();
  }
  return CheckFailedStep(slot, std::move(awaited), t, h, rejection);
}

absl::Status CoupledUnits::CheckFailedStep(const UnitSlot& slot, absl::Status awaited, double t,
                                           double h, Rejection* rejection) const {
  if (!awaited.ok()) {
    return Annotate(awaited, absl::StrCat("unit '", slot.name, "' on step [", t, ", ", t + h, "]"));
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
      rejection->Add(absl::StrCat("unit '", slot.name, "' ", StepStatusName(reply.status), ": ",
                                  reply.message));
      return absl::OkStatus();
    case StepStatus::kFailed:
      break;
  }
  return absl::AbortedError(absl::StrCat("at t=", t, ": unit '", slot.name, "' failed on step [", t,
                                         ", ", t + h, "]: ", reply.message));
}

absl::Status CoupledUnits::EvaluateStepMap(double t, double h, const Eigen::VectorXd& z,
                                           bool sensitivities, Eigen::VectorXd* g,
                                           Rejection* rejection) {
  COSIMO_RETURN_IF_ERROR(FanOut(
      slots_,
      [&](UnitSlot& s) {
        PrepareStep(s, t, h, StepMode::kTentative, sensitivities);
        FillInputsFromUnknowns(s, h, z);
        return true;
      },
      [&](UnitSlot& s, absl::Status awaited) {
        return CheckStep(s, std::move(awaited), t, h, rejection);
      }));
  if (rejection->rejected) return absl::OkStatus();
  for (size_t j = 0; j < unknowns_.size(); ++j) {
    const Unknown& u = unknowns_[j];
    const UnitSlot& source = slots_[u.source_unit];
    const StepReply& reply = source.response.step;
    double v = 0.0;
    if (u.derivative) {
      if (reply.derivatives.size() != source.num_outputs) {
        return absl::FailedPreconditionError(
            absl::StrCat("at t=", t, ": unit '", source.name,
                         "' gave no output derivatives, needed for the HERMITE input ",
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

void CoupledUnits::ReplyOutputs(Eigen::VectorXd* g) const {
  for (size_t j = 0; j < unknowns_.size(); ++j) {
    const Unknown& u = unknowns_[j];
    const StepReply& reply = slots_[u.source_unit].response.step;
    (*g)[static_cast<Eigen::Index>(j)] = u.derivative ? 0.0 : reply.outputs[u.source_output];
  }
}

double CoupledUnits::ScaledResidual(const Eigen::VectorXd& r, const Eigen::VectorXd& ref,
                                    int* worst) const {
  const double tolerance = config_.algorithm.tolerance;
  double largest = 0.0;
  *worst = -1;
  for (Eigen::Index j = 0; j < r.size(); ++j) {
    const double e = std::abs(r[j]) / (tolerance * (1.0 + std::abs(ref[j])));
    if (!(e <= largest)) {  // also catches NaN
      largest = e;
      *worst = static_cast<int>(j);
      if (std::isnan(e)) return std::numeric_limits<double>::infinity();
    }
  }
  return largest;
}

double CoupledUnits::ErrorEstimate(double h, const Eigen::VectorXd& actual) const {
  // The interpolation error of an order-p input approximation on [t[N], t[N] + h] is about
  // |f^(p+1)| / (p+1)! h^(p+1); the (p+1)-th divided difference through the p+1 newest accepted
  // samples and the new value at t[N] + h estimates f^(p+1) / (p+1)!. So the estimate scales as
  // h^(p+1) whatever the previous steps were. -1: no estimate (off).
  const double tolerance = config_.algorithm.error_tolerance;
  if (tolerance <= 0.0) return -1.0;
  double largest = -1.0;
  for (size_t j = 0; j < unknowns_.size(); ++j) {
    const Unknown& u = unknowns_[j];
    if (u.derivative) continue;
    const SampleHistory& history = slots_[u.source_unit].history;
    // With fewer samples (first steps) a lower-order estimate: conservative, never absent.
    const int p = std::min(slots_[u.unit].approx.order(), history.size() - 1);
    if (p < 0 || p + 2 > kMaxRow) continue;
    const auto k = static_cast<Eigen::Index>(j);
    if (p == 0 && slots_[u.unit].approx.order() >= 1) {
      // First step: the deviation from the tangent at t[N] (h^2 y''/2; zero derivatives when
      // the source gives none make it the ZOH estimate).
      const double tangent =
          history.value(0, u.source_output) + h * history.derivative(0, u.source_output);
      largest = std::max(largest,
                         std::abs(actual[k] - tangent) / (tolerance * (1.0 + std::abs(actual[k]))));
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
    largest = std::max(largest, estimate / (tolerance * (1.0 + std::abs(actual[k]))));
    if (std::isnan(largest)) return std::numeric_limits<double>::infinity();
  }
  return largest;
}

std::string CoupledUnits::DescribeUnknown(int j) const {
  if (j < 0) return "(none)";
  const Unknown& u = unknowns_[j];
  const std::vector<UnitDescription>& d = config_.descriptions;
  return absl::StrCat(u.derivative ? "d/dt of " : "", config_.names[u.source_unit], ".",
                      d[u.source_unit].outputs[u.source_output].name, " -> ", config_.names[u.unit],
                      ".", d[u.unit].inputs[u.input].name);
}

absl::Status CoupledUnits::CommitAll(double t) {
  return FanOut(
      slots_,
      [](UnitSlot& s) {
        if (s.rolls_back) {
          s.commit_pending = true;  // its response still holds the tentative step's reply
          return false;
        }
        s.command.kind = UnitCommand::Kind::kCommit;
        return true;
      },
      [&](UnitSlot& s, absl::Status awaited) {
        if (!awaited.ok())
          return Annotate(awaited, absl::StrCat("unit '", s.name, "' commit at t=", t));
        const StepReply& reply = s.response.step;
        if (reply.status == StepStatus::kOk || reply.status == StepStatus::kEnded) {
          return absl::OkStatus();
        }
        return absl::AbortedError(
            absl::StrCat("at t=", t, ": unit '", s.name, "' ", StepStatusName(reply.status),
                         " on commit (its real integration): ", reply.message));
      });
}

absl::Status CoupledUnits::RejectAll(double t) {
  return FanOut(
      slots_,
      [](UnitSlot& s) {
        if (s.commit_pending) return false;
        s.command.kind = UnitCommand::Kind::kReject;
        return true;
      },
      [&](UnitSlot& s, absl::Status awaited) {
        return Annotate(awaited, absl::StrCat("unit '", s.name, "' reject at t=", t));
      });
}

void CoupledUnits::TakeReplies(double t_new) {
  for (UnitSlot& s : slots_) {
    // Swapped, not copied: the reply's buffers are next read after the unit's next reply has
    // overwritten them (CheckStep checks the sizes).
    StepReply& reply = s.response.step;
    s.outputs.swap(reply.outputs);
    if (reply.derivatives.size() == s.num_outputs) {
      s.derivatives.swap(reply.derivatives);
    } else {
      s.derivatives.setZero();
    }
    s.recorded.swap(reply.recorded);
    s.recorded_strings.swap(reply.recorded_strings);
    s.integers.swap(reply.integers);
    s.history.Push(t_new, s.outputs, s.derivatives);
  }
}

}  // namespace cosimo::master
