// `cosimo plot`: a results CSV (as `cosimo run` and `cosimo results` write it) drawn as time plots
// (cosimo/common/plot.h), or a column of a CSV against another as a scatter plot (a sweep table
// as `cosimo sweep` and `cosimo results` of a sweep job write it: a KPI against a parameter),
// into an SVG or a PNG file, chosen by the output's extension. The units of the time plots' axis
// labels come from the metadata beside the CSV (<csv>.meta.json, its "variables" list with "name"
// and "unit") when it is there. The title defaults to the CSV's file name. Stateless.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "cosimo/common/plot.h"

namespace cosimo::client {

// Errors: the CSV cannot be read or parsed (naming the line), a variable it lacks, an output
// name that ends in neither .svg nor .png, a file that cannot be written.
[[nodiscard]] absl::Status WritePlotFile(const std::string& csv_path, const std::string& out_path,
                                         PlotOptions options);
// The scatter plot of column `y` against column `x` (DrawScatter). Errors: as WritePlotFile's,
// but for a column that is not in the CSV or holds strings (kInvalidArgument, naming it and
// listing the numeric columns).
[[nodiscard]] absl::Status WriteScatterFile(const std::string& csv_path,
                                            const std::string& out_path, const std::string& x,
                                            const std::string& y, ScatterOptions options);

}  // namespace cosimo::client
