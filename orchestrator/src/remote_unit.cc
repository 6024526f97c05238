#include "orchestrator/src/remote_unit.h"

#include <sched.h>

#include <algorithm>

#include <utility>

#include "cosimo/common/unit_api_proto.h"

namespace cosimo::orchestrator {

void WorkerBatch::Hold(RemoteUnit* unit) {
  unit->held_ = true;
  unit->received_ = false;
  held_.push_back(unit);
}

void SendOrder::Ready(Writer* writer) {
  if (std::find(ready_.begin(), ready_.end(), writer) == ready_.end()) ready_.push_back(writer);
}

void SendOrder::WriteReady() {
  if (ready_.empty()) return;
  const int here = sched_getcpu();
  for (Writer* w : ready_) {
    if (w->cpu() == here) w->Write();
  }
  for (Writer* w : ready_) {
    if (w->cpu() != here) w->Write();
  }
  ready_.clear();
}

void WorkerBatch::Flush() {
  if (held_.empty() || ready_) return;
  ready_ = true;
  order_->Ready(this);
}

void WorkerBatch::Write() {
  ready_ = false;
  if (held_.empty()) return;
  // One message in flight per worker and job: a reply not yet collected is collected first (the
  // master awaits every unit of a round before the next, so this is only a safeguard).
  Collect(wait_);
  const uint64_t seq = ++seq_;
  bool written = false;
  if (held_.size() == 1) {
    held_[0]->command_.set_seq(seq);
    written = worker_->Write(held_[0]->command_);
  } else {
    // The units' commands are swapped into the batch and back (Write serializes at once), so
    // that nothing is copied or allocated.
    auto* commands = batch_.mutable_batch()->mutable_commands();
    const int n = static_cast<int>(held_.size());
    while (commands->size() > n) commands->RemoveLast();
    while (commands->size() < n) commands->Add();
    for (int i = 0; i < n; ++i)
      commands->Mutable(i)->Swap(&held_[static_cast<size_t>(i)]->command_);
    batch_.set_seq(seq);
    written = worker_->Write(batch_);
    for (int i = 0; i < n; ++i)
      commands->Mutable(i)->Swap(&held_[static_cast<size_t>(i)]->command_);
  }
  for (RemoteUnit* unit : held_) unit->held_ = false;
  if (written) {
    sent_.swap(held_);
    sent_seq_ = seq;
  } else {
    const absl::Status gone =
        absl::UnavailableError("the worker is gone: " + worker_->lost_reason());
    for (RemoteUnit* unit : held_) {
      unit->received_ = true;
      unit->receive_status_ = gone;
    }
  }
  held_.clear();
}

void WorkerBatch::Receive(RemoteUnit* unit, const WorkerConnection::WaitOptions& wait) {
  if (unit->held_) Flush();
  order_->WriteReady();
  if (!unit->received_) Collect(wait);
}

void WorkerBatch::Collect(const WorkerConnection::WaitOptions& wait) {
  if (sent_.empty()) return;
  absl::Status status;
  if (sent_.size() == 1) {
    status = worker_->WaitReply(sent_seq_, &sent_[0]->reply_, wait);
  } else {
    status = worker_->WaitReply(sent_seq_, &reply_, wait);
    if (status.ok() &&
        (!reply_.has_batch() || reply_.batch().replies_size() != static_cast<int>(sent_.size()))) {
      status = absl::InternalError("expected a ReplyBatch of " + std::to_string(sent_.size()) +
                                   " replies");
    }
    if (status.ok()) {
      auto* replies = reply_.mutable_batch()->mutable_replies();
      for (size_t i = 0; i < sent_.size(); ++i) {
        sent_[i]->reply_.Swap(replies->Mutable(static_cast<int>(i)));
      }
    }
  }
  for (RemoteUnit* unit : sent_) {
    unit->received_ = true;
    unit->receive_status_ = status;
  }
  sent_.clear();
}

std::vector<std::unique_ptr<RemoteUnit>> RemoteUnit::StartLoads(
    const std::vector<std::shared_ptr<WorkerConnection>>& workers,
    const std::vector<v1::LoadUnit>& loads, const WorkerConnection::WaitOptions& wait) {
  std::vector<std::shared_ptr<WorkerBatch>> batches;
  std::vector<std::unique_ptr<RemoteUnit>> units;
  auto order = std::make_shared<SendOrder>();
  const std::vector<int> slots = SlotsOf(workers);
  for (size_t i = 0; i < workers.size() && i < loads.size(); ++i) {
    std::shared_ptr<WorkerBatch> batch;
    for (const auto& b : batches) {
      if (&b->worker() == workers[i].get()) batch = b;
    }
    if (!batch) {
      batch = batches.emplace_back(std::make_shared<WorkerBatch>(workers[i], wait, order));
    }
    std::unique_ptr<RemoteUnit> unit(
        new RemoteUnit(batch, loads[i].unit().name(), static_cast<uint32_t>(slots[i])));
    unit->command_.set_slot(unit->slot_);
    *unit->command_.mutable_load_unit() = loads[i];
    unit->pending_kind_ = UnitCommand::Kind::kInitialize;  // not a Terminate: the cancel counts
    ++unit->commands_;
    batch->Hold(unit.get());
    units.push_back(std::move(unit));
  }
  for (const auto& batch : batches) batch->Flush();
  order->WriteReady();
  return units;
}

absl::Status RemoteUnit::Receive() {
  WorkerConnection::WaitOptions wait = batch_->wait();
  if (pending_kind_ == UnitCommand::Kind::kTerminate) wait.cancel = nullptr;
  batch_->Receive(this, wait);
  received_ = false;
  return Context(receive_status_);
}

absl::Status RemoteUnit::FinishLoad() {
  if (absl::Status s = Receive(); !s.ok()) return s;
  if (!reply_.has_unit_loaded()) return Context(absl::InternalError("expected UnitLoaded"));
  const v1::UnitLoaded& loaded = reply_.unit_loaded();
  if (loaded.has_error()) return Context(FromProto(loaded.error()));
  description_ = FromProto(loaded);
  absl::StatusOr<IterativeMode> mode = IterativeModeFromProto(loaded.iterative_mode());
  if (!mode.ok()) return Context(mode.status());
  mode_ = *mode;
  return absl::OkStatus();
}

absl::Status RemoteUnit::FinishLoads(const std::vector<std::unique_ptr<RemoteUnit>>& units) {
  absl::Status first;
  for (const auto& unit : units) {
    absl::Status s = unit->FinishLoad();
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

std::vector<master::UnitProxy*> RemoteUnit::Proxies(
    const std::vector<std::unique_ptr<RemoteUnit>>& units) {
  std::vector<master::UnitProxy*> proxies;
  for (const auto& unit : units) proxies.push_back(unit.get());
  return proxies;
}

void RemoteUnit::Abandon() {
  if (worker().lost()) return;
  UnitCommand terminate;
  terminate.kind = UnitCommand::Kind::kTerminate;
  UnitResponse ignored;
  (void)Call(terminate, &ignored);
}

master::UnitLocation RemoteUnit::location() const {
  return {batch_->worker().id(), batch_->worker().host()};
}

absl::Status RemoteUnit::Context(const absl::Status& status) const {
  if (status.ok()) return status;
  if (status.message().find("unit '" + name_ + "'") != absl::string_view::npos) return status;
  return absl::Status(status.code(), "unit '" + name_ + "' (" + batch_->worker().Describe() +
                                         "): " + std::string(status.message()));
}

void RemoteUnit::Send(const UnitCommand& command) {
  if (round_trips_) sent_ = std::chrono::steady_clock::now();
  ++commands_;
  pending_kind_ = command.kind;
  switch (command.kind) {
    case UnitCommand::Kind::kInitialize:
      command_.mutable_initialize()->set_time(command.time);
      command_.mutable_initialize()->mutable_hold_outputs()->Assign(command.hold_outputs.begin(),
                                                                    command.hold_outputs.end());
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
    case UnitCommand::Kind::kCheckpoint:
      command_.mutable_take_checkpoint();
      break;
    case UnitCommand::Kind::kRestoreCheckpoint:
      command_.mutable_restore_checkpoint()->set_state(command.state);
      break;
  }
  batch_->Hold(this);
}

void RemoteUnit::Flush() { batch_->Flush(); }

absl::Status RemoteUnit::Await(UnitResponse* response) {
  if (absl::Status s = Receive(); !s.ok()) return s;
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
    case UnitCommand::Kind::kCheckpoint: {
      if (!reply_.has_checkpoint_taken()) {
        return Context(absl::InternalError("expected CheckpointTaken"));
      }
      v1::CheckpointTaken* taken = reply_.mutable_checkpoint_taken();
      if (taken->has_error()) return Context(FromProto(taken->error()));
      response->checkpoint.swap(*taken->mutable_state());
      return absl::OkStatus();
    }
    case UnitCommand::Kind::kSave:
    case UnitCommand::Kind::kRestore:
    case UnitCommand::Kind::kReject:
    case UnitCommand::Kind::kTerminate:
    case UnitCommand::Kind::kRestoreCheckpoint:
      break;
  }
  if (!reply_.has_ack()) return Context(absl::InternalError("expected Ack"));
  if (reply_.ack().has_error()) return Context(FromProto(reply_.ack().error()));
  if (pending_kind_ == UnitCommand::Kind::kTerminate) {
    response->report = ReportFromProto(reply_.ack());
  }
  return absl::OkStatus();
}

}  // namespace cosimo::orchestrator
