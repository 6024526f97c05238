// Factories of the built-in models: linear_models.cc (state space, car) and mechanical_models.cc
// (mass-spring-damper, dual-mass oscillator, passenger). docs/models.md documents each one's
// variables, parameters and equations. Every model is an AffineModel; second-order models order
// their states [positions; velocities], so CENTRAL_DIFFERENCE applies to them. Stateless.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "units/src/models/model.h"
#include "units/src/models/model_parameters.h"

namespace cosimo::units {

using ModelResult = absl::StatusOr<std::unique_ptr<Model>>;

// The tutorial's car (Example 1) and its split into controller and vehicle.
ModelResult MakeLinearStateSpace(ModelParameters& p);
ModelResult MakeCar(ModelParameters& p);
ModelResult MakeCarController(ModelParameters& p);
ModelResult MakeCarVehicle(ModelParameters& p);

// Mass-spring-damper (tutorial Example 4), driven by a force or as one side of a coupling.
ModelResult MakeMassSpringDamper(ModelParameters& p);
ModelResult MakeMassSpringDamperCoupling(ModelParameters& p);

// The NeuralFMU paper's spring pendulum, with optional friction (pendulum_model.cc).
ModelResult MakeSpringPendulum(ModelParameters& p);

// Busch's dual-mass oscillator, monolithic and split into two units.
ModelResult MakeDualMassOscillator(ModelParameters& p);
ModelResult MakeDualMassOscillator1(ModelParameters& p);
ModelResult MakeDualMassOscillator2(ModelParameters& p);

// The passenger of the tutorial's Example 5, monolithic and split into three units.
ModelResult MakePassenger(ModelParameters& p);
ModelResult MakePassengerHead(ModelParameters& p);
ModelResult MakePassengerTorso(ModelParameters& p);
ModelResult MakePassengerMotor(ModelParameters& p);

}  // namespace cosimo::units
