// Training hybrid units: the loss gradient from forward sensitivities against central finite
// differences, determinism, bad input naming the column or field, and the NeuralFMU paper's
// spring-pendulum experiment (reference with friction, white box without it and with a
// displaced rest position; train on one initial state, test on another).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <sstream>
#include <string>

#include "cosimo/common/csv.h"
#include "cosimo/common/scenario.h"
#include "cosimo/units/pendulum_experiment.h"
#include "cosimo/units/trainer.h"
#include "cosimo/units/unit_factory.h"
#include "units/src/hybrid/hybrid_unit.h"

namespace cosimo::units {
namespace {

using experiment::PendulumReferenceCsv;
using experiment::PendulumScenario;
using ::testing::HasSubstr;

// Moves the parameters away from the initialisation (so every one has a gradient), then checks
// the forward-sensitivity gradient against central differences of the loss for every `stride`th
// parameter.
void ExpectGradientMatchesFiniteDifferences(Trainer& trainer, int stride) {
  HybridModel& model = trainer.model();
  Eigen::VectorXd p = model.Parameters();
  for (Eigen::Index i = 0; i < p.size(); ++i) p[i] += 0.05 * std::sin(1.3 * static_cast<double>(i));
  model.SetParameters(p);
  Eigen::VectorXd gradient;
  absl::StatusOr<double> loss = trainer.Loss(&gradient);
  ASSERT_TRUE(loss.ok()) << loss.status();
  ASSERT_EQ(gradient.size(), model.num_parameters());
  const double e = 1e-6;
  for (Eigen::Index k = 0; k < p.size(); k += stride) {
    Eigen::VectorXd pp = p, pm = p;
    pp[k] += e;
    pm[k] -= e;
    model.SetParameters(pp);
    const double lp = *trainer.Loss(nullptr);
    model.SetParameters(pm);
    const double lm = *trainer.Loss(nullptr);
    const double fd = (lp - lm) / (2 * e);
    EXPECT_NEAR(gradient[k], fd, 1e-6 * std::max(1.0, std::abs(fd))) << "parameter " << k;
  }
  model.SetParameters(p);
}

TEST(TrainerTest, LossGradientMatchesFiniteDifferences) {
  const v1::Scenario scenario = PendulumScenario(0.5, 0.0, 1.0, "RK4", /*hidden=*/4, 7);
  const std::string data = PendulumReferenceCsv(0.5, 0.0, 1.0);
  absl::StatusOr<std::unique_ptr<Trainer>> trainer =
      Trainer::Create(scenario, "pendulum", data, "d");
  ASSERT_TRUE(trainer.ok()) << trainer.status();
  ExpectGradientMatchesFiniteDifferences(**trainer, 1);
  // Fixed-step RK4: the loss with sensitivities follows the same path as without.
  Eigen::VectorXd gradient;
  absl::StatusOr<double> loss = (*trainer)->Loss(&gradient);
  absl::StatusOr<double> plain = (*trainer)->Loss(nullptr);
  ASSERT_TRUE(loss.ok() && plain.ok());
  EXPECT_NEAR(*plain, *loss, 1e-14 * std::max(1.0, *loss));
}

TEST(TrainerTest, SameSeedSameWeights) {
  const v1::Scenario scenario = PendulumScenario(0.5, 0.0, 1.0, "RK4", 6, 3);
  const std::string data = PendulumReferenceCsv(0.5, 0.0, 1.0);
  TrainingOptions options;
  options.epochs = 5;
  options.learning_rate = 1e-2;
  Eigen::VectorXd first;
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<std::unique_ptr<Trainer>> trainer =
        Trainer::Create(scenario, "pendulum", data, "d");
    ASSERT_TRUE(trainer.ok()) << trainer.status();
    ASSERT_TRUE((*trainer)->Train(options, nullptr).ok());
    if (run == 0) {
      first = (*trainer)->model().Parameters();
    } else {
      EXPECT_EQ((*trainer)->model().Parameters(), first);
    }
  }
}

TEST(TrainerTest, BadInputNamesTheColumnOrField) {
  const v1::Scenario scenario = PendulumScenario(0.5, 0.0, 1.0, "RK4", 4, 1);
  auto error = [&](const std::string& data, const std::string& unit = "pendulum") {
    absl::StatusOr<std::unique_ptr<Trainer>> t = Trainer::Create(scenario, unit, data, "m.csv");
    EXPECT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
    return std::string(t.status().message());
  };
  EXPECT_THAT(error("time,pendulum.s\n0,0.5\n0.1,0.6\n"),
              HasSubstr("m.csv: no column 'pendulum.v'"));
  EXPECT_THAT(error("time,pendulum.s,pendulum.v\n0,0.5,0\n0.1,nan,0\n"),
              HasSubstr("m.csv line 3 column 2 ('pendulum.s'): 'nan' is not a finite number"));
  EXPECT_THAT(error("time,pendulum.s,pendulum.v\n0,0.5,0\n", "other"),
              HasSubstr("--unit: the scenario has no unit 'other'"));
  v1::Scenario plain = scenario;
  plain.mutable_units(0)->mutable_builtin()->set_model("spring_pendulum");
  absl::StatusOr<std::unique_ptr<Trainer>> t =
      Trainer::Create(plain, "pendulum", "time,pendulum.s,pendulum.v\n0,0.5,0\n", "m.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("is not a hybrid unit"));
}

TEST(TrainerTest, PaperExperimentTrainedHybridBeatsTheWhiteBoxOnTheTestTrajectory) {
  // Train on (0.5 m, 0 m/s), test on (1.0 m, -1.5 m/s), 401 samples on [0, 4] s (the paper's).
  // CI runs a short training; bench/ measures the full one (docs/hybrid.md).
  const experiment::PendulumResult r =
      experiment::RunPendulumExperiment(experiment::PendulumOptions{});
  ASSERT_TRUE(r.status.ok()) << r.status;
  std::cout << "train loss " << r.train_loss_before << " -> " << r.train_loss_after
            << ", test loss " << r.test_loss_before << " -> " << r.test_loss_after
            << ", test position MSE white box " << r.test_position_mse_white_box << ", hybrid "
            << r.test_position_mse_hybrid << ", " << r.parameters << " parameters, "
            << r.train_seconds << " s\n";
  EXPECT_LT(r.train_loss_after, r.train_loss_before / 10.0);
  EXPECT_LT(r.test_position_mse_hybrid, r.test_position_mse_white_box / 10.0)
      << "white box " << r.test_position_mse_white_box << ", hybrid " << r.test_position_mse_hybrid;
}

// The white box as a Model Exchange FMU (SpringPendulum1D-style, tests/fmus/spring_pendulum.c):
// the FMU's Jacobian comes from fmi2GetDirectionalDerivative, the gradient still matches finite
// differences, and training reduces the loss.
v1::Scenario FmuPendulumScenario() {
  const std::string fmu = std::string(COSIMO_BINARY_DIR) + "/fmus/fmi2_spring_pendulum.fmu";
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(R"({"stop_time": 4,
    "units": [{"name": "pendulum", "hybrid": {"fmu": {"path": ")" +
                                                            fmu + R"("},
        "top": {"layers": [{"size": 2, "activation": "IDENTITY"}]},
        "bottom": {"layers": [{"size": 8, "activation": "TANH"}, {"size": 8}]}, "seed": 1},
      "parameters": {"spring.s_rel0": 1.1}, "solver": {"method": "RK4", "step": 0.01}}],
    "algorithm": {"step_size": 0.01}, "record": ["pendulum.mass.s", "pendulum.mass.v"]})");
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  return scenario.ok() ? *scenario : v1::Scenario();
}

std::string FmuPendulumData() {
  std::string data = PendulumReferenceCsv(0.5, 0.0, 4.0);
  const std::string header = "time,pendulum.s,pendulum.v";
  EXPECT_EQ(data.rfind(header, 0), 0u);
  return "time,pendulum.mass.s,pendulum.mass.v" + data.substr(header.size());
}

TEST(TrainerFmuTest, GradientThroughDirectionalDerivativesMatchesFiniteDifferences) {
  absl::StatusOr<std::unique_ptr<Trainer>> trainer =
      Trainer::Create(FmuPendulumScenario(), "pendulum", FmuPendulumData(), "d");
  ASSERT_TRUE(trainer.ok()) << trainer.status();
  ExpectGradientMatchesFiniteDifferences(**trainer, 7);
}

TEST(TrainerFmuTest, TrainingAroundTheFmuReducesTheLoss) {
  absl::StatusOr<std::unique_ptr<Trainer>> trainer =
      Trainer::Create(FmuPendulumScenario(), "pendulum", FmuPendulumData(), "d");
  ASSERT_TRUE(trainer.ok()) << trainer.status();
  const double before = *(*trainer)->Loss(nullptr);
  TrainingOptions options;
  options.epochs = 100;
  options.learning_rate = 1e-2;
  absl::StatusOr<double> after = (*trainer)->Train(options, nullptr);
  ASSERT_TRUE(after.ok()) << after.status();
  std::cout << "FMU white box: loss " << before << " -> " << *after << "\n";
  EXPECT_LT(*after, before / 10.0);
}

}  // namespace
}  // namespace cosimo::units
