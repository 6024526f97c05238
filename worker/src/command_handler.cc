#include "cosimo/worker/command_handler.h"

#include <spdlog/spdlog.h>

#include <Eigen/Core>

#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/common/unit_api_proto.h"
#include "cosimo/worker/unit_host.h"

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
      case v1::OrchestratorMessage::kInitialize:
        if (!RequireHost([&] { return reply->mutable_outputs()->mutable_error(); })) return;
        {
          const auto& hold = command.initialize().hold_outputs();
          return ReplyOutputs(host_->Initialize(command.initialize().time(), &outputs_,
                                                std::vector<int>(hold.begin(), hold.end())),
                              reply);
        }
      case v1::OrchestratorMessage::kEvaluate: {
        if (!RequireHost([&] { return reply->mutable_outputs()->mutable_error(); })) return;
        const auto& in = command.evaluate().inputs();
        inputs_.resize(in.size());
        for (int i = 0; i < in.size(); ++i) inputs_[i] = in.Get(i);
        return ReplyOutputs(host_->Evaluate(inputs_, &outputs_), reply);
      }
      case v1::OrchestratorMessage::kStep:
        if (!RequireHost([&] { return reply->mutable_step_done()->mutable_error(); })) return;
        FromProto(command.step(), &step_request_);
        host_->Step(step_request_, &step_reply_);
        ToProto(step_reply_, reply->mutable_step_done());
        return;
      case v1::OrchestratorMessage::kCommit:
        if (!RequireHost([&] { return reply->mutable_step_done()->mutable_error(); })) return;
        host_->Commit(&step_reply_);
        ToProto(step_reply_, reply->mutable_step_done());
        return;
      case v1::OrchestratorMessage::kSave:
        return Ack(host_ ? host_->Save() : NoUnit(), reply);
      case v1::OrchestratorMessage::kRestore:
        return Ack(host_ ? host_->Restore() : NoUnit(), reply);
      case v1::OrchestratorMessage::kReject:
        return Ack(host_ ? host_->Reject() : NoUnit(), reply);
      case v1::OrchestratorMessage::kTerminate:
        return Terminate(reply->mutable_ack());
      case v1::OrchestratorMessage::kTakeCheckpoint:
        return TakeCheckpoint(reply->mutable_checkpoint_taken());
      case v1::OrchestratorMessage::kRestoreCheckpoint:
        return Ack(
            host_ ? host_->RestoreCheckpoint(command.restore_checkpoint().state()) : NoUnit(),
            reply);
      case v1::OrchestratorMessage::kTrain:
        // Several replies (progress, then done): the session runs it (training_job.h).
        return Ack(absl::InvalidArgumentError("worker: Train is not a unit command"), reply);
      case v1::OrchestratorMessage::kRunVariants:
        // Whole variants, no unit of the stream's: the session runs them (variant_runner.h).
        return Ack(absl::InvalidArgumentError("worker: RunVariants is not a unit command"), reply);
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

  // Only touches the reply (creating its error field) when no unit is loaded.
  template <typename MutableError>
  bool RequireHost(MutableError mutable_error) {
    if (host_) return true;
    ToProto(NoUnit(), mutable_error());
    return false;
  }

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
    absl::StatusOr<std::unique_ptr<UnitHost>> host = UnitHost::Create(load);
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

  void ReplyOutputs(const absl::Status& status, v1::WorkerMessage* reply) {
    v1::Outputs* out = reply->mutable_outputs();
    if (!status.ok()) {
      ToProto(status, out->mutable_error());
      return;
    }
    ToProto(outputs_, out);
  }

  static void Ack(const absl::Status& status, v1::WorkerMessage* reply) {
    v1::Ack* ack = reply->mutable_ack();
    if (!status.ok()) ToProto(status, ack->mutable_error());
  }

  void TakeCheckpoint(v1::CheckpointTaken* taken) {
    absl::StatusOr<std::string> state = host_ ? host_->Checkpoint() : NoUnit();
    if (!state.ok()) {
      ToProto(state.status(), taken->mutable_error());
      return;
    }
    *taken->mutable_state() = *std::move(state);
  }

  void Terminate(v1::Ack* ack) {
    if (!host_) return;
    absl::StatusOr<UnitReport> report = host_->Terminate();
    host_.reset();
    spdlog::info("unit '{}' terminated; back in the pool", unit_name_);
    if (!report.ok()) {
      ToProto(report.status(), ack->mutable_error());
      return;
    }
    ToProto(*report, ack);
  }

  ArtifactFetcher fetch_;
  std::unique_ptr<UnitHost> host_;
  std::string unit_name_;
  // Reused per command: no allocation on the step path once sized.
  StepRequest step_request_;
  StepReply step_reply_;
  OutputsReply outputs_;
  Eigen::VectorXd inputs_;
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
