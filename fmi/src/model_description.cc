#include "cosimo/fmi/model_description.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "fmi/src/model_description_attributes.h"
#include "fmi/src/model_description_clocks.h"
#include "fmi/src/model_description_fmi1.h"

namespace cosimo::fmi {
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

// An FMI 3 <Dimension>: a fixed size, or the structural parameter that holds it.
struct RawDimension {
  int64_t start = -1;
  int64_t value_reference = -1;
};

// The array's dimensions; "" or why they are not known. `sizing` gets the structural
// parameters that give sizes.
std::string ResolveDimensions(const std::vector<RawDimension>& raw,
                              const std::unordered_map<int64_t, int>& by_vr,
                              const ModelDescription& md, std::vector<uint64_t>* dims,
                              std::vector<int>* sizing) {
  for (const RawDimension& d : raw) {
    if (d.start >= 0) {
      dims->push_back(static_cast<uint64_t>(d.start));
      continue;
    }
    auto it = by_vr.find(d.value_reference);
    if (d.value_reference < 0 || it == by_vr.end()) {
      return "a <Dimension> has neither a start nor the valueReference of a variable";
    }
    const ScalarVariable& size = md.variables[it->second];
    uint64_t n = 0;
    if (!size.start || !absl::SimpleAtoi(*size.start, &n)) {
      return absl::StrCat("its size '", size.name, "' has no integer start value");
    }
    dims->push_back(n);
    sizing->push_back(it->second);
  }
  return "";
}

// "y[2,3]" for the element at `position` (row-major) of an array `name` of `dims`.
std::string ElementName(const std::string& name, const std::vector<uint64_t>& dims,
                        uint64_t position) {
  std::vector<uint64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    index[d] = position % dims[d] + 1;
    position /= dims[d];
  }
  return absl::StrCat(name, "[", absl::StrJoin(index, ","), "]");
}

// The element variables of the array at `a` (FMI 3.0.1 section 2.4.7.6: "name[i,j]", 1-based,
// row-major), appended to md->variables; "" or why the array is not expanded.
std::string ExpandArray(int a, const std::vector<RawDimension>& raw,
                        const std::unordered_map<int64_t, int>& by_vr, uint64_t budget,
                        ModelDescription* md, std::map<std::string, int>* by_name,
                        std::vector<int>* sizing) {
  std::vector<uint64_t> dims;
  if (std::string why = ResolveDimensions(raw, by_vr, *md, &dims, sizing); !why.empty()) {
    return why;
  }
  uint64_t size = 1;
  for (uint64_t d : dims)
    size = d != 0 && size > kMaxArrayElements / d ? kMaxArrayElements + 1 : size * d;
  ScalarVariable& array = md->variables[static_cast<size_t>(a)];
  array.dimensions = dims;
  array.size = size;
  if (!IsNumeric(array.type)) {
    return absl::StrCat(VarTypeName(array.type), " arrays are not supported");
  }
  if (size > budget) {
    return absl::StrCat("it has more than the ", kMaxArrayElements,
                        " elements Cosimo expands (per FMU)");
  }
  for (uint64_t e = 0; e < size; ++e) {
    if (by_name->count(ElementName(array.name, dims, e)) != 0) {
      return absl::StrCat("the element name '", ElementName(array.name, dims, e),
                          "' is also a declared variable");
    }
  }
  std::vector<std::string> starts;
  if (array.start) starts = absl::StrSplit(*array.start, ' ', absl::SkipWhitespace());
  array.first_element = static_cast<int>(md->variables.size());
  const ScalarVariable base = [&] {
    ScalarVariable b = array;
    b.start.reset();
    b.dimensions.clear();
    return b;
  }();
  for (uint64_t e = 0; e < size; ++e) {
    ScalarVariable element = base;
    element.name = ElementName(base.name, dims, e);
    element.is_array = false;
    element.size = 1;
    element.first_element = -1;
    element.array_of = a;
    element.element = e;
    element.derivative_of = -1;  // ExpandArrayDerivatives
    if (starts.size() == size) element.start = starts[e];
    if (starts.size() == 1) element.start = starts[0];
    element.aliases.clear();
    for (const std::string& alias : base.aliases) {
      element.aliases.push_back(ElementName(alias, dims, e));
      by_name->emplace(element.aliases.back(), static_cast<int>(md->variables.size()));
    }
    (*by_name)[element.name] = static_cast<int>(md->variables.size());
    md->variables.push_back(std::move(element));
  }
  return "";
}

// A derivative array of a state array (FMI 3.0.1 section 2.4.8.4: an array state is a vector of
// states): one Unknown per element, each element the derivative of the state's element.
absl::Status ExpandArrayDerivatives(const std::string& source, ModelDescription* md) {
  std::vector<Unknown> derivatives;
  for (const Unknown& d : md->derivatives) {
    const ScalarVariable& der = md->variables[static_cast<size_t>(d.index)];
    if (!der.is_array) {
      derivatives.push_back(d);
      continue;
    }
    const ScalarVariable& state = md->variables[static_cast<size_t>(der.derivative_of)];
    if (der.first_element < 0 || state.first_element < 0 || der.size != state.size) {
      return Bad(source, absl::StrCat("the derivative array '", der.name, "' of '", state.name,
                                      "' cannot be used element by element: ",
                                      !der.not_expanded.empty()     ? der.not_expanded
                                      : !state.not_expanded.empty() ? state.not_expanded
                                                                    : "their sizes differ"));
    }
    for (uint64_t e = 0; e < der.size; ++e) {
      Unknown element = d;
      element.index = der.first_element + static_cast<int>(e);
      md->variables[static_cast<size_t>(element.index)].derivative_of =
          state.first_element + static_cast<int>(e);
      derivatives.push_back(std::move(element));
    }
  }
  md->derivatives = std::move(derivatives);
  return absl::OkStatus();
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

std::vector<int> ModelDescription::Scalars() const {
  std::vector<int> out;
  for (int i = 0; i < static_cast<int>(variables.size()); ++i) {
    const ScalarVariable& v = variables[static_cast<size_t>(i)];
    if (v.array_of >= 0) break;  // the elements come after every declared variable
    if (!v.is_array) {
      out.push_back(i);
    } else if (v.first_element >= 0) {
      for (uint64_t e = 0; e < v.size; ++e) out.push_back(v.first_element + static_cast<int>(e));
    }
  }
  return out;
}

int ModelDescription::ArrayOf(const std::string& name) const {
  const size_t bracket = name.rfind('[');
  if (bracket == std::string::npos || name.back() != ']') return -1;
  const int index = Find(name.substr(0, bracket));
  return index >= 0 && variables[static_cast<size_t>(index)].is_array ? index : -1;
}

bool ModelDescription::SizesAnArray(int index) const {
  return std::find(sizing_parameters_.begin(), sizing_parameters_.end(), index) !=
         sizing_parameters_.end();
}

std::vector<int> ModelDescription::Clocks() const {
  std::vector<int> out;
  for (size_t i = 0; i < variables.size(); ++i) {
    if (variables[i].type == VarType::kClock) out.push_back(static_cast<int>(i));
  }
  return out;
}

// The reader of one modelDescription.xml, a step per part of it (ParseModelDescriptionText).
class ModelDescriptionParser {
 public:
  explicit ModelDescriptionParser(const std::string& source) : source_(source) {}

  absl::StatusOr<ModelDescription> Parse(const std::string& xml) {
    pugi::xml_document doc;
    const pugi::xml_parse_result parsed = doc.load_buffer(xml.data(), xml.size());
    if (!parsed) {
      return Bad(source_,
                 absl::StrCat("XML error at offset ", parsed.offset, ": ", parsed.description()));
    }
    const pugi::xml_node root = doc.child("fmiModelDescription");
    if (!root) return Bad(source_, "no <fmiModelDescription> element");
    if (absl::Status s = Header(root); !s.ok()) return s;
    if (md_.version == FmiVersion::kFmi1) return Fmi1Reader::Read(root, source_, std::move(md_));
    if (absl::Status s = Kinds(root); !s.ok()) return s;
    if (absl::Status s = Variables(root.child("ModelVariables")); !s.ok()) return s;
    if (absl::Status s = IndexByValueReference(); !s.ok()) return s;
    if (absl::Status s = Derivatives(); !s.ok()) return s;
    if (!fmi2_) {
      if (absl::Status s = ResolveClocks(source_, raw_clocks_, by_vr_, &md_); !s.ok()) return s;
    }
    Arrays();
    if (absl::Status s = Structure(root.child("ModelStructure")); !s.ok()) return s;
    if (!fmi2_) {
      if (absl::Status s = ExpandArrayDerivatives(source_, &md_); !s.ok()) return s;
    }
    for (const Unknown& d : md_.derivatives) {
      if (md_.variables[d.index].derivative_of < 0) {
        return Bad(source_, "derivative '" + md_.variables[d.index].name +
                                "' does not name its state (attribute derivative)");
      }
    }
    return std::move(md_);
  }

 private:
  // Version, identity, DefaultExperiment.
  absl::Status Header(const pugi::xml_node& root) {
    md_.fmi_version = root.attribute("fmiVersion").as_string();
    if (md_.fmi_version.rfind("1.", 0) == 0) {
      md_.version = FmiVersion::kFmi1;
      md_.guid = root.attribute("guid").as_string();
    } else if (md_.fmi_version.rfind("2.", 0) == 0) {
      md_.version = FmiVersion::kFmi2;
      md_.guid = root.attribute("guid").as_string();
    } else if (md_.fmi_version.rfind("3.", 0) == 0) {
      md_.version = FmiVersion::kFmi3;
      md_.guid = root.attribute("instantiationToken").as_string();
    } else {
      return Bad(source_,
                 "fmiVersion '" + md_.fmi_version + "' is not supported (1.0, 2.x or 3.x)");
    }
    fmi2_ = md_.version == FmiVersion::kFmi2;
    md_.model_name = root.attribute("modelName").as_string();
    md_.number_of_event_indicators = root.attribute("numberOfEventIndicators").as_int(0);
    Enumerations(root.child("TypeDefinitions"));
    if (const pugi::xml_node de = root.child("DefaultExperiment")) {
      if (auto a = de.attribute("startTime")) md_.default_start_time = a.as_double();
      if (auto a = de.attribute("stopTime")) md_.default_stop_time = a.as_double();
      if (auto a = de.attribute("tolerance")) md_.default_tolerance = a.as_double();
      if (auto a = de.attribute("stepSize")) md_.default_step_size = a.as_double();
    }
    return absl::OkStatus();
  }

  // The Enumeration types' items: FMI 2 <SimpleType name><Enumeration><Item name value>, FMI 3
  // <EnumerationType name><Item name value>.
  void Enumerations(const pugi::xml_node& definitions) {
    for (pugi::xml_node type : definitions.children()) {
      const pugi::xml_node items =
          std::string_view(type.name()) == "SimpleType" ? type.child("Enumeration") : type;
      if (std::string_view(items.name()) != "Enumeration" &&
          std::string_view(type.name()) != "EnumerationType") {
        continue;
      }
      auto& list = md_.enumerations[type.attribute("name").as_string()];
      for (pugi::xml_node item : items.children("Item")) {
        list.emplace_back(item.attribute("name").as_string(), item.attribute("value").as_llong());
      }
    }
  }

  // <CoSimulation>, <ModelExchange>, (FMI 3) <ScheduledExecution> and their identifiers.
  absl::Status Kinds(const pugi::xml_node& root) {
    ReadKind(root.child("CoSimulation"), md_.version, &md_.co_simulation);
    ReadKind(root.child("ModelExchange"), md_.version, &md_.model_exchange);
    if (!fmi2_) ReadKind(root.child("ScheduledExecution"), md_.version, &md_.scheduled_execution);
    if (!md_.co_simulation.offered && !md_.model_exchange.offered &&
        !md_.scheduled_execution.offered) {
      return Bad(source_, "neither <CoSimulation> nor <ModelExchange> is offered");
    }
    for (const KindInfo* kind :
         {&md_.co_simulation, &md_.model_exchange, &md_.scheduled_execution}) {
      if (kind->offered && kind->model_identifier.empty()) {
        return Bad(source_, "a modelIdentifier is missing");
      }
      // It names the binary binaries/<platform>/<modelIdentifier>.so: a plain file name, never
      // a path that leads out of the FMU's folder.
      if (kind->offered && !IsPlainFileName(kind->model_identifier)) {
        return Bad(source_, absl::StrCat("<",
                                         kind == &md_.co_simulation    ? "CoSimulation"
                                         : kind == &md_.model_exchange ? "ModelExchange"
                                                                       : "ScheduledExecution",
                                         "> modelIdentifier '", kind->model_identifier,
                                         "' is not a plain file name (letters, digits, '_', '-', "
                                         "'.', not starting with '.')"));
      }
    }
    return absl::OkStatus();
  }

  // <ModelVariables>: FMI 2 ScalarVariable elements with a type child, FMI 3 one element per
  // type.
  absl::Status Variables(const pugi::xml_node& vars) {
    if (fmi2_) {
      for (const pugi::xml_node sv : vars.children("ScalarVariable")) {
        const TypeName* t = std::find_if(std::begin(kFmi2Types), std::end(kFmi2Types),
                                         [&](const TypeName& t) { return sv.child(t.name); });
        if (t == std::end(kFmi2Types)) {
          return Bad(source_, absl::StrCat("variable '", sv.attribute("name").as_string(),
                                           "' has no type element"));
        }
        if (absl::Status s = AddVariable(sv, sv.child(t->name), t->type); !s.ok()) return s;
      }
      return absl::OkStatus();
    }
    for (const pugi::xml_node node : vars.children()) {
      const TypeName* t =
          std::find_if(std::begin(kFmi3Types), std::end(kFmi3Types),
                       [&](const TypeName& t) { return std::string(node.name()) == t.name; });
      if (t == std::end(kFmi3Types)) {
        return Bad(source_, absl::StrCat("unknown variable element <", node.name(), ">"));
      }
      if (absl::Status s = AddVariable(node, node, t->type); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status AddVariable(const pugi::xml_node& node, const pugi::xml_node& type_node,
                           VarType type) {
    ScalarVariable v;
    v.name = node.attribute("name").as_string();
    const std::string where = absl::StrCat("variable '", v.name, "'");
    if (v.name.empty()) return Bad(source_, "a variable has no name");
    if (md_.by_name_.count(v.name) != 0) return Bad(source_, where + " is declared twice");
    if (!node.attribute("valueReference")) return Bad(source_, where + " has no valueReference");
    v.value_reference = static_cast<uint32_t>(node.attribute("valueReference").as_ullong());
    v.description = node.attribute("description").as_string();
    if (std::string_view(type_node.name()) == "Enumeration") {
      v.enumeration = type_node.attribute("declaredType").as_string();
      if (v.enumeration.empty()) v.enumeration = "?";
    }
    v.type = type;
    v.unit = type_node.attribute("unit").as_string();
    auto causality = ParseCausality(node.attribute("causality").as_string());
    if (!causality.ok())
      return Bad(source_, where + ": " + std::string(causality.status().message()));
    v.causality = *causality;
    auto variability = ParseVariability(node.attribute("variability").as_string(), type);
    if (!variability.ok()) {
      return Bad(source_, where + ": " + std::string(variability.status().message()));
    }
    v.variability = *variability;
    if (const auto start = type_node.attribute("start")) {
      v.start = start.as_string();
    } else if (const auto start_node = type_node.child("Start")) {
      v.start = start_node.attribute("value").as_string();
    }
    auto initial = ParseInitial(node.attribute("initial").as_string(), v);
    if (!initial.ok()) return Bad(source_, where + ": " + std::string(initial.status().message()));
    v.initial = *initial;
    if (absl::Status s = Clocked(node, &v); !s.ok()) {
      return Bad(source_, where + ": " + std::string(s.message()));
    }
    std::vector<RawDimension> dims;
    for (const pugi::xml_node d : type_node.children("Dimension")) {
      dims.push_back(
          {d.attribute("start") ? d.attribute("start").as_llong(-1) : -1,
           d.attribute("valueReference") ? d.attribute("valueReference").as_llong(-1) : -1});
    }
    v.is_array = !dims.empty();
    raw_dimensions_.push_back(std::move(dims));
    raw_derivative_.push_back(type_node.attribute("derivative").as_llong(-1));
    md_.by_name_[v.name] = static_cast<int>(md_.variables.size());
    if (absl::Status s = Aliases(node, &v); !s.ok()) return s;
    md_.variables.push_back(std::move(v));
    return absl::OkStatus();
  }

  // FMI 3: a Clock's attributes, and the `clocks` a variable belongs to (resolved later).
  absl::Status Clocked(const pugi::xml_node& node, ScalarVariable* v) {
    if (v->type == VarType::kClock) {
      if (absl::Status s = ReadClockAttributes(node, v); !s.ok()) return s;
    }
    std::vector<int64_t> clocks;
    if (const auto attribute = node.attribute("clocks"); attribute && !fmi2_) {
      auto list = ParseList(attribute.as_string());
      if (!list.ok()) return list.status();
      clocks = *std::move(list);
    }
    raw_clocks_.push_back(std::move(clocks));
    return absl::OkStatus();
  }

  // FMI 3 <Alias name description displayUnit> children of a variable (FMI 3.0.1, section
  // 2.4.7): further names of the same variable, with nothing of their own but a description and
  // a display unit; names unique among all the variables' names and aliases.
  absl::Status Aliases(const pugi::xml_node& node, ScalarVariable* v) {
    for (const pugi::xml_node alias : node.children("Alias")) {
      const std::string name = alias.attribute("name").as_string();
      if (name.empty()) return Bad(source_, "an <Alias> of '" + v->name + "' has no name");
      if (!md_.by_name_.emplace(name, static_cast<int>(md_.variables.size())).second) {
        return Bad(source_, "the alias '" + name + "' of '" + v->name + "' is declared twice");
      }
      v->aliases.push_back(name);
    }
    return absl::OkStatus();
  }

  // FMI 3 refers to variables by value reference (unique in FMI 3), FMI 2 by 1-based index.
  absl::Status IndexByValueReference() {
    if (fmi2_) return absl::OkStatus();
    for (size_t i = 0; i < md_.variables.size(); ++i) {
      if (!by_vr_.emplace(md_.variables[i].value_reference, static_cast<int>(i)).second) {
        return Bad(source_, absl::StrCat("value reference ", md_.variables[i].value_reference,
                                         " is used twice"));
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<int> Resolve(int64_t ref, const std::string& what) const {
    if (fmi2_) {
      if (ref < 1 || ref > static_cast<int64_t>(md_.variables.size())) {
        return Bad(source_, absl::StrCat(what, ": index ", ref, " is out of range"));
      }
      return static_cast<int>(ref - 1);
    }
    auto it = by_vr_.find(ref);
    if (it == by_vr_.end()) {
      return Bad(source_, absl::StrCat(what, ": no variable has value reference ", ref));
    }
    return it->second;
  }

  // Each `derivative` attribute to the index of its state.
  absl::Status Derivatives() {
    for (size_t i = 0; i < md_.variables.size(); ++i) {
      if (raw_derivative_[i] < 0) continue;
      auto state = Resolve(raw_derivative_[i], "derivative of '" + md_.variables[i].name + "'");
      if (!state.ok()) return state.status();
      md_.variables[i].derivative_of = *state;
    }
    return absl::OkStatus();
  }

  // FMI 3 arrays expanded into their elements, within kMaxArrayElements per FMU.
  void Arrays() {
    uint64_t budget = kMaxArrayElements;
    for (size_t i = 0; i < raw_dimensions_.size() && !fmi2_; ++i) {
      if (raw_dimensions_[i].empty()) continue;
      md_.variables[i].not_expanded =
          ExpandArray(static_cast<int>(i), raw_dimensions_[i], by_vr_, budget, &md_, &md_.by_name_,
                      &md_.sizing_parameters_);
      if (md_.variables[i].not_expanded.empty()) budget -= md_.variables[i].size;
    }
  }

  // <ModelStructure>: outputs, derivatives, initial unknowns and their dependencies.
  absl::Status Structure(const pugi::xml_node& structure) {
    if (fmi2_) {
      const std::pair<const char*, std::vector<Unknown>*> lists[] = {
          {"Outputs", &md_.outputs},
          {"Derivatives", &md_.derivatives},
          {"InitialUnknowns", &md_.initial_unknowns}};
      for (const auto& [name, list] : lists) {
        for (const pugi::xml_node u : structure.child(name).children("Unknown")) {
          if (absl::Status s = ReadUnknown(u, name, list); !s.ok()) return s;
        }
      }
      return absl::OkStatus();
    }
    int indicators = 0;
    for (const pugi::xml_node node : structure.children()) {
      const std::string name = node.name();
      absl::Status s;
      if (name == "Output") {
        s = ReadUnknown(node, "Output", &md_.outputs);
      } else if (name == "ContinuousStateDerivative") {
        s = ReadUnknown(node, "ContinuousStateDerivative", &md_.derivatives);
      } else if (name == "InitialUnknown") {
        s = ReadUnknown(node, "InitialUnknown", &md_.initial_unknowns);
      } else if (name == "EventIndicator") {
        ++indicators;
      }
      if (!s.ok()) return s;
    }
    md_.number_of_event_indicators = indicators;
    return absl::OkStatus();
  }

  absl::Status ReadUnknown(const pugi::xml_node& node, const char* what,
                           std::vector<Unknown>* out) {
    const char* ref_attribute = fmi2_ ? "index" : "valueReference";
    auto index = Resolve(node.attribute(ref_attribute).as_llong(-1), what);
    if (!index.ok()) return index.status();
    Unknown unknown;
    unknown.index = *index;
    if (const auto deps = node.attribute("dependencies")) {
      unknown.dependencies_given = true;
      auto list = ParseList(deps.as_string());
      if (!list.ok()) {
        return Bad(source_, std::string(what) + ": " + std::string(list.status().message()));
      }
      for (int64_t ref : *list) {
        auto dep = Resolve(ref, what);
        if (!dep.ok()) return dep.status();
        unknown.dependencies.push_back(*dep);
      }
    }
    out->push_back(std::move(unknown));
    return absl::OkStatus();
  }

  const std::string& source_;
  ModelDescription md_;
  bool fmi2_ = true;
  std::vector<int64_t> raw_derivative_;  // per variable: FMI 2 index (1-based) / FMI 3 vr, or -1
  std::vector<std::vector<RawDimension>> raw_dimensions_;  // per variable (FMI 3 arrays)
  std::vector<std::vector<int64_t>> raw_clocks_;           // per variable: `clocks` (FMI 3)
  std::unordered_map<int64_t, int> by_vr_;                 // FMI 3
};

absl::StatusOr<ModelDescription> ParseModelDescriptionText(const std::string& xml,
                                                           const std::string& source) {
  return ModelDescriptionParser(source).Parse(xml);
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

}  // namespace cosimo::fmi
