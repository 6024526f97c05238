// `cosimo fit` (fit_verb.h): the calibration read and checked before anything runs (exit 2 naming
// the field), then submitted as one calibration job (SubmitJobRequest.calibration: the optimiser
// runs in the orchestrator, each batch of points variants on its pool): of the in-process
// orchestrator with worker processes of its own (client::RunEmbedded, as `cosimo run` does), or
// with --orchestrator of that orchestrator. The job's progress is printed as it goes; at its end
// its estimates, statistics and history (JobStatus.fit.result), the best run's results (the
// job's results) and the measured data beside them (measured.csv, what `cosimo plot` of the folder
// draws) are written as files.
#include "fit_verb.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include "absl/strings/str_cat.h"
#include "cosimo/client/fmu_scenario.h"
#include "cosimo/common/calibration.h"
#include "cosimo/common/command_line.h"
#include "cosimo/common/fit_plot.h"
#include "cosimo/units/scenario_check.h"
#include "verbs.h"

namespace cosimo::cli {
namespace {

namespace fs = std::filesystem;

absl::StatusOr<LoadedCalibration> CheckedCalibration(const std::string& path) {
  absl::StatusOr<LoadedCalibration> loaded = LoadCalibrationFile(path);
  if (!loaded.ok()) return loaded.status();
  auto named = [&](const absl::Status& s) {
    return absl::InvalidArgumentError(path + ": " + std::string(s.message()));
  };
  absl::StatusOr<std::vector<std::string>> notices = client::ApplyDefaultExperiments(&loaded->base);
  if (!notices.ok()) return named(notices.status());
  for (const std::string& notice : *notices) std::cerr << "cosimo: " << notice << "\n";
  auto check = [](const v1::Scenario& s) { return units::CheckScenario(s); };
  if (absl::Status s = CheckCalibrationAgainstBase(*loaded, check); !s.ok()) return named(s);
  return loaded;
}

// "iteration 3 (24 runs): objective 12.5; vehicle.m 1500, vehicle.c_f 0.45", once per iteration,
// in order, as they come: each status carries the history so far (FitStatus.history while the job
// runs, result.history once it succeeded), so none is skipped however fast they come.
class IterationPrinter {
 public:
  void Update(const v1::JobStatus& s) {
    const v1::FitStatus& fit = s.fit();
    const v1::Calibration& c = fit.calibration().calibration();
    for (const auto* history : {&fit.history(), &fit.result().history()}) {
      for (const v1::FitIteration& it : *history) {
        if (!printed_.contains(it.iteration())) {
          Print(c, it.iteration(), it.evaluations(), it.objective(), it.parameters());
        }
      }
    }
  }

 private:
  void Print(const v1::Calibration& c, uint32_t iteration, uint64_t evaluations, double objective,
             const google::protobuf::RepeatedField<double>& parameters) {
    printed_.insert(iteration);
    std::cerr << "iteration " << iteration << " (" << evaluations << " runs): objective "
              << FormatDouble(objective) << ";";
    for (int i = 0; i < parameters.size() && i < c.parameters_size(); ++i) {
      std::cerr << (i == 0 ? " " : ", ") << c.parameters(i).name() << " "
                << FormatDouble(parameters[i]);
    }
    std::cerr << std::endl;
  }

  std::set<uint32_t> printed_;
};

void PrintEstimates(const v1::Calibration& c, const v1::FitResult& r) {
  std::vector<std::vector<std::string>> rows = {{"parameter", "estimate", "standard_error", ""}};
  for (int i = 0; i < c.parameters_size() && i < r.estimates_size(); ++i) {
    rows.push_back({c.parameters(i).name(), FormatDouble(r.estimates(i)),
                    FormatDouble(r.standard_errors(i)),
                    r.undetermined(i) ? "NOT DETERMINED by the data" : ""});
  }
  std::cerr << "fit: " << r.stop_reason() << " after " << r.iterations() << " iterations, "
            << r.evaluations() << " runs; objective " << FormatDouble(r.objective()) << "\n"
            << "Jacobian: " << r.jacobian() << "\n"
            << AlignedColumns(rows);
}

// Why a calibration job gave no result, as an error.
absl::Status NotSucceeded(const v1::JobStatus& s) {
  if (s.state() == v1::CANCELED) return absl::CancelledError("fit job " + s.job_id() + " canceled");
  return absl::AbortedError("fit job " + s.job_id() + " " + v1::JobState_Name(s.state()) + ": " +
                            s.message());
}

}  // namespace

int WriteFitFiles(const v1::JobStatus& status, const ResultTable& best, const std::string& dir) {
  const v1::Calibration& c = status.fit().calibration().calibration();
  const v1::FitResult& r = status.fit().result();
  PrintEstimates(c, r);
  std::error_code ec;
  fs::create_directories(fs::path(dir), ec);
  if (ec) return Fail(absl::PermissionDeniedError("cannot create '" + dir + "'"));
  const ResultTable measured = MeasuredTable(MeasuredSeriesOf(status.fit().calibration()), best);
  for (const auto& [name, table] :
       {std::pair{"iterations.csv", IterationsTable(c, r)},
        std::pair{"estimates.csv", EstimatesTable(c, r)}, std::pair{"best.csv", best},
        std::pair{"measured.csv", measured}}) {
    if (absl::Status s = WriteCsvFile((fs::path(dir) / name).string(), table); !s.ok()) {
      return Fail(s);
    }
  }
  std::cerr << "fit: iterations.csv, estimates.csv, best.csv (the best run's results) and "
               "measured.csv (the measured data beside it) written to "
            << dir << " (cosimo plot " << dir << " draws them)\n";
  return 0;
}

void DefineFit(CLI::App& cmd, Options& o) {
  FitCommand& c = o.fit;
  cmd.add_option("calibration", c.calibration_path, "calibration JSON file (docs/calibration.md)")
      ->required();
  cmd.add_option("--out-dir", c.out_dir,
                 "folder of iterations.csv, estimates.csv, best.csv (the best run's results) and "
                 "measured.csv (the measured data beside it; cosimo plot FOLDER draws them)")
      ->capture_default_str();
  cmd.add_option("--parallel", c.parallel,
                 "variants run at once here: worker processes started (default: this machine's "
                 "cores)")
      ->check(cosimo::Within(1, 4096));
  AddOrchestrator(cmd, o,
                  "submit the calibration as one job of this orchestrator HOST:PORT instead of "
                  "running it here");
}

int Fit(Options& o) {
  if (o.orchestrator_given && o.fit.parallel > 0) {
    return Fail(absl::InvalidArgumentError("fit: --parallel is for a fit run here"), 2);
  }
  absl::StatusOr<LoadedCalibration> loaded = CheckedCalibration(o.fit.calibration_path);
  if (!loaded.ok()) return Fail(loaded.status(), 2);
  const v1::CalibrationJob job = ToCalibrationJob(*loaded);
  IterationPrinter printer;
  v1::JobStatus last;
  if (!o.orchestrator_given) {
    client::EmbeddedOptions options;
    options.cancel = &g_interrupted;
    options.worker_log_format = o.log.format;
    options.worker_copies =
        o.fit.parallel > 0 ? o.fit.parallel
                           : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    options.submit = [&job](Client& client, const v1::Scenario& base) {
      return client.SubmitFit(base, job);
    };
    options.on_update = [&](const v1::JobStatus& s) {
      last = s;
      printer.Update(s);
    };
    absl::StatusOr<JobResults> best = client::RunEmbedded(loaded->base, options);
    if (!best.ok()) return Fail(best.status(), ExitCodeFor(best.status()));
    if (last.state() != v1::SUCCEEDED || !last.fit().has_result()) {
      return Fail(NotSucceeded(last), ExitCodeFor(NotSucceeded(last)));
    }
    *last.mutable_fit()->mutable_calibration() = job;  // with the samples statuses leave out
    return WriteFitFiles(last, *best, o.fit.out_dir);
  }
  return WithClient(o, [&](Client& client) {
    absl::StatusOr<std::string> id = client.SubmitFit(loaded->base, job);
    if (!id.ok()) return Fail(id.status());
    std::cerr << "fit job " << *id << " submitted\n";
    SetWatchedJob(*id);
    bool canceled = false;
    absl::StatusOr<v1::JobStatus> end = client.Watch(*id, [&](const v1::JobStatus& s) {
      printer.Update(s);
      if (g_interrupted && !canceled) canceled = client.Cancel(*id).ok();
    });
    if (!end.ok()) return Fail(end.status());
    if (end->state() != v1::SUCCEEDED) {
      const absl::Status s = NotSucceeded(*end);
      return Fail(s, g_interrupted ? 130 : ExitCodeFor(s));
    }
    absl::StatusOr<JobResults> best = client.Results(*id);
    if (!best.ok()) return Fail(best.status());
    *end->mutable_fit()->mutable_calibration() = job;  // with the samples statuses leave out
    return WriteFitFiles(*end, *best, o.fit.out_dir);
  });
}

}  // namespace cosimo::cli
