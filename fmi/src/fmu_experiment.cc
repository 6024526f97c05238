#include "cosimo/fmi/fmu_experiment.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "cosimo/fmi/model_description.h"
#include "cosimo/fmi/zip_archive.h"

namespace cosimo {
namespace {

// The archive's modelDescription.xml, and its entries under binaries/. `name` names the FMU.
absl::StatusOr<std::string> ReadModelDescription(const std::string& fmu_path,
                                                 const std::string& name,
                                                 std::vector<std::string>* binaries) {
  int error = 0;
  ZipArchive archive(zip_open(fmu_path.c_str(), ZIP_RDONLY, &error));
  if (archive == nullptr && error == ZIP_ER_NOENT) {
    return absl::NotFoundError(absl::StrCat("FMU '", name, "': file not found: ", fmu_path));
  }
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

const char* CausalityName(fmi::FmiCausality c) {
  switch (c) {
    case fmi::FmiCausality::kParameter:
      return "parameter";
    case fmi::FmiCausality::kCalculatedParameter:
      return "calculatedParameter";
    case fmi::FmiCausality::kStructuralParameter:
      return "structuralParameter";
    case fmi::FmiCausality::kInput:
      return "input";
    case fmi::FmiCausality::kOutput:
      return "output";
    case fmi::FmiCausality::kLocal:
      return "local";
    case fmi::FmiCausality::kIndependent:
      return "independent";
  }
  return "local";
}

std::optional<double> Positive(std::optional<double> v) {
  return v && std::isfinite(*v) && *v > 0 ? v : std::nullopt;
}

}  // namespace

absl::StatusOr<FmuExperiment> ReadFmuExperiment(const std::string& fmu_path,
                                                const std::string& name_or_empty) {
  const std::string& name = name_or_empty.empty() ? fmu_path : name_or_empty;
  FmuExperiment e;
  absl::StatusOr<std::string> xml = ReadModelDescription(fmu_path, name, &e.binaries);
  if (!xml.ok()) return xml.status();
  // The worker's reader: what is refused here is what the worker would refuse, in its words.
  absl::StatusOr<fmi::ModelDescription> md =
      fmi::ParseModelDescriptionText(*xml, absl::StrCat("FMU '", name, "': modelDescription.xml"));
  if (!md.ok()) return md.status();
  e.model_name = md->model_name;
  for (const auto& [type, items] : md->enumerations) {
    for (const auto& [item, value] : items) e.enumerations[type][item] = value;
  }
  e.fmi_version = md->fmi_version;
  if (md->co_simulation.offered) e.cs_identifier = md->co_simulation.model_identifier;
  e.cs_has_event_mode = md->co_simulation.has_event_mode;
  if (md->model_exchange.offered) e.me_identifier = md->model_exchange.model_identifier;
  e.me_instantiated_once = md->model_exchange.can_be_instantiated_only_once_per_process;
  e.event_indicators = md->number_of_event_indicators;
  if (md->scheduled_execution.offered) e.se_identifier = md->scheduled_execution.model_identifier;
  e.start_time = md->default_start_time.value_or(0.0);
  if (!std::isfinite(e.start_time)) e.start_time = 0.0;
  e.step_size = Positive(md->default_step_size);
  e.tolerance = Positive(md->default_tolerance);
  if (md->default_stop_time && std::isfinite(*md->default_stop_time) &&
      *md->default_stop_time > e.start_time) {
    e.stop_time = md->default_stop_time;
  }
  for (const fmi::ScalarVariable& v : md->variables) {
    const std::string type = v.enumeration.empty() ? std::string(fmi::VarTypeName(v.type))
                                                   : "Enumeration '" + v.enumeration + "'";
    // Clocks: the input time-based ones (whose ticks Cosimo computes), the triggered input
    // ones (ticked by a connection) and the output ones.
    const bool recordable_clock =
        (v.causality == fmi::FmiCausality::kInput &&
         (fmi::IsTimeBased(v.clock.interval_variability) ||
          v.clock.interval_variability == fmi::IntervalVariability::kTriggered)) ||
        v.causality == fmi::FmiCausality::kOutput;
    const bool unrecordable = (v.type == fmi::VarType::kClock && !recordable_clock) ||
                              (v.is_array && v.first_element < 0);
    if (v.type == fmi::VarType::kClock) e.has_clocks = true;
    if (fmi::IsEventInput(v)) e.event_inputs.push_back(v.name);
    for (size_t a = 0; a <= v.aliases.size(); ++a) {  // the name, then the FMI 3 aliases
      const std::string& name = a == 0 ? v.name : v.aliases[a - 1];
      e.variables.emplace_back(name, CausalityName(v.causality));
      e.variable_types.push_back(type);
      if (unrecordable) e.unrecordable.push_back(name);
      if (v.type == fmi::VarType::kClock && v.causality == fmi::FmiCausality::kInput &&
          fmi::IsTimeBased(v.clock.interval_variability)) {
        e.time_based_input_clocks.push_back(name);
      }
    }
  }
  for (int i : md->Scalars()) {
    const fmi::ScalarVariable& v = md->variables[static_cast<size_t>(i)];
    if (v.causality == fmi::FmiCausality::kOutput) e.outputs.push_back(v.name);
    if (fmi::IsReal(v.type) && v.causality == fmi::FmiCausality::kLocal &&
        v.variability == fmi::Variability::kContinuous) {
      e.continuous_locals.push_back(v.name);
    }
  }
  for (const fmi::Unknown& d : md->derivatives) {
    const fmi::ScalarVariable& derivative = md->variables[static_cast<size_t>(d.index)];
    e.derivatives.push_back(derivative.name);
    e.states.push_back(md->variables[static_cast<size_t>(derivative.derivative_of)].name);
  }
  return e;
}

}  // namespace cosimo
