#include "ssp/src/ssp_files.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace cosimo::ssp {

absl::StatusOr<std::string> SourcePath(const std::string& uri) {
  const size_t colon = uri.find(':');
  if (colon != std::string::npos && uri.find('/') > colon) {
    return absl::UnimplementedError(absl::StrCat(
        "'", uri, "' is an absolute URI; only references relative to the SSD are supported"));
  }
  std::string decoded;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      decoded += uri[i];
      continue;
    }
    if (i + 2 >= uri.size() || std::isxdigit(static_cast<unsigned char>(uri[i + 1])) == 0 ||
        std::isxdigit(static_cast<unsigned char>(uri[i + 2])) == 0) {
      return absl::InvalidArgumentError(absl::StrCat("'", uri, "' has a malformed %-escape"));
    }
    decoded += static_cast<char>(std::stoi(uri.substr(i + 1, 2), nullptr, 16));
    i += 2;
  }
  return fs::path(decoded).lexically_normal().generic_string();
}

const char* LocalName(const pugi::xml_node& node) {
  const char* name = node.name();
  const char* colon = std::strrchr(name, ':');
  return colon != nullptr ? colon + 1 : name;
}

pugi::xml_node Child(const pugi::xml_node& node, const char* local) {
  for (pugi::xml_node c : node.children()) {
    if (c.type() == pugi::node_element && std::strcmp(LocalName(c), local) == 0) return c;
  }
  return {};
}

std::vector<pugi::xml_node> Children(const pugi::xml_node& node, const char* local) {
  std::vector<pugi::xml_node> out;
  for (pugi::xml_node c : node.children()) {
    if (c.type() == pugi::node_element && std::strcmp(LocalName(c), local) == 0) out.push_back(c);
  }
  return out;
}

absl::Status ParseXml(XmlFile* file) {
  const pugi::xml_parse_result parsed = file->doc.load_buffer(file->text.data(), file->text.size());
  if (!parsed) {
    return absl::InvalidArgumentError(
        absl::StrCat(file->At(parsed.offset), ": not well-formed XML: ", parsed.description()));
  }
  return absl::OkStatus();
}

std::optional<double> NumberAttribute(const pugi::xml_node& node, const char* name) {
  const pugi::xml_attribute a = node.attribute(name);
  if (!a) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(a.value(), &end);
  if (end == a.value() || *end != '\0' || !std::isfinite(value)) return std::nullopt;
  return value;
}

pugi::xml_node Find(const pugi::xml_node& node, const char* local) {
  // Depth first without recursion (an annotation may nest as deep as the input makes it): down
  // to the first child, else on to the next sibling of the nearest ancestor that has one.
  pugi::xml_node c = node.first_child();
  while (c && c != node) {
    if (c.type() == pugi::node_element && std::strcmp(LocalName(c), local) == 0) return c;
    if (c.type() == pugi::node_element && c.first_child()) {
      c = c.first_child();
      continue;
    }
    while (c != node && !c.next_sibling()) c = c.parent();
    if (c != node) c = c.next_sibling();
  }
  return {};
}

pugi::xml_node Annotation(const pugi::xml_node& owner, const std::string& type) {
  for (pugi::xml_node a : Children(Child(owner, "Annotations"), "Annotation")) {
    if (type == a.attribute("type").value()) return a;
  }
  return {};
}

}  // namespace cosimo::ssp
