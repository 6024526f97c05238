// What an FMU's modelDescription.xml says, for FMI 1.0, 2.0 and 3.0, in one version-neutral form:
// the one reader of it, for the worker that loads the FMU and for the checks made before (the
// client's and the orchestrator's submit checks, `cosimo run MODEL.fmu`, SSP import).
//
// FMI 3 arrays (a variable with <Dimension> children) are kept as declared and also expanded into
// one element variable per value, named "<name>[i,j,...]" with 1-based indices in row-major
// order (FMI 3.0.1 section 2.4.7.6, structured naming), appended after the declared variables.
// An element shares its array's value reference and knows its position among the array's values
// (fmi3Get/Set<type> transfer all of them for that value reference, section 2.2.6.2).
//
// Indices (`Unknown::index`, `dependencies`, `ScalarVariable::derivative_of`) are 0-based
// positions in `variables`, whatever the version wrote (FMI 2 writes 1-based indices, FMI 3
// writes value references). FMI 1 and 2 value references are unique only per type, so a variable
// is identified by (type, value reference) and looked up by name. Values, no thread safety needed.
//
// FMI 1.0 (model_description_fmi1.cc) in the same form: <Implementation> makes it Co-Simulation
// (co_simulation offered), its absence Model Exchange; both with the root's modelIdentifier.
// causality input / output / internal / none is kInput / kOutput / kLocal / kLocal, except that
// variability="parameter" (kFixed) makes a non-output a kParameter; the outputs are the
// variables of causality output, their <DirectDependency> names their dependencies (absent: every
// input). FMI 1.0 does not say which variables are the continuous states: the derivatives are
// the Real variables named "der(<name of a Real variable>)", in declaration order, as FMI 1.0
// exports name them; a Model Exchange FMU must have numberOfContinuousStates of them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace cosimo::fmi {

enum class FmiVersion { kFmi1, kFmi2, kFmi3 };
class ModelDescriptionParser;  // model_description.cc
class Fmi1Reader;              // model_description_fmi1.cc

// The C type through which a variable is read and written. FMI 2 Enumeration is kInt32, FMI 3
// Enumeration is kInt64.
enum class VarType {
  kFloat64,
  kFloat32,
  kInt8,
  kUInt8,
  kInt16,
  kUInt16,
  kInt32,
  kUInt32,
  kInt64,
  kUInt64,
  kBoolean,
  kString,
  kBinary,
  kClock,
};
const char* VarTypeName(VarType type);
inline bool IsNumeric(VarType t) {
  return t != VarType::kString && t != VarType::kBinary && t != VarType::kClock;
}

enum class FmiCausality {
  kParameter,
  kCalculatedParameter,
  kStructuralParameter,
  kInput,
  kOutput,
  kLocal,
  kIndependent,
};
enum class Variability { kConstant, kFixed, kTunable, kDiscrete, kContinuous };
enum class Initial { kNone, kExact, kApprox, kCalculated };

// FMI 3 Clocks (FMI 3.0.1 section 2.4.7.5.2, table of clock types in 2.2.8): how the interval
// of a Clock variable is known. Time-based clocks (constant ... countdown) are input or local
// clocks whose ticks the importer computes; triggered clocks tick when their source says so
// (an output clock: fmi3GetClock; an input clock: the importer's fmi3SetClock).
enum class IntervalVariability {
  kNone,        // not a Clock
  kConstant,    // periodic, interval (and shift) from the model description
  kFixed,       // periodic, interval set before or fixed at initialisation (fmi3GetInterval*)
  kCalculated,  // periodic, interval computed by the FMU at initialisation (fmi3GetInterval*)
  kTunable,     // periodic, the interval may change at an event (fmi3GetInterval*)
  kChanging,    // aperiodic: the next interval asked at each of its ticks
  kCountdown,   // aperiodic: the FMU may schedule a tick in any Event Mode
  kTriggered,   // no interval: ticks when triggered
};
const char* IntervalVariabilityName(IntervalVariability v);
inline bool IsTimeBased(IntervalVariability v) {
  return v != IntervalVariability::kNone && v != IntervalVariability::kTriggered;
}

// A Clock variable's attributes as declared (absent ones empty or at the standard's default).
struct ClockAttributes {
  IntervalVariability interval_variability = IntervalVariability::kNone;
  bool can_be_deactivated = false;
  std::optional<uint32_t> priority;        // Scheduled Execution: 0 is the highest
  std::optional<double> interval_decimal;  // s
  double shift_decimal = 0.0;              // s after the start time to the first tick
  bool supports_fraction = false;          // fmi3GetIntervalFraction / fmi3GetShiftFraction
  std::optional<uint64_t> resolution;      // ticks per second of the counters
  std::optional<uint64_t> interval_counter;
  uint64_t shift_counter = 0;
  // The constant interval and shift in seconds: the decimal ones, or counter / resolution
  // (interval 0 when neither is given).
  double Interval() const;
  double Shift() const;
};

// A declared variable (a scalar or an FMI 3 array), or one element of an array.
struct ScalarVariable {
  std::string name;
  std::string description;
  std::string unit;
  VarType type = VarType::kFloat64;
  std::string enumeration;  // an Enumeration: its declaredType (type is then an integer type)
  uint32_t value_reference = 0;
  FmiCausality causality = FmiCausality::kLocal;
  Variability variability = Variability::kContinuous;
  Initial initial = Initial::kNone;
  std::optional<std::string> start;  // as written
  int derivative_of = -1;            // index of the state this is the derivative of
  // FMI 3 <Alias> children: other names of this variable (same value, same value reference),
  // found by ModelDescription::Find; an array's aliases name its elements too ("a[1,2]" for
  // "y[1,2]" when "a" is an alias of "y"). Their displayUnit is not read (display units are not
  // parsed at all). FMI 2 aliases are variables of their own that share a (type, value
  // reference), as are FMI 1.0 aliases (alias="alias"), negated ones too:
  std::vector<std::string> aliases;
  // FMI 1.0 alias="negatedAlias": the value is minus that of the value reference (a Boolean's
  // negation); the FMU units negate what they read and write.
  bool negated = false;
  // FMI 3 Clock variables (type kClock): their attributes. A clocked variable (FMI 3 attribute
  // `clocks`): the indices of the Clock variables it belongs to (it changes and is exchanged
  // only at their ticks, FMI 3.0.1 section 2.2.8.1).
  ClockAttributes clock;
  std::vector<int> clocks;
  // FMI 3 arrays. The array itself: is_array, its dimensions (from <Dimension start> or the
  // start value of the structural parameter <Dimension valueReference> names), `size` values,
  // and its elements at [first_element, first_element + size) in `variables` (-1: not expanded,
  // `not_expanded` says why). An element: array_of (the array's index) and its position among
  // the array's values; its start is its own value of the array's start list (one value given
  // is every element's).
  bool is_array = false;
  std::vector<uint64_t> dimensions;
  uint64_t size = 1;
  int first_element = -1;
  std::string not_expanded;
  int array_of = -1;
  uint64_t element = 0;
};

inline bool IsReal(VarType t) { return t == VarType::kFloat64 || t == VarType::kFloat32; }
// An input the importer may set only in events: one that is not Real (a Clock too) or not of
// continuous variability.
inline bool IsEventInput(const ScalarVariable& v) {
  return v.causality == FmiCausality::kInput &&
         (!IsReal(v.type) || v.variability != Variability::kContinuous);
}

// Capabilities of one interface kind (<CoSimulation> or <ModelExchange>).
struct KindInfo {
  bool offered = false;
  std::string model_identifier;
  bool can_get_and_set_fmu_state = false;
  // canSerializeFMUstate (FMI 3: canSerializeFMUState): checkpoints (issue 18).
  bool can_serialize_fmu_state = false;
  bool provides_directional_derivative = false;
  bool can_be_instantiated_only_once_per_process = false;
  // Co-Simulation.
  bool can_handle_variable_communication_step_size = false;
  bool can_interpolate_inputs = false;  // FMI 2 only
  int max_output_derivative_order = 0;
  bool has_event_mode = false;  // FMI 3 only
  // Model Exchange.
  bool needs_completed_integrator_step = true;
};

struct Unknown {
  int index = -1;
  bool dependencies_given = false;  // absent: depends on every known
  std::vector<int> dependencies;
};

struct ModelDescription {
  FmiVersion version = FmiVersion::kFmi2;
  std::string fmi_version;  // as written, e.g. "2.0"
  std::string model_name;
  std::string guid;  // FMI 1 and 2 guid or FMI 3 instantiationToken
  KindInfo co_simulation;
  KindInfo model_exchange;
  KindInfo scheduled_execution;  // FMI 3: read, not supported
  std::vector<ScalarVariable> variables;
  std::vector<Unknown> outputs;
  std::vector<Unknown> derivatives;  // order of the continuous state vector
  std::vector<Unknown> initial_unknowns;
  int number_of_event_indicators = 0;
  int number_of_continuous_states = 0;  // FMI 1.0 only (numberOfContinuousStates); else 0
  std::optional<double> default_start_time, default_stop_time, default_tolerance, default_step_size;
  // The Enumeration types of <TypeDefinitions> by name: their items' names and values, in order.
  std::map<std::string, std::vector<std::pair<std::string, int64_t>>> enumerations;

  // Index in `variables` of the variable or FMI 3 alias `name`, or -1.
  int Find(const std::string& name) const;
  // Every variable that holds one value, in declaration order: the scalars, and each expanded
  // array's elements where the array is declared (arrays not expanded are left out).
  std::vector<int> Scalars() const;
  // The array an element name's base names ("y" for "y[2,1]"), or -1.
  int ArrayOf(const std::string& name) const;
  // Whether the structural parameter at `index` sizes an array (a <Dimension valueReference>).
  bool SizesAnArray(int index) const;
  // The indices of the Clock variables, in declaration order.
  std::vector<int> Clocks() const;

 private:
  friend class ModelDescriptionParser;
  friend class Fmi1Reader;  // model_description_fmi1.cc
  std::map<std::string, int> by_name_;
  std::vector<int> sizing_parameters_;
};

// The most elements Cosimo expands per array (and per FMU): a bigger array is kept unexpanded,
// cannot be recorded, connected or set, and says so.
constexpr uint64_t kMaxArrayElements = 100000;

// Parses the XML text; `source` names the file in errors.
[[nodiscard]] absl::StatusOr<ModelDescription> ParseModelDescriptionText(const std::string& xml,
                                                                         const std::string& source);
// The largest modelDescription.xml read (its parsed form takes a few times its size in memory: a
// 2.5 GiB one cost the worker 7.9 GB).
constexpr uint64_t kMaxModelDescriptionBytes = uint64_t{256} << 20;
// Reads and parses the file; one bigger than `max_bytes` is refused before it is read.
[[nodiscard]] absl::StatusOr<ModelDescription> ParseModelDescriptionFile(
    const std::string& path, uint64_t max_bytes = kMaxModelDescriptionBytes);

}  // namespace cosimo::fmi
