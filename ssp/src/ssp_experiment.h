// An SSP system's times and master algorithm: the DefaultExperiment's start and stop (or the
// options'), and the JACOBI step the scenario takes from the options, the tools' annotations or
// the FMUs. Private to cosimo_ssp. Thread safety: none needed (functions).
#pragma once

#include <pugixml.hpp>

#include "absl/status/status.h"
#include "cosimo/ssp/ssp_import.h"
#include "ssp/src/ssp_files.h"

namespace cosimo::ssp {

// The scenario's start_time and stop_time from the SSD's DefaultExperiment (`root` of `ssd`) or
// options.stop_time; an error when there is no stop time after the start.
[[nodiscard]] absl::Status Experiment(const XmlFile& ssd, const pugi::xml_node& root,
                                      const SspImportOptions& options, v1::Scenario* out);

// The scenario's algorithm (JACOBI) and its step_size, with a notice saying where it came from.
void Algorithm(const pugi::xml_node& root, const pugi::xml_node& system,
               const SspImportOptions& options, SspImport* out);

}  // namespace cosimo::ssp
