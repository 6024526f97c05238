// The language both sides of a unit speak: what a unit offers (UnitDescription), what it is asked
// to do on a communication step (StepRequest) and what it answers (StepReply).
//
// The worker's UnitHost consumes these types; the orchestrator's UnitProxy produces them. A
// remote unit converts them to and from the worker protocol (cosimo/v1/worker_service.proto) in
// exactly one place (common/unit_api_proto.h); a local unit passes them directly. Plain values,
// no thread safety of their own.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace cosimo {

enum class Causality { kInput, kOutput, kState, kParameter, kLocal };

// Numeric and Boolean values travel as doubles (Booleans 0 / 1, integers exact up to 2^53, and
// exactly beyond in StepReply::integers for the results); kString variables can be recorded
// (StepReply::recorded_strings) but not connected.
enum class ValueType { kReal, kInteger, kBoolean, kString };

// "input", "output", "state", "parameter", "local": the words of the scenario checks' messages
// and of the results metadata.
const char* CausalityName(Causality causality);
// "real", "integer", "boolean", "string" (the results metadata).
const char* ValueTypeName(ValueType type);
// The bits of an integer value held in a double, as StepReply::integers carries them (two's
// complement when negative; NaN and values beyond 64 bits give 0).
inline uint64_t IntegerBits(double value) {
  if (!(value >= -0x1p63 && value < 0x1p64)) return 0;
  return value < 0.0 ? static_cast<uint64_t>(static_cast<int64_t>(value))
                     : static_cast<uint64_t>(value);
}

struct VariableInfo {
  std::string name;
  Causality causality = Causality::kOutput;
  std::string unit;         // physical unit, e.g. "m/s"; may be empty
  std::string description;  // may be empty
  ValueType type = ValueType::kReal;
  // Inputs: takes values only at events (FMI variability discrete, or an integer or Boolean
  // type); what feeds it from a table is held between the table's samples.
  bool discrete = false;
  // Further names of the same variable (FMI 3 <Alias>), which a scenario may use instead.
  std::vector<std::string> aliases = {};
  // Inputs: an FMI 3 Clock, or a variable clocked by one (its `clocks`): the unit takes its
  // value only at that clock's ticks, and the master sends it the source's value at the start of
  // the step, held, whatever the algorithm (docs/fmi.md, "Clocks"). Outputs: an FMI 3 Clock,
  // whose value is 1 at a communication point that ends a step in which it ticked, else 0.
  bool clocked = false;

  // Whether `n` is its name or one of its aliases.
  bool IsCalled(const std::string& n) const {
    return name == n || std::find(aliases.begin(), aliases.end(), n) != aliases.end();
  }
};

// What the unit implementation offers. These are contracts (tutorial, Table 3): the orchestrator
// checks them against the chosen algorithm and derives the Gauss-Seidel order from them.
struct Capabilities {
  bool can_rollback = false;                // Save/Restore available
  bool provides_jacobians = false;          // A, B, C, D (analytic or finite differences)
  bool provides_state_derivatives = false;  // dx/dt readable at the current time
  bool can_vary_step = true;                // accepts a different step size every step
  bool input_reactive = false;              // needs the inputs at t[N+1] to step
  bool output_reactive = false;             // outputs at t depend on the inputs at t
  int max_output_derivative_order = 0;      // 1: StepReply carries dy/dt
  int max_input_order = 3;                  // highest input polynomial degree it honours
};

struct UnitDescription {
  std::vector<VariableInfo> inputs;   // order used by StepRequest and Evaluate
  std::vector<VariableInfo> outputs;  // order used by StepReply
  std::vector<VariableInfo> others;   // states, parameters, locals (recordable)
  Capabilities capabilities;
  // Times (s, ascending) at which the outputs jump, known before the run: a table's repeated
  // time stamps, and every sample of a table that holds its values. Time events: the master
  // ends a communication step on each, so that the units fed see the jump when it happens.
  std::vector<double> event_times;
  // Times (s, ascending) at which an output held for a discrete input changes (an interpolated
  // table's samples): time events when one of the unit's outputs feeds a discrete input.
  std::vector<double> sample_times;
};

// Inputs on a step [t, t + h] as polynomials in s = t' - t:
//   u_i(t + s) = sum_k coefficients(i, k) s^k.
// One column for zero-order hold, two for first-order, four for cubic Hermite.
struct InputPolynomials {
  Eigen::MatrixXd coefficients;  // inputs x order

  int order() const { return static_cast<int>(coefficients.cols()); }
  // u(t + s) and du/dt(t + s).
  void Value(double s, Eigen::Ref<Eigen::VectorXd> out) const;
  void Derivative(double s, Eigen::Ref<Eigen::VectorXd> out) const;
};

enum class StepMode {
  kFinal,      // non-iterative: accepted unless the unit rejects it itself
  kTentative,  // inside an iteration: must be redoable from t[N]
};

struct StepRequest {
  double time = 0.0;  // s, t[N]
  double step = 0.0;  // s, t[N+1] - t[N]
  StepMode mode = StepMode::kFinal;
  InputPolynomials inputs;
  // Tentative steps: also return StepReply::output_sensitivity (units with Jacobians).
  bool sensitivities = false;
  // Tentative steps of rollback units: accept the last tentative step first (what Commit does).
  bool commit_previous = false;
};

enum class StepStatus {
  kOk,
  kRejected,  // the unit's own error control refused the step: retry with a smaller step
  kDiverged,  // the unit's solver diverged
  kFailed,    // unrecoverable; message says why
  kEnded,     // the unit ended its own simulation at end_time
};

const char* StepStatusName(StepStatus status);

// A member added here must also be swapped in master/src/local_unit.cc (SwapReplies) and
// converted in common/src/unit_api_proto.cc.
struct StepReply {
  StepStatus status = StepStatus::kOk;
  std::string message;          // why, when not kOk
  double end_time = 0.0;        // s reached
  Eigen::VectorXd outputs;      // at end_time
  Eigen::VectorXd derivatives;  // dy/dt at end_time; empty when not offered
  // Extra recorded variables at end_time (LoadUnit.record without the outputs), in record
  // order: numeric and Boolean ones in `recorded`, kString ones in `recorded_strings`.
  std::vector<double> recorded;
  std::vector<std::string> recorded_strings;
  // Exact values of the kInteger variables among `outputs` (in output order), then among
  // `recorded` (in record order): the bits of the int64 / uint64 value (two's complement when
  // negative; the double says the sign). Empty when the doubles stand (estimates, no integers).
  std::vector<uint64_t> integers;
  bool estimated = false;  // answered by the COSTARICA estimate
  // When the request asked for sensitivities and the unit provides Jacobians (else empty): the
  // linearised (A, B, C, D at t[N]) sensitivities at end_time to the input coefficients,
  // outputs x (inputs * order), column k * inputs + i for coefficient (i, k) of s^k:
  Eigen::MatrixXd output_sensitivity;      // d y / d a_ik, output units per (input units / s^k)
  Eigen::MatrixXd derivative_sensitivity;  // d (dy/dt) / d a_ik, output units / s per the same
};

// Outputs at the current time, without advancing it.
struct OutputsReply {
  Eigen::VectorXd outputs;
  Eigen::VectorXd derivatives;
  std::vector<double> recorded;  // as in StepReply
  std::vector<std::string> recorded_strings;
  std::vector<uint64_t> integers;
};

// What a unit does under tentative steps (iterative kinds, adaptive H): save and restore its
// state, or answer with the COSTARICA estimate and integrate for real on commit.
enum class IterativeMode { kRollback, kEstimate };
// "rollback" or "estimate", for logs.
const char* IterativeModeName(IterativeMode mode);

// How a unit took part in a job: never asked a tentative step (kDirect), rolled back, or
// estimated (kEstimateDegraded: COSTARICA without state derivatives).
enum class UnitMode { kDirect, kRollback, kEstimate, kEstimateDegraded };
// "direct", "rollback", "estimate" or "estimate-degraded": the results metadata's names.
const char* UnitModeName(UnitMode mode);

// How a unit took part in the job, reported when it terminates.
struct UnitReport {
  UnitMode mode = UnitMode::kDirect;
  uint64_t real_integrations = 0;
  uint64_t estimates = 0;
};

// One command to a unit and its reply, as the master sends it (cosimo/master/unit_proxy.h) and
// a UnitHost runs it (cosimo/units/unit_host.h: UnitHost::Run, the one dispatcher).
struct UnitCommand {
  enum class Kind {
    kInitialize,
    kEvaluate,
    kStep,
    kSave,
    kRestore,
    kCommit,
    kReject,
    kTerminate,
    kCheckpoint,         // the unit's state as bytes, between accepted steps (issue 18)
    kRestoreCheckpoint,  // back to `state`, a kCheckpoint reply of a unit of the same spec
  };
  Kind kind = Kind::kStep;
  double time = 0.0;              // kInitialize: start time, s
  std::vector<int> hold_outputs;  // kInitialize: outputs that feed a discrete input
  Eigen::VectorXd inputs;         // kEvaluate: one value per input
  StepRequest step;               // kStep
  std::string state;              // kRestoreCheckpoint
};

struct UnitResponse {
  StepReply step;          // kStep, kCommit
  OutputsReply outputs;    // kInitialize, kEvaluate
  UnitReport report;       // kTerminate
  std::string checkpoint;  // kCheckpoint: opaque bytes for kRestoreCheckpoint
};

}  // namespace cosimo
