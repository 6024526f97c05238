// UnitHost: the worker's Algorithm 1 (rollback) and Algorithm 2 (COSTARICA) state machine over
// one Unit. See cosimo/worker/unit_host.h for the command contract.
#include "cosimo/worker/unit_host.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cosimo/common/scenario.h"
#include "cosimo/worker/unit_factory.h"
#include "worker/src/checkpoint/state_bytes.h"
#include "worker/src/costarica/costarica.h"

namespace cosimo::worker {

class UnitHost::Impl {
 public:
  Impl(std::unique_ptr<Unit> unit, const v1::LoadUnit& load)
      : unit_(std::move(unit)), name_(load.unit().name()), stop_time_(load.stop_time()) {
    const Capabilities& caps = unit_->description().capabilities;
    const bool forbid = load.unit().rollback() == v1::Unit::FORBID;
    rollback_ = caps.can_rollback && !forbid;
    mode_ = rollback_ ? IterativeMode::kRollback : IterativeMode::kEstimate;
    report_mode_ = rollback_ ? UnitMode::kRollback : UnitMode::kEstimate;
  }

  std::unique_ptr<Unit> unit_;
  std::string name_;
  double stop_time_ = 0.0;
  bool rollback_ = false;
  IterativeMode mode_ = IterativeMode::kEstimate;
  UnitMode report_mode_ = UnitMode::kEstimate;
  bool tentative_seen_ = false;
  uint64_t real_integrations_ = 0;
  uint64_t estimates_ = 0;

  // Rollback (Algorithm 1): snapshot at t[N], taken on the first tentative step from t[N].
  std::unique_ptr<UnitSnapshot> snapshot_;
  double snapshot_time_ = std::numeric_limits<double>::quiet_NaN();
  bool dirty_ = false;  // the unit moved past the snapshot
  StepReply last_reply_;
  bool have_tentative_ = false;

  // Estimate (Algorithm 2): linearisation at t[N], estimator, last tentative inputs.
  costarica::Estimator estimator_;
  double lin_time_ = std::numeric_limits<double>::quiet_NaN();
  bool degraded_logged_ = false;
  StepRequest last_request_;
  Eigen::VectorXd u_lin_;
  std::vector<double> last_recorded_;  // recorded values of the last real step (estimates reuse)
  std::vector<std::string> last_recorded_strings_;

  // Sensitivities on request (Newton, DIRECTIONAL): the affine map of the linearisation at
  // t[N]; rollback units linearise into their own estimator before integrating.
  costarica::Estimator sensitivity_estimator_;
  Eigen::VectorXd y0_, d0_;
  Eigen::MatrixXd sensitivity_y_, sensitivity_d_;  // held across the unit's Step

  void ClearSensitivities(StepReply* reply) {
    // Most replies have none: no call into Eigen's resize then (once per unit and step).
    if (reply->output_sensitivity.size() != 0) reply->output_sensitivity.resize(0, 0);
    if (reply->derivative_sensitivity.size() != 0) reply->derivative_sensitivity.resize(0, 0);
  }

  // Fills the reply's sensitivities from `estimator` (prepared at t[N]).
  void Sensitivities(costarica::Estimator& estimator, const StepRequest& request,
                     StepReply* reply) {
    estimator.AffineOutputs(request.step, request.inputs.order(), &reply->output_sensitivity, &y0_,
                            &reply->derivative_sensitivity, &d0_);
  }

  // Rollback unit at t[N] (fresh snapshot or just restored): linearise there; a unit without
  // Jacobians leaves the sensitivities empty and the master falls back.
  void RollbackSensitivities(const StepRequest& request, StepReply* reply) {
    ClearSensitivities(reply);
    if (!unit_->description().capabilities.provides_jacobians) return;
    u_lin_ = request.inputs.coefficients.col(0);
    absl::StatusOr<Linearization> lin = unit_->Linearize(u_lin_);
    if (!lin.ok()) {
      spdlog::warn("unit '{}': no sensitivities at t={}: {}", name_, request.time,
                   std::string(lin.status().message()));
      return;
    }
    const auto m = static_cast<Eigen::Index>(unit_->description().inputs.size());
    if (lin->B.cols() != m || lin->D.cols() != m || lin->A.rows() != lin->x.size()) return;
    sensitivity_estimator_.Prepare(*lin, u_lin_);
    Sensitivities(sensitivity_estimator_, request, reply);
  }

  void Fail(StepReply* reply, std::string message) {
    reply->status = StepStatus::kFailed;
    reply->message = std::move(message);
    reply->estimated = false;
    ClearSensitivities(reply);
  }

  // Once per step: the common case returns here, the formatting is FailRequest's, so that this
  // one saves no registers.
  bool CheckRequest(const StepRequest& request, StepReply* reply) {
    const auto inputs = static_cast<Eigen::Index>(unit_->description().inputs.size());
    if (ABSL_PREDICT_TRUE(request.inputs.coefficients.rows() == inputs &&
                          request.inputs.order() >= 1 && request.step > 0.0)) {
      return true;
    }
    FailRequest(request, inputs, reply);
    return false;
  }

  ABSL_ATTRIBUTE_NOINLINE void FailRequest(const StepRequest& request, Eigen::Index inputs,
                                           StepReply* reply) {
    if (request.inputs.coefficients.rows() != inputs || request.inputs.order() < 1) {
      Fail(reply,
           absl::StrCat("unit '", name_, "': step inputs have ", request.inputs.coefficients.rows(),
                        " rows and ", request.inputs.order(), " coefficients; the unit has ",
                        inputs, " inputs"));
      return;
    }
    Fail(reply, absl::StrCat("unit '", name_, "': step size must be > 0, got ", request.step));
  }

  void RealStep(const StepRequest& request, StepReply* reply) {
    unit_->Step(request, reply);
    ++real_integrations_;
    // Only estimates (units that cannot roll back) answer with the last recorded values.
    if (!rollback_ && (reply->status == StepStatus::kOk || reply->status == StepStatus::kEnded)) {
      last_recorded_ = reply->recorded;
      last_recorded_strings_ = reply->recorded_strings;
    }
  }

  // Step.commit_previous: a rollback unit keeps the state of its last tentative step, whose
  // reply the orchestrator already has. An estimated unit's commit is its real integration and
  // needs a Commit of its own (its reply carries the real outputs).
  bool CommitCarried(StepReply* reply) {
    if (!rollback_) {
      Fail(reply, absl::StrCat("unit '", name_,
                               "' is estimated (cannot roll back): its commit integrates for real "
                               "and needs a Commit command, not a step with commit_previous"));
      return false;
    }
    if (!have_tentative_) {
      Fail(reply, absl::StrCat("unit '", name_,
                               "': step with commit_previous but no tentative step to commit"));
      return false;
    }
    ClearTentative();
    return true;
  }

  // Nothing tentative any more: the state is the unit's own (accepted, or a final step's).
  void ClearTentative() {
    have_tentative_ = false;
    dirty_ = false;
    snapshot_time_ = std::numeric_limits<double>::quiet_NaN();
  }

  void FinalStep(const StepRequest& request, StepReply* reply) {
    if (rollback_ && dirty_ && snapshot_ && snapshot_time_ == request.time) {
      if (absl::Status s = unit_->Restore(*snapshot_); !s.ok()) {
        Fail(reply, absl::StrCat("unit '", name_, "': restore before final step: ", s.message()));
        return;
      }
    }
    ClearTentative();
    RealStep(request, reply);
    reply->estimated = false;
    lin_time_ = std::numeric_limits<double>::quiet_NaN();
  }

  void RollbackTentative(const StepRequest& request, StepReply* reply) {
    if (!snapshot_ || snapshot_time_ != request.time) {
      if (unit_->time() != request.time) {
        Fail(reply, absl::StrCat("unit '", name_, "': tentative step from t=", request.time,
                                 " but the unit is at t=", unit_->time()));
        return;
      }
      absl::StatusOr<std::unique_ptr<UnitSnapshot>> saved = unit_->Save();
      if (!saved.ok()) {
        Fail(reply, absl::StrCat("unit '", name_, "': save at t=", request.time, ": ",
                                 saved.status().message()));
        return;
      }
      snapshot_ = *std::move(saved);
      snapshot_time_ = request.time;
      dirty_ = false;
    } else if (dirty_) {
      if (absl::Status s = unit_->Restore(*snapshot_); !s.ok()) {
        Fail(reply,
             absl::StrCat("unit '", name_, "': restore to t=", request.time, ": ", s.message()));
        return;
      }
      dirty_ = false;
    }
    if (request.sensitivities) RollbackSensitivities(request, reply);
    // The unit's Step fills every field but the sensitivities; keep them in the reply.
    sensitivity_y_.swap(reply->output_sensitivity);
    sensitivity_d_.swap(reply->derivative_sensitivity);
    RealStep(request, reply);
    reply->output_sensitivity.swap(sensitivity_y_);
    reply->derivative_sensitivity.swap(sensitivity_d_);
    if (!request.sensitivities) ClearSensitivities(reply);
    reply->estimated = false;
    dirty_ = true;
    have_tentative_ = true;
    last_reply_ = *reply;
  }

  bool Linearize(const StepRequest& request, StepReply* reply) {
    if (unit_->time() != request.time) {
      Fail(reply, absl::StrCat("unit '", name_,
                               "' (estimated, cannot roll back): tentative step "
                               "from t=",
                               request.time, " but the unit is at t=", unit_->time()));
      return false;
    }
    u_lin_ = request.inputs.coefficients.col(0);
    absl::StatusOr<Linearization> lin = unit_->Linearize(u_lin_);
    if (!lin.ok()) {
      Fail(reply, absl::StrCat("unit '", name_,
                               "' cannot roll back and COSTARICA needs its "
                               "Jacobians at t=",
                               request.time, ": ", lin.status().message()));
      return false;
    }
    const UnitDescription& d = unit_->description();
    const Eigen::Index n = lin->x.size();
    const auto m = static_cast<Eigen::Index>(d.inputs.size());
    const auto p = static_cast<Eigen::Index>(d.outputs.size());
    const bool sizes_ok = lin->A.rows() == n && lin->A.cols() == n && lin->B.rows() == n &&
                          lin->B.cols() == m && lin->C.rows() == p && lin->C.cols() == n &&
                          lin->D.rows() == p && lin->D.cols() == m && lin->y.size() == p &&
                          (lin->xdot.size() == 0 || lin->xdot.size() == n);
    if (!sizes_ok) {
      Fail(reply, absl::StrCat("unit '", name_, "': linearisation has inconsistent sizes (n=", n,
                               ", m=", m, ", p=", p, ")"));
      return false;
    }
    estimator_.Prepare(*lin, u_lin_);
    if (estimator_.degraded()) {
      report_mode_ = UnitMode::kEstimateDegraded;
      if (!degraded_logged_) {
        spdlog::warn(
            "unit '{}': state derivatives not exposed; COSTARICA runs degraded "
            "(state control part f_C = 0)",
            name_);
        degraded_logged_ = true;
      }
    }
    lin_time_ = request.time;
    return true;
  }

  void EstimateTentative(const StepRequest& request, StepReply* reply) {
    if (lin_time_ != request.time && !Linearize(request, reply)) return;
    estimator_.Estimate(request.inputs, request.step);
    reply->status = StepStatus::kOk;
    reply->message.clear();
    reply->end_time = request.time + request.step;
    reply->outputs = estimator_.outputs();
    reply->derivatives = estimator_.output_derivatives();
    reply->recorded = last_recorded_;
    reply->recorded_strings = last_recorded_strings_;
    reply->integers.clear();  // the estimated doubles stand
    reply->estimated = true;
    if (request.sensitivities) {
      Sensitivities(estimator_, request, reply);
    } else {
      ClearSensitivities(reply);
    }
    ++estimates_;
    last_request_.time = request.time;
    last_request_.step = request.step;
    last_request_.mode = StepMode::kFinal;
    last_request_.inputs.coefficients = request.inputs.coefficients;
    have_tentative_ = true;
  }

  // Step with the unit's own inputs (transformed).
  void Step(const StepRequest& request, StepReply* reply) {
    if (!CheckRequest(request, reply)) return;
    if (request.commit_previous && !CommitCarried(reply)) return;
    if (request.mode == StepMode::kFinal) {
      FinalStep(request, reply);
      ClearSensitivities(reply);
      return;
    }
    tentative_seen_ = true;
    if (rollback_) {
      RollbackTentative(request, reply);
    } else {
      EstimateTentative(request, reply);
    }
  }

  // Connection transformations (LoadUnit.input_transforms): input i is factor_(i) * value +
  // offset_(i); empty when no input has one. Applied where values come in (Initialize,
  // Evaluate, Step), so everything behind sees the unit's own inputs; sensitivities go back
  // with respect to the values sent (times the factor).
  Eigen::VectorXd factor_, offset_;
  StepRequest transformed_;

  absl::Status SetTransforms(const v1::LoadUnit& load) {
    if (load.input_transforms().empty()) return absl::OkStatus();
    const std::vector<VariableInfo>& inputs = unit_->description().inputs;
    const auto n = static_cast<Eigen::Index>(inputs.size());
    factor_ = Eigen::VectorXd::Ones(n);
    offset_ = Eigen::VectorXd::Zero(n);
    for (const v1::InputTransform& t : load.input_transforms()) {
      const std::vector<int> named = VariablesNamed(inputs, t.input());  // an array: each element
      if (named.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("unit '", name_, "': a connection with a factor or offset feeds '",
                         t.input(), "', which is not an input of the unit"));
      }
      for (int i : named) {
        factor_(i) = t.factor();
        offset_(i) = t.offset();
      }
    }
    return absl::OkStatus();
  }

  const StepRequest& Transformed(const StepRequest& raw) {
    if (factor_.size() == 0 || raw.inputs.coefficients.rows() != factor_.size()) return raw;
    transformed_.time = raw.time;
    transformed_.step = raw.step;
    transformed_.mode = raw.mode;
    transformed_.sensitivities = raw.sensitivities;
    transformed_.commit_previous = raw.commit_previous;
    transformed_.inputs.coefficients = factor_.asDiagonal() * raw.inputs.coefficients;
    if (transformed_.inputs.coefficients.cols() > 0)
      transformed_.inputs.coefficients.col(0) += offset_;
    return transformed_;
  }

  Eigen::VectorXd TransformedInputs(const Eigen::VectorXd& raw) const {
    if (factor_.size() == 0 || raw.size() != factor_.size()) return raw;
    return factor_.cwiseProduct(raw) + offset_;
  }

  // Column k * inputs + i of the sensitivities is coefficient (i, k): times factor_(i).
  void ScaleSensitivities(StepReply* reply) const {
    const Eigen::Index n = factor_.size();
    if (n == 0) return;
    for (Eigen::MatrixXd* m : {&reply->output_sensitivity, &reply->derivative_sensitivity}) {
      for (Eigen::Index col = 0; col < m->cols(); ++col) m->col(col) *= factor_(col % n);
    }
  }
};

UnitHost::UnitHost(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
UnitHost::~UnitHost() = default;

absl::StatusOr<std::unique_ptr<UnitHost>> UnitHost::Create(const v1::LoadUnit& load) {
  absl::StatusOr<std::unique_ptr<Unit>> unit = CreateUnit(load.unit(), load.artifact_path());
  if (!unit.ok()) return unit.status();
  return Create(*std::move(unit), load);
}

absl::StatusOr<std::unique_ptr<UnitHost>> UnitHost::Create(std::unique_ptr<Unit> unit,
                                                           const v1::LoadUnit& load) {
  if (unit == nullptr) return absl::InvalidArgumentError("UnitHost::Create: no unit");
  std::vector<std::string> record(load.record().begin(), load.record().end());
  if (absl::Status s = unit->SetRecorded(record); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unit '", load.unit().name(), "': record: ", s.message()));
  }
  unit->SetOutputDerivativesNeeded(!load.skip_output_derivatives());
  if (load.inputs_listed()) {
    const std::vector<VariableInfo>& inputs = unit->description().inputs;
    std::vector<bool> connected(inputs.size(), false);
    for (const std::string& name : load.connected_inputs()) {
      const std::vector<int> named = VariablesNamed(inputs, name);  // an array: its elements
      if (named.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("unit '", load.unit().name(),
                                                       "': a connection feeds '", name,
                                                       "', which is not an input of the unit"));
      }
      for (int i : named) connected[static_cast<size_t>(i)] = true;
    }
    if (absl::Status s = unit->SetConnectedInputs(connected); !s.ok()) return s;
  }
  auto impl = std::make_unique<Impl>(std::move(unit), load);
  if (absl::Status s = impl->SetTransforms(load); !s.ok()) return s;
  return std::unique_ptr<UnitHost>(new UnitHost(std::move(impl)));
}

const UnitDescription& UnitHost::description() const { return impl_->unit_->description(); }
IterativeMode UnitHost::iterative_mode() const { return impl_->mode_; }

absl::Status UnitHost::Initialize(double start_time, OutputsReply* reply,
                                  const std::vector<int>& hold_outputs) {
  const size_t n = description().outputs.size();
  for (int o : hold_outputs) {
    if (o < 0 || static_cast<size_t>(o) >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("unit '", impl_->name_, "': output ", o, " to hold, of ", n, " outputs"));
    }
  }
  if (absl::Status s = impl_->unit_->HoldOutputs(hold_outputs); !s.ok()) return s;
  const double stop =
      impl_->stop_time_ > start_time ? impl_->stop_time_ : std::numeric_limits<double>::infinity();
  if (absl::Status s = impl_->unit_->Initialize(start_time, stop); !s.ok()) return s;
  // The unit's start inputs (an FMU's start values: setting 0 could be illegal, an Enumeration
  // without 0), else zero inputs as the connections' transformations make them (their offsets).
  const std::optional<Eigen::VectorXd> start = impl_->unit_->StartInputs();
  const Eigen::VectorXd initial =
      start.has_value() ? *start
                        : impl_->TransformedInputs(Eigen::VectorXd::Zero(
                              static_cast<Eigen::Index>(description().inputs.size())));
  if (absl::Status s = impl_->unit_->Evaluate(initial, reply); !s.ok()) return s;
  impl_->last_recorded_ = reply->recorded;
  impl_->last_recorded_strings_ = reply->recorded_strings;
  return absl::OkStatus();
}

absl::Status UnitHost::Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) {
  if (absl::Status s = impl_->unit_->Evaluate(impl_->TransformedInputs(inputs), reply); !s.ok()) {
    return s;
  }
  impl_->last_recorded_ = reply->recorded;
  impl_->last_recorded_strings_ = reply->recorded_strings;
  // The inputs at t[N] changed: a linearisation there must be redone.
  impl_->lin_time_ = std::numeric_limits<double>::quiet_NaN();
  return absl::OkStatus();
}

void UnitHost::Step(const StepRequest& request, StepReply* reply) {
  Impl& h = *impl_;
  h.Step(h.Transformed(request), reply);
  // Sensitivities leave with respect to the values sent.
  h.ScaleSensitivities(reply);
}

void UnitHost::Commit(StepReply* reply) {
  Impl& h = *impl_;
  if (!h.have_tentative_) {
    h.Fail(reply, absl::StrCat("unit '", h.name_, "': commit without a tentative step"));
    return;
  }
  if (h.rollback_) {
    *reply = h.last_reply_;
    h.ClearSensitivities(reply);
    h.ClearTentative();
    return;
  }
  h.have_tentative_ = false;
  // Algorithm 2: the single real integration, with the converged inputs.
  h.RealStep(h.last_request_, reply);
  h.ClearSensitivities(reply);
  reply->estimated = false;
  h.lin_time_ = std::numeric_limits<double>::quiet_NaN();
}

absl::Status UnitHost::Reject() {
  Impl& h = *impl_;
  h.have_tentative_ = false;
  if (!h.rollback_) return absl::OkStatus();  // time never moved
  if (h.dirty_ && h.snapshot_) {
    if (absl::Status s = h.unit_->Restore(*h.snapshot_); !s.ok()) {
      return absl::InternalError(
          absl::StrCat("unit '", h.name_, "': restore on reject: ", s.message()));
    }
  }
  h.dirty_ = false;
  return absl::OkStatus();
}

absl::Status UnitHost::Save() {
  Impl& h = *impl_;
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> saved = h.unit_->Save();
  if (!saved.ok()) return saved.status();
  h.snapshot_ = *std::move(saved);
  h.snapshot_time_ = h.unit_->time();
  h.dirty_ = false;
  return absl::OkStatus();
}

absl::Status UnitHost::Restore() {
  Impl& h = *impl_;
  if (!h.snapshot_) {
    return absl::FailedPreconditionError(
        absl::StrCat("unit '", h.name_, "': restore without a saved snapshot"));
  }
  if (absl::Status s = h.unit_->Restore(*h.snapshot_); !s.ok()) return s;
  h.dirty_ = false;
  h.lin_time_ = std::numeric_limits<double>::quiet_NaN();
  return absl::OkStatus();
}

namespace {
constexpr char kHostTag[] = "cosimo.UnitHost.1";

// Prefixes the unit's name unless the unit's own message names it already.
absl::Status Named(const std::string& name, const char* what, const absl::Status& s) {
  if (absl::StartsWith(s.message(), "unit '")) return s;
  return absl::Status(s.code(), absl::StrCat("unit '", name, "': ", what, ": ", s.message()));
}
}  // namespace

absl::StatusOr<std::string> UnitHost::Checkpoint() {
  Impl& h = *impl_;
  if (h.have_tentative_) {
    return absl::FailedPreconditionError(
        absl::StrCat("unit '", h.name_,
                     "': checkpoint while a tentative step is open (commit or reject first)"));
  }
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> saved = h.unit_->Save();
  if (!saved.ok()) return Named(h.name_, "cannot be checkpointed", saved.status());
  absl::StatusOr<std::string> unit_bytes = h.unit_->Serialize(**saved);
  if (!unit_bytes.ok()) return Named(h.name_, "cannot be checkpointed", unit_bytes.status());
  StateWriter out;
  out.Tag(kHostTag);
  out.Doubles(h.last_recorded_);
  out.Strings(h.last_recorded_strings_);
  out.U64(h.real_integrations_);
  out.U64(h.estimates_);
  out.U64(static_cast<uint64_t>(h.report_mode_));
  out.Bool(h.tentative_seen_);
  out.Bool(h.degraded_logged_);
  out.Bytes(*unit_bytes);
  return out.Take();
}

absl::Status UnitHost::RestoreCheckpoint(std::string_view bytes) {
  Impl& h = *impl_;
  StateReader in(bytes);
  in.ExpectTag(kHostTag);
  std::vector<double> recorded = in.Doubles();
  std::vector<std::string> recorded_strings = in.Strings();
  const uint64_t real_integrations = in.U64();
  const uint64_t estimates = in.U64();
  const uint64_t report_mode = in.U64();
  const bool tentative_seen = in.Bool();
  const bool degraded_logged = in.Bool();
  const std::string unit_bytes = in.Bytes();
  if (absl::Status s = in.Finish(absl::StrCat("unit '", h.name_, "': checkpoint")); !s.ok()) {
    return s;
  }
  if (report_mode > static_cast<uint64_t>(UnitMode::kEstimateDegraded)) {
    return absl::InvalidArgumentError(
        absl::StrCat("unit '", h.name_, "': checkpoint names unit mode ", report_mode));
  }
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> snapshot = h.unit_->Deserialize(unit_bytes);
  if (!snapshot.ok()) return Named(h.name_, "cannot load the checkpoint", snapshot.status());
  if (absl::Status s = h.unit_->Restore(**snapshot); !s.ok()) {
    return Named(h.name_, "restore from the checkpoint", s);
  }
  h.last_recorded_ = std::move(recorded);
  h.last_recorded_strings_ = std::move(recorded_strings);
  h.real_integrations_ = real_integrations;
  h.estimates_ = estimates;
  h.report_mode_ = static_cast<UnitMode>(report_mode);
  h.tentative_seen_ = tentative_seen;
  h.degraded_logged_ = degraded_logged;
  h.snapshot_.reset();
  h.ClearTentative();
  h.lin_time_ = std::numeric_limits<double>::quiet_NaN();
  return absl::OkStatus();
}

absl::StatusOr<UnitReport> UnitHost::Terminate() {
  Impl& h = *impl_;
  if (absl::Status s = h.unit_->Terminate(); !s.ok()) return s;
  UnitReport report;
  report.mode = h.tentative_seen_ ? h.report_mode_ : UnitMode::kDirect;
  report.real_integrations = h.real_integrations_;
  report.estimates = h.estimates_;
  return report;
}

}  // namespace cosimo::worker
