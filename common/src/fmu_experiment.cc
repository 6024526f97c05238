#include "cosimo/common/fmu_experiment.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <pugixml.hpp>

#include "absl/strings/str_cat.h"
#include "cosimo/common/zip_archive.h"

namespace cosimo {
namespace {

// The archive's modelDescription.xml, and its entries under binaries/. `name` names the FMU.
absl::StatusOr<std::string> ReadModelDescription(const std::string& fmu_path,
                                                 const std::string& name,
                                                 std::vector<std::string>* binaries) {
  int error = 0;
  ZipArchive archive(zip_open(fmu_path.c_str(), ZIP_RDONLY, &error));
  if (archive == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", name, "': cannot open as a zip archive: ", ZipErrorText(error)));
  }
  const zip_int64_t entries = zip_get_num_entries(archive.get(), 0);
  for (zip_int64_t i = 0; i < entries; ++i) {
    const char* entry = zip_get_name(archive.get(), static_cast<zip_uint64_t>(i), 0);
    if (entry != nullptr && std::string(entry).rfind("binaries/", 0) == 0) {
      binaries->push_back(entry);
    }
  }
  ZipEntry file(zip_fopen(archive.get(), "modelDescription.xml", 0));
  if (file == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("FMU '", name, "' has no modelDescription.xml"));
  }
  std::string text;
  char buffer[1 << 16];
  zip_int64_t n = 0;
  while ((n = zip_fread(file.get(), buffer, sizeof(buffer))) > 0) {
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > kMaxFmuModelDescriptionBytes) {
      return absl::InvalidArgumentError(absl::StrCat("FMU '", name,
                                                     "': modelDescription.xml is more than the ",
                                                     kMaxFmuModelDescriptionBytes, " bytes read"));
    }
  }
  if (n < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", name, "': corrupt modelDescription.xml"));
  }
  return text;
}

std::optional<double> Attribute(const pugi::xml_node& node, const char* name) {
  const pugi::xml_attribute a = node.attribute(name);
  if (!a) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(a.value(), &end);
  if (end == a.value() || !std::isfinite(value)) return std::nullopt;
  return value;
}

}  // namespace

absl::StatusOr<FmuExperiment> ReadFmuExperiment(const std::string& fmu_path,
                                                const std::string& name_or_empty) {
  const std::string& name = name_or_empty.empty() ? fmu_path : name_or_empty;
  FmuExperiment e;
  absl::StatusOr<std::string> xml = ReadModelDescription(fmu_path, name, &e.binaries);
  if (!xml.ok()) return xml.status();
  pugi::xml_document doc;
  if (const pugi::xml_parse_result r = doc.load_string(xml->c_str()); !r) {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", name, "': modelDescription.xml is not valid XML: ", r.description()));
  }
  const pugi::xml_node root = doc.child("fmiModelDescription");
  if (!root) {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", name, "': modelDescription.xml has no fmiModelDescription"));
  }
  e.model_name = root.attribute("modelName").value();
  e.fmi_version = root.attribute("fmiVersion").value();
  e.cs_identifier = root.child("CoSimulation").attribute("modelIdentifier").value();
  e.me_identifier = root.child("ModelExchange").attribute("modelIdentifier").value();
  e.se_identifier = root.child("ScheduledExecution").attribute("modelIdentifier").value();
  if (const pugi::xml_node d = root.child("DefaultExperiment")) {
    e.start_time = Attribute(d, "startTime").value_or(0.0);
    e.stop_time = Attribute(d, "stopTime");
    e.step_size = Attribute(d, "stepSize");
    e.tolerance = Attribute(d, "tolerance");
    if (e.tolerance && !(*e.tolerance > 0)) e.tolerance.reset();
    if (e.step_size && !(*e.step_size > 0)) e.step_size.reset();
    if (e.stop_time && !(*e.stop_time > e.start_time)) e.stop_time.reset();
  }
  // FMI 2: ScalarVariable elements (the type a child element); FMI 3: one element per type
  // (Float64, Int32, ...). `derivative` is FMI 2's 1-based index of the state among the
  // variables (on the Real child) and FMI 3's value reference of the state.
  const bool fmi2 = e.fmi_version.rfind("2", 0) == 0;
  std::vector<pugi::xml_node> nodes;
  std::map<long long, std::string> name_of_vr;  // FMI 3: the states `derivative` refers to
  for (const pugi::xml_node v : root.child("ModelVariables").children()) {
    if (v.type() != pugi::node_element || !v.attribute("name")) continue;
    nodes.push_back(v);
    if (!fmi2)
      name_of_vr.emplace(v.attribute("valueReference").as_llong(-2), v.attribute("name").value());
  }
  for (const pugi::xml_node v : nodes) {
    const std::string name = v.attribute("name").value();
    const std::string causality =
        v.attribute("causality") ? v.attribute("causality").value() : "local";
    e.variables.emplace_back(name, causality);
    if (causality == "output") e.outputs.push_back(name);
    const std::string type = fmi2 ? v.first_child().name() : v.name();
    if (type == "Clock" || v.child("Dimension")) e.unrecordable.push_back(name);
    const std::string variability = v.attribute("variability").value();
    const bool real = type == "Real" || type == "Float64" || type == "Float32";
    if (real && causality == "local" && (variability.empty() || variability == "continuous")) {
      e.continuous_locals.push_back(name);
    }
    const pugi::xml_attribute derivative =
        fmi2 ? v.child("Real").attribute("derivative") : v.attribute("derivative");
    if (!derivative) continue;
    const long long ref = derivative.as_llong(-1);
    std::string state;
    if (fmi2 && ref >= 1 && ref <= static_cast<long long>(nodes.size())) {
      state = nodes[static_cast<size_t>(ref - 1)].attribute("name").value();
    } else if (auto it = name_of_vr.find(ref); !fmi2 && it != name_of_vr.end()) {
      state = it->second;
    }
    if (state.empty()) continue;
    e.states.push_back(state);
    e.derivatives.push_back(name);
  }
  return e;
}

}  // namespace cosimo
