#include "worker/src/fmi/model_description.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <pugixml.hpp>
#include <unordered_map>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace cosimo::worker::fmi {
namespace {

struct TypeName {
  const char* name;
  VarType type;
};
constexpr TypeName kFmi2Types[] = {{"Real", VarType::kFloat64},
                                   {"Integer", VarType::kInt32},
                                   {"Enumeration", VarType::kInt32},
                                   {"Boolean", VarType::kBoolean},
                                   {"String", VarType::kString}};
constexpr TypeName kFmi3Types[] = {
    {"Float64", VarType::kFloat64}, {"Float32", VarType::kFloat32},   {"Int8", VarType::kInt8},
    {"UInt8", VarType::kUInt8},     {"Int16", VarType::kInt16},       {"UInt16", VarType::kUInt16},
    {"Int32", VarType::kInt32},     {"UInt32", VarType::kUInt32},     {"Int64", VarType::kInt64},
    {"UInt64", VarType::kUInt64},   {"Boolean", VarType::kBoolean},   {"String", VarType::kString},
    {"Binary", VarType::kBinary},   {"Enumeration", VarType::kInt64}, {"Clock", VarType::kClock}};

absl::Status Bad(const std::string& source, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(source, ": ", what));
}

absl::StatusOr<FmiCausality> ParseCausality(const std::string& text) {
  if (text.empty() || text == "local") return FmiCausality::kLocal;
  if (text == "parameter") return FmiCausality::kParameter;
  if (text == "calculatedParameter") return FmiCausality::kCalculatedParameter;
  if (text == "structuralParameter") return FmiCausality::kStructuralParameter;
  if (text == "input") return FmiCausality::kInput;
  if (text == "output") return FmiCausality::kOutput;
  if (text == "independent") return FmiCausality::kIndependent;
  return absl::InvalidArgumentError("unknown causality '" + text + "'");
}

absl::StatusOr<Variability> ParseVariability(const std::string& text, VarType type) {
  if (text.empty()) {
    return type == VarType::kFloat64 || type == VarType::kFloat32 ? Variability::kContinuous
                                                                  : Variability::kDiscrete;
  }
  if (text == "constant") return Variability::kConstant;
  if (text == "fixed") return Variability::kFixed;
  if (text == "tunable") return Variability::kTunable;
  if (text == "discrete") return Variability::kDiscrete;
  if (text == "continuous") return Variability::kContinuous;
  return absl::InvalidArgumentError("unknown variability '" + text + "'");
}

absl::StatusOr<Initial> ParseInitial(const std::string& text, const ScalarVariable& v) {
  if (text == "exact") return Initial::kExact;
  if (text == "approx") return Initial::kApprox;
  if (text == "calculated") return Initial::kCalculated;
  if (!text.empty()) return absl::InvalidArgumentError("unknown initial '" + text + "'");
  // Defaults (FMI 2.0 table in 2.2.7, FMI 3.0 table in 2.4.7.5).
  switch (v.causality) {
    case FmiCausality::kParameter:
    case FmiCausality::kStructuralParameter:
      return Initial::kExact;
    case FmiCausality::kCalculatedParameter:
      return Initial::kCalculated;
    case FmiCausality::kInput:
    case FmiCausality::kIndependent:
      return Initial::kNone;
    case FmiCausality::kOutput:
    case FmiCausality::kLocal:
      if (v.variability == Variability::kConstant) return Initial::kExact;
      return v.start ? Initial::kApprox : Initial::kCalculated;
  }
  return Initial::kNone;
}

// "1 4 7" -> integers.
absl::StatusOr<std::vector<int64_t>> ParseList(const char* text) {
  std::vector<int64_t> out;
  for (absl::string_view part : absl::StrSplit(text, ' ', absl::SkipWhitespace())) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(part, &value)) {
      return absl::InvalidArgumentError(absl::StrCat("'", part, "' is not an integer"));
    }
    out.push_back(value);
  }
  return out;
}

// Letters, digits, '_', '-' and '.', not starting with '.': no folder separator, no "..".
bool IsPlainFileName(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.size() > 255) return false;
  for (const char c : name) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') {
      return false;
    }
  }
  return true;
}

void ReadKind(const pugi::xml_node& node, FmiVersion version, KindInfo* kind) {
  if (!node) return;
  kind->offered = true;
  kind->model_identifier = node.attribute("modelIdentifier").as_string();
  const bool fmi2 = version == FmiVersion::kFmi2;
  kind->can_get_and_set_fmu_state =
      node.attribute(fmi2 ? "canGetAndSetFMUstate" : "canGetAndSetFMUState").as_bool(false);
  kind->can_serialize_fmu_state =
      node.attribute(fmi2 ? "canSerializeFMUstate" : "canSerializeFMUState").as_bool(false);
  kind->provides_directional_derivative =
      node.attribute(fmi2 ? "providesDirectionalDerivative" : "providesDirectionalDerivatives")
          .as_bool(false);
  kind->can_be_instantiated_only_once_per_process =
      node.attribute("canBeInstantiatedOnlyOncePerProcess").as_bool(false);
  kind->can_handle_variable_communication_step_size =
      node.attribute("canHandleVariableCommunicationStepSize").as_bool(false);
  kind->can_interpolate_inputs = fmi2 && node.attribute("canInterpolateInputs").as_bool(false);
  kind->max_output_derivative_order = node.attribute("maxOutputDerivativeOrder").as_int(0);
  kind->has_event_mode = !fmi2 && node.attribute("hasEventMode").as_bool(false);
  kind->needs_completed_integrator_step =
      fmi2 ? !node.attribute("completedIntegratorStepNotNeeded").as_bool(false)
           : node.attribute("needsCompletedIntegratorStep").as_bool(false);
}

}  // namespace

const char* VarTypeName(VarType type) {
  for (const auto& t : kFmi3Types) {
    if (t.type == type) return t.name;
  }
  return "?";
}

int ModelDescription::Find(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? -1 : it->second;
}

absl::StatusOr<ModelDescription> ParseModelDescriptionText(const std::string& xml,
                                                           const std::string& source) {
  pugi::xml_document doc;
  const pugi::xml_parse_result parsed = doc.load_buffer(xml.data(), xml.size());
  if (!parsed) {
    return Bad(source,
               absl::StrCat("XML error at offset ", parsed.offset, ": ", parsed.description()));
  }
  const pugi::xml_node root = doc.child("fmiModelDescription");
  if (!root) return Bad(source, "no <fmiModelDescription> element");

  ModelDescription md;
  md.fmi_version = root.attribute("fmiVersion").as_string();
  if (md.fmi_version.rfind("2.", 0) == 0) {
    md.version = FmiVersion::kFmi2;
    md.guid = root.attribute("guid").as_string();
  } else if (md.fmi_version.rfind("3.", 0) == 0) {
    md.version = FmiVersion::kFmi3;
    md.guid = root.attribute("instantiationToken").as_string();
  } else {
    return Bad(source, "fmiVersion '" + md.fmi_version + "' is not supported (2.x or 3.x)");
  }
  const bool fmi2 = md.version == FmiVersion::kFmi2;
  md.model_name = root.attribute("modelName").as_string();
  md.number_of_event_indicators = root.attribute("numberOfEventIndicators").as_int(0);
  ReadKind(root.child("CoSimulation"), md.version, &md.co_simulation);
  ReadKind(root.child("ModelExchange"), md.version, &md.model_exchange);
  if (!md.co_simulation.offered && !md.model_exchange.offered) {
    return Bad(source, "neither <CoSimulation> nor <ModelExchange> is offered");
  }
  for (const KindInfo* kind : {&md.co_simulation, &md.model_exchange}) {
    if (kind->offered && kind->model_identifier.empty()) {
      return Bad(source, "a modelIdentifier is missing");
    }
    // It names the binary binaries/<platform>/<modelIdentifier>.so: a plain file name, never a
    // path that leads out of the FMU's folder.
    if (kind->offered && !IsPlainFileName(kind->model_identifier)) {
      return Bad(source,
                 absl::StrCat("<", kind == &md.co_simulation ? "CoSimulation" : "ModelExchange",
                              "> modelIdentifier '", kind->model_identifier,
                              "' is not a plain file name (letters, digits, '_', '-', "
                              "'.', not starting with '.')"));
    }
  }
  if (const pugi::xml_node de = root.child("DefaultExperiment")) {
    if (auto a = de.attribute("startTime")) md.default_start_time = a.as_double();
    if (auto a = de.attribute("stopTime")) md.default_stop_time = a.as_double();
    if (auto a = de.attribute("tolerance")) md.default_tolerance = a.as_double();
    if (auto a = de.attribute("stepSize")) md.default_step_size = a.as_double();
  }

  // Variables.
  std::vector<int64_t> raw_derivative;  // per variable: FMI 2 index (1-based) / FMI 3 vr, or -1
  const pugi::xml_node vars = root.child("ModelVariables");
  auto add_variable = [&](const pugi::xml_node& node, const pugi::xml_node& type_node,
                          VarType type) -> absl::Status {
    ScalarVariable v;
    v.name = node.attribute("name").as_string();
    const std::string where = absl::StrCat("variable '", v.name, "'");
    if (v.name.empty()) return Bad(source, "a variable has no name");
    if (md.by_name_.count(v.name) != 0) return Bad(source, where + " is declared twice");
    if (!node.attribute("valueReference")) return Bad(source, where + " has no valueReference");
    v.value_reference = static_cast<uint32_t>(node.attribute("valueReference").as_ullong());
    v.description = node.attribute("description").as_string();
    v.type = type;
    v.unit = type_node.attribute("unit").as_string();
    auto causality = ParseCausality(node.attribute("causality").as_string());
    if (!causality.ok())
      return Bad(source, where + ": " + std::string(causality.status().message()));
    v.causality = *causality;
    auto variability = ParseVariability(node.attribute("variability").as_string(), type);
    if (!variability.ok()) {
      return Bad(source, where + ": " + std::string(variability.status().message()));
    }
    v.variability = *variability;
    if (const auto start = type_node.attribute("start")) {
      v.start = start.as_string();
    } else if (const auto start_node = type_node.child("Start")) {
      v.start = start_node.attribute("value").as_string();
    }
    auto initial = ParseInitial(node.attribute("initial").as_string(), v);
    if (!initial.ok()) return Bad(source, where + ": " + std::string(initial.status().message()));
    v.initial = *initial;
    v.is_array = static_cast<bool>(type_node.child("Dimension"));
    raw_derivative.push_back(type_node.attribute("derivative").as_llong(-1));
    md.by_name_[v.name] = static_cast<int>(md.variables.size());
    md.variables.push_back(std::move(v));
    return absl::OkStatus();
  };
  if (fmi2) {
    for (const pugi::xml_node sv : vars.children("ScalarVariable")) {
      bool found = false;
      for (const auto& t : kFmi2Types) {
        if (const pugi::xml_node type_node = sv.child(t.name)) {
          if (absl::Status s = add_variable(sv, type_node, t.type); !s.ok()) return s;
          found = true;
          break;
        }
      }
      if (!found) {
        return Bad(source, absl::StrCat("variable '", sv.attribute("name").as_string(),
                                        "' has no type element"));
      }
    }
  } else {
    for (const pugi::xml_node node : vars.children()) {
      bool found = false;
      for (const auto& t : kFmi3Types) {
        if (std::string(node.name()) == t.name) {
          if (absl::Status s = add_variable(node, node, t.type); !s.ok()) return s;
          found = true;
          break;
        }
      }
      if (!found) {
        return Bad(source, absl::StrCat("unknown variable element <", node.name(), ">"));
      }
    }
  }

  // FMI 3 refers to variables by value reference (unique in FMI 3), FMI 2 by 1-based index.
  std::unordered_map<int64_t, int> by_vr;
  if (!fmi2) {
    for (size_t i = 0; i < md.variables.size(); ++i) {
      if (!by_vr.emplace(md.variables[i].value_reference, static_cast<int>(i)).second) {
        return Bad(source, absl::StrCat("value reference ", md.variables[i].value_reference,
                                        " is used twice"));
      }
    }
  }
  auto resolve = [&](int64_t ref, const std::string& what) -> absl::StatusOr<int> {
    if (fmi2) {
      if (ref < 1 || ref > static_cast<int64_t>(md.variables.size())) {
        return Bad(source, absl::StrCat(what, ": index ", ref, " is out of range"));
      }
      return static_cast<int>(ref - 1);
    }
    auto it = by_vr.find(ref);
    if (it == by_vr.end()) {
      return Bad(source, absl::StrCat(what, ": no variable has value reference ", ref));
    }
    return it->second;
  };
  for (size_t i = 0; i < md.variables.size(); ++i) {
    if (raw_derivative[i] < 0) continue;
    auto state = resolve(raw_derivative[i], "derivative of '" + md.variables[i].name + "'");
    if (!state.ok()) return state.status();
    md.variables[i].derivative_of = *state;
  }

  // Model structure.
  const pugi::xml_node structure = root.child("ModelStructure");
  auto read_unknown = [&](const pugi::xml_node& node, const char* what,
                          std::vector<Unknown>* out) -> absl::Status {
    const char* ref_attribute = fmi2 ? "index" : "valueReference";
    auto index = resolve(node.attribute(ref_attribute).as_llong(-1), what);
    if (!index.ok()) return index.status();
    Unknown unknown;
    unknown.index = *index;
    if (const auto deps = node.attribute("dependencies")) {
      unknown.dependencies_given = true;
      auto list = ParseList(deps.as_string());
      if (!list.ok())
        return Bad(source, std::string(what) + ": " + std::string(list.status().message()));
      for (int64_t ref : *list) {
        auto dep = resolve(ref, what);
        if (!dep.ok()) return dep.status();
        unknown.dependencies.push_back(*dep);
      }
    }
    out->push_back(std::move(unknown));
    return absl::OkStatus();
  };
  if (fmi2) {
    const std::pair<const char*, std::vector<Unknown>*> lists[] = {
        {"Outputs", &md.outputs},
        {"Derivatives", &md.derivatives},
        {"InitialUnknowns", &md.initial_unknowns}};
    for (const auto& [name, list] : lists) {
      for (const pugi::xml_node u : structure.child(name).children("Unknown")) {
        if (absl::Status s = read_unknown(u, name, list); !s.ok()) return s;
      }
    }
  } else {
    int indicators = 0;
    for (const pugi::xml_node node : structure.children()) {
      const std::string name = node.name();
      absl::Status s;
      if (name == "Output") {
        s = read_unknown(node, "Output", &md.outputs);
      } else if (name == "ContinuousStateDerivative") {
        s = read_unknown(node, "ContinuousStateDerivative", &md.derivatives);
      } else if (name == "InitialUnknown") {
        s = read_unknown(node, "InitialUnknown", &md.initial_unknowns);
      } else if (name == "EventIndicator") {
        ++indicators;
      }
      if (!s.ok()) return s;
    }
    md.number_of_event_indicators = indicators;
  }
  for (const Unknown& d : md.derivatives) {
    if (md.variables[d.index].derivative_of < 0) {
      return Bad(source, "derivative '" + md.variables[d.index].name +
                             "' does not name its state (attribute derivative)");
    }
  }
  return md;
}

absl::StatusOr<ModelDescription> ParseModelDescriptionFile(const std::string& path,
                                                           uint64_t max_bytes) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", ec.message()));
  if (size > max_bytes) {
    return Bad(path, absl::StrCat("the file is ", size, " bytes, more than the ", max_bytes,
                                  " a worker reads"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::string text(static_cast<size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return ParseModelDescriptionText(text, path);
}

}  // namespace cosimo::worker::fmi
