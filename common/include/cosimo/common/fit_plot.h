// A fit's measured data against its best run (docs/calibration.md, "Plot"): the table of every
// measured sample beside the best run's simulated value there (`measured.csv`, which `cosimo fit`
// and `cosimo results` of a calibration job write), and the plot drawn from it: one panel per
// measured column, its samples as markers and the best run's variable as a line, sharing the time
// axis (`cosimo plot` of a fit's folder, the web page of a calibration job). Stateless; no I/O;
// thread-safe.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/calibration.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/plot.h"
#include "cosimo/v1/calibration.pb.h"

namespace cosimo {

// The columns of a MeasuredTable, in order.
inline constexpr const char* kMeasuredColumns[] = {"column",   "variable",  "time",
                                                   "measured", "simulated", "residual"};

// One row per measured sample, the columns in the data's order and their samples in time order:
// "column" and "variable" (texts: the CSV's column and the recorded variable it is compared
// with), "time" (s), "measured", "simulated" (the best run's variable at that time, linear
// between the rows around it as the sweep KPI AT computes it; NaN when `best` lacks the variable
// or the time is outside its rows) and "residual" (factor (simulated - measured), before the
// objective's loss: with a linear loss, the squares of a fit's residuals sum to its objective).
ResultTable MeasuredTable(const std::vector<MeasuredSeries>& data, const ResultTable& best);

// The measured series of a calibration job's samples (CalibrationJob.samples), in order.
std::vector<MeasuredSeries> MeasuredSeriesOf(const v1::CalibrationJob& job);

// The measured series of a MeasuredTable as read back from measured.csv (factor 1), in the order
// of their first rows. Errors (kInvalidArgument) name what is wrong: a column of
// kMeasuredColumns it lacks (it is not a fit's measured.csv), a row whose time or measured
// value is not a number.
[[nodiscard]] absl::StatusOr<std::vector<MeasuredSeries>> MeasuredSeriesOf(
    const ResultTable& table);

// The plot: one panel per measured series, titled "<column> (<variable>)", its samples as markers
// (labelled "<column> at <time> s: <value>") and `best`'s column <variable> as a line (the series
// <variable>). options.title above the first panel, options.units for the y labels; the other
// options are not used. Errors (kInvalidArgument): `best` has no "time" column first or lacks a
// measured variable (naming it and its measured column), no series.
[[nodiscard]] absl::Status DrawFitPlot(const ResultTable& best,
                                       const std::vector<MeasuredSeries>& measured,
                                       const PlotOptions& options, PlotCanvas& canvas);
[[nodiscard]] absl::StatusOr<std::string> FitPlotSvg(const ResultTable& best,
                                                     const std::vector<MeasuredSeries>& measured,
                                                     const PlotOptions& options);

}  // namespace cosimo
