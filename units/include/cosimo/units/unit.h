// A simulation unit as the worker runs it: a model plus the way it is integrated (a solver for
// built-in and Model Exchange units, the FMU itself for Co-Simulation FMUs).
//
// Call order (one thread at a time; a unit is not thread safe):
//   SetRecorded?  Initialize  { Evaluate | Step | Save | Restore | Linearize }*  Terminate
// Step integrates [request.time, request.time + request.step]; request.time must equal time().
// Save returns a snapshot value kept by the caller (the worker); Restore(snapshot) brings the
// unit back to the time and state it had when Save was called. A rejected step (StepStatus
// kRejected/kDiverged) leaves the unit where it was before the step only if it can roll back;
// callers restore a snapshot after a rejection.
// Serialize(snapshot) turns a snapshot into bytes (a checkpoint, issue 18); Deserialize(bytes) on
// a fresh unit built from the same spec and initialised gives a snapshot whose Restore brings
// that unit to exactly where Restore(snapshot) brings the original: later steps are bit for bit
// those of the original.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/unit_api.h"

namespace cosimo::units {

// An opaque snapshot of a unit's state (continuous states, solver history, FMU state handle).
class UnitSnapshot {
 public:
  virtual ~UnitSnapshot() = default;
};

// The unit linearised at its current time, read without advancing time (COSTARICA, Newton).
struct Linearization {
  Eigen::VectorXd x;           // states x~(t[N])
  Eigen::VectorXd xdot;        // dx/dt(t[N]); empty when the unit does not expose it
  Eigen::VectorXd y;           // outputs y~(t[N]) for the given inputs
  Eigen::MatrixXd A, B, C, D;  // dF/dx, dF/du, dG/dx, dG/du
};

class Unit {
 public:
  virtual ~Unit() = default;

  virtual const UnitDescription& description() const = 0;
  // Simulated time reached, s.
  virtual double time() const = 0;

  // Names of extra (non-output) variables reported in every reply's `recorded`, in this order.
  // Errors name the variable that does not exist.
  [[nodiscard]] virtual absl::Status SetRecorded(const std::vector<std::string>& names) = 0;

  // Whether replies must carry output time derivatives (LoadUnit.skip_output_derivatives): a
  // unit that pays for reading them (an FMU) leaves them out when they are not. By default they
  // are; built-in models compute theirs for nothing and may ignore it.
  virtual void SetOutputDerivativesNeeded(bool needed) { (void)needed; }

  // Whether a non-finite (NaN or infinite) state derivative may go on
  // (LoadUnit.algorithm.allow_non_finite; issue 46): by default a Model Exchange FMU whose
  // derivatives the solver reads as non-finite, and whose step then fails or leaves a non-finite
  // state, fails the step naming the unit, der(<state>) and the time. Units that do not check
  // their derivatives ignore it.
  virtual void SetNonFiniteAllowed(bool allowed) { (void)allowed; }

  // Which inputs (description().inputs order) connections feed (LoadUnit.connected_inputs),
  // before Initialize. An unconnected input keeps its start value: the unit ignores the values
  // sent for it and never sets it (an FMU's own start value, or a `parameters` entry naming it).
  // Errors name the input a parameter cannot hold. By default every input is used as sent.
  [[nodiscard]] virtual absl::Status SetConnectedInputs(const std::vector<bool>& connected) {
    (void)connected;
    return absl::OkStatus();
  }

  [[nodiscard]] virtual absl::Status Initialize(double start_time, double stop_time) = 0;
  // The outputs (description().outputs indices) that feed a discrete input, before Initialize:
  // a unit whose outputs interpolate between samples (a table) holds the previous sample for
  // them. By default nothing changes.
  [[nodiscard]] virtual absl::Status HoldOutputs(const std::vector<int>& outputs) {
    (void)outputs;
    return absl::OkStatus();
  }
  // The input values the unit starts from (its inputs' start values), for the evaluation right
  // after Initialize; nullopt: zero (before the connections' transformations).
  virtual std::optional<Eigen::VectorXd> StartInputs() const { return std::nullopt; }

  // Sets the inputs at the current time and computes the outputs, without advancing time.
  [[nodiscard]] virtual absl::Status Evaluate(const Eigen::VectorXd& inputs,
                                              OutputsReply* reply) = 0;

  // Integrates one communication step. Fills every field of `reply` (its storage is reused).
  virtual void Step(const StepRequest& request, StepReply* reply) = 0;

  // The host keeps a snapshot that a Restore may set the unit back to although it is older
  // than the start of a later step (an explicit Save command of the protocol; rollback's own
  // snapshots are always taken at the start of the step being tried). From then on FMU
  // Co-Simulation units pass noSetFMUStatePriorToCurrentPoint = false to fmiXDoStep.
  virtual void SetEarlierStateKept() {}

  [[nodiscard]] virtual absl::StatusOr<std::unique_ptr<UnitSnapshot>> Save() {
    return absl::UnimplementedError("this unit cannot save its state");
  }
  [[nodiscard]] virtual absl::Status Restore(const UnitSnapshot& /*snapshot*/) {
    return absl::UnimplementedError("this unit cannot restore its state");
  }
  // Errors say why the unit cannot serialise (the FMI capability it lacks).
  [[nodiscard]] virtual absl::StatusOr<std::string> Serialize(const UnitSnapshot& /*snapshot*/) {
    return absl::UnimplementedError("this unit cannot serialise its state");
  }
  [[nodiscard]] virtual absl::StatusOr<std::unique_ptr<UnitSnapshot>> Deserialize(
      std::string_view /*bytes*/) {
    return absl::UnimplementedError("this unit cannot serialise its state");
  }

  // Linearises at the current time for the given inputs (analytic Jacobians where the model
  // gives them, finite differences otherwise). Units that cannot return an error.
  [[nodiscard]] virtual absl::StatusOr<Linearization> Linearize(const Eigen::VectorXd& inputs) {
    (void)inputs;
    return absl::UnimplementedError("this unit provides no Jacobians");
  }

  [[nodiscard]] virtual absl::Status Terminate() { return absl::OkStatus(); }
};

}  // namespace cosimo::units
