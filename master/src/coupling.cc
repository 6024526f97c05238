#include "cosimo/master/coupling.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"

namespace cosimo::master {
namespace {

int FindVariable(const std::vector<VariableInfo>& vars, const std::string& name) {
  for (size_t i = 0; i < vars.size(); ++i) {
    if (vars[i].IsCalled(name)) return static_cast<int>(i);
  }
  return -1;
}

// Any variable of the unit (output, input or other), or null.
const VariableInfo* FindRecordable(const UnitDescription& unit, const std::string& name) {
  for (const std::vector<VariableInfo>* list : {&unit.outputs, &unit.inputs, &unit.others}) {
    const int i = FindVariable(*list, name);
    if (i >= 0) return &(*list)[static_cast<size_t>(i)];
  }
  return nullptr;
}

// The recordable variables `name` stands for (VariablesNamed over outputs, inputs, others).
std::vector<const VariableInfo*> RecordablesNamed(const UnitDescription& unit,
                                                  const std::string& name) {
  std::vector<const VariableInfo*> out;
  for (const std::vector<VariableInfo>* list : {&unit.outputs, &unit.inputs, &unit.others}) {
    for (int i : VariablesNamed(*list, name)) out.push_back(&(*list)[static_cast<size_t>(i)]);
    if (!out.empty()) break;
  }
  return out;
}

std::string VariableNames(const std::vector<VariableInfo>& vars) {
  std::vector<std::string> names;
  for (const VariableInfo& v : vars) names.push_back(v.name);
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

}  // namespace

absl::StatusOr<Coupling> ResolveCoupling(const v1::Scenario& scenario,
                                         const std::vector<UnitDescription>& units) {
  if (static_cast<int>(units.size()) != scenario.units_size()) {
    return absl::InternalError("ResolveCoupling: one description per unit is needed");
  }
  Coupling coupling;
  coupling.inputs.resize(units.size());
  for (size_t u = 0; u < units.size(); ++u) coupling.inputs[u].resize(units[u].inputs.size());
  for (int i = 0; i < scenario.connections_size(); ++i) {
    const v1::Connection& c = scenario.connections(i);
    const std::string field = absl::StrCat("connections[", i, "]");
    VariableRef from, to;
    if (absl::Status s = CheckUnitRef(scenario, c.from(), field + ".from", &from); !s.ok()) {
      return s;
    }
    if (absl::Status s = CheckUnitRef(scenario, c.to(), field + ".to", &to); !s.ok()) return s;
    const int fu = FindUnit(scenario, from.unit);
    const int tu = FindUnit(scenario, to.unit);
    // String variables are never inputs or outputs: say so when one is named.
    auto unconnectable = [&](int unit, const VariableRef& ref, const char* side) {
      const VariableInfo* info = FindRecordable(units[unit], ref.variable);
      return info != nullptr && info->type == ValueType::kString
                 ? absl::InvalidArgumentError(
                       absl::StrCat(field, side, ": '", ref.ToString(),
                                    "' is a String variable: it can be recorded but not connected"))
                 : absl::OkStatus();
    };
    // A whole FMI 3 array connects element by element to an array of the same shape.
    const std::vector<int> outputs = VariablesNamed(units[fu].outputs, from.variable);
    if (outputs.empty()) {
      COSIMO_RETURN_IF_ERROR(unconnectable(fu, from, ".from"));
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".from: unit '", from.unit, "' has no output '", from.variable,
                       "' (outputs: ", VariableNames(units[fu].outputs), ")"));
    }
    const std::vector<int> inputs = VariablesNamed(units[tu].inputs, to.variable);
    if (inputs.empty()) {
      COSIMO_RETURN_IF_ERROR(unconnectable(tu, to, ".to"));
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".to: unit '", to.unit, "' has no input '", to.variable,
                       "' (inputs: ", VariableNames(units[tu].inputs), ")"));
    }
    bool same_shape = outputs.size() == inputs.size();
    for (size_t k = 0; k < outputs.size() && same_shape && outputs.size() > 1; ++k) {
      same_shape =
          ElementSuffix(NameAs(units[fu].outputs[outputs[k]], from.variable), from.variable) ==
          ElementSuffix(NameAs(units[tu].inputs[inputs[k]], to.variable), to.variable);
    }
    if (!same_shape) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": '", from.ToString(), "' (", outputs.size(), " values, last '",
                       units[fu].outputs[outputs.back()].name, "') and '", to.ToString(), "' (",
                       inputs.size(), " values, last '", units[tu].inputs[inputs.back()].name,
                       "') are not of the same shape: arrays connect element by element"));
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
      Coupling::Source& source = coupling.inputs[tu][inputs[k]];
      if (source.unit >= 0) {
        return absl::InvalidArgumentError(absl::StrCat(field, ".to: input '", to.unit, ".",
                                                       units[tu].inputs[inputs[k]].name,
                                                       "' is connected twice"));
      }
      source = {fu, outputs[k]};
    }
  }
  return coupling;
}

absl::StatusOr<RecordPlan> PlanRecording(const v1::Scenario& scenario,
                                         const std::vector<UnitDescription>& units) {
  RecordPlan plan;
  plan.columns.push_back({"time", -1, -1, -1, ValueType::kReal});
  if (scenario.record().empty()) {
    for (size_t u = 0; u < units.size(); ++u) {
      int integers = 0;
      for (size_t o = 0; o < units[u].outputs.size(); ++o) {
        const ValueType type = units[u].outputs[o].type;
        plan.columns.push_back(
            {scenario.units(static_cast<int>(u)).name() + "." + units[u].outputs[o].name,
             static_cast<int>(u), static_cast<int>(o), -1, type,
             type == ValueType::kInteger ? integers++ : -1});
      }
    }
    return plan;
  }
  for (int i = 0; i < scenario.record_size(); ++i) {
    const std::string field = absl::StrCat("record[", i, "]");
    VariableRef ref;
    if (absl::Status s = CheckUnitRef(scenario, scenario.record(i), field, &ref); !s.ok()) {
      return s;
    }
    const int u = FindUnit(scenario, ref.unit);
    const std::vector<VariableInfo>& outputs = units[u].outputs;
    const auto is_integer = [](const VariableInfo& v) { return v.type == ValueType::kInteger; };
    // An output, or an FMI 3 array of outputs: one column per element.
    if (const std::vector<int> named = VariablesNamed(outputs, ref.variable); !named.empty()) {
      for (int o : named) {
        // Named as written: an alias's column is called by the alias.
        RecordColumn column{ref.unit + "." + NameAs(outputs[o], ref.variable), u, o, -1,
                            outputs[o].type};
        if (column.type == ValueType::kInteger) {
          column.integer =
              static_cast<int>(std::count_if(outputs.begin(), outputs.begin() + o, is_integer));
        }
        plan.columns.push_back(std::move(column));
      }
      continue;
    }
    const std::vector<const VariableInfo*> named = RecordablesNamed(units[u], ref.variable);
    if (named.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": unit '", ref.unit, "' has no variable '", ref.variable,
                       "' (outputs: ", VariableNames(units[u].outputs), ")"));
    }
    // The values the unit records before these (RecordedNames order, arrays as their elements),
    // counting only those of the same kind (string or not), and the integers among them.
    const bool text = named.front()->type == ValueType::kString;
    int before = 0, integers_before = 0;
    for (const std::string& name : RecordedNames(scenario, u)) {
      if (name == ref.variable) break;
      for (const VariableInfo* other : RecordablesNamed(units[u], name)) {
        if ((other->type == ValueType::kString) == text) ++before;
        if (other->type == ValueType::kInteger) ++integers_before;
      }
    }
    const int integer_outputs =
        static_cast<int>(std::count_if(outputs.begin(), outputs.end(), is_integer));
    for (const VariableInfo* info : named) {
      RecordColumn column{ref.unit + "." + NameAs(*info, ref.variable), u, -1, before++,
                          info->type};
      if (column.type == ValueType::kInteger) column.integer = integer_outputs + integers_before++;
      plan.columns.push_back(std::move(column));
    }
  }
  return plan;
}

}  // namespace cosimo::master
