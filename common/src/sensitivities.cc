// The scenario of forward sensitivities (sensitivities.h).
#include "cosimo/common/sensitivities.h"

#include <map>

namespace cosimo {
namespace {

struct VariableRef {
  std::string unit, variable;
};

VariableRef Split(const std::string& name) {
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return {name, ""};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

// Why unit `unit` cannot give sensitivities; empty when it can (built-in, an FMU run as Model
// Exchange: what its model description refuses, the unit says) or needs none (table).
std::string CannotGive(const v1::Unit& unit) {
  switch (unit.model_case()) {
    case v1::Unit::kBuiltin:
    case v1::Unit::kTable:
      return "";
    case v1::Unit::kFmu:
      if (unit.has_solver()) return "";
      return "unit '" + unit.name() +
             "' is an FMU run as Co-Simulation, which does not give its equations: give it a "
             "solver to run it as Model Exchange (if the FMU offers it) for its sensitivities";
    case v1::Unit::kHybrid:
      return "unit '" + unit.name() + "' is a hybrid unit: only built-in units give sensitivities";
    default:
      return "unit '" + unit.name() + "' has no model";
  }
}

}  // namespace

std::string SensitivityName(std::string_view variable, std::string_view parameter) {
  std::string out = "d(";
  out.append(variable).append(")/d(").append(parameter).append(")");
  return out;
}

absl::StatusOr<v1::Scenario> SensitivityScenario(const v1::Scenario& base,
                                                 const std::vector<std::string>& parameters,
                                                 const std::vector<std::string>& recorded) {
  std::map<std::string, const v1::Unit*> units;
  for (const v1::Unit& unit : base.units()) {
    if (std::string why = CannotGive(unit); !why.empty()) {
      return absl::FailedPreconditionError(why);
    }
    units[unit.name()] = &unit;
  }
  for (const std::string& p : parameters) {
    const VariableRef ref = Split(p);
    const auto it = units.find(ref.unit);
    if (it == units.end() || ref.variable.empty()) {
      return absl::FailedPreconditionError(
          "parameter '" + p + "' is not a unit's parameter (a field of the scenario?)");
    }
    if (!it->second->has_builtin() && !it->second->has_fmu()) {
      return absl::FailedPreconditionError("parameter '" + p +
                                           "' is not a built-in unit's or an FMU unit's");
    }
  }
  v1::Scenario out = base;
  for (v1::Unit& unit : *out.mutable_units()) {
    if (!unit.has_builtin() && !unit.has_fmu()) continue;
    unit.clear_sensitivities();
    for (const std::string& p : parameters) unit.add_sensitivities(p);
  }
  for (const v1::Connection& c : base.connections()) {
    const VariableRef from = Split(c.from()), to = Split(c.to());
    const auto source = units.find(from.unit);
    if (source != units.end() && source->second->has_table()) continue;  // zero
    if (c.map_size() > 0) {
      return absl::FailedPreconditionError("connection '" + c.from() + "' -> '" + c.to() +
                                           "' maps values: it has no derivative");
    }
    for (const std::string& p : parameters) {
      v1::Connection* s = out.add_connections();
      s->set_from(from.unit + "." + SensitivityName(from.variable, p));
      s->set_to(to.unit + "." + SensitivityName(to.variable, p));
      if (c.has_factor()) s->set_factor(c.factor());
    }
  }
  if (!base.record().empty()) {
    for (const std::string& r : recorded) {
      const VariableRef ref = Split(r);
      for (const std::string& p : parameters) {
        out.add_record(ref.unit + "." + SensitivityName(ref.variable, p));
      }
    }
  }
  return out;
}

}  // namespace cosimo
