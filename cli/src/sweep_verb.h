// `cosimo sweep SWEEP.json`: a parameter sweep run here (docs/sweeps.md), each variant an
// embedded run like `cosimo run`'s, several at once; writes the sweep table (one row per
// variant: index, the parameters' values, the KPIs, status, wall time, message). Private to the
// program; the sweep's parsing, designs and KPIs are cosimo_common's (cosimo/common/sweep.h).
#pragma once

#include <cstdint>
#include <string>

namespace cosimo::cli {

struct SweepCommand {
  std::string sweep_path;
  std::string out = "sweep.csv";   // the sweep table ("-": standard output)
  std::string keep_results;        // a folder for each variant's results CSV (empty: none)
  uint64_t max_variants = 100000;  // more variants than this: exit 2 before anything runs
  int parallel = 0;                // variants at once (0: this machine's cores)
  bool wait = false;               // accepted: a sweep run here always waits
};

}  // namespace cosimo::cli
