// The six figures of issue 7, each a ratio to a baseline measured in the same run (see
// docs/benchmarks.md for the definitions). Each function appends its rows to the report; an
// error means the figure could not be measured at all (a worker did not start, a unit did not
// load), not that it missed its target.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "harness.h"

namespace cosimo::bench {

struct Options {
  bool smoke = false;         // tiny counts: checks that every benchmark runs
  int jacobi_steps = 100000;  // figure 1: macro steps (split over interleaved rounds)
  std::vector<int> scaling_units = {2, 4, 8, 16, 32};  // figure 2
  std::string worker_binary;                           // cosimo-worker
  std::string orchestrator_binary;                     // cosimo-orchestrator (the load figure)
  std::string fmu_path;           // figure 5: the test FMU archive (fmi2_msd.fmu)
  std::string fmu_library;        // figure 5: its shared library, for the bare loop
  std::string cheap_fmu_path;     // fig9.cheap: fmi2_msd_cheap.fmu (one RK4 step a DoStep)
  std::string cheap_fmu_library;  // its shared library
  std::string car_scenario;       // fig8: examples/car.json
  std::string log_path;           // child process output
  std::string only;               // comma-separated figure ids to run ("fig1,fig5"); empty: all

  // Whether figure `id` ("fig1" ... "fig6") is to be measured.
  bool Wants(const std::string& id) const;
};

// Figures 1 (Jacobi step against the raw round trip), 2 (scaling with units) and 3 (fixed-point
// iterations with rollback), over real cosimo-worker processes.
[[nodiscard]] absl::Status RunDistributedFigures(const Options& options, Report* report);
// Figures 4 (LocalUnit Jacobi against the unit's own step) and 6 (COSTARICA estimate against a
// real step; real integrations per accepted step).
[[nodiscard]] absl::Status RunInProcessFigures(const Options& options, Report* report);
// Figure 5 (FMU unit step against a bare fmi2DoStep loop).
[[nodiscard]] absl::Status RunFmuFigure(const Options& options, Report* report);
// Figures 9 (`cosimo run` of one FMU against the bare loop: per step, start-up) and 10 (`cosimo
// run` of the car against RunInProcess).
[[nodiscard]] absl::Status RunLocalRunFigures(const Options& options, Report* report);
// The load figure (load.rss): a cosimo-orchestrator process's resident memory before and after
// 200 tiny jobs submitted at once to 4 workers.
[[nodiscard]] absl::Status RunLoadFigure(const Options& options, Report* report);
// Figure 7 (hybrid unit training on the NeuralFMU paper's experiment: time and losses).
[[nodiscard]] absl::Status RunHybridFigure(const Options& options, Report* report);

// Figures 8 (parameter sweeps through the service): fig8, 1,000 car variants on 2 workers of 2
// slots against the same runs back to back in-process; fig8.fmu, the per-variant overhead of 500
// FMU variants beyond the FMU's own stepping; fig11, a CMA-ES calibration of the car whose every
// generation is a sweep job, against its variants back to back in-process.
[[nodiscard]] absl::Status RunSweepFigures(const Options& options, Report* report);
// Figure 12 (a fit's standard errors against the spread of repeated fits over 20 noise seeds:
// the car's mass and friction, the dual-mass oscillator's four spring and damper constants
// across two units; in-process).
[[nodiscard]] absl::Status RunFitErrorFigures(const Options& options, Report* report);

}  // namespace cosimo::bench
