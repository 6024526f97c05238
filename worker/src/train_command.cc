#include "cosimo/worker/train_command.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "cosimo/common/unit_api_proto.h"
#include "cosimo/units/abandon.h"
#include "cosimo/units/trainer.h"

namespace cosimo::worker {
namespace {

// The trainer of the command's unit, its artifacts and data fetched.
absl::StatusOr<std::unique_ptr<units::Trainer>> CreateTrainer(
    const v1::Train& train, const TrainingArtifactFetcher& fetch) {
  v1::Scenario scenario = train.scenario();
  const v1::TrainingRequest& request = train.request();
  for (v1::Unit& unit : *scenario.mutable_units()) {
    if (unit.name() != request.unit()) continue;
    for (const UnitArtifact& artifact : MutableUnitArtifacts(&unit)) {
      if (artifact.digest->empty()) continue;
      absl::StatusOr<std::string> path = fetch(*artifact.digest);
      if (!path.ok()) return Annotate(path.status(), "unit '" + unit.name() + "'");
      *artifact.path = *path;
    }
  }
  const std::string data_name = request.data_name().empty() ? "data" : request.data_name();
  absl::StatusOr<std::string> data_path = fetch(request.data_digest());
  if (!data_path.ok()) return Annotate(data_path.status(), "the training data " + data_name);
  std::ifstream in(*data_path, std::ios::binary);
  if (!in) return absl::InternalError("cannot read the fetched training data " + data_name);
  std::stringstream data;
  data << in.rdbuf();
  return units::Trainer::Create(scenario, request.unit(), data.str(), data_name);
}

}  // namespace

void RunTrainingJob(const v1::Train& train, const TrainingArtifactFetcher& fetch,
                    const std::function<bool(const v1::TrainingProgress&)>& send,
                    v1::TrainingDone* done) {
  done->Clear();
  const v1::TrainingRequest& request = train.request();
  absl::StatusOr<std::unique_ptr<units::Trainer>> trainer = CreateTrainer(train, fetch);
  if (!trainer.ok()) {
    ToProto(trainer.status(), done->mutable_error());
    return;
  }
  spdlog::info("job {}: training unit '{}' ({} parameters, {} samples), {} epochs", train.job_id(),
               request.unit(), (*trainer)->num_parameters(), (*trainer)->samples(),
               request.epochs());
  units::TrainingOptions options;
  options.epochs = request.epochs();
  options.learning_rate = request.learning_rate();
  const auto interval = std::chrono::milliseconds(train.progress_interval_ms());
  auto last_sent = std::chrono::steady_clock::now() - interval;
  v1::TrainingProgress progress;
  bool stopped = false;
  absl::StatusOr<double> loss = (*trainer)->Train(options, [&](const units::EpochProgress& p) {
    if (p.epoch == 1) done->set_first_loss(p.loss);
    done->set_epochs(p.epoch);
    done->set_seconds(p.seconds);
    const auto now = std::chrono::steady_clock::now();
    if (p.epoch == p.epochs || now - last_sent >= interval) {
      last_sent = now;
      progress.set_epoch(p.epoch);
      progress.set_epochs(p.epochs);
      progress.set_loss(p.loss);
      progress.set_seconds(p.seconds);
      stopped = !send(progress);
    }
    stopped = stopped || units::AbandonRequested();
    return !stopped;
  });
  if (!loss.ok()) {
    ToProto(loss.status(), done->mutable_error());
    return;
  }
  if (stopped) {
    spdlog::info("job {}: training stopped after epoch {}: nobody waits for it", train.job_id(),
                 done->epochs());
    ToProto(absl::CancelledError("training stopped after epoch " + std::to_string(done->epochs())),
            done->mutable_error());
    return;
  }
  done->set_final_loss(*loss);
  done->set_weights_json(units::WeightsJson((*trainer)->weights()));
  spdlog::info("job {}: trained unit '{}' in {} epochs: loss {} -> {}", train.job_id(),
               request.unit(), done->epochs(), done->first_loss(), *loss);
}

}  // namespace cosimo::worker
