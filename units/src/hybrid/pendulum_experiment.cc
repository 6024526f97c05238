#include "cosimo/units/pendulum_experiment.h"

#include <chrono>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/scenario.h"
#include "cosimo/units/trainer.h"
#include "cosimo/units/unit_factory.h"
#include "units/src/hybrid/hybrid_model.h"

namespace cosimo::units::experiment {

v1::Scenario PendulumScenario(double s0, double v0, double stop, const std::string& solver,
                              int hidden, uint64_t seed) {
  const std::string json = absl::StrCat(
      R"({"name": "spring-pendulum-hybrid", "start_time": 0, "stop_time": )", stop, R"(,
  "units": [{"name": "pendulum",
    "hybrid": {"builtin": {"model": "spring_pendulum",
                           "parameters": {"s_rest": 1.1, "s0": )",
      s0, R"(, "v0": )", v0, R"(}},
               "top": {"layers": [{"size": 2, "activation": "IDENTITY"}]},
               "bottom": {"layers": [{"size": )",
      hidden, R"(, "activation": "TANH"}, {"size": )", hidden, R"(, "activation": "TANH"}]},
               "seed": )",
      seed, R"(},
    "solver": {"method": ")",
      solver, R"(", "step": 0.01}}],
  "algorithm": {"kind": "JACOBI", "step_size": 0.01},
  "record": ["pendulum.s", "pendulum.v"]})");
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(json);
  return scenario.ok() ? *scenario : v1::Scenario();
}

std::string PendulumReferenceCsv(double s0, double v0, double stop) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(absl::StrCat(
      R"({"stop_time": 1, "algorithm": {"step_size": 1}, "units": [{"name": "pendulum",
          "builtin": {"model": "spring_pendulum", "parameters": {"s0": )",
      s0, R"(, "v0": )", v0, ", ", kReferenceFriction, R"(}},
          "solver": {"method": "RK4", "step": 1e-4}}]})"));
  if (!scenario.ok()) return "";
  absl::StatusOr<std::unique_ptr<Unit>> unit = CreateUnit(scenario->units(0), "");
  if (!unit.ok() || !(*unit)->Initialize(0.0, stop).ok()) return "";
  ResultTable table;
  table.columns = {"time", "pendulum.s", "pendulum.v"};
  OutputsReply initial;
  if (!(*unit)->Evaluate(Eigen::VectorXd(), &initial).ok()) return "";
  table.values = {0.0, initial.outputs[0], initial.outputs[1]};
  const int steps = static_cast<int>(stop / 0.01 + 0.5);
  StepReply reply;
  for (int i = 1; i <= steps; ++i) {
    StepRequest request;
    request.time = (*unit)->time();
    request.step = i * 0.01 - request.time;
    (*unit)->Step(request, &reply);
    if (reply.status != StepStatus::kOk) return "";
    table.values.insert(table.values.end(), {reply.end_time, reply.outputs[0], reply.outputs[1]});
  }
  std::ostringstream out;
  WriteCsv(out, table);
  return out.str();
}

namespace {

// Mean squared position error of `trainer`'s current trajectory against its data (column 0).
absl::StatusOr<double> PositionMse(Trainer& trainer, const std::string& data) {
  absl::StatusOr<Eigen::MatrixXd> simulated = trainer.Simulate();
  if (!simulated.ok()) return simulated.status();
  std::istringstream in(data);
  std::string line;
  std::getline(in, line);  // header
  double sum = 0.0;
  Eigen::Index row = 0;
  while (std::getline(in, line) && row < simulated->rows()) {
    const double measured = std::stod(line.substr(line.find(',') + 1));
    const double e = (*simulated)(row++, 0) - measured;
    sum += e * e;
  }
  return sum / static_cast<double>(row);
}

}  // namespace

PendulumResult RunPendulumExperiment(const PendulumOptions& options) {
  PendulumResult result;
  const std::string train_data = PendulumReferenceCsv(0.5, 0.0, 4.0);
  const std::string test_data = PendulumReferenceCsv(1.0, -1.5, 4.0);
  if (train_data.empty() || test_data.empty()) {
    result.status = absl::InternalError("the reference simulation failed");
    return result;
  }
  absl::StatusOr<std::unique_ptr<Trainer>> train =
      Trainer::Create(PendulumScenario(0.5, 0.0, 4.0, "RK4", options.hidden, options.seed),
                      "pendulum", train_data, "training data");
  absl::StatusOr<std::unique_ptr<Trainer>> test =
      Trainer::Create(PendulumScenario(1.0, -1.5, 4.0, "RK4", options.hidden, options.seed),
                      "pendulum", test_data, "test data");
  if (!train.ok() || !test.ok()) {
    result.status = train.ok() ? test.status() : train.status();
    return result;
  }
  result.parameters = (*train)->num_parameters();
  auto evaluate = [&](double* train_loss, double* test_loss, double* test_position) {
    absl::StatusOr<double> a = (*train)->Loss(nullptr);
    absl::StatusOr<double> b = (*test)->Loss(nullptr);
    absl::StatusOr<double> c = PositionMse(**test, test_data);
    if (!a.ok() || !b.ok() || !c.ok()) {
      return !a.ok() ? a.status() : !b.ok() ? b.status() : c.status();
    }
    *train_loss = *a;
    *test_loss = *b;
    *test_position = *c;
    return absl::OkStatus();
  };
  result.status = evaluate(&result.train_loss_before, &result.test_loss_before,
                           &result.test_position_mse_white_box);
  if (!result.status.ok()) return result;
  TrainingOptions training;
  training.epochs = options.epochs;
  training.learning_rate = options.learning_rate;
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<double> trained = (*train)->Train(training, nullptr);
  result.train_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!trained.ok()) {
    result.status = trained.status();
    return result;
  }
  (*test)->model().SetParameters((*train)->model().Parameters());
  result.status =
      evaluate(&result.train_loss_after, &result.test_loss_after, &result.test_position_mse_hybrid);
  return result;
}

}  // namespace cosimo::units::experiment
