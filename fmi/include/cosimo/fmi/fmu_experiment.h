// What an FMU's modelDescription.xml says about running it (FMI 1.0, 2.0 and 3.0): its interfaces,
// DefaultExperiment, variables with their causality, and the platforms it has binaries for. Read
// straight from the archive (libzip) by the worker's reader (cosimo/fmi/model_description.h),
// without loading the FMU: for the client's single FMU runs and SSP import, and for the scenario
// checks of the client and the orchestrator.
//
// Thread safety: none needed (a function).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace cosimo {

struct FmuExperiment {
  std::string model_name;
  double start_time = 0.0;          // DefaultExperiment startTime, else 0
  std::optional<double> stop_time;  // DefaultExperiment stopTime
  std::optional<double> step_size;  // DefaultExperiment stepSize
  // Variables with causality "output", in their order (arrays as their elements, "y[1,2]").
  std::vector<std::string> outputs;
  std::string fmi_version;         // "1.0", "2.0", "3.0"
  std::string cs_identifier;       // CoSimulation modelIdentifier; empty: no such interface
  std::string me_identifier;       // ModelExchange modelIdentifier; empty: no such interface
  std::string se_identifier;       // FMI 3 ScheduledExecution modelIdentifier; empty: none
  bool cs_has_event_mode = false;  // FMI 3 CoSimulation hasEventMode (clocks tick only there)
  // ModelExchange canBeInstantiatedOnlyOncePerProcess; numberOfEventIndicators (FMI 3: the
  // variables of <EventIndicator>).
  bool me_instantiated_once = false;
  int event_indicators = 0;
  // Inputs set only in events, by name: those not Real (Float64, Float32) or not of continuous
  // variability, and input clocks.
  std::vector<std::string> event_inputs;
  bool has_clocks = false;          // FMI 3 Clock variables
  std::optional<double> tolerance;  // DefaultExperiment tolerance
  // Variables that cannot be recorded: FMI 3 Clock variables and the arrays too big to expand
  // (cosimo/fmi/model_description.h), by name. (Binary ones are recorded as hexadecimal
  // text, arrays one column per element.)
  std::vector<std::string> unrecordable;
  // FMI 3 time-based input clocks, by name: Cosimo computes their ticks (no connection feeds
  // them).
  std::vector<std::string> time_based_input_clocks;
  // The continuous states and their derivatives (the variables with a `derivative` attribute),
  // in the order of the model description; and the continuous locals.
  std::vector<std::string> states, derivatives, continuous_locals;
  // Every variable: name and causality ("input", "output", "parameter", "local",
  // "calculatedParameter", "structuralParameter", "independent"; FMI 2's default "local"), the
  // arrays and then their elements; each followed by its FMI 3 aliases (<Alias>), with its
  // causality and type.
  std::vector<std::pair<std::string, std::string>> variables;
  // Their types, in the same order: "Float64", "Float32", "Int8" ... "UInt64" (FMI 2: Real is
  // Float64, Integer Int32), "Boolean", "String", "Binary", "Clock", or "Enumeration 'T'" with
  // its declaredType T.
  std::vector<std::string> variable_types;
  // The Enumeration types T of "Enumeration 'T'": item name -> value.
  std::map<std::string, std::map<std::string, int64_t>> enumerations;
  std::vector<std::string> binaries;  // archive entries under binaries/
};

// The largest modelDescription.xml read, as the worker's (bytes).
constexpr uint64_t kMaxFmuModelDescriptionBytes = uint64_t{256} << 20;

// Errors name the FMU as `name` (default: the path), e.g. its digest where the path is a store's.
[[nodiscard]] absl::StatusOr<FmuExperiment> ReadFmuExperiment(const std::string& fmu_path,
                                                              const std::string& name = "");

}  // namespace cosimo
