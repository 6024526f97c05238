#include "cosimo/orchestrator/local_unit.h"

#include <utility>

namespace cosimo::orchestrator {

absl::StatusOr<std::unique_ptr<LocalUnit>> LocalUnit::Create(const v1::LoadUnit& load) {
  absl::StatusOr<std::unique_ptr<worker::UnitHost>> host = worker::UnitHost::Create(load);
  if (!host.ok()) return host.status();
  return std::unique_ptr<LocalUnit>(new LocalUnit(load.unit().name(), *std::move(host)));
}

void LocalUnit::Send(const UnitCommand& command) {
  pending_status_ = absl::OkStatus();
  switch (command.kind) {
    case UnitCommand::Kind::kInitialize:
      pending_status_ = host_->Initialize(command.time, &pending_.outputs);
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
  // once sized, no allocation per step.
  std::swap(*response, pending_);
  return pending_status_;
}

}  // namespace cosimo::orchestrator
