#include "cosimo/common/fmu_experiment.h"

#include <cmath>
#include <cstdlib>
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
  if (const pugi::xml_node d = root.child("DefaultExperiment")) {
    e.start_time = Attribute(d, "startTime").value_or(0.0);
    e.stop_time = Attribute(d, "stopTime");
    e.step_size = Attribute(d, "stepSize");
    if (e.step_size && !(*e.step_size > 0)) e.step_size.reset();
    if (e.stop_time && !(*e.stop_time > e.start_time)) e.stop_time.reset();
  }
  // FMI 2: ScalarVariable elements; FMI 3: one element per type (Float64, Int32, ...).
  for (const pugi::xml_node v : root.child("ModelVariables").children()) {
    if (v.type() != pugi::node_element || !v.attribute("name")) continue;
    const std::string causality =
        v.attribute("causality") ? v.attribute("causality").value() : "local";
    e.variables.emplace_back(v.attribute("name").value(), causality);
    if (causality == "output") e.outputs.push_back(v.attribute("name").value());
  }
  return e;
}

}  // namespace cosimo
