// Reading and checking parameter sweeps (cosimo.v1.Sweep, proto/cosimo/v1/sweep.proto;
// docs/sweeps.md), and making each variant's scenario from the base one.
//
// ParseSweepJson maps the JSON (errors name the line and column, or the field path, as
// ParseScenarioJson's do); ValidateSweep checks the sweep on its own (every problem at once,
// each naming its field: "parameters[1].linspace: n must be >= 1"); CheckSweepAgainstBase
// checks it against the base scenario with the scenario checks the caller gives (the swept
// names exist, the KPIs' variables are recorded). The designs are in sweep_design.h, the KPIs
// in kpi.h. All functions are stateless and thread safe.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"
#include "cosimo/v1/sweep.pb.h"

namespace cosimo {

[[nodiscard]] absl::StatusOr<v1::Sweep> ParseSweepJson(std::string_view json);

// A sweep file read, with its base scenario: from scenario_file (relative to the sweep file's
// folder; its own paths relative to its folder) or inline (its paths relative to the sweep
// file's folder). Errors start with the file's path.
struct LoadedSweep {
  v1::Sweep sweep;
  v1::Scenario base;
};
[[nodiscard]] absl::StatusOr<LoadedSweep> LoadSweepFile(const std::string& path);
// The base scenario of the file at `path` (a sweep's, a calibration's): `inline_base` (its paths
// made relative to the file's folder) when not null, else read from `scenario_file` relative to
// that folder (errors start with the path and "scenario_file: "); empty when neither is given.
[[nodiscard]] absl::StatusOr<v1::Scenario> LoadBaseScenario(const v1::Scenario* inline_base,
                                                            const std::string& scenario_file,
                                                            const std::string& path);

// The sweep on its own: a base scenario given; at least one parameter, names unique; per design
// kind the value sources it takes, exactly one per parameter, finite and well-formed
// (linspace / logspace [a, b, n] with n a whole number >= 1, logspace and log_uniform > 0,
// uniform and log_uniform low <= high, normal standard deviation >= 0); samples >= 1 for random
// designs; KPIs of the form <unit>.<variable>, names unique. InvalidArgument listing every
// problem.
[[nodiscard]] absl::Status ValidateSweep(const v1::Sweep& sweep);

// Sets the swept quantity `name` of `scenario` to `value`: "<unit>.<parameter>" in the unit's
// parameters (builtin.parameters where the built-in model's parameters already name it, since
// those win), else a numeric field of the scenario by its path ("algorithm.step_size",
// "stop_time"; whole numbers for integer fields). `field` names the sweep field for errors.
[[nodiscard]] absl::Status ApplyParameter(v1::Scenario* scenario, const std::string& name,
                                          double value, const std::string& field);
// The unit's parameter `parameter` set to `value` as ApplyParameter sets it (in builtin.parameters
// where they name it, else in parameters).
void SetUnitParameter(v1::Unit* unit, const std::string& parameter, double value);

// The base scenario with one variant's values (one per parameter, in order).
[[nodiscard]] absl::StatusOr<v1::Scenario> VariantScenario(const v1::Scenario& base,
                                                           const v1::Sweep& sweep,
                                                           const std::vector<double>& values);

// The scenario checks of the caller (the client's: units::CheckScenario).
using ScenarioCheck = std::function<absl::Status(const v1::Scenario&)>;

// A validated sweep against its base: the base passes `check`; each parameter applies, and a
// unit parameter the base does not set already passes `check` with its first value
// (FirstValue); each KPI's variable is recorded (in the base's record, or with an empty record
// an existing variable by `check`). Errors name the field ("parameters[0].name: ...").
[[nodiscard]] absl::Status CheckSweepAgainstBase(const v1::Sweep& sweep, const v1::Scenario& base,
                                                 const ScenarioCheck& check);

}  // namespace cosimo
