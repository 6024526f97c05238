#include "ssp/src/ssp_values.h"

#include <cctype>
#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"

namespace cosimo::ssp {

std::string UnitName(const std::string& element) {
  std::string name;
  for (char c : element) {
    name += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') ? c : '_';
  }
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) != 0) name = "_" + name;
  return name;
}

absl::StatusOr<google::protobuf::Value> ParameterValue(const XmlFile& file,
                                                       const pugi::xml_node& parameter) {
  google::protobuf::Value value;
  for (pugi::xml_node typed : parameter.children()) {
    if (typed.type() != pugi::node_element) continue;
    const std::string kind = LocalName(typed);
    const pugi::xml_attribute v = typed.attribute("value");
    // SSP 1.0 types, and SSP 2.0's Float64/Int32/UInt8 and the like.
    const bool numeric = kind == "Real" || kind == "Integer" || kind.rfind("Float", 0) == 0 ||
                         kind.rfind("Int", 0) == 0 || kind.rfind("UInt", 0) == 0;
    if (numeric) {
      if (!v) break;
      char* end = nullptr;
      const double number = std::strtod(v.value(), &end);
      if (end == v.value() || *end != '\0') {
        return absl::InvalidArgumentError(absl::StrCat(file.Where(typed), ": parameter '",
                                                       parameter.attribute("name").value(), "': '",
                                                       v.value(), "' is not a number"));
      }
      value.set_number_value(number);
      return value;
    }
    if (kind == "Boolean") {
      if (!v) break;
      const std::string b = v.value();
      if (b != "true" && b != "false" && b != "1" && b != "0") {
        return absl::InvalidArgumentError(absl::StrCat(file.Where(typed), ": parameter '",
                                                       parameter.attribute("name").value(), "': '",
                                                       b, "' is not a Boolean"));
      }
      value.set_bool_value(b == "true" || b == "1");
      return value;
    }
    if (kind == "String") {
      if (!v) break;
      value.set_string_value(v.value());
      return value;
    }
    return absl::UnimplementedError(
        absl::StrCat(file.Where(typed), ": parameter '", parameter.attribute("name").value(),
                     "': ", kind, " values are not supported (Real, Integer, Boolean, String)"));
  }
  return absl::InvalidArgumentError(absl::StrCat(file.Where(parameter), ": parameter '",
                                                 parameter.attribute("name").value(),
                                                 "' has no Real, Integer, Boolean or String "
                                                 "value"));
}

void ComposeBefore(const Transform& earlier, Transform* total) {
  const bool linear = earlier.factor != 1.0 || earlier.offset != 0.0;
  const bool linear_total = total->factor != 1.0 || total->offset != 0.0;
  if (earlier.mapping) {
    total->mixed = total->mixed || total->mapping || linear_total || linear;
    total->mapping = earlier.mapping;
  }
  total->mixed = total->mixed || (total->mapping && linear);
  total->offset += total->factor * earlier.offset;
  total->factor *= earlier.factor;
}

absl::StatusOr<Transform> ReadTransform(const XmlFile& file, const pugi::xml_node& node) {
  Transform t;
  for (auto [name, value] : {std::pair<const char*, double*>{"factor", &t.factor},
                             std::pair<const char*, double*>{"offset", &t.offset}}) {
    if (!node.attribute(name)) continue;
    std::optional<double> v = NumberAttribute(node, name);
    if (!v) {
      return absl::InvalidArgumentError(absl::StrCat(file.Where(node), ": ", node.name(), " ", name,
                                                     "=\"", node.attribute(name).value(),
                                                     "\" is not a finite number"));
    }
    *value = *v;
  }
  return t;
}

absl::StatusOr<Mapping> ReadMapping(const SspSource& files, const XmlFile& file,
                                    const pugi::xml_node& node) {
  Mapping mapping;
  XmlFile ssm;
  const XmlFile* from = &file;
  pugi::xml_node root = Child(node, "ParameterMapping");
  const std::string source = node.attribute("source").value();
  if (!source.empty()) {
    ssm.name = source;
    absl::StatusOr<std::string> text = SourcePath(source);
    if (text.ok()) text = files.Read(*text);
    if (!text.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(file.Where(node),
                                                     ": parameter mapping source '", source,
                                                     "': ", text.status().message()));
    }
    ssm.text = *std::move(text);
    if (absl::Status s = ParseXml(&ssm); !s.ok()) return s;
    root = ssm.doc.document_element();
    from = &ssm;
  }
  for (pugi::xml_node entry : Children(root, "MappingEntry")) {
    MappingEntry& e = mapping[entry.attribute("source").value()];
    e.target = entry.attribute("target").value();
    for (pugi::xml_node t : entry.children()) {
      if (t.type() != pugi::node_element) continue;
      const std::string kind = LocalName(t);
      if (kind == "LinearTransformation") {
        absl::StatusOr<Transform> transform = ReadTransform(*from, t);
        if (!transform.ok()) return transform.status();
        e.transform = *transform;
      } else if (kind != "Annotations") {
        return absl::UnimplementedError(
            absl::StrCat(from->Where(t), ": parameter mapping '", e.target, "': ", t.name(),
                         " is not supported (ssc:LinearTransformation is)"));
      }
    }
  }
  return mapping;
}

}  // namespace cosimo::ssp
