// The three FMU units: Co-Simulation (the FMU steps itself with fmiXDoStep), Model Exchange
// (the worker's solver integrates the FMU's continuous states, with event handling) and FMI 3
// Scheduled Execution (the worker activates the FMU's model partitions at their clocks' ticks).
// Built by CreateFmuUnit (fmu_unit.h) once the archive is unpacked and the binary loaded.
#pragma once

#include <memory>

#include "absl/status/statusor.h"
#include "cosimo/fmi/model_description.h"
#include "cosimo/units/unit.h"
#include "cosimo/v1/scenario.pb.h"
#include "units/src/fmi/fmu_instance.h"
#include "units/src/models/model.h"

namespace cosimo::units::fmu {

// What a hybrid unit (units/src/hybrid) uses of a Model Exchange FMU unit; the units that
// CreateModelExchangeUnit builds offer it (dynamic_cast). equations() is the FMU as
// x' = F(x, u, t), y = G(x, u, t), valid as long as the unit; its InitialState() is the state
// after the unit's Initialize, and its methods set the FMU's time, states and inputs. Not thread
// safe, like the unit.
class ModelExchangeEquations {
 public:
  virtual ~ModelExchangeEquations() = default;
  virtual const Model& equations() const = 0;
  // Whether the FMU has event indicators (state events).
  virtual bool has_events() const = 0;
  // Whether JacobiansAt uses fmiXGetDirectionalDerivative (else central differences).
  virtual bool directional_derivatives() const = 0;
  // A = dF/dx, B = dF/du, C = dG/dx, D = dG/du at (t, x, u) (lin->x, xdot and y are not set).
  [[nodiscard]] virtual absl::Status JacobiansAt(double t, const Eigen::VectorXd& x,
                                                 const Eigen::VectorXd& u, Linearization* lin) = 0;
  // The first FMI error met inside equations() since the last call (then OK again).
  [[nodiscard]] virtual absl::Status TakeError() = 0;
  // For a caller that integrates equations() itself and handles no event (a unit with
  // sensitivities): (t, x, u) is an accepted point; fmiXCompletedIntegratorStep when the FMU
  // needs it. FailedPrecondition naming the unit when the FMU asks for an event there (a step
  // event, or it ends) or has a time event at or before t.
  [[nodiscard]] virtual absl::Status AcceptPoint(double t, const Eigen::VectorXd& x,
                                                 const Eigen::VectorXd& u) = 0;
};

[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateCoSimulationUnit(
    const v1::Unit& spec, fmi::ModelDescription md, std::shared_ptr<FmuInstance> instance);
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateModelExchangeUnit(
    const v1::Unit& spec, fmi::ModelDescription md, std::shared_ptr<FmuInstance> instance);
// An FMU that offers only Scheduled Execution (fmu_se_unit.cc); an error when it has no
// time-based input clock.
[[nodiscard]] absl::StatusOr<std::unique_ptr<Unit>> CreateScheduledExecutionUnit(
    const v1::Unit& spec, fmi::ModelDescription md, std::shared_ptr<FmuInstance> instance);

}  // namespace cosimo::units::fmu
