#include "ssp/src/ssp_maps.h"

#include <cerrno>
#include <cstdlib>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cosimo::ssp {
namespace {

std::optional<double> Whole(const std::string& text) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return std::nullopt;
  return static_cast<double>(v);
}

// The end's Enumeration type's items, or an error naming the end.
absl::StatusOr<const std::map<std::string, int64_t>*> ItemsOf(const ValueMapping& mapping,
                                                              const MappedEnd& end) {
  if (end.fmu == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(mapping.where, ": '", end.name, "': the FMU's Enumeration types are unknown"));
  }
  for (size_t i = 0; i < end.fmu->variables.size(); ++i) {
    if (end.fmu->variables[i].first != end.variable) continue;
    const std::string& type = end.fmu->variable_types[i];
    const std::string prefix = "Enumeration '";
    if (type.rfind(prefix, 0) != 0) break;
    const std::string name = type.substr(prefix.size(), type.size() - prefix.size() - 1);
    auto it = end.fmu->enumerations.find(name);
    if (it == end.fmu->enumerations.end()) {
      return absl::InvalidArgumentError(absl::StrCat(
          mapping.where, ": '", end.name, "': the FMU declares no Enumeration type '", name, "'"));
    }
    return &it->second;
  }
  return absl::InvalidArgumentError(absl::StrCat(mapping.where,
                                                 ": ssc:EnumerationMappingTransformation: '",
                                                 end.name, "' is not an Enumeration variable"));
}

// One MapEntry attribute's value as a number.
absl::StatusOr<double> Value(const ValueMapping& mapping, const std::string& text,
                             const std::map<std::string, int64_t>* items, const MappedEnd& end,
                             const char* attribute) {
  if (mapping.kind == "Boolean") {
    if (text == "true" || text == "1") return 1.0;
    if (text == "false" || text == "0") return 0.0;
  } else if (mapping.kind == "Integer") {
    if (std::optional<double> v = Whole(text)) return *v;
  } else if (auto it = items->find(text); it != items->end()) {
    return static_cast<double>(it->second);
  }
  std::string expected = mapping.kind == "Boolean" ? "true or false" : "an integer";
  if (mapping.kind == "Enumeration") {
    std::vector<std::string> names;
    for (const auto& item : *items) names.push_back(item.first);
    expected = absl::StrCat("an item of '", end.name, "' (", absl::StrJoin(names, ", "), ")");
  }
  return absl::InvalidArgumentError(absl::StrCat(mapping.where, ": ssc:MapEntry ", attribute, "=\"",
                                                 text, "\" is not ", expected));
}

}  // namespace

bool IsMappingTransformation(const std::string& kind) {
  return kind == "BooleanMappingTransformation" || kind == "IntegerMappingTransformation" ||
         kind == "EnumerationMappingTransformation";
}

absl::StatusOr<ValueMapping> ReadValueMapping(const XmlFile& file, const pugi::xml_node& node) {
  ValueMapping mapping;
  const std::string kind = LocalName(node);
  mapping.kind = kind.substr(0, kind.find("MappingTransformation"));
  mapping.where = file.Where(node);
  for (pugi::xml_node entry : Children(node, "MapEntry")) {
    if (!entry.attribute("source") || !entry.attribute("target")) {
      return absl::InvalidArgumentError(
          absl::StrCat(file.Where(entry), ": ssc:MapEntry needs a source and a target"));
    }
    mapping.entries.emplace_back(entry.attribute("source").value(),
                                 entry.attribute("target").value());
  }
  if (mapping.entries.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(mapping.where, ": ", node.name(), " has no ssc:MapEntry"));
  }
  return mapping;
}

absl::StatusOr<std::vector<v1::MapEntry>> ResolveValueMapping(const ValueMapping& mapping,
                                                              const MappedEnd& from,
                                                              const MappedEnd& to) {
  const std::map<std::string, int64_t>*from_items = nullptr, *to_items = nullptr;
  if (mapping.kind == "Enumeration") {
    absl::StatusOr<const std::map<std::string, int64_t>*> a = ItemsOf(mapping, from);
    if (!a.ok()) return a.status();
    absl::StatusOr<const std::map<std::string, int64_t>*> b = ItemsOf(mapping, to);
    if (!b.ok()) return b.status();
    from_items = *a;
    to_items = *b;
  }
  std::vector<v1::MapEntry> entries;
  for (const auto& [source, target] : mapping.entries) {
    absl::StatusOr<double> s = Value(mapping, source, from_items, from, "source");
    if (!s.ok()) return s.status();
    absl::StatusOr<double> t = Value(mapping, target, to_items, to, "target");
    if (!t.ok()) return t.status();
    v1::MapEntry& e = entries.emplace_back();
    e.set_source(*s);
    e.set_target(*t);
  }
  return entries;
}

}  // namespace cosimo::ssp
