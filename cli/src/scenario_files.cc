// Loading the scenario a verb is given: a JSON file, an FMU on its own or an SSP system, and
// writing one back as JSON (scenario_files.h).
#include "scenario_files.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cosimo/client/fmu_scenario.h"
#include "cosimo/common/scenario.h"
#include "cosimo/units/scenario_check.h"
#include "interrupts.h"

namespace cosimo::cli {
namespace {

bool IsFmu(const std::string& path) {
  return std::filesystem::path(path).extension().string() == ".fmu";
}

bool IsSsp(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".ssp" || ext == ".ssd";
}

}  // namespace

// An .ssp or .ssd as a scenario (cosimo/ssp/ssp_import.h); notices go to stderr.
absl::StatusOr<v1::Scenario> ImportSystem(const std::string& path,
                                          const ssp::SspImportOptions& options) {
  absl::StatusOr<ssp::SspImport> imported = ssp::ImportSsp(path, options);
  if (!imported.ok()) return imported.status();
  for (const std::string& notice : imported->notices) std::cerr << "cosimo: " << notice << "\n";
  return imported->scenario;
}

namespace {

// The scenario `run` and `submit` are given: a JSON file (stop time and step from the FMUs'
// DefaultExperiment when it leaves them out), an FMU on its own, or an SSP (ImportSystem).
absl::StatusOr<v1::Scenario> LoadScenario(const std::string& path,
                                          const ssp::SspImportOptions& options) {
  if (IsSsp(path)) return ImportSystem(path, options);
  if (IsFmu(path)) {
    client::SingleFmuOptions fmu;
    fmu.stop_time = options.stop_time;
    fmu.step_size = options.step_size;
    absl::StatusOr<client::SingleFmuScenario> single = client::ScenarioForFmu(path, fmu);
    if (!single.ok()) return single.status();
    for (const std::string& notice : single->notices) std::cerr << "cosimo: " << notice << "\n";
    return single->scenario;
  }
  absl::StatusOr<v1::Scenario> scenario = cosimo::LoadScenarioFile(path);
  if (!scenario.ok()) return scenario;
  absl::StatusOr<std::vector<std::string>> notices = client::ApplyDefaultExperiments(&*scenario);
  if (!notices.ok()) return notices.status();
  for (const std::string& notice : *notices) std::cerr << "cosimo: " << notice << "\n";
  return scenario;
}

}  // namespace

// Writes `scenario` as JSON to `out`, its FMU paths relative to the file's folder.
absl::Status WriteScenario(v1::Scenario scenario, const std::string& out) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::absolute(out).parent_path();
  std::error_code ec;
  fs::create_directories(dir, ec);
  for (v1::Unit& unit : *scenario.mutable_units()) {
    if (!unit.has_fmu()) continue;
    unit.mutable_fmu()->set_path(
        fs::path(unit.fmu().path()).lexically_relative(dir).generic_string());
  }
  std::ofstream file(out, std::ios::trunc);
  file << cosimo::ScenarioToJson(scenario) << "\n";
  if (!file) return absl::PermissionDeniedError("cannot write '" + out + "'");
  return absl::OkStatus();
}

// run and submit: the scenario loaded and checked, every problem in one round (structure,
// units, parameters, variables). An SSP is imported into a folder removed when `temp` goes.
absl::StatusOr<v1::Scenario> CheckedScenario(Options& o, TempFolder& temp) {
  if (IsSsp(o.scenario_path)) {
    std::string pattern = (std::filesystem::temp_directory_path() / "cosimo-ssp-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return absl::InternalError("cannot create a folder for the SSP's FMUs");
    }
    temp.path = pattern;
    // A folder inside it, so that the import's own temporary folder (beside its destination)
    // is inside it too.
    o.ssp.resources_dir = pattern + "/fmus";
    SetInterruptTempDir(pattern);
  }
  absl::StatusOr<v1::Scenario> scenario = LoadScenario(o.scenario_path, o.ssp);
  if (!scenario.ok()) return scenario.status();
  if (absl::Status s = cosimo::units::CheckScenario(*scenario); !s.ok()) return s;
  return scenario;
}

}  // namespace cosimo::cli
