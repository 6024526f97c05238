#include "cosimo/client/ssp_import.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <pugixml.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "cosimo/common/archive_names.h"
#include "cosimo/common/zip_archive.h"

namespace cosimo::client {
namespace fs = std::filesystem;
namespace {

// The files of an SSP: entries of its archive, or files beside an .ssd.
class SspSource {
 public:
  static absl::StatusOr<SspSource> Open(const std::string& path) {
    SspSource source;
    source.path_ = path;
    if (fs::path(path).extension() == ".ssd") {
      source.dir_ = fs::absolute(path).parent_path();
      return source;
    }
    int error = 0;
    source.archive_.reset(zip_open(path.c_str(), ZIP_RDONLY, &error));
    if (source.archive_ == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("SSP '", path, "': cannot open as a zip archive: ", ZipErrorText(error)));
    }
    return source;
  }

  bool archived() const { return archive_ != nullptr; }
  // "SystemStructure.ssd" of the archive, or the .ssd itself.
  std::string ssd_name() const {
    return archived() ? "SystemStructure.ssd" : fs::path(path_).filename().string();
  }

  absl::StatusOr<std::string> Read(const std::string& name) const {
    if (!archived()) {
      std::ifstream in(dir_ / name, std::ios::binary);
      if (!in) {
        return absl::NotFoundError(absl::StrCat("cannot read '", (dir_ / name).string(), "'"));
      }
      std::stringstream s;
      s << in.rdbuf();
      return s.str();
    }
    std::string text;
    absl::Status s = Stream(name, [&](const char* data, size_t n) {
      text.append(data, n);
      return true;
    });
    if (!s.ok()) return s;
    return text;
  }

  // The path a unit can load `name` from: extracted under `dir`, or the file beside the .ssd.
  absl::StatusOr<std::string> Materialize(const std::string& name, const std::string& dir) const {
    if (!archived()) {
      const fs::path p = (dir_ / name).lexically_normal();
      if (!fs::is_regular_file(p)) {
        return absl::NotFoundError(absl::StrCat("'", p.string(), "' does not exist"));
      }
      return p.string();
    }
    const fs::path target = (fs::absolute(dir) / name).lexically_normal();
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("cannot create '", target.parent_path().string(), "': ", ec.message()));
    }
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    if (!out) return absl::InternalError(absl::StrCat("cannot write '", target.string(), "'"));
    absl::Status s = Stream(name, [&](const char* data, size_t n) {
      out.write(data, static_cast<std::streamsize>(n));
      return static_cast<bool>(out);
    });
    if (!s.ok()) return s;
    out.close();
    if (!out) return absl::InternalError(absl::StrCat("cannot write '", target.string(), "'"));
    return target.string();
  }

 private:
  template <typename Sink>
  absl::Status Stream(const std::string& name, Sink sink) const {
    if (!IsSafeEntryName(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("'", name, "' is not a relative path inside the archive"));
    }
    ZipEntry file(zip_fopen(archive_.get(), name.c_str(), 0));
    if (file == nullptr) {
      return absl::NotFoundError(absl::StrCat("the archive has no entry '", name, "'"));
    }
    char buffer[1 << 16];
    while (true) {
      const zip_int64_t n = zip_fread(file.get(), buffer, sizeof(buffer));
      if (n < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("corrupt entry '", name, "': ", zip_file_strerror(file.get())));
      }
      if (n == 0) return absl::OkStatus();
      if (!sink(buffer, static_cast<size_t>(n))) {
        return absl::InternalError(absl::StrCat("cannot write the contents of '", name, "'"));
      }
    }
  }

  std::string path_;
  fs::path dir_;
  ZipArchive archive_;
};

// An SSP `source` is a URI reference relative to the SSD: percent-decoded and normalised
// ("./resources/my%20model.fmu" is "resources/my model.fmu"). Absolute URIs are refused.
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

// SSP documents qualify their elements with namespace prefixes (ssd:, ssv:, ssc:), whatever
// prefix a tool chose: elements are matched by their local name.
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

// One parsed XML file, with "file line N" for errors.
struct XmlFile {
  std::string name;
  std::string text;
  pugi::xml_document doc;

  std::string Where(const pugi::xml_node& node) const { return At(node.offset_debug()); }

  // "name line N" for a byte offset into `text` (< 0: its start).
  std::string At(ptrdiff_t offset) const {
    const size_t end = std::min(static_cast<size_t>(std::max<ptrdiff_t>(0, offset)), text.size());
    return absl::StrCat(name, " line ", 1 + std::count(text.begin(), text.begin() + end, '\n'));
  }
};

absl::Status ParseXml(XmlFile* file) {
  const pugi::xml_parse_result parsed = file->doc.load_buffer(file->text.data(), file->text.size());
  if (!parsed) {
    return absl::InvalidArgumentError(
        absl::StrCat(file->At(parsed.offset), ": not well-formed XML: ", parsed.description()));
  }
  return absl::OkStatus();
}

// A scenario unit name ([A-Za-z_][A-Za-z0-9_]*) for an SSP element name.
std::string UnitName(const std::string& element) {
  std::string name;
  for (char c : element) {
    name += (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_') ? c : '_';
  }
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])) != 0) name = "_" + name;
  return name;
}

// The value of one ssv:Parameter (its one typed child).
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

class Importer {
 public:
  Importer(const SspSource& source, const SspImportOptions& options, SspImport* out)
      : source_(source), options_(options), out_(out) {}

  absl::Status Run() {
    ssd_.name = source_.ssd_name();
    absl::StatusOr<std::string> text = source_.Read(ssd_.name);
    if (!text.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("SSP: no ", ssd_.name, ": ", text.status().message()));
    }
    ssd_.text = *std::move(text);
    if (absl::Status s = ParseXml(&ssd_); !s.ok()) return s;
    const pugi::xml_node root = ssd_.doc.document_element();
    if (std::strcmp(LocalName(root), "SystemStructureDescription") != 0) {
      return absl::InvalidArgumentError(absl::StrCat(ssd_.Where(root), ": the root element is '",
                                                     root.name(),
                                                     "', not ssd:SystemStructureDescription"));
    }
    const pugi::xml_node system = Child(root, "System");
    if (!system) {
      return absl::InvalidArgumentError(absl::StrCat(ssd_.Where(root), ": no ssd:System"));
    }
    v1::Scenario& scenario = out_->scenario;
    scenario.set_name(root.attribute("name") ? root.attribute("name").value()
                                             : system.attribute("name").value());
    if (absl::Status s = Experiment(root); !s.ok()) return s;
    if (absl::Status s = Components(system); !s.ok()) return s;
    if (absl::Status s = Bindings(ssd_, system, nullptr); !s.ok()) return s;
    if (absl::Status s = Connections(system); !s.ok()) return s;
    v1::Algorithm* algorithm = scenario.mutable_algorithm();
    algorithm->set_kind(v1::Algorithm::JACOBI);
    const double step = options_.step_size > 0.0
                            ? options_.step_size
                            : (scenario.stop_time() - scenario.start_time()) / 1000.0;
    algorithm->set_step_size(step);
    out_->notices.push_back(absl::StrCat(
        "SSP describes no master algorithm: the scenario uses JACOBI with step_size ", step,
        options_.step_size > 0.0 ? "" : " (a thousandth of the run)", "; edit it as needed"));
    return absl::OkStatus();
  }

 private:
  absl::Status Experiment(const pugi::xml_node& root) {
    v1::Scenario& scenario = out_->scenario;
    const pugi::xml_node experiment = Child(root, "DefaultExperiment");
    double start = 0.0;
    double stop = 0.0;
    if (experiment) {
      start = experiment.attribute("startTime").as_double(0.0);
      stop = experiment.attribute("stopTime").as_double(0.0);
    }
    if (options_.stop_time > 0.0) stop = options_.stop_time;
    if (!(stop > start)) {
      return absl::InvalidArgumentError(
          absl::StrCat(ssd_.Where(experiment ? experiment : root),
                       experiment ? ": DefaultExperiment has no stopTime after its startTime"
                                  : ": no DefaultExperiment with a stopTime",
                       "; give the stop time (--stop-time)"));
    }
    scenario.set_start_time(start);
    scenario.set_stop_time(stop);
    return absl::OkStatus();
  }

  absl::Status Components(const pugi::xml_node& system) {
    const pugi::xml_node elements = Child(system, "Elements");
    for (pugi::xml_node element : elements.children()) {
      if (element.type() != pugi::node_element) continue;
      const std::string kind = LocalName(element);
      const std::string name = element.attribute("name").value();
      if (kind != "Component") {
        return absl::UnimplementedError(
            absl::StrCat(ssd_.Where(element), ": element '", name, "' is an ssd:", kind,
                         "; only FMU components are supported (no nested systems)"));
      }
      const std::string type = element.attribute("type").value();
      const std::string source = element.attribute("source").value();
      if (!type.empty() && type != "application/x-fmu-sharedlibrary") {
        return absl::UnimplementedError(absl::StrCat(ssd_.Where(element), ": component '", name,
                                                     "' has type '", type,
                                                     "'; only FMUs are supported"));
      }
      if (source.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat(ssd_.Where(element), ": component '", name, "' has no source"));
      }
      const std::string unit = UnitName(name);
      const auto& units = out_->scenario.units();
      if (std::any_of(units.begin(), units.end(),
                      [&](const v1::Unit& u) { return u.name() == unit; })) {
        return absl::InvalidArgumentError(absl::StrCat(ssd_.Where(element), ": component '", name,
                                                       "' makes the unit name '", unit,
                                                       "', which another component has already"));
      }
      if (unit != name) {
        out_->notices.push_back(absl::StrCat("component '", name, "' is unit '", unit,
                                             "' (unit names are [A-Za-z0-9_])"));
      }
      absl::StatusOr<std::string> path = SourcePath(source);
      if (path.ok()) path = source_.Materialize(*path, options_.resources_dir);
      if (!path.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(ssd_.Where(element), ": component '", name,
                                                       "', source '", source,
                                                       "': ", path.status().message()));
      }
      v1::Unit* u = out_->scenario.add_units();
      u->set_name(unit);
      u->mutable_fmu()->set_path(*path);
      // An FMU runs as Model Exchange when its unit has a solver (docs/fmi.md).
      const std::string implementation = element.attribute("implementation").value();
      if (implementation == "ModelExchange") {
        u->mutable_solver()->set_method(v1::Solver::CVODE);
        out_->notices.push_back(absl::StrCat("component '", name,
                                             "' runs as Model Exchange, integrated by CVODE "
                                             "(edit its solver to change)"));
      } else if (!implementation.empty() && implementation != "CoSimulation" &&
                 implementation != "any") {
        return absl::InvalidArgumentError(absl::StrCat(ssd_.Where(element), ": component '", name,
                                                       "' has implementation '", implementation,
                                                       "' (CoSimulation, ModelExchange or any)"));
      }
      element_units_[name] = u;
      for (pugi::xml_node connector : Children(Child(element, "Connectors"), "Connector")) {
        kinds_[{name, connector.attribute("name").value()}] = connector.attribute("kind").value();
      }
      if (absl::Status s = Bindings(ssd_, element, u); !s.ok()) return s;
    }
    if (out_->scenario.units_size() == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(ssd_.Where(system), ": the system has no components"));
    }
    return absl::OkStatus();
  }

  // The ssd:ParameterBindings of `owner`; `unit` null for the system, whose parameter names
  // are "<component>.<variable>".
  absl::Status Bindings(const XmlFile& file, const pugi::xml_node& owner, v1::Unit* unit) {
    for (pugi::xml_node binding : Children(Child(owner, "ParameterBindings"), "ParameterBinding")) {
      if (Child(binding, "ParameterMapping")) {
        return absl::UnimplementedError(
            absl::StrCat(file.Where(binding), ": ssd:ParameterMapping is not supported"));
      }
      const std::string prefix = binding.attribute("prefix").value();
      const std::string source = binding.attribute("source").value();
      if (!source.empty()) {
        if (source[0] == '#') {
          return absl::UnimplementedError(
              absl::StrCat(file.Where(binding), ": parameter binding source '", source,
                           "' (a fragment reference) is not supported"));
        }
        XmlFile ssv;
        ssv.name = source;
        absl::StatusOr<std::string> text = SourcePath(source);
        if (text.ok()) text = source_.Read(*text);
        if (!text.ok()) {
          return absl::InvalidArgumentError(absl::StrCat(file.Where(binding),
                                                         ": parameter binding source '", source,
                                                         "': ", text.status().message()));
        }
        ssv.text = *std::move(text);
        if (absl::Status s = ParseXml(&ssv); !s.ok()) return s;
        if (absl::Status s = ParameterSet(ssv, ssv.doc.document_element(), unit, prefix); !s.ok()) {
          return s;
        }
        continue;
      }
      const pugi::xml_node set = Child(Child(binding, "ParameterValues"), "ParameterSet");
      if (!set) continue;
      if (absl::Status s = ParameterSet(file, set, unit, prefix); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status ParameterSet(const XmlFile& file, const pugi::xml_node& set, v1::Unit* unit,
                            const std::string& prefix) {
    if (std::strcmp(LocalName(set), "ParameterSet") != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(file.Where(set), ": expected ssv:ParameterSet, found '", set.name(), "'"));
    }
    for (pugi::xml_node parameter : Children(Child(set, "Parameters"), "Parameter")) {
      const std::string name = prefix + parameter.attribute("name").value();
      absl::StatusOr<google::protobuf::Value> value = ParameterValue(file, parameter);
      if (!value.ok()) return value.status();
      v1::Unit* target = unit;
      std::string variable = name;
      if (target == nullptr) {
        // On the system: "<component>.<variable>".
        const size_t dot = name.find('.');
        auto it = dot == std::string::npos ? element_units_.end()
                                           : element_units_.find(name.substr(0, dot));
        if (it == element_units_.end()) {
          return absl::InvalidArgumentError(
              absl::StrCat(file.Where(parameter), ": system parameter '", name,
                           "' names no component (expected \"<component>.<variable>\")"));
        }
        target = it->second;
        variable = name.substr(dot + 1);
      }
      (*target->mutable_parameters())[variable] = *std::move(value);
    }
    return absl::OkStatus();
  }

  absl::Status Connections(const pugi::xml_node& system) {
    for (pugi::xml_node c : Children(Child(system, "Connections"), "Connection")) {
      std::string start_element = c.attribute("startElement").value();
      std::string start = c.attribute("startConnector").value();
      std::string end_element = c.attribute("endElement").value();
      std::string end = c.attribute("endConnector").value();
      const std::string what =
          absl::StrCat(start_element, ".", start, " -> ", end_element, ".", end);
      if (start_element.empty() || end_element.empty()) {
        return absl::UnimplementedError(absl::StrCat(
            ssd_.Where(c), ": connection ", what,
            " uses a connector of the system itself; only connections between components are "
            "supported"));
      }
      for (pugi::xml_node child : c.children()) {
        if (child.type() != pugi::node_element ||
            std::strcmp(LocalName(child), "Annotations") == 0) {
          continue;
        }
        return absl::UnimplementedError(absl::StrCat(ssd_.Where(child), ": connection ", what, ": ",
                                                     child.name(), " is not supported"));
      }
      for (const std::string* e : {&start_element, &end_element}) {
        if (element_units_.count(*e) == 0) {
          return absl::InvalidArgumentError(
              absl::StrCat(ssd_.Where(c), ": connection ", what, ": no component '", *e, "'"));
        }
      }
      // From output to input: a connection written end -> start is turned round.
      if (kinds_[{start_element, start}] == "input" && kinds_[{end_element, end}] == "output") {
        std::swap(start_element, end_element);
        std::swap(start, end);
      }
      v1::Connection* connection = out_->scenario.add_connections();
      connection->set_from(absl::StrCat(element_units_[start_element]->name(), ".", start));
      connection->set_to(absl::StrCat(element_units_[end_element]->name(), ".", end));
    }
    return absl::OkStatus();
  }

  const SspSource& source_;
  const SspImportOptions& options_;
  SspImport* out_;
  XmlFile ssd_;
  std::map<std::string, v1::Unit*> element_units_;  // SSP element name -> its unit
  std::map<std::pair<std::string, std::string>, std::string> kinds_;  // connector kinds
};

}  // namespace

absl::StatusOr<SspImport> ImportSsp(const std::string& path, const SspImportOptions& options) {
  absl::StatusOr<SspSource> source = SspSource::Open(path);
  if (!source.ok()) return source.status();
  if (source->archived() && options.resources_dir.empty()) {
    return absl::InvalidArgumentError("SSP import: no folder to extract the FMUs to");
  }
  SspImport out;
  Importer importer(*source, options, &out);
  if (absl::Status s = importer.Run(); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("SSP '", path, "': ", s.message()));
  }
  return out;
}

}  // namespace cosimo::client
