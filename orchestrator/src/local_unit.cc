#include "cosimo/orchestrator/local_unit.h"

#include <utility>

namespace cosimo::orchestrator {

absl::StatusOr<std::unique_ptr<LocalUnit>> LocalUnit::Create(const v1::LoadUnit& load) {
  absl::StatusOr<std::unique_ptr<worker::UnitHost>> host = worker::UnitHost::Create(load);
  if (!host.ok()) return host.status();
  return std::unique_ptr<LocalUnit>(new LocalUnit(load.unit().name(), *std::move(host)));
}

namespace {

// Member-wise swap: cheaper than std::swap's three moves of every member. Lists every member of
// StepReply (common/include/cosimo/common/unit_api.h says so beside it); the size check fails
// when a member is added, as a reminder (64-bit builds).
static_assert(sizeof(StepReply) == 208 || sizeof(void*) != 8,
              "StepReply changed: swap the new member in SwapReplies, then update this size");
void SwapReplies(StepReply& a, StepReply& b) {
  std::swap(a.status, b.status);
  if (!a.message.empty() || !b.message.empty()) a.message.swap(b.message);
  std::swap(a.end_time, b.end_time);
  a.outputs.swap(b.outputs);
  a.derivatives.swap(b.derivatives);
  a.recorded.swap(b.recorded);
  a.recorded_strings.swap(b.recorded_strings);
  a.integers.swap(b.integers);
  std::swap(a.estimated, b.estimated);
  a.output_sensitivity.swap(b.output_sensitivity);
  a.derivative_sensitivity.swap(b.derivative_sensitivity);
}

}  // namespace

void LocalUnit::Send(const UnitCommand& command) {
  pending_status_ = absl::OkStatus();
  pending_kind_ = command.kind;
  switch (command.kind) {
    case UnitCommand::Kind::kInitialize:
      pending_status_ = host_->Initialize(command.time, &pending_.outputs, command.hold_outputs);
      break;
    case UnitCommand::Kind::kEvaluate:
      pending_status_ = host_->Evaluate(command.inputs, &pending_.outputs);
      break;
    case UnitCommand::Kind::kStep:
      host_->Step(command.step, &pending_.step);
      break;
    case UnitCommand::Kind::kSave:
      pending_status_ = host_->Save();
      break;
    case UnitCommand::Kind::kRestore:
      pending_status_ = host_->Restore();
      break;
    case UnitCommand::Kind::kCommit:
      host_->Commit(&pending_.step);
      break;
    case UnitCommand::Kind::kReject:
      pending_status_ = host_->Reject();
      break;
    case UnitCommand::Kind::kCheckpoint: {
      absl::StatusOr<std::string> state = host_->Checkpoint();
      if (state.ok()) {
        pending_.checkpoint = *std::move(state);
      } else {
        pending_status_ = state.status();
      }
      break;
    }
    case UnitCommand::Kind::kRestoreCheckpoint:
      pending_status_ = host_->RestoreCheckpoint(command.state);
      break;
    case UnitCommand::Kind::kTerminate: {
      absl::StatusOr<UnitReport> report = host_->Terminate();
      if (report.ok()) {
        pending_.report = *std::move(report);
      } else {
        pending_status_ = report.status();
      }
      break;
    }
  }
}

absl::Status LocalUnit::Await(UnitResponse* response) {
  // Swapping hands the reply over and keeps both sets of buffers alive for reuse: no copy and,
  // once sized, no allocation per step. Only the member the command filled is swapped.
  switch (pending_kind_) {
    case UnitCommand::Kind::kStep:
    case UnitCommand::Kind::kCommit:
      SwapReplies(response->step, pending_.step);
      break;
    case UnitCommand::Kind::kInitialize:
    case UnitCommand::Kind::kEvaluate:
      std::swap(response->outputs, pending_.outputs);
      break;
    case UnitCommand::Kind::kTerminate:
      std::swap(response->report, pending_.report);
      break;
    case UnitCommand::Kind::kCheckpoint:
      response->checkpoint.swap(pending_.checkpoint);
      break;
    case UnitCommand::Kind::kRestoreCheckpoint:
    case UnitCommand::Kind::kSave:
    case UnitCommand::Kind::kRestore:
    case UnitCommand::Kind::kReject:
      break;
  }
  return pending_status_;
}

}  // namespace cosimo::orchestrator
