// The split models under a minimal Jacobi master (written here, so the models are checked on
// their own): the dual-mass oscillator and the passenger converge to their monolithic models'
// exact solutions at the order of the input approximation (ZOH: 1, FOH extrapolation: 2). The
// orchestrator's algorithms are tested in tests/orchestrator; this only shows that the split
// units are consistent and directly usable.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "tests/units/solvers/test_systems.h"
#include "units/src/models/builtin_models.h"

namespace cosimo::units {
namespace {

struct Link {
  int from_unit, from_output, to_unit, to_input;
};

// Runs Jacobi with communication step H to `end`; returns the outputs of every unit at every
// communication point: [point][unit] -> outputs.
std::vector<std::vector<Eigen::VectorXd>> Jacobi(const std::vector<std::string>& models,
                                                 const std::vector<Link>& links, double H,
                                                 double end, bool first_order_hold) {
  std::vector<std::unique_ptr<Unit>> units;
  for (const std::string& model : models) {
    absl::StatusOr<std::unique_ptr<Unit>> unit =
        CreateBuiltinUnit(testing::BuiltinSpec(model, model));
    EXPECT_TRUE(unit.ok()) << unit.status();
    EXPECT_TRUE((*unit)->Initialize(0.0, end).ok());
    units.push_back(std::move(*unit));
  }
  const size_t n = units.size();
  auto inputs_from = [&](const std::vector<Eigen::VectorXd>& outputs, size_t unit) {
    Eigen::VectorXd u =
        Eigen::VectorXd::Zero(static_cast<Eigen::Index>(units[unit]->description().inputs.size()));
    for (const Link& link : links) {
      if (link.to_unit == static_cast<int>(unit))
        u[link.to_input] = outputs[link.from_unit][link.from_output];
    }
    return u;
  };
  // Initial outputs: evaluate twice so that output-reactive units see their inputs.
  std::vector<Eigen::VectorXd> outputs(n);
  for (size_t i = 0; i < n; ++i) {
    outputs[i] =
        Eigen::VectorXd::Zero(static_cast<Eigen::Index>(units[i]->description().outputs.size()));
  }
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < n; ++i) {
      OutputsReply reply;
      EXPECT_TRUE(units[i]->Evaluate(inputs_from(outputs, i), &reply).ok());
      outputs[i] = reply.outputs;
    }
  }
  std::vector<std::vector<Eigen::VectorXd>> history = {outputs};
  const int steps = static_cast<int>(std::lround(end / H));
  for (int k = 0; k < steps; ++k) {
    std::vector<Eigen::VectorXd> next(n);
    for (size_t i = 0; i < n; ++i) {
      const Eigen::VectorXd now = inputs_from(history.back(), i);
      StepRequest request;
      request.time = k * H;
      request.step = H;
      if (first_order_hold && history.size() >= 2) {
        const Eigen::VectorXd before = inputs_from(history[history.size() - 2], i);
        request.inputs.coefficients.resize(now.size(), 2);
        request.inputs.coefficients.col(0) = now;
        request.inputs.coefficients.col(1) = (now - before) / H;
      } else {
        request.inputs.coefficients = now;
      }
      StepReply reply;
      units[i]->Step(request, &reply);
      EXPECT_EQ(reply.status, StepStatus::kOk) << reply.message;
      next[i] = reply.outputs;
    }
    history.push_back(next);
  }
  return history;
}

// Max over communication points of |co-simulated - monolithic| for the given (unit, output) to
// monolithic output pairs.
double MaxError(const std::vector<std::vector<Eigen::VectorXd>>& cosim,
                const std::string& monolithic, const std::map<std::pair<int, int>, int>& pairs,
                double H, double end) {
  const auto whole = Jacobi({monolithic}, {}, H, end, false);
  double worst = 0.0;
  for (size_t k = 0; k < cosim.size(); ++k) {
    for (const auto& [part, index] : pairs) {
      worst = std::max(worst, std::abs(cosim[k][part.first][part.second] - whole[k][0][index]));
    }
  }
  return worst;
}

// dual_mass_oscillator_1: u = [F_c], y = [x1, v1]; _2: u = [x1, v1], y = [x2, v2, F_c];
// monolithic y = [x1, v1, x2, v2, F_c].
const std::vector<Link> kDualMassLinks = {{0, 0, 1, 0}, {0, 1, 1, 1}, {1, 2, 0, 0}};
const std::map<std::pair<int, int>, int> kDualMassPairs = {
    {{0, 0}, 0}, {{0, 1}, 1}, {{1, 0}, 2}, {{1, 1}, 3}};

double DualMassError(double H, bool foh) {
  constexpr double kEnd = 2.0;
  const auto cosim =
      Jacobi({"dual_mass_oscillator_1", "dual_mass_oscillator_2"}, kDualMassLinks, H, kEnd, foh);
  return MaxError(cosim, "dual_mass_oscillator", kDualMassPairs, H, kEnd);
}

TEST(CosimulationTest, DualMassOscillatorJacobiConvergesAtTheOrderOfTheHold) {
  const double zoh_order = std::log2(DualMassError(0.004, false) / DualMassError(0.002, false));
  EXPECT_NEAR(zoh_order, 1.0, 0.15);
  const double foh_order = std::log2(DualMassError(0.004, true) / DualMassError(0.002, true));
  RecordProperty("zoh_order", std::to_string(zoh_order));
  RecordProperty("foh_order", std::to_string(foh_order));
  EXPECT_NEAR(foh_order, 2.0, 0.2);
  // Velocities of amplitude ~10 m/s are within 1e-2 at H = 2 ms.
  EXPECT_LT(DualMassError(0.002, true), 1e-2);
}

// passenger_motor: y = [x_m, v_m]; passenger_torso: u = [x_m, v_m, F_h], y = [x_t, v_t];
// passenger_head: u = [x_t, v_t], y = [x_h, v_h, F_h]; monolithic y = [x_h, x_t, x_m, v_h,
// v_t, v_m, F_h].
double PassengerError(double H, bool foh) {
  constexpr double kEnd = 0.5;
  const std::vector<Link> links = {
      {0, 0, 1, 0}, {0, 1, 1, 1}, {2, 2, 1, 2}, {1, 0, 2, 0}, {1, 1, 2, 1}};
  const auto cosim =
      Jacobi({"passenger_motor", "passenger_torso", "passenger_head"}, links, H, kEnd, foh);
  return MaxError(cosim, "passenger",
                  {{{2, 0}, 0}, {{1, 0}, 1}, {{0, 0}, 2}, {{2, 1}, 3}, {{1, 1}, 4}, {{0, 1}, 5}}, H,
                  kEnd);
}

TEST(CosimulationTest, PassengerJacobiConvergesAtTheOrderOfTheHold) {
  const double zoh_order = std::log2(PassengerError(1e-3, false) / PassengerError(5e-4, false));
  EXPECT_NEAR(zoh_order, 1.0, 0.15);
  const double foh_order = std::log2(PassengerError(1e-3, true) / PassengerError(5e-4, true));
  RecordProperty("zoh_order", std::to_string(zoh_order));
  RecordProperty("foh_order", std::to_string(foh_order));
  EXPECT_NEAR(foh_order, 2.0, 0.25);
}

}  // namespace
}  // namespace cosimo::units
