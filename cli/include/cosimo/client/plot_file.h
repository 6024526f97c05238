// `cosimo plot`: a results CSV (as `cosimo run` and `cosimo results` write it) drawn as time plots
// (cosimo/common/plot.h) into an SVG or a PNG file, chosen by the output's extension. The units
// of the axis labels come from the metadata beside the CSV (<csv>.meta.json, its "variables"
// list with "name" and "unit") when it is there. Stateless.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "cosimo/common/plot.h"

namespace cosimo::client {

// Errors: the CSV cannot be read or parsed (naming the line), a variable it lacks, an output
// name that ends in neither .svg nor .png, a file that cannot be written.
[[nodiscard]] absl::Status WritePlotFile(const std::string& csv_path, const std::string& out_path,
                                         PlotOptions options);

}  // namespace cosimo::client
