// Figure 7: training a hybrid unit on the NeuralFMU paper's spring-pendulum experiment
// (cosimo/units/pendulum_experiment.h, docs/hybrid.md): the training wall time of the
// paper's 2,500 Adam steps against the paper's 22.5 minutes, and the losses before and after.
#include "absl/strings/str_cat.h"
#include "cosimo/units/pendulum_experiment.h"
#include "figures.h"

namespace cosimo::bench {
namespace {

constexpr double kPaperSeconds = 22.5 * 60.0;  // 2,500 steps, single core (the paper's note)
constexpr int kPaperEpochs = 2500;

}  // namespace

absl::Status RunHybridFigure(const Options& options, Report* report) {
  units::experiment::PendulumOptions experiment;
  experiment.epochs = options.smoke ? 5 : kPaperEpochs;
  experiment.learning_rate = 1e-2;
  const units::experiment::PendulumResult r = units::experiment::RunPendulumExperiment(experiment);
  if (!r.status.ok()) return r.status;
  const double speedup = kPaperSeconds / r.train_seconds * experiment.epochs / kPaperEpochs;
  report->Add(
      {"fig7", "hybrid training, 2,500 Adam steps: the paper's 22.5 min / Cosimo's time",
       r.train_seconds, kPaperSeconds, "s", speedup, ">= 20", speedup >= 20.0,
       absl::StrCat(experiment.epochs, " epochs (the ratio scales to 2,500), ", r.parameters,
                    " parameters, 401 samples of s and v on [0, 4] s, RK4 h = 0.01 with "
                    "forward sensitivities, one thread")});
  report->Add({"fig7.train", "training loss (MSE of s and v) after / before", r.train_loss_after,
               r.train_loss_before, "m2", r.train_loss_after / r.train_loss_before, "", true,
               "trained from (s0, v0) = (0.5 m, 0 m/s); before = the white box"});
  report->Add({"fig7.test", "test loss (MSE of s and v) after / before", r.test_loss_after,
               r.test_loss_before, "m2", r.test_loss_after / r.test_loss_before, "", true,
               "tested from (1.0 m, -1.5 m/s), never trained on"});
  const double gain = r.test_position_mse_white_box / r.test_position_mse_hybrid;
  report->Add({"fig7.position", "test position MSE: white box / trained hybrid",
               r.test_position_mse_hybrid, r.test_position_mse_white_box, "m2", gain, ">= 10",
               options.smoke || gain >= 10.0,
               "value = trained hybrid, baseline = white box (frictionless, rest position "
               "displaced by 0.1 m)"});
  return absl::OkStatus();
}

}  // namespace cosimo::bench
