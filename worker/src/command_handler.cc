#include "cosimo/worker/command_handler.h"

#include <spdlog/spdlog.h>

#include <Eigen/Core>

#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/common/unit_api_proto.h"
#include "cosimo/units/unit_host.h"

namespace cosimo::worker {

class CommandHandler::Impl {
 public:
  explicit Impl(ArtifactFetcher fetch) : fetch_(std::move(fetch)) {}

  void Handle(const v1::OrchestratorMessage& command, v1::WorkerMessage* reply) {
    // Step and Commit replies rewrite every field of StepDone (ToProto), so on the step path
    // the reply message and its buffers are reused; Clear() would free and reallocate them.
    const bool step_reply = host_ && (command.body_case() == v1::OrchestratorMessage::kStep ||
                                      command.body_case() == v1::OrchestratorMessage::kCommit);
    if (!step_reply || !reply->has_step_done()) reply->Clear();
    reply->set_seq(command.seq());
    switch (command.body_case()) {
      case v1::OrchestratorMessage::kLoadUnit:
        return Load(command.load_unit(), reply->mutable_unit_loaded());
      case v1::OrchestratorMessage::kInitialize: {
        command_.kind = UnitCommand::Kind::kInitialize;
        command_.time = command.initialize().time();
        const auto& hold = command.initialize().hold_outputs();
        command_.hold_outputs.assign(hold.begin(), hold.end());
        return RunOnHost(reply);
      }
      case v1::OrchestratorMessage::kEvaluate: {
        command_.kind = UnitCommand::Kind::kEvaluate;
        const auto& in = command.evaluate().inputs();
        command_.inputs.resize(in.size());
        for (int i = 0; i < in.size(); ++i) command_.inputs[i] = in.Get(i);
        return RunOnHost(reply);
      }
      case v1::OrchestratorMessage::kStep:
        command_.kind = UnitCommand::Kind::kStep;
        FromProto(command.step(), &command_.step);
        return RunOnHost(reply);
      case v1::OrchestratorMessage::kCommit:
        return RunOnHost(UnitCommand::Kind::kCommit, reply);
      case v1::OrchestratorMessage::kSave:
        return RunOnHost(UnitCommand::Kind::kSave, reply);
      case v1::OrchestratorMessage::kRestore:
        return RunOnHost(UnitCommand::Kind::kRestore, reply);
      case v1::OrchestratorMessage::kReject:
        return RunOnHost(UnitCommand::Kind::kReject, reply);
      case v1::OrchestratorMessage::kTerminate:
        return RunOnHost(UnitCommand::Kind::kTerminate, reply);
      case v1::OrchestratorMessage::kTakeCheckpoint:
        return RunOnHost(UnitCommand::Kind::kCheckpoint, reply);
      case v1::OrchestratorMessage::kRestoreCheckpoint:
        command_.kind = UnitCommand::Kind::kRestoreCheckpoint;
        command_.state = command.restore_checkpoint().state();
        return RunOnHost(reply);
      case v1::OrchestratorMessage::kTrain:
        // Several replies (progress, then done): the session runs it (train_command.h).
        return Ack(absl::InvalidArgumentError("worker: Train is not a unit command"), reply);
      case v1::OrchestratorMessage::kRunVariants:
        // Whole variants, no unit of the stream's: the session runs them (variant_runner.h).
        return Ack(absl::InvalidArgumentError("worker: RunVariants is not a unit command"), reply);
      case v1::OrchestratorMessage::kRunJob:
        // A whole job, no unit of the stream's: the session runs it (job_command.h).
        return Ack(absl::InvalidArgumentError("worker: RunJob is not a unit command"), reply);
      case v1::OrchestratorMessage::kResumePart:  // read by the session after its RunJob
      case v1::OrchestratorMessage::kWelcome:
      case v1::OrchestratorMessage::kBatch:  // SlotHandler's, never inside a batch
      case v1::OrchestratorMessage::BODY_NOT_SET:
        break;
    }
    Ack(absl::InvalidArgumentError("worker: unexpected command"), reply);
  }

  std::string DropUnit() {
    if (!host_) return "";
    (void)host_->Terminate();
    host_.reset();
    return unit_name_;
  }

 private:
  static absl::Status NoUnit() { return absl::FailedPreconditionError("worker: no unit loaded"); }

  void Load(const v1::LoadUnit& load_in, v1::UnitLoaded* loaded) {
    if (host_) {
      spdlog::warn("unit '{}' replaced by a new LoadUnit", unit_name_);
      DropUnit();
    }
    v1::LoadUnit load = load_in;
    const v1::Unit& unit = load.unit();
    if (absl::Status fetched = FetchUnitArtifacts(&load, fetch_); !fetched.ok()) {
      ToProto(fetched, loaded->mutable_error());
      return;
    }
    absl::StatusOr<std::unique_ptr<units::UnitHost>> host = units::UnitHost::Create(load);
    if (!host.ok()) {
      spdlog::error("cannot load unit '{}': {}", unit.name(), host.status().message());
      ToProto(host.status(), loaded->mutable_error());
      return;
    }
    host_ = *std::move(host);
    unit_name_ = unit.name();
    ToProto(host_->description(), loaded);
    loaded->set_iterative_mode(ToProto(host_->iterative_mode()));
    spdlog::info("loaded unit '{}' of job {} ({} mode in iterative schemes)", unit_name_,
                 load.job_id(), IterativeModeName(host_->iterative_mode()));
  }

  void RunOnHost(UnitCommand::Kind kind, v1::WorkerMessage* reply) {
    command_.kind = kind;
    RunOnHost(reply);
  }

  // command_ on the loaded unit (UnitHost::Run, the dispatcher LocalUnit uses too), answered
  // with the reply its kind has in the worker protocol.
  void RunOnHost(v1::WorkerMessage* reply) {
    const absl::Status status = host_ ? host_->Run(command_, &response_) : NoUnit();
    switch (command_.kind) {
      case UnitCommand::Kind::kInitialize:
      case UnitCommand::Kind::kEvaluate: {
        v1::Outputs* out = reply->mutable_outputs();
        if (!status.ok()) return ToProto(status, out->mutable_error());
        return ToProto(response_.outputs, out);
      }
      case UnitCommand::Kind::kStep:
      case UnitCommand::Kind::kCommit:
        if (!status.ok()) return ToProto(status, reply->mutable_step_done()->mutable_error());
        return ToProto(response_.step, reply->mutable_step_done());
      case UnitCommand::Kind::kCheckpoint: {
        v1::CheckpointTaken* taken = reply->mutable_checkpoint_taken();
        if (!status.ok()) return ToProto(status, taken->mutable_error());
        taken->mutable_state()->swap(response_.checkpoint);
        return;
      }
      case UnitCommand::Kind::kTerminate:
        return Terminated(status, reply->mutable_ack());
      case UnitCommand::Kind::kSave:
      case UnitCommand::Kind::kRestore:
      case UnitCommand::Kind::kReject:
      case UnitCommand::Kind::kRestoreCheckpoint:
        return Ack(status, reply);
    }
  }

  static void Ack(const absl::Status& status, v1::WorkerMessage* reply) {
    v1::Ack* ack = reply->mutable_ack();
    if (!status.ok()) ToProto(status, ack->mutable_error());
  }

  // Terminate without a unit loaded is a plain ack, as the orchestrator terminates survivors.
  void Terminated(const absl::Status& status, v1::Ack* ack) {
    if (!host_) return;
    host_.reset();
    spdlog::info("unit '{}' terminated; back in the pool", unit_name_);
    if (!status.ok()) return ToProto(status, ack->mutable_error());
    ToProto(response_.report, ack);
  }

  ArtifactFetcher fetch_;
  std::unique_ptr<units::UnitHost> host_;
  std::string unit_name_;
  // Reused per command: no allocation on the step path once sized.
  UnitCommand command_;
  UnitResponse response_;
};

absl::Status FetchUnitArtifacts(
    v1::LoadUnit* load,
    const std::function<absl::StatusOr<std::string>(const std::string& digest)>& fetch) {
  if (!load->artifact_path().empty()) return absl::OkStatus();
  const bool hybrid = load->unit().has_hybrid();
  const std::string name = load->unit().name();
  for (const UnitArtifact& artifact : MutableUnitArtifacts(load->mutable_unit())) {
    if (artifact.digest->empty()) continue;
    absl::StatusOr<std::string> path = fetch(*artifact.digest);
    if (!path.ok()) return Annotate(path.status(), "unit '" + name + "'");
    *artifact.path = *path;
    if (!hybrid) load->set_artifact_path(*path);
  }
  return absl::OkStatus();
}

CommandHandler::CommandHandler(ArtifactFetcher fetch)
    : impl_(std::make_unique<Impl>(std::move(fetch))) {}

CommandHandler::~CommandHandler() { impl_->DropUnit(); }

void CommandHandler::Handle(const v1::OrchestratorMessage& command, v1::WorkerMessage* reply) {
  impl_->Handle(command, reply);
}

std::string CommandHandler::DropUnit() { return impl_->DropUnit(); }

}  // namespace cosimo::worker
