#include "cosimo/client/fmu_scenario.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <pugixml.hpp>

#include "absl/strings/str_cat.h"
#include "cosimo/common/zip_archive.h"

namespace cosimo::client {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<std::string> ReadModelDescription(const std::string& fmu_path,
                                                 std::vector<std::string>* binaries) {
  int error = 0;
  ZipArchive archive(zip_open(fmu_path.c_str(), ZIP_RDONLY, &error));
  if (archive == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", fmu_path, "': cannot open as a zip archive: ", ZipErrorText(error)));
  }
  const zip_int64_t entries = zip_get_num_entries(archive.get(), 0);
  for (zip_int64_t i = 0; i < entries; ++i) {
    const char* name = zip_get_name(archive.get(), static_cast<zip_uint64_t>(i), 0);
    if (name != nullptr && std::string(name).rfind("binaries/", 0) == 0) {
      binaries->push_back(name);
    }
  }
  ZipEntry file(zip_fopen(archive.get(), "modelDescription.xml", 0));
  if (file == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", fmu_path, "' has no modelDescription.xml"));
  }
  std::string text;
  char buffer[1 << 16];
  zip_int64_t n = 0;
  while ((n = zip_fread(file.get(), buffer, sizeof(buffer))) > 0) {
    text.append(buffer, static_cast<size_t>(n));
  }
  if (n < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", fmu_path, "': corrupt modelDescription.xml"));
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

// A unit name from the model name: letters, digits and '_' (the scenario's rule for names).
std::string UnitName(const std::string& model_name, const std::string& fmu_path) {
  std::string name = model_name.empty() ? fs::path(fmu_path).stem().string() : model_name;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  }
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) name = "fmu_" + name;
  return name;
}

std::string Num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", v);
  return buffer;
}

}  // namespace

absl::StatusOr<FmuExperiment> ReadFmuExperiment(const std::string& fmu_path) {
  FmuExperiment e;
  absl::StatusOr<std::string> xml = ReadModelDescription(fmu_path, &e.binaries);
  if (!xml.ok()) return xml.status();
  pugi::xml_document doc;
  if (const pugi::xml_parse_result r = doc.load_string(xml->c_str()); !r) {
    return absl::InvalidArgumentError(absl::StrCat(
        "FMU '", fmu_path, "': modelDescription.xml is not valid XML: ", r.description()));
  }
  const pugi::xml_node root = doc.child("fmiModelDescription");
  if (!root) {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", fmu_path, "': modelDescription.xml has no fmiModelDescription"));
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

absl::StatusOr<SingleFmuScenario> ScenarioForFmu(const std::string& fmu_path,
                                                 const SingleFmuOptions& options) {
  absl::StatusOr<FmuExperiment> e = ReadFmuExperiment(fmu_path);
  if (!e.ok()) return e.status();
  SingleFmuScenario out;
  v1::Scenario& s = out.scenario;
  const std::string unit = UnitName(e->model_name, fmu_path);
  s.set_name(unit);
  s.set_start_time(e->start_time);
  if (options.stop_time > 0) {
    s.set_stop_time(options.stop_time);
  } else if (e->stop_time) {
    s.set_stop_time(*e->stop_time);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", fmu_path, "' has no DefaultExperiment stopTime: give --stop-time"));
  }
  if (!(s.stop_time() > s.start_time())) {
    return absl::InvalidArgumentError(absl::StrCat("--stop-time (", Num(s.stop_time()),
                                                   ") must be after the FMU's startTime (",
                                                   Num(s.start_time()), ")"));
  }
  double step = options.step_size;
  if (!(step > 0) && e->step_size) step = *e->step_size;
  if (!(step > 0)) {
    step = (s.stop_time() - s.start_time()) / 1000;
    out.notices.push_back(absl::StrCat("the FMU gives no DefaultExperiment stepSize: step ",
                                       Num(step), " (a thousandth of the run; --step sets it)"));
  }
  v1::Unit* u = s.add_units();
  u->set_name(unit);
  u->mutable_fmu()->set_path(fs::absolute(fmu_path).lexically_normal().string());
  v1::Algorithm* a = s.mutable_algorithm();
  a->set_kind(v1::Algorithm::JACOBI);
  a->set_step_size(step);
  for (const std::string& output : e->outputs) s.add_record(unit + "." + output);
  if (e->outputs.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("FMU '", fmu_path, "' has no output variable to record"));
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> ApplyDefaultExperiments(v1::Scenario* scenario) {
  std::vector<std::string> notices;
  const bool needs_stop = scenario->stop_time() == 0.0;
  const bool needs_step = scenario->algorithm().step_size() == 0.0;
  if (!needs_stop && !needs_step) return notices;
  std::optional<double> stop, step;
  bool every_stop = true, every_step = true;
  int fmus = 0;
  std::string stops, steps;
  for (const v1::Unit& unit : scenario->units()) {
    if (!unit.has_fmu()) continue;
    ++fmus;
    absl::StatusOr<FmuExperiment> e = ReadFmuExperiment(unit.fmu().path());
    if (!e.ok()) return notices;  // validation and the submit say what is wrong with it
    if (needs_stop) {
      if (!e->stop_time) every_stop = false;
      if (e->stop_time) {
        stop = std::min(stop.value_or(*e->stop_time), *e->stop_time);
        absl::StrAppend(&stops, stops.empty() ? "" : ", ", unit.name(), " ", Num(*e->stop_time));
      }
    }
    if (needs_step) {
      if (!e->step_size) every_step = false;
      if (e->step_size) {
        step = std::min(step.value_or(*e->step_size), *e->step_size);
        absl::StrAppend(&steps, steps.empty() ? "" : ", ", unit.name(), " ", Num(*e->step_size));
      }
    }
  }
  if (fmus == 0) return notices;
  if (needs_stop && every_stop && stop && *stop > scenario->start_time()) {
    scenario->set_stop_time(*stop);
    notices.push_back(
        absl::StrCat("stop_time ", Num(*stop), " from the FMUs' DefaultExperiment (", stops, ")"));
  }
  if (needs_step && every_step && step) {
    scenario->mutable_algorithm()->set_step_size(*step);
    notices.push_back(absl::StrCat("algorithm.step_size ", Num(*step),
                                   " from the FMUs' DefaultExperiment (", steps, ")"));
  }
  return notices;
}

}  // namespace cosimo::client
