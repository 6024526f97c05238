// The scenario a verb is given, loaded: a JSON file (stop time and step from the FMUs'
// DefaultExperiment when it leaves them out), an FMU on its own (its DefaultExperiment), or an
// SSP system imported; and a scenario written back as JSON (`cosimo import`).
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

#include "absl/status/statusor.h"
#include "cosimo/ssp/ssp_import.h"
#include "cosimo/v1/scenario.pb.h"
#include "verbs.h"

namespace cosimo::cli {

// An .ssp or .ssd as a scenario (cosimo/ssp/ssp_import.h); notices go to stderr.
[[nodiscard]] absl::StatusOr<v1::Scenario> ImportSystem(const std::string& path,
                                                        const ssp::SspImportOptions& options);

// Writes `scenario` as JSON to `out`, its FMU paths relative to the file's folder.
[[nodiscard]] absl::Status WriteScenario(v1::Scenario scenario, const std::string& out);

// A folder removed when this goes (an SSP's FMUs, imported for one run).
struct TempFolder {
  std::string path;
  ~TempFolder() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
};

// run and submit: o.scenario_path loaded and checked, every problem in one round (structure,
// units, parameters, variables). An SSP is imported into a folder removed when `temp` goes
// (and on Ctrl-C).
[[nodiscard]] absl::StatusOr<v1::Scenario> CheckedScenario(Options& o, TempFolder& temp);

}  // namespace cosimo::cli
