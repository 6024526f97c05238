#include "orchestrator/src/remote_unit.h"

#include "cosimo/common/unit_api_proto.h"

namespace cosimo::orchestrator {

std::unique_ptr<RemoteUnit> RemoteUnit::StartLoad(std::shared_ptr<WorkerConnection> worker,
                                                  const v1::LoadUnit& load,
                                                  const WorkerConnection::WaitOptions& wait) {
  std::unique_ptr<RemoteUnit> unit(new RemoteUnit(std::move(worker), load.unit().name()));
  unit->wait_ = wait;
  unit->command_.set_seq(++unit->seq_);
  *unit->command_.mutable_load_unit() = load;
  unit->write_failed_ = !unit->worker_->Write(unit->command_);
  return unit;
}

absl::Status RemoteUnit::FinishLoad() {
  if (write_failed_) {
    return Context(absl::UnavailableError("the worker is gone: " + worker_->lost_reason()));
  }
  if (absl::Status s = worker_->WaitReply(seq_, &reply_, wait_); !s.ok()) return Context(s);
  if (!reply_.has_unit_loaded()) return Context(absl::InternalError("expected UnitLoaded"));
  const v1::UnitLoaded& loaded = reply_.unit_loaded();
  if (loaded.has_error()) return Context(FromProto(loaded.error()));
  description_ = FromProto(loaded);
  mode_ = loaded.mode();
  return absl::OkStatus();
}

WorkerConnection::WaitOptions RemoteUnit::WaitFor() const {
  WorkerConnection::WaitOptions wait = wait_;
  if (pending_kind_ == UnitCommand::Kind::kTerminate) wait.cancel = nullptr;
  return wait;
}

std::string RemoteUnit::location() const { return worker_->id() + "@" + worker_->host(); }

absl::Status RemoteUnit::Context(const absl::Status& status) const {
  if (status.ok()) return status;
  if (status.message().find("unit '" + name_ + "'") != absl::string_view::npos) return status;
  return absl::Status(status.code(), "unit '" + name_ + "' (" + worker_->Describe() +
                                         "): " + std::string(status.message()));
}

void RemoteUnit::Send(const UnitCommand& command) {
  if (round_trips_) sent_ = std::chrono::steady_clock::now();
  command_.set_seq(++seq_);
  pending_kind_ = command.kind;
  switch (command.kind) {
    case UnitCommand::Kind::kInitialize:
      command_.mutable_initialize()->set_time(command.time);
      break;
    case UnitCommand::Kind::kEvaluate: {
      auto* inputs = command_.mutable_evaluate()->mutable_inputs();
      inputs->Clear();
      for (Eigen::Index i = 0; i < command.inputs.size(); ++i) inputs->Add(command.inputs[i]);
      break;
    }
    case UnitCommand::Kind::kStep:
      ToProto(command.step, command_.mutable_step());
      break;
    case UnitCommand::Kind::kSave:
      command_.mutable_save();
      break;
    case UnitCommand::Kind::kRestore:
      command_.mutable_restore();
      break;
    case UnitCommand::Kind::kCommit:
      command_.mutable_commit();
      break;
    case UnitCommand::Kind::kReject:
      command_.mutable_reject();
      break;
    case UnitCommand::Kind::kTerminate:
      command_.mutable_terminate();
      break;
  }
  write_failed_ = !worker_->Write(command_);
}

absl::Status RemoteUnit::Await(UnitResponse* response) {
  if (write_failed_) {
    return Context(absl::UnavailableError("the worker is gone: " + worker_->lost_reason()));
  }
  if (absl::Status s = worker_->WaitReply(seq_, &reply_, WaitFor()); !s.ok()) return Context(s);
  if (round_trips_) {
    round_trips_->Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - sent_).count());
  }
  switch (pending_kind_) {
    case UnitCommand::Kind::kInitialize:
    case UnitCommand::Kind::kEvaluate:
      if (!reply_.has_outputs()) return Context(absl::InternalError("expected Outputs"));
      if (reply_.outputs().has_error()) return Context(FromProto(reply_.outputs().error()));
      FromProto(reply_.outputs(), &response->outputs);
      return absl::OkStatus();
    case UnitCommand::Kind::kStep:
    case UnitCommand::Kind::kCommit:
      if (!reply_.has_step_done()) return Context(absl::InternalError("expected StepDone"));
      FromProto(reply_.step_done(), &response->step);
      return absl::OkStatus();
    case UnitCommand::Kind::kSave:
    case UnitCommand::Kind::kRestore:
    case UnitCommand::Kind::kReject:
    case UnitCommand::Kind::kTerminate:
      break;
  }
  if (!reply_.has_ack()) return Context(absl::InternalError("expected Ack"));
  if (reply_.ack().has_error()) return Context(FromProto(reply_.ack().error()));
  if (pending_kind_ == UnitCommand::Kind::kTerminate) {
    response->report.mode = reply_.ack().mode().empty() ? "direct" : reply_.ack().mode();
    response->report.real_integrations = reply_.ack().real_integrations();
    response->report.estimates = reply_.ack().estimates();
  }
  return absl::OkStatus();
}

}  // namespace cosimo::orchestrator
