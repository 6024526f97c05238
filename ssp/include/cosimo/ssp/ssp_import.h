// Import of a System Structure and Parameterization (SSP 1.0) system into a Cosimo scenario: the
// ecosystem's standard system description (docs/scenario.md, SSP systems). The cosimo_ssp
// library (ssp/): the client's `cosimo import`, `run` and `submit` use it. An `.ssp` is a zip
// archive with a `SystemStructure.ssd` and the FMUs and parameter files it names (under
// `resources/`); an
// `.ssd` may also be given alone, its sources then relative to its folder.
//
// What is imported: every FMU component of the system and of the systems nested in it (flattened:
// a unit each, named by its path, "sub.comp" becoming unit sub_comp), their connections (start ->
// end; from output to input), followed through the connectors of nested systems, the top
// system's output connectors recorded; parameter values bound inline (`ssv:ParameterSet`) or
// from `.ssv` files, with a binding's `prefix` and `ssd:ParameterMapping` (inline or `.ssm`,
// with `ssc:LinearTransformation` of values), on components and on systems (names
// "<component>.<variable>", or a connector of the system, whose value flows along the
// connections leaving it, transformed, to the component variables they reach; a system's
// bindings take precedence over those inside it); `DefaultExperiment` for the start and stop
// times (without a stop time, from the options, the import fails: SSP sets no default). SSP
// describes no master algorithm: the scenario gets JACOBI with `step_size` from the options, else
// the OSP annotation's `baseStepSize`, else OMSimulator's `FixedStepMaster stepSize`, else the
// FMUs' smallest DefaultExperiment `stepSize`, else a thousandth of the run. Refused, every problem
// at once, each naming the file, line and element: components that are not FMUs, connection
// transformations other than ssc:LinearTransformation (which becomes the connection's factor and
// offset, composed along a chain), unit conversions, enumeration parameters, a connector fed by
// two connections (SSP 2.0 section 5.3.2.1). Connections are taken in the direction of their data
// flow, by the connectors' kinds, whichever way round they are written. Warnings (in the notices,
// "warning: ..."): a system parameter that matches nothing or feeds no component variable.
//
// Thread safety: none needed (functions).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::ssp {

// How deep systems may nest inside each other (the top system is at depth 0); a deeper one is
// refused naming it, before the import's recursion could overflow the stack.
inline constexpr int kMaxSystemDepth = 100;

// What an SSP's members may unpack to, each refused naming the member and the limit (issue 41:
// a 1 MB archive holding a 1 GiB SystemStructure.ssd used 2.1 GB): checked against the sizes
// the archive declares before anything is read or written, and against the bytes actually
// inflated. `cosimo` sets them with --ssp-max-document-mb, --ssp-max-file-mb and
// --ssp-max-total-mb.
struct SspLimits {
  uint64_t max_document_bytes = uint64_t{64} << 20;  // each XML document read (.ssd, .ssv, .ssm)
  uint64_t max_file_bytes = uint64_t{512} << 20;     // each file extracted (an FMU)
  uint64_t max_total_bytes = uint64_t{2} << 30;      // every file extracted, together
};

struct SspImportOptions {
  // Where the archive's FMUs are extracted (created if needed); unused for an .ssd. They are
  // written first into a temporary folder beside it and moved into it once the import is
  // accepted: a refused import writes nothing there, nor anywhere else (entries named by an
  // absolute path or climbing out with ".." are refused before anything is written).
  std::string resources_dir;
  double step_size = 0.0;  // > 0: the scenario's algorithm.step_size; 0: (stop - start) / 1000
  double stop_time = 0.0;  // > 0: overrides DefaultExperiment's stopTime
  SspLimits limits;
};

struct SspImport {
  v1::Scenario scenario;             // FMU paths absolute
  std::vector<std::string> notices;  // renamed units, the chosen step, for the user
};

[[nodiscard]] absl::StatusOr<SspImport> ImportSsp(const std::string& path,
                                                  const SspImportOptions& options);

}  // namespace cosimo::ssp
