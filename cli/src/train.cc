#include "train.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "absl/strings/str_format.h"
#include "cosimo/common/scenario.h"
#include "cosimo/units/trainer.h"

namespace cosimo::client {
namespace {

int Fail(const absl::Status& status) {
  std::cerr << "cosimo: " << status.message() << "\n";
  return status.code() == absl::StatusCode::kInvalidArgument ? 2 : 1;
}

}  // namespace

int RunTrain(const TrainCommand& command) {
  absl::StatusOr<v1::Scenario> scenario = LoadScenarioFile(command.scenario_path);
  if (!scenario.ok()) {
    std::cerr << "cosimo: " << scenario.status().message() << "\n";
    return 2;
  }
  if (absl::Status s = ValidateScenario(*scenario); !s.ok()) {
    std::cerr << "cosimo: " << s.message() << "\n";
    return 2;
  }
  if (command.epochs < 0) return Fail(absl::InvalidArgumentError("--epochs must be >= 0"));
  if (!(command.learning_rate > 0.0) || !std::isfinite(command.learning_rate)) {
    return Fail(absl::InvalidArgumentError("--learning-rate must be a positive number"));
  }
  std::ifstream in(command.data_path, std::ios::binary);
  if (!in) {
    return Fail(absl::InvalidArgumentError("--data: cannot read '" + command.data_path + "'"));
  }
  std::stringstream data;
  data << in.rdbuf();
  absl::StatusOr<std::unique_ptr<units::Trainer>> trainer =
      units::Trainer::Create(*scenario, command.unit, data.str(), command.data_path);
  if (!trainer.ok()) return Fail(trainer.status());

  std::cerr << absl::StrFormat(
      "training unit '%s': %d parameters, %d samples of %s; %d epochs of Adam (step %g)\n",
      command.unit, (*trainer)->num_parameters(), (*trainer)->samples(),
      [&] {
        std::string names;
        for (const std::string& n : (*trainer)->compared())
          names += (names.empty() ? "" : ", ") + n;
        return names;
      }(),
      command.epochs, command.learning_rate);
  units::TrainingOptions options;
  options.epochs = command.epochs;
  options.learning_rate = command.learning_rate;
  const int every = std::max(1, command.epochs / 20);
  double first_loss = NAN, seconds = 0.0;
  bool interrupted = false;
  absl::StatusOr<double> loss = (*trainer)->Train(options, [&](const units::EpochProgress& p) {
    if (p.epoch == 1) first_loss = p.loss;
    seconds = p.seconds;
    if (p.epoch % every == 0 || p.epoch == 1 || p.epoch == p.epochs) {
      std::cerr << absl::StrFormat("epoch %*d/%d  loss %.6e  %.1f s\n",
                                   static_cast<int>(std::to_string(p.epochs).size()), p.epoch,
                                   p.epochs, p.loss, p.seconds);
    }
    interrupted = command.cancel != nullptr && command.cancel->load();
    return !interrupted;
  });
  if (!loss.ok()) return Fail(loss.status());
  if (interrupted) {
    std::cerr << "cosimo: training interrupted; no weights written\n";
    return 130;
  }
  const std::string out = command.out.empty() ? command.unit + ".weights.json" : command.out;
  if (absl::Status s = units::WriteWeightsFile(out, (*trainer)->weights()); !s.ok()) {
    return Fail(absl::InternalError(std::string(s.message())));
  }
  std::cerr << absl::StrFormat(
      "trained unit '%s': loss %.6e -> %.6e in %d epochs, %.1f s; weights written to %s (set the "
      "unit's hybrid.weights.path to use them)\n",
      command.unit, first_loss, *loss, command.epochs, seconds, out);
  return 0;
}

}  // namespace cosimo::client
