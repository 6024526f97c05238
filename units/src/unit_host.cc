// UnitHost: the worker's Algorithm 1 (rollback) and Algorithm 2 (COSTARICA) state machine over
// one Unit. See cosimo/units/unit_host.h for the command contract. The host checks each command
// and hands it to its parts (units/src/host/): the unit with what the host keeps of it
// (HostedUnit), the connections' transformations as a decorator around the unit
// (transformed_unit.h), the tentative-step policy (tentative_policy.h: rollback or estimate),
// and the checkpoint's bytes (host_checkpoint.h).
#include "cosimo/units/unit_host.h"

#include <limits>
#include <utility>

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/strings/str_cat.h"
#include "cosimo/common/scenario.h"
#include "cosimo/units/crash_context.h"
#include "cosimo/units/unit_factory.h"
#include "cosimo/units/unit_log.h"
#include "units/src/host/host_checkpoint.h"
#include "units/src/host/hosted_unit.h"
#include "units/src/host/tentative_policy.h"
#include "units/src/host/transformed_unit.h"

namespace cosimo::units {

class UnitHost::Impl {
 public:
  Impl(std::unique_ptr<Unit> unit, const v1::LoadUnit& load, bool rollback)
      : host_(std::move(unit), load.unit().name(), /*keep_recorded=*/!rollback,
              rollback ? UnitMode::kRollback : UnitMode::kEstimate),
        policy_(rollback ? host::NewRollbackPolicy(&host_) : host::NewEstimatePolicy(&host_)),
        stop_time_(load.stop_time()),
        job_id_(load.job_id()) {}

  const std::string& name() const { return host_.name(); }
  const std::string& job_id() const { return job_id_; }

  const UnitDescription& description() const { return host_.unit().description(); }
  IterativeMode mode() const { return policy_->mode(); }

  absl::Status Initialize(double start_time, OutputsReply* reply,
                          const std::vector<int>& hold_outputs) {
    Unit& unit = host_.unit();
    const size_t n = description().outputs.size();
    for (int o : hold_outputs) {
      if (o < 0 || static_cast<size_t>(o) >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat("unit '", host_.name(), "': output ", o, " to hold, of ", n, " outputs"));
      }
    }
    if (absl::Status s = unit.HoldOutputs(hold_outputs); !s.ok()) return s;
    const double stop =
        stop_time_ > start_time ? stop_time_ : std::numeric_limits<double>::infinity();
    if (absl::Status s = unit.Initialize(start_time, stop); !s.ok()) return s;
    // The unit's start inputs (an FMU's start values: setting 0 could be illegal, an
    // Enumeration without 0), else zero values sent (the connections' offsets, then).
    const Eigen::VectorXd initial = unit.StartInputs().value_or(
        Eigen::VectorXd::Zero(static_cast<Eigen::Index>(description().inputs.size())));
    if (absl::Status s = unit.Evaluate(initial, reply); !s.ok()) return s;
    host_.KeepRecorded(*reply);
    return absl::OkStatus();
  }

  absl::Status Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) {
    if (absl::Status s = host_.unit().Evaluate(inputs, reply); !s.ok()) return s;
    host_.KeepRecorded(*reply);
    // The inputs at t[N] changed: a linearisation there must be redone.
    policy_->Invalidate();
    return absl::OkStatus();
  }

  void Step(const StepRequest& request, StepReply* reply) {
    if (!CheckRequest(request, reply)) return;
    if (request.commit_previous && !policy_->CommitCarried(reply)) return;
    if (request.mode == StepMode::kFinal) {
      policy_->Final(request, reply);
      host::HostedUnit::ClearSensitivities(reply);
      return;
    }
    host_.set_tentative_seen();
    policy_->Tentative(request, reply);
  }

  void Commit(StepReply* reply) {
    if (!policy_->have_tentative()) {
      host::HostedUnit::Fail(
          reply, absl::StrCat("unit '", host_.name(), "': commit without a tentative step"));
      return;
    }
    policy_->Commit(reply);
  }

  absl::Status Reject() { return policy_->Reject(); }

  // An explicit snapshot: the client may restore it after later steps, before their start.
  absl::Status Save() {
    absl::StatusOr<std::unique_ptr<UnitSnapshot>> saved = host_.unit().Save();
    if (!saved.ok()) return saved.status();
    host_.unit().SetEarlierStateKept();
    host_.snapshot = *std::move(saved);
    host_.snapshot_time = host_.unit().time();
    host_.dirty = false;
    return absl::OkStatus();
  }

  absl::Status Restore() {
    if (!host_.snapshot) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", host_.name(), "': restore without a saved snapshot"));
    }
    if (absl::Status s = host_.unit().Restore(*host_.snapshot); !s.ok()) return s;
    host_.dirty = false;
    policy_->Invalidate();
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> Checkpoint() {
    if (policy_->have_tentative()) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", host_.name(),
                       "': checkpoint while a tentative step is open (commit or reject first)"));
    }
    return host::WriteCheckpoint(host_);
  }

  absl::Status RestoreCheckpoint(std::string_view bytes) {
    if (absl::Status s = host::ReadCheckpoint(bytes, host_); !s.ok()) return s;
    policy_->ClearTentative();
    policy_->Invalidate();
    return absl::OkStatus();
  }

  absl::StatusOr<UnitReport> Terminate() {
    if (absl::Status s = host_.unit().Terminate(); !s.ok()) return s;
    UnitReport report;
    report.mode = host_.tentative_seen() ? host_.report_mode() : UnitMode::kDirect;
    report.real_integrations = host_.real_integrations();
    report.estimates = host_.estimates();
    return report;
  }

 private:
  // Once per step: the common case returns here, the formatting is FailRequest's, so that this
  // one saves no registers.
  bool CheckRequest(const StepRequest& request, StepReply* reply) {
    const auto inputs = static_cast<Eigen::Index>(description().inputs.size());
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
      host::HostedUnit::Fail(
          reply,
          absl::StrCat("unit '", host_.name(), "': step inputs have ",
                       request.inputs.coefficients.rows(), " rows and ", request.inputs.order(),
                       " coefficients; the unit has ", inputs, " inputs"));
      return;
    }
    host::HostedUnit::Fail(reply, absl::StrCat("unit '", host_.name(),
                                               "': step size must be > 0, got ", request.step));
  }

  host::HostedUnit host_;
  std::unique_ptr<host::TentativePolicy> policy_;
  double stop_time_;
  const std::string job_id_;  // for a crash report (crash_context.h)
};

UnitHost::UnitHost(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
UnitHost::~UnitHost() = default;

absl::StatusOr<std::unique_ptr<UnitHost>> UnitHost::Create(const v1::LoadUnit& load) {
  // What the unit says and prints while it loads (an FMU's banner) is its job's log too.
  const ScopedUnitCall call(load.job_id().c_str(), load.unit().name().c_str(),
                            std::numeric_limits<double>::quiet_NaN());
  const ScopedUnitOutput output;
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
  unit->SetNonFiniteAllowed(load.algorithm().allow_non_finite());
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
  // The iterative mode: rollback when the unit can and its scenario does not forbid it.
  const bool rollback =
      unit->description().capabilities.can_rollback && load.unit().rollback() != v1::Unit::FORBID;
  absl::StatusOr<std::unique_ptr<Unit>> transformed =
      host::WithInputTransforms(std::move(unit), load);
  if (!transformed.ok()) return transformed.status();
  return std::unique_ptr<UnitHost>(
      new UnitHost(std::make_unique<Impl>(*std::move(transformed), load, rollback)));
}

const UnitDescription& UnitHost::description() const { return impl_->description(); }
IterativeMode UnitHost::iterative_mode() const { return impl_->mode(); }

absl::Status UnitHost::Initialize(double start_time, OutputsReply* reply,
                                  const std::vector<int>& hold_outputs) {
  return impl_->Initialize(start_time, reply, hold_outputs);
}
absl::Status UnitHost::Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) {
  return impl_->Evaluate(inputs, reply);
}
void UnitHost::Step(const StepRequest& request, StepReply* reply) { impl_->Step(request, reply); }
void UnitHost::Commit(StepReply* reply) { impl_->Commit(reply); }
absl::Status UnitHost::Reject() { return impl_->Reject(); }
absl::Status UnitHost::Save() { return impl_->Save(); }
absl::Status UnitHost::Restore() { return impl_->Restore(); }
absl::StatusOr<std::string> UnitHost::Checkpoint() { return impl_->Checkpoint(); }
absl::Status UnitHost::RestoreCheckpoint(std::string_view bytes) {
  return impl_->RestoreCheckpoint(bytes);
}
absl::StatusOr<UnitReport> UnitHost::Terminate() { return impl_->Terminate(); }

absl::Status UnitHost::Run(const UnitCommand& command, UnitResponse* response) {
  const ScopedUnitCall call(
      impl_->job_id().c_str(), impl_->name().c_str(),
      command.kind == UnitCommand::Kind::kStep ? command.step.time : command.time);
  const ScopedUnitOutput output;  // what the command printed goes to its job's log
  switch (command.kind) {
    case UnitCommand::Kind::kInitialize:
      return Initialize(command.time, &response->outputs, command.hold_outputs);
    case UnitCommand::Kind::kEvaluate:
      return Evaluate(command.inputs, &response->outputs);
    case UnitCommand::Kind::kStep:
      Step(command.step, &response->step);
      return absl::OkStatus();
    case UnitCommand::Kind::kSave:
      return Save();
    case UnitCommand::Kind::kRestore:
      return Restore();
    case UnitCommand::Kind::kCommit:
      Commit(&response->step);
      return absl::OkStatus();
    case UnitCommand::Kind::kReject:
      return Reject();
    case UnitCommand::Kind::kCheckpoint: {
      absl::StatusOr<std::string> state = Checkpoint();
      if (!state.ok()) return state.status();
      response->checkpoint = *std::move(state);
      return absl::OkStatus();
    }
    case UnitCommand::Kind::kRestoreCheckpoint:
      return RestoreCheckpoint(command.state);
    case UnitCommand::Kind::kTerminate: {
      absl::StatusOr<UnitReport> report = Terminate();
      if (!report.ok()) return report.status();
      response->report = *report;
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError("UnitHost: unknown command kind " +
                                    std::to_string(static_cast<int>(command.kind)));
}

}  // namespace cosimo::units
