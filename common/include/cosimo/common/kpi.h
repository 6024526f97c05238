// The figures of a sweep (cosimo.v1.Kpi, proto/cosimo/v1/sweep.proto): one number from one
// recorded variable of a results table. The rules, over the rows t_0 .. t_N, y_0 .. y_N:
//   FINAL y_N; MIN, MAX over the y_i; INTEGRAL by the trapezoid rule, sum of
//   (y_i + y_i+1) / 2 (t_i+1 - t_i); MEAN = INTEGRAL / (t_N - t_0); RMS = sqrt(trapezoid
//   integral of y^2 / (t_N - t_0)) (MEAN and RMS are y_0 and |y_0| when t_N = t_0);
//   FIRST_CROSSING: the first time y reaches the level, t_0 if y_0 equals it, else linearly
//   interpolated between the first two rows y_i, y_i+1 that straddle it (one on each side, or
//   y_i+1 on it); NaN if it never does. AT: y at the KPI's time, linear between the two rows
//   around it (a row's y at its time; the last row's where times repeat); NaN outside
//   [t_0, t_N].
// A NaN among the values makes every KPI but FINAL, FIRST_CROSSING (before it) NaN.
// Stateless, thread safe.
#pragma once

#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/common/csv.h"
#include "cosimo/v1/job_service.pb.h"
#include "cosimo/v1/sweep.pb.h"

namespace cosimo {

// The KPI of the series (times, values), equal lengths >= 1 and times non-decreasing (the
// caller's promise); `level` for FIRST_CROSSING, the time for AT.
double KpiOfSeries(v1::Kpi::Kind kind, const std::vector<double>& times,
                   const std::vector<double>& values, double level);

// The KPI of the column kpi.variable() of `table` (its first column is time). Errors: no such
// column, a column of strings, an empty table.
[[nodiscard]] absl::StatusOr<double> ComputeKpi(const v1::Kpi& kpi, const ResultTable& table);

// The KPI's column name in a sweep table: kpi.name(), else "<kind>(<variable>)" in lower case
// ("final(vehicle.v)"), with "@<level>" for FIRST_CROSSING ("first_crossing(vehicle.v@30)"), and
// "@<time>" for AT ("at(vehicle.v@1.5)").
std::string KpiName(const v1::Kpi& kpi);

// The sweep table, the same whether the sweep runs here (`cosimo sweep`) or as a job of the
// orchestrator: an empty table of the columns "index", the parameters, the KPIs (KpiName),
// "status", "wall_time_s", "message" (the two texts kString, "index" kInteger, the rest kReal)...
ResultTable SweepTableColumns(const v1::Sweep& sweep);
// ... and what became of one variant, its row but for the parameters' values.
struct SweepOutcome {
  // SUCCEEDED, FAILED, or CANCELED (never started or stopped); the table's text is its name.
  v1::JobState status = v1::CANCELED;
  std::string message;       // why it failed
  std::vector<double> kpis;  // one per KPI when SUCCEEDED, else empty (NaN in the table)
  double wall_s = std::numeric_limits<double>::quiet_NaN();  // s of wall time of its run

  // Sets the status and message, and the wall time since `start`; returns *this.
  SweepOutcome& End(v1::JobState end_status, std::string end_message,
                    std::chrono::steady_clock::time_point start);
  // The sweep's KPIs of a succeeded variant's results: SUCCEEDED, or FAILED with the first KPI
  // that cannot be computed (then no KPI is kept); the wall time since `start`.
  SweepOutcome& EndWithKpis(const v1::Sweep& sweep, const ResultTable& results,
                            std::chrono::steady_clock::time_point start);
};
// Appends variant `index`'s row: its parameters' values, then the outcome (NaN for the KPIs
// missing, as for a variant that failed).
void AddSweepRow(ResultTable* table, uint64_t index, const std::vector<double>& values,
                 const SweepOutcome& outcome);

}  // namespace cosimo
