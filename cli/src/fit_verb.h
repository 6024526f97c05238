// `cosimo fit CALIBRATION.json`: a calibration (docs/calibration.md) whose every batch of points
// (a CMA-ES generation, a Levenberg-Marquardt Jacobian) is one sweep of variants, run here as
// `cosimo sweep` runs one or, with --orchestrator, as a sweep job of that orchestrator; writes the
// table of iterations, the estimates with their standard errors and the best run's results.
// Private to the program; the calibration's parsing, optimisers and statistics are
// cosimo_common's (cosimo/common/calibration.h).
#pragma once

#include <string>

namespace cosimo::cli {

struct FitCommand {
  std::string calibration_path;
  std::string out_dir = "fit";  // iterations.csv, estimates.csv, best.csv
  int parallel = 0;             // variants at once here (0: this machine's cores)
};

}  // namespace cosimo::cli
