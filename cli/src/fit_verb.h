// `cosimo fit CALIBRATION.json`: a calibration (docs/calibration.md) submitted as one job, whose
// every batch of points (a CMA-ES generation, a Levenberg-Marquardt Jacobian) runs as variants on
// the pool: of the in-process orchestrator with its own worker processes, or with --orchestrator
// of that orchestrator; writes the table of iterations, the estimates with their standard errors
// and the best run's results and the measured data beside them (also `cosimo results JOB` for a
// calibration job).
// Private to the program; the calibration's parsing, optimisers and statistics are
// cosimo_common's (cosimo/common/calibration.h).
#pragma once

#include <string>

#include "cosimo/common/csv.h"
#include "cosimo/v1/job_service.pb.h"

namespace cosimo::cli {

struct FitCommand {
  std::string calibration_path;
  std::string out_dir = "fit";  // iterations.csv, estimates.csv, best.csv, measured.csv
  int parallel = 0;             // variants at once here (0: this machine's cores)
};

// A succeeded calibration job's files in `dir`: iterations.csv and estimates.csv from
// `status`.fit.result, best.csv `best` (the job's results), measured.csv the calibration's
// samples beside `best`'s values there (MeasuredTable, cosimo/common/fit_plot.h); the estimates
// printed. Its exit code.
int WriteFitFiles(const v1::JobStatus& status, const ResultTable& best, const std::string& dir);

}  // namespace cosimo::cli
