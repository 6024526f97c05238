// The NeuralFMU paper's spring-pendulum experiment (docs/hybrid.md), shared by the test
// that checks it and the benchmark that measures it (docs/hybrid.md):
//   reference  spring_pendulum with friction (spring 10 N/m, rest length 1 m, mass 1 kg;
//              viscous, Coulomb and Stribeck friction, kReferenceFriction)
//   white box  spring_pendulum without friction, rest position displaced by 0.1 m (1.1 m)
//   hybrid     the white box between a linear top network and a tanh bottom network
//   data       401 samples of position and velocity on [0, 4] s
//   train      from (s0, v0) = (0.5 m, 0 m/s); test from (1.0 m, -1.5 m/s)
// Stateless; every call builds its own units.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::units::experiment {

// The reference's friction parameters (built-in spring_pendulum).
inline constexpr char kReferenceFriction[] =
    R"("d": 0.2, "F_coulomb": 0.5, "F_stribeck": 0.5, "v_stribeck": 0.1, "v_eps": 0.01)";

// The hybrid scenario: unit "pendulum" wrapping the white box from (s0, v0), recording s and v,
// on [0, stop]; `hidden` tanh neurons in each of the bottom network's two hidden layers.
v1::Scenario PendulumScenario(double s0, double v0, double stop, const std::string& solver,
                              int hidden, uint64_t seed);
// The reference's trajectory from (s0, v0) as a results CSV: time, pendulum.s, pendulum.v every
// 0.01 s on [0, stop] (RK4 with 1e-4 s steps).
std::string PendulumReferenceCsv(double s0, double v0, double stop);

struct PendulumOptions {
  int epochs = 300;
  double learning_rate = 1e-2;
  int hidden = 8;
  uint64_t seed = 1;
};

struct PendulumResult {
  absl::Status status;
  int parameters = 0;
  double train_loss_before = 0.0;  // MSE of position and velocity, untrained (= white box)
  double train_loss_after = 0.0;
  double test_loss_before = 0.0;
  double test_loss_after = 0.0;
  double test_position_mse_white_box = 0.0;
  double test_position_mse_hybrid = 0.0;
  double train_seconds = 0.0;  // wall time of the training epochs
};

PendulumResult RunPendulumExperiment(const PendulumOptions& options);

}  // namespace cosimo::units::experiment
