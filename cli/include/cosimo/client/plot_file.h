// `cosimo plot`: a results CSV (as `cosimo run` and `cosimo results` write it) drawn as time plots
// (cosimo/common/plot.h), or a column of a CSV against another as a scatter plot (a sweep table
// as `cosimo sweep` and `cosimo results` of a sweep job write it: a KPI against a parameter),
// into an SVG or a PNG file, chosen by the output's extension. The units of the time plots' axis
// labels come from the metadata beside the CSV (<csv>.meta.json, its "variables" list with "name"
// and "unit") when it is there. The title defaults to the CSV's file name. And a calibration's
// fit: its measured data against its best run (WriteFitPlotFile). Stateless.
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

// A fit's plot (cosimo/common/fit_plot.h): `fit_path` is the folder `cosimo fit` or `cosimo
// results` of a calibration job wrote (or its measured.csv), its measured.csv drawn against its
// best.csv. The title defaults to "<folder name>: measured against the best run". Errors
// (kInvalidArgument for input that is not a fit's): a folder without measured.csv, a
// measured.csv without the columns of one (naming the missing column), no best.csv beside it, a
// measured variable best.csv lacks; and WritePlotFile's.
[[nodiscard]] absl::Status WriteFitPlotFile(const std::string& fit_path,
                                            const std::string& out_path, PlotOptions options);

}  // namespace cosimo::client
