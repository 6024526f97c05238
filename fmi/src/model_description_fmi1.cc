// FMI 1.0 modelDescription.xml ("FMI for Model Exchange 1.0" section 2, "FMI for Co-Simulation
// 1.0" section 2.2) into the version-neutral ModelDescription.
#include "fmi/src/model_description_fmi1.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fmi/src/model_description_attributes.h"

namespace cosimo::fmi {
namespace {

struct TypeName {
  const char* name;
  VarType type;
};
constexpr TypeName kFmi1Types[] = {{"Real", VarType::kFloat64},
                                   {"Integer", VarType::kInt32},
                                   {"Enumeration", VarType::kInt32},
                                   {"Boolean", VarType::kBoolean},
                                   {"String", VarType::kString}};

absl::Status Bad(const std::string& source, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", what));
}

absl::StatusOr<Variability> Fmi1Variability(const std::string& text, VarType type) {
  // FMI 1.0's default is continuous, which only a Real can be: the others are discrete.
  const bool real = type == VarType::kFloat64;
  if (text.empty() || text == "continuous") {
    return real ? Variability::kContinuous : Variability::kDiscrete;
  }
  if (text == "constant") return Variability::kConstant;
  if (text == "parameter") return Variability::kFixed;
  if (text == "discrete") return Variability::kDiscrete;
  return absl::InvalidArgumentError("unknown variability '" + text + "'");
}

absl::StatusOr<FmiCausality> Fmi1Causality(const std::string& text, Variability variability) {
  FmiCausality causality;
  if (text == "input") {
    causality = FmiCausality::kInput;
  } else if (text == "output") {
    causality = FmiCausality::kOutput;
  } else if (text.empty() || text == "internal" || text == "none") {
    causality = FmiCausality::kLocal;
  } else {
    return absl::InvalidArgumentError("unknown causality '" + text + "'");
  }
  // A parameter is set before fmiInitialize and then fixed, as an FMI 2 parameter.
  if (variability == Variability::kFixed && causality != FmiCausality::kOutput) {
    causality = FmiCausality::kParameter;
  }
  return causality;
}

absl::Status Prefixed(const std::string& where, const absl::Status& s) {
  return absl::InvalidArgumentError(absl::StrCat(where, ": ", s.message()));
}

// "der(x)" -> "x"; "" when `name` is not of that form.
std::string_view StateOf(std::string_view name) {
  if (name.size() < 6 || name.substr(0, 4) != "der(" || name.back() != ')') return {};
  return name.substr(4, name.size() - 5);
}

// <TypeDefinitions><Type name><RealType unit/> or <EnumerationType><Item name/>...: the unit a
// variable of that declaredType inherits (by type name); an enumeration's items, numbered from 1.
std::map<std::string, std::string> ReadTypes(const pugi::xml_node& definitions,
                                             ModelDescription* md) {
  std::map<std::string, std::string> units;
  for (const pugi::xml_node type : definitions.children("Type")) {
    const std::string name = type.attribute("name").as_string();
    const pugi::xml_node definition = type.first_child();
    if (std::string_view(definition.name()) == "EnumerationType") {
      auto& items = md->enumerations[name];
      for (const pugi::xml_node item : definition.children("Item")) {
        items.emplace_back(item.attribute("name").as_string(),
                           static_cast<int64_t>(items.size() + 1));
      }
    }
    units[name] = definition.attribute("unit").as_string();
  }
  return units;
}

// The kind: <Implementation> (Co-Simulation, stand-alone or tool) or Model Exchange; both named
// by the root's modelIdentifier.
absl::Status ReadKind(const pugi::xml_node& root, const std::string& source, ModelDescription* md) {
  const std::string identifier = root.attribute("modelIdentifier").as_string();
  if (identifier.empty()) return Bad(source, "the modelIdentifier attribute is missing");
  if (!IsPlainFileName(identifier)) {
    return Bad(source, absl::StrCat("modelIdentifier '", identifier,
                                    "' is not a plain file name (letters, digits, '_', '-', '.', "
                                    "not starting with '.')"));
  }
  const pugi::xml_node implementation = root.child("Implementation");
  if (!implementation) {
    md->model_exchange.offered = true;
    md->model_exchange.model_identifier = identifier;
    md->model_exchange.needs_completed_integrator_step = true;
    return absl::OkStatus();
  }
  pugi::xml_node cs = implementation.child("CoSimulation_StandAlone");
  if (!cs) cs = implementation.child("CoSimulation_Tool");
  if (!cs) {
    return Bad(source,
               "<Implementation> has neither <CoSimulation_StandAlone> nor <CoSimulation_Tool>");
  }
  const pugi::xml_node caps = cs.child("Capabilities");
  KindInfo& kind = md->co_simulation;
  kind.offered = true;
  kind.model_identifier = identifier;
  kind.can_handle_variable_communication_step_size =
      caps.attribute("canHandleVariableCommunicationStepSize").as_bool(false);
  kind.can_be_instantiated_only_once_per_process =
      caps.attribute("canBeInstantiatedOnlyOncePerProcess").as_bool(false);
  return absl::OkStatus();
}

// One <ScalarVariable> (its name already checked), its type element's unit inherited from
// `type_units` by declaredType. The names of its <DirectDependency> go to `dependencies`.
absl::StatusOr<ScalarVariable> ReadVariable(const pugi::xml_node& sv, const std::string& where,
                                            const std::map<std::string, std::string>& type_units,
                                            std::vector<std::string>* dependencies) {
  ScalarVariable v;
  v.name = sv.attribute("name").as_string();
  const TypeName* t = std::find_if(std::begin(kFmi1Types), std::end(kFmi1Types),
                                   [&](const TypeName& t) { return sv.child(t.name); });
  if (t == std::end(kFmi1Types)) return absl::InvalidArgumentError(where + " has no type element");
  const pugi::xml_node type_node = sv.child(t->name);
  if (!sv.attribute("valueReference")) {
    return absl::InvalidArgumentError(where + " has no valueReference");
  }
  v.value_reference = static_cast<uint32_t>(sv.attribute("valueReference").as_ullong());
  v.description = sv.attribute("description").as_string();
  v.type = t->type;
  const std::string declared = type_node.attribute("declaredType").as_string();
  if (std::string_view(t->name) == "Enumeration") v.enumeration = declared.empty() ? "?" : declared;
  v.unit = type_node.attribute("unit").as_string();
  if (auto it = type_units.find(declared); v.unit.empty() && it != type_units.end()) {
    v.unit = it->second;
  }
  auto variability = Fmi1Variability(sv.attribute("variability").as_string(), v.type);
  if (!variability.ok()) return Prefixed(where, variability.status());
  v.variability = *variability;
  auto causality = Fmi1Causality(sv.attribute("causality").as_string(), v.variability);
  if (!causality.ok()) return Prefixed(where, causality.status());
  v.causality = *causality;
  if (const auto start = type_node.attribute("start")) v.start = start.as_string();
  auto initial = ParseInitial("", v);
  if (!initial.ok()) return Prefixed(where, initial.status());
  v.initial = *initial;
  // fixed="false": the start value is a guess for the initialisation (FMI 1.0 section 2.10).
  if (v.start && !type_node.attribute("fixed").as_bool(true) && v.initial == Initial::kExact) {
    v.initial = Initial::kApprox;
  }
  const std::string alias = sv.attribute("alias").as_string();
  if (!alias.empty() && alias != "noAlias" && alias != "alias" && alias != "negatedAlias") {
    return absl::InvalidArgumentError(where + ": unknown alias '" + alias + "'");
  }
  v.negated = alias == "negatedAlias";
  for (const pugi::xml_node name : sv.child("DirectDependency").children("Name"))
    dependencies->push_back(name.text().as_string());
  return v;
}

// The outputs, with their <DirectDependency> on inputs (absent: every input).
absl::Status ReadOutputs(const std::string& source,
                         const std::vector<std::vector<std::string>>& dependencies,
                         const std::vector<bool>& dependencies_given, ModelDescription* md) {
  for (size_t i = 0; i < md->variables.size(); ++i) {
    if (md->variables[i].causality != FmiCausality::kOutput) continue;
    Unknown output;
    output.index = static_cast<int>(i);
    output.dependencies_given = dependencies_given[i];
    for (const std::string& name : dependencies[i]) {
      const int input = md->Find(name);
      if (input < 0 ||
          md->variables[static_cast<size_t>(input)].causality != FmiCausality::kInput) {
        return Bad(source, absl::StrCat("the <DirectDependency> of output '", md->variables[i].name,
                                        "' names '", name, "', which is no input"));
      }
      output.dependencies.push_back(input);
    }
    md->outputs.push_back(std::move(output));
  }
  return absl::OkStatus();
}

// The states: the Real variables x with a Real variable der(x), numberOfContinuousStates of them
// (Model Exchange), else none (Co-Simulation steps its states itself: they are then only not
// told apart from other locals).
absl::Status ReadStates(const std::string& source, ModelDescription* md) {
  for (size_t i = 0; i < md->variables.size(); ++i) {
    const std::string_view state_name = StateOf(md->variables[i].name);
    const int state = state_name.empty() ? -1 : md->Find(std::string(state_name));
    if (md->variables[i].type != VarType::kFloat64 || state < 0 ||
        md->variables[static_cast<size_t>(state)].type != VarType::kFloat64) {
      continue;
    }
    md->variables[i].derivative_of = state;
    Unknown derivative;
    derivative.index = static_cast<int>(i);
    md->derivatives.push_back(derivative);
  }
  if (static_cast<int>(md->derivatives.size()) == md->number_of_continuous_states) {
    return absl::OkStatus();
  }
  if (md->model_exchange.offered) {
    return Bad(source, absl::StrCat("numberOfContinuousStates is ", md->number_of_continuous_states,
                                    " but ", md->derivatives.size(),
                                    " Real variables are named der(<state>): Cosimo finds the "
                                    "states of an FMI 1.0 Model Exchange FMU by those names"));
  }
  for (const Unknown& d : md->derivatives)
    md->variables[static_cast<size_t>(d.index)].derivative_of = -1;
  md->derivatives.clear();
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ModelDescription> Fmi1Reader::Read(const pugi::xml_node& root,
                                                  const std::string& source, ModelDescription md) {
  md.number_of_continuous_states = root.attribute("numberOfContinuousStates").as_int(0);
  const std::map<std::string, std::string> type_units =
      ReadTypes(root.child("TypeDefinitions"), &md);
  if (absl::Status s = ReadKind(root, source, &md); !s.ok()) return s;
  std::vector<std::vector<std::string>> dependencies;  // per variable: its <DirectDependency>
  std::vector<bool> dependencies_given;
  for (const pugi::xml_node sv : root.child("ModelVariables").children("ScalarVariable")) {
    const std::string name = sv.attribute("name").as_string();
    const std::string where = absl::StrCat("variable '", name, "'");
    if (name.empty()) return Bad(source, "a variable has no name");
    if (md.by_name_.count(name) != 0) return Bad(source, where + " is declared twice");
    dependencies.emplace_back();
    dependencies_given.push_back(static_cast<bool>(sv.child("DirectDependency")));
    absl::StatusOr<ScalarVariable> v = ReadVariable(sv, where, type_units, &dependencies.back());
    if (!v.ok()) return Bad(source, std::string(v.status().message()));
    md.by_name_[name] = static_cast<int>(md.variables.size());
    md.variables.push_back(std::move(*v));
  }
  if (absl::Status s = ReadOutputs(source, dependencies, dependencies_given, &md); !s.ok()) {
    return s;
  }
  if (absl::Status s = ReadStates(source, &md); !s.ok()) return s;
  return md;
}

}  // namespace cosimo::fmi
