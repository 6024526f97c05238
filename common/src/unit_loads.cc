// Which variables a scenario names and what a unit is loaded with (cosimo/common/scenario.h):
// VariablesNamed (how a scenario name stands for an FMI 3 array's elements), RecordedNames and
// LoadUnitFor. The coupling and recording plans over loaded units are the master's
// (master/src/coupling.cc).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "cosimo/common/scenario.h"

namespace cosimo {
namespace {

int FindVariable(const std::vector<VariableInfo>& vars, const std::string& name) {
  for (size_t i = 0; i < vars.size(); ++i) {
    if (vars[i].IsCalled(name)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

std::string_view ElementSuffix(const std::string& name, const std::string& base) {
  if (name.size() <= base.size() + 2 || name.compare(0, base.size(), base) != 0 ||
      name[base.size()] != '[' || name.back() != ']') {
    return {};
  }
  return std::string_view(name).substr(base.size());
}

std::vector<int> VariablesNamed(const std::vector<VariableInfo>& vars, const std::string& name) {
  if (const int i = FindVariable(vars, name); i >= 0) return {i};
  std::vector<int> elements;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (!NameAs(vars[i], name).empty()) elements.push_back(static_cast<int>(i));
  }
  return elements;
}

std::string NameAs(const VariableInfo& v, const std::string& name) {
  if (v.name == name || !ElementSuffix(v.name, name).empty()) return v.name;
  for (const std::string& alias : v.aliases) {
    if (alias == name || !ElementSuffix(alias, name).empty()) return alias;
  }
  return "";
}

std::vector<std::string> RecordedNames(const v1::Scenario& scenario, int unit) {
  std::vector<std::string> names;
  const std::string prefix = scenario.units(unit).name() + ".";
  for (const std::string& r : scenario.record()) {
    if (r.rfind(prefix, 0) != 0) continue;
    std::string variable = r.substr(prefix.size());
    if (std::find(names.begin(), names.end(), variable) == names.end()) {
      names.push_back(std::move(variable));
    }
  }
  return names;
}

v1::LoadUnit LoadUnitFor(const v1::Scenario& scenario, int unit, const std::string& job_id) {
  v1::LoadUnit load;
  load.set_job_id(job_id);
  *load.mutable_unit() = scenario.units(unit);
  *load.mutable_algorithm() = scenario.algorithm();
  for (const std::string& name : RecordedNames(scenario, unit)) load.add_record(name);
  load.set_start_time(scenario.start_time());
  load.set_stop_time(scenario.stop_time());
  // Used by HERMITE inputs (values and derivatives), and by adaptive step control's error
  // estimate on the first step (the tangent at t0); nowhere else.
  bool derivatives_used = scenario.algorithm().has_adaptive();
  for (const v1::Connection& c : scenario.connections()) {
    absl::StatusOr<VariableRef> from = ParseVariableRef(c.from(), "from");
    absl::StatusOr<VariableRef> to = ParseVariableRef(c.to(), "to");
    if (!from.ok() || !to.ok() || from->unit != scenario.units(unit).name()) continue;
    const int consumer = FindUnit(scenario, to->unit);
    if (consumer >= 0 && EffectiveApproximation(scenario, consumer) == v1::HERMITE) {
      derivatives_used = true;
    }
  }
  load.set_skip_output_derivatives(!derivatives_used);
  load.set_inputs_listed(true);
  for (const v1::Connection& c : scenario.connections()) {
    absl::StatusOr<VariableRef> to = ParseVariableRef(c.to(), "to");
    if (!to.ok() || to->unit != scenario.units(unit).name()) continue;
    load.add_connected_inputs(to->variable);
    if (!c.has_factor() && !c.has_offset() && c.map().empty()) continue;
    v1::InputTransform* t = load.add_input_transforms();
    t->set_input(to->variable);
    t->set_factor(c.has_factor() ? c.factor() : 1.0);
    t->set_offset(c.has_offset() ? c.offset() : 0.0);
    *t->mutable_map() = c.map();
    t->set_from(c.from());
  }
  return load;
}

std::vector<v1::LoadUnit> LoadUnitsFor(const v1::Scenario& scenario, const std::string& job_id) {
  std::vector<v1::LoadUnit> loads;
  for (int i = 0; i < scenario.units_size(); ++i) loads.push_back(LoadUnitFor(scenario, i, job_id));
  return loads;
}

}  // namespace cosimo
