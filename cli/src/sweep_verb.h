// `cosimo sweep SWEEP.json`: a parameter sweep run here (docs/sweeps.md), each variant an
// embedded run like `cosimo run`'s, several at once; writes the sweep table (one row per
// variant: index, the parameters' values, the KPIs, status, wall time, message). Private to the
// program; the sweep's parsing, designs and KPIs are cosimo_common's (cosimo/common/sweep.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cosimo/common/csv.h"
#include "cosimo/common/kpi.h"
#include "cosimo/common/sweep.h"

namespace cosimo::cli {

struct SweepCommand {
  std::string sweep_path;
  std::string out = "sweep.csv";   // the sweep table ("-": standard output)
  std::string keep_results;        // a folder for each variant's results CSV (empty: none)
  uint64_t max_variants = 100000;  // more variants than this: exit 2 before anything runs
  int parallel = 0;                // variants at once (0: this machine's cores)
  bool wait = false;               // accepted: a sweep run here always waits
};

// How RunSweepHere runs the variants.
struct SweepHere {
  int parallel = 0;          // variants at once (0: this machine's cores)
  std::string keep_results;  // a folder for each variant's results CSV (empty: none)
  std::string log_format = "text";
  bool report = true;  // a line on standard error per variant ended
};
// The variants `values` of a checked sweep run here, each an embedded run (client::RunEmbedded),
// several at once; stops starting variants on Ctrl-C (g_interrupted). One outcome per variant.
// `cosimo sweep` and `cosimo fit` (each batch of points) run sweeps here this way.
std::vector<SweepOutcome> RunSweepHere(const LoadedSweep& sweep,
                                       const std::vector<std::vector<double>>& values,
                                       const SweepHere& here);
// The sweep table: index, parameters, KPIs, status, wall_time_s, message.
ResultTable SweepTable(const v1::Sweep& sweep, const std::vector<std::vector<double>>& values,
                       const std::vector<SweepOutcome>& outcomes);

}  // namespace cosimo::cli
