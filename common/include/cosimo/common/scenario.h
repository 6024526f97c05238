// Reading and checking scenarios (cosimo.v1.Scenario).
//
// ParseScenarioJson turns the JSON a user wrote into the message, with errors that name the line
// and column (syntax) or the field (mapping). ValidateScenario checks everything that can be
// checked without loading the units: times and the algorithm (ResolveAlgorithm, the rules the
// master applies too), names, connection syntax, inputs connected twice, record syntax. Checks
// that need the units' variables (a connection naming a variable that does not exist) are done
// by the master's ResolveCoupling and PlanRecording once the units are loaded
// (cosimo/master/coupling.h), and up front by the scenario checks (cosimo/units/scenario_check.h).
// All functions are stateless and thread safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/status.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/v1/scenario.pb.h"
#include "cosimo/v1/worker_service.pb.h"

namespace cosimo {

[[nodiscard]] absl::StatusOr<v1::Scenario> ParseScenarioJson(std::string_view json);
// Reads and parses a file; relative FMU and table paths are resolved against its folder.
[[nodiscard]] absl::StatusOr<v1::Scenario> LoadScenarioFile(const std::string& path);
[[nodiscard]] std::string ScenarioToJson(const v1::Scenario& scenario);

// The longest scenario name and unit name ValidateScenario accepts, in bytes (a 50 MB job name
// made every listing of jobs fail).
constexpr size_t kMaxNameBytes = 256;

[[nodiscard]] absl::Status ValidateScenario(const v1::Scenario& scenario);

// A file a unit names: its FMU, its table, a hybrid unit's wrapped FMU and weights. `field` is
// the path below the unit ("fmu", "table", "hybrid.fmu", "hybrid.weights"); the pointers point
// into the unit and live as long as it is not changed otherwise.
struct UnitArtifact {
  std::string field;
  std::string* path;
  std::string* digest;
};
std::vector<UnitArtifact> MutableUnitArtifacts(v1::Unit* unit);
// The same, as values.
struct UnitArtifactRef {
  std::string field;
  std::string path;
  std::string digest;
};
std::vector<UnitArtifactRef> UnitArtifacts(const v1::Unit& unit);

// "<unit>.<variable>" split at the first dot. `field` names the scenario field for errors.
struct VariableRef {
  std::string unit;
  std::string variable;
  std::string ToString() const { return unit + "." + variable; }
};
[[nodiscard]] absl::StatusOr<VariableRef> ParseVariableRef(std::string_view text,
                                                           std::string_view field);
// The index of the unit so named in the scenario, or -1.
int FindUnit(const v1::Scenario& scenario, const std::string& name);
// Parses `text` as "<unit>.<variable>" naming a unit of the scenario; errors name `field`.
[[nodiscard]] absl::Status CheckUnitRef(const v1::Scenario& scenario, std::string_view text,
                                        const std::string& field, VariableRef* ref);

// The variables of `vars` a scenario name stands for: the one so named (or so aliased:
// VariableInfo::aliases), else the elements of the FMI 3 array so named ("y" for "y[1,1]",
// "y[1,2]", ... in the description's order, row-major); empty when none.
std::vector<int> VariablesNamed(const std::vector<VariableInfo>& vars, const std::string& name);
// The name of `v` that the scenario name `name` stands for: its own name or the alias written
// (the element of an aliased array: "a[1,2]" for `name` "a"); "" when `name` does not name it.
// Results columns take this name, so that a column is called what the user wrote.
std::string NameAs(const VariableInfo& v, const std::string& name);
// "[1,2]" of "y[1,2]" for base "y"; "" when `name` is not an element of array `base`.
std::string_view ElementSuffix(const std::string& name, const std::string& base);

// Every variable of unit `unit` named in scenario.record, in record order without repeats: what
// LoadUnit.record carries, so the unit reports their values with every step.
std::vector<std::string> RecordedNames(const v1::Scenario& scenario, int unit);

// The LoadUnit command for unit `unit` of `scenario` in job `job_id`: the unit, the algorithm,
// its RecordedNames, start and stop times, and whether its output derivatives can be skipped (no
// input it feeds is HERMITE and the macro step is fixed). Every UnitProxy (local or remote) is
// loaded with it.
v1::LoadUnit LoadUnitFor(const v1::Scenario& scenario, int unit, const std::string& job_id);
// LoadUnitFor of every unit, in the scenario's order.
std::vector<v1::LoadUnit> LoadUnitsFor(const v1::Scenario& scenario, const std::string& job_id);

// Effective input approximation of a unit (its own, else the algorithm's, else ZOH).
v1::InputApproximation EffectiveApproximation(const v1::Scenario& scenario, int unit);

// Parameters of a unit: unit.parameters merged with builtin.parameters (the latter win).
using ParameterMap = google::protobuf::Map<std::string, google::protobuf::Value>;
class Parameters {
 public:
  explicit Parameters(const v1::Unit& unit);

  bool Has(const std::string& name) const;
  // A number; `fallback` when absent. Errors name the unit and the parameter.
  [[nodiscard]] absl::StatusOr<double> Number(const std::string& name, double fallback) const;
  [[nodiscard]] absl::StatusOr<double> RequiredNumber(const std::string& name) const;
  // A list of numbers (a single number is a list of one).
  [[nodiscard]] absl::StatusOr<std::vector<double>> Vector(const std::string& name) const;
  [[nodiscard]] absl::StatusOr<std::string> String(const std::string& name,
                                                   const std::string& fallback) const;
  // Every parameter name given.
  std::vector<std::string> Names() const;
  const std::string& unit_name() const { return unit_name_; }
  const std::map<std::string, google::protobuf::Value>& values() const { return values_; }

 private:
  std::string unit_name_;
  std::map<std::string, google::protobuf::Value> values_;
};

}  // namespace cosimo
