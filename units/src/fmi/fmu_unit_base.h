// What the Co-Simulation and Model Exchange FMU units share: the unit description built from
// the model description, start values and parameters from the scenario, recording of any
// variable, outputs and linearisation through directional derivatives. Private to units/src/fmi.
#pragma once

#include <Eigen/Core>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cosimo/fmi/model_description.h"
#include "cosimo/units/unit.h"
#include "cosimo/v1/scenario.pb.h"
#include "units/src/checkpoint/state_bytes.h"
#include "units/src/fmi/fmu_clocks.h"
#include "units/src/fmi/fmu_instance.h"

namespace cosimo::units::fmu {

class FmuUnitBase : public Unit {
 public:
  FmuUnitBase(const v1::Unit& spec, fmi::ModelDescription md, std::shared_ptr<FmuInstance> instance,
              bool model_exchange);

  const UnitDescription& description() const override { return description_; }
  double time() const override { return time_; }
  absl::Status SetRecorded(const std::vector<std::string>& names) override;
  void SetOutputDerivativesNeeded(bool needed) override { output_derivatives_needed_ = needed; }
  // Unconnected inputs are never set (FMI 2.0.4 section 2.2.7, FMI 3.0.1 section 2.4.7: the
  // start value holds until the importer sets another): they keep the FMU's start value, or
  // the value of the `parameters` entry naming them (set by ApplyParameters).
  absl::Status SetConnectedInputs(const std::vector<bool>& connected) override;
  // The units whose FMU computes when its inputs are set (Co-Simulation, Scheduled Execution):
  // SetInputsAndReadOutputs once initialised.
  absl::Status Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply) override {
    if (!initialized_)
      return absl::FailedPreconditionError(Prefix() + "Evaluate before Initialize");
    return SetInputsAndReadOutputs(inputs, reply);
  }
  std::optional<Eigen::VectorXd> StartInputs() const override { return start_inputs_; }

 protected:
  // The interface kind the unit runs (Scheduled Execution when it is the only one offered).
  const fmi::KindInfo& kind() const {
    if (!md_.co_simulation.offered && !md_.model_exchange.offered) return md_.scheduled_execution;
    return model_exchange_ ? md_.model_exchange : md_.co_simulation;
  }
  std::string Prefix() const { return "unit '" + spec_.name() + "': "; }

  // Sets the scenario's parameters and start values (call between Instantiate and
  // EnterInitializationMode). Errors name the parameter.
  absl::Status ApplyParameters();
  // An FMI 3 array parameter from a JSON list (flat or nested, row-major).
  absl::Status ApplyArrayParameter(int index, const google::protobuf::Value& value,
                                   const std::string& where);
  // Sets the connected inputs from a vector in description().inputs order (every input's
  // value given; the unconnected ones are not used).
  absl::Status SetInputs(const Eigen::VectorXd& u);
  absl::Status SetInputValues(const double* u);
  // The connected integer, Enumeration and Boolean inputs hold integers (Booleans 0 or 1): a
  // value that is not (a table interpolating between samples) is an error naming the input,
  // never rounded.
  absl::Status CheckInputValues(const double* u) const;
  // FMI 3 clocks (fmu_unit_inputs.cc). The triggered input clocks whose value in `u` (the
  // inputs in description().inputs order) is 1 tick at t (FmuClocks::Trigger); true if any does.
  bool TriggerInputClocks(const double* u, double t);
  // In Event Mode, after FmuClocks::Activate or TakeDue: the inputs clocked by the clocks that
  // tick, from `u` (SetInputs and SetInputValues set only the others).
  absl::Status SetClockedInputs(const double* u);
  // Keeps `u` (every input's value) as last_inputs() when clocked inputs exist: SetInputValues
  // does, and a unit that sets its inputs otherwise (Model Exchange) calls it.
  void KeepInputs(const double* u) {
    if (!clocked_inputs_.empty()) last_inputs_.assign(u, u + all_inputs_.size());
  }
  // The values last kept (KeepInputs).
  const double* last_inputs() const { return last_inputs_.empty() ? nullptr : last_inputs_.data(); }
  // Called when inputs_ changed (SetConnectedInputs): subclasses rebuild what they derive.
  virtual void InputsChanged() {}
  // Reads outputs (and dy/dt when `derivatives` is not null, offered and needed: otherwise it is
  // left empty) and recorded values (the String ones too when `recorded_strings` is not null:
  // see MarkStringsChanged).
  // When `integers` is not null it gets the exact values of the integer outputs, then of the
  // integer recorded variables (StepReply::integers).
  absl::Status ReadOutputs(Eigen::VectorXd* outputs, Eigen::VectorXd* derivatives,
                           std::vector<double>* recorded,
                           std::vector<std::string>* recorded_strings = nullptr,
                           std::vector<uint64_t>* integers = nullptr);
  // Evaluate of the units whose FMU computes when its inputs are set (Co-Simulation, Scheduled
  // Execution): the inputs set, then the outputs read (the String ones again).
  absl::Status SetInputsAndReadOutputs(const Eigen::VectorXd& inputs, OutputsReply* reply) {
    if (absl::Status s = SetInputs(inputs); !s.ok()) return s;
    MarkStringsChanged();  // the FMU may compute anything when its inputs are set
    return ReadOutputs(&reply->outputs, &reply->derivatives, &reply->recorded,
                       &reply->recorded_strings, &reply->integers);
  }
  // A, B, C, D from fmiXGetDirectionalDerivative at the FMU's current point; x, xdot, y read.
  absl::Status LinearizeDirectional(Linearization* lin);
  absl::Status ReadStates(Eigen::VectorXd* x, Eigen::VectorXd* xdot);
  // The event iteration in Event Mode at t, shared by the Co-Simulation and Model Exchange
  // units: the FMI 3 clocks first (FMI 3.0.1 sections 3.2 and 4.2.2; nothing without
  // clocks): FmuClocks::Activate (fmi3GetClock of the output clocks, fmi3SetClock of the input
  // clocks that tick at t within `tick_tolerance`, the triggered ones included), the inputs
  // those clocks clock (SetClockedInputs from last_inputs()); then fmiXUpdateDiscreteStates
  // (FMI 2: fmi2NewDiscreteStates) until no new discrete states are needed or the FMU ends its
  // simulation (at most 1000 times), `update` the last answer; then the clocks' intervals asked
  // (FmuClocks::AfterUpdate). The caller enters Event Mode before and leaves it after.
  absl::Status EventIteration(double t, double tick_tolerance, EventUpdate* update);
  // Recorded String variables are read with fmiXGetString only when they may have changed: the
  // constant, fixed and tunable ones once, the discrete ones again after the unit calls this (a
  // Co-Simulation step, a Model Exchange event, a restored state). Strings are discrete at most,
  // so between those points they keep their value and ReadOutputs answers from its copy.
  void MarkStringsChanged() { strings_changed_ = true; }
  // Checkpoints (issue 18): an FMU state into `out` and back into a new FMU state (freed by the
  // caller with instance_->FreeState). Errors name the unit and the capability the model
  // description does not declare (canGetAndSetFMUstate, canSerializeFMUstate).
  absl::Status WriteFmuState(void* state, StateWriter* out);
  absl::StatusOr<void*> ReadFmuState(StateReader* in);
  absl::Status CheckSerializable() const;

  v1::Unit spec_;
  fmi::ModelDescription md_;
  std::shared_ptr<FmuInstance> instance_;
  bool model_exchange_;
  UnitDescription description_;
  double time_ = 0.0;
  double stop_time_ = 0.0;
  bool initialized_ = false;  // Initialize succeeded

  std::vector<int> input_indices_, output_indices_, state_indices_, derivative_indices_;
  // inputs_: the connected inputs (all_inputs_ less the unconnected ones), positions those of
  // description().inputs.
  VariableGroup all_inputs_, inputs_, outputs_, states_, derivatives_, recorded_;
  std::vector<bool> connected_;                // per input
  Eigen::VectorXd start_inputs_;               // per input: its start value (0 when it has none)
  std::vector<uint32_t> recorded_string_vrs_;  // recorded String and Binary variables, in order
  std::vector<bool> recorded_string_binary_;   // which of them are Binary
  // LinearizeDirectional's unknowns and knowns, their layouts and buffers, made at its first
  // call (a Newton master or a unit with sensitivities calls it at every point).
  struct DirectionalPlan {
    std::vector<int> unknown_vars, unknown_rows, known_cols;
    ValueLayout unknowns;
    std::vector<ValueLayout> knowns;  // one per known variable
    std::vector<double> seed, sensitivity;
    Eigen::MatrixXd jacobian;
  };
  std::optional<DirectionalPlan> directional_;
  ValueLayout real_output_layout_;                // Float64 outputs, for output derivatives
  std::vector<int> real_output_positions_;        // and their positions among the outputs
  std::vector<double> output_derivative_values_;  // ReadOutputs' buffer, one per value
  bool output_derivatives_needed_ = true;
  // FMI 3 clocks: their ticks; the recorded ones as (variable index, position in `recorded`).
  FmuClocks clocks_;
  std::vector<std::pair<int, int>> recorded_clocks_;
  // The output clocks as (variable index, position among the outputs); the connected triggered
  // input clocks as (variable index, position among the inputs); per input clock (its index)
  // the connected inputs it clocks, as positions to keep, and as groups.
  std::vector<std::pair<int, int>> clock_outputs_, trigger_inputs_;
  std::vector<std::pair<int, std::vector<bool>>> clocked_inputs_;
  std::vector<VariableGroup> clocked_groups_;
  std::vector<double> last_inputs_;

 private:
  // The constructor's two parts.
  void ClassifyVariables();
  // inputs_ and the clocked groups from connected_ (fmu_unit_inputs.cc).
  void GroupInputs();
  void SetCapabilities();
  absl::Status ReadRecordedStrings(std::vector<std::string>* values);
  // fmiXGetString for the String ones, fmi3GetBinary (as hex) for those `binary` marks.
  absl::Status ReadTexts(const std::vector<uint32_t>& vrs, const std::vector<bool>& binary,
                         std::vector<std::string>* values);
  // Positions of the integer values among the outputs and the recorded values, and their exact
  // values as read (IntegerBits of the double for those not 64 bits wide).
  std::vector<int> integer_outputs_, integer_recorded_;
  std::vector<uint64_t> output_bits_, recorded_bits_;

  std::vector<uint32_t> changing_string_vrs_;  // the discrete ones among recorded_string_vrs_
  std::vector<bool> changing_string_binary_;
  std::vector<int> changing_string_positions_;       // and where they are in it
  std::vector<std::string> recorded_string_values_;  // last read, in record order
  std::vector<std::string> changing_string_values_;  // ReadRecordedStrings' buffer
  bool strings_read_ = false;                        // recorded_string_values_ holds them all
  bool strings_changed_ = false;
};

}  // namespace cosimo::units::fmu
