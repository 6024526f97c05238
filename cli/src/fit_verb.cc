// `cosimo fit` (fit_verb.h): the calibration read and checked before anything runs (exit 2 naming
// the field), then the optimiser's loop here (RunCalibration, cosimo/common/calibration.h), each
// batch of points one sweep: run here like `cosimo sweep` runs one (RunSweepHere), or with
// --orchestrator a sweep job of that orchestrator. Then the best point run once more as a plain
// run or job, for its results.
#include "fit_verb.h"

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "cosimo/client/fmu_scenario.h"
#include "cosimo/common/calibration.h"
#include "cosimo/common/command_line.h"
#include "cosimo/common/sweep_design.h"
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

// Each batch run here, as `cosimo sweep` runs a sweep.
SweepFunction SweepsHere(const LoadedCalibration& loaded, const Options& o) {
  return [&loaded, &o](const v1::Sweep& sweep) -> absl::StatusOr<ResultTable> {
    const std::vector<std::vector<double>> values = DesignValues(sweep);
    const std::vector<SweepOutcome> outcomes = RunSweepHere(
        LoadedSweep{sweep, loaded.base}, values, {o.fit.parallel, "", o.log.format, false});
    if (g_interrupted) return absl::CancelledError("interrupted");
    return SweepTable(sweep, values, outcomes);
  };
}

// Each batch a sweep job of the orchestrator, named "<name> fit batch K"; Ctrl-C cancels it.
SweepFunction SweepJobs(const LoadedCalibration& loaded, Client& client) {
  auto batch = std::make_shared<int>(0);
  return [&loaded, &client, batch](v1::Sweep sweep) -> absl::StatusOr<ResultTable> {
    sweep.set_name(absl::StrCat(sweep.name(), " fit batch ", ++*batch));
    absl::StatusOr<std::string> job = client.SubmitSweep(loaded.base, sweep);
    if (!job.ok()) return job.status();
    bool canceled = false;
    absl::StatusOr<v1::JobStatus> end = client.Watch(*job, [&](const v1::JobStatus&) {
      if (g_interrupted && !canceled) canceled = client.Cancel(*job).ok();
    });
    if (!end.ok()) return end.status();
    if (g_interrupted || end->state() == v1::CANCELED) {
      return absl::CancelledError("sweep job " + *job + " canceled");
    }
    if (end->state() != v1::SUCCEEDED) {
      return absl::AbortedError("sweep job " + *job + " " + v1::JobState_Name(end->state()) + ": " +
                                end->message());
    }
    absl::StatusOr<JobResults> table = client.Results(*job);
    if (!table.ok()) return table.status();
    return static_cast<ResultTable>(*std::move(table));
  };
}

// "iteration 3 (24 runs): objective 12.5; vehicle.m 1500, vehicle.c_f 0.45"
void PrintIteration(const LoadedCalibration& loaded, const IterationRecord& record) {
  std::cerr << "iteration " << record.iteration << " (" << record.evaluations
            << " runs): objective " << FormatDouble(record.objective) << ";";
  const std::vector<double> values = FromBox(loaded.calibration, record.x);
  for (size_t i = 0; i < values.size(); ++i) {
    std::cerr << (i == 0 ? " " : ", ") << loaded.calibration.parameters(static_cast<int>(i)).name()
              << " " << FormatDouble(values[i]);
  }
  std::cerr << std::endl;
}

void PrintEstimates(const LoadedCalibration& loaded, const CalibrationResult& r) {
  std::vector<std::vector<std::string>> rows = {{"parameter", "estimate", "standard_error", ""}};
  for (int i = 0; i < loaded.calibration.parameters_size(); ++i) {
    rows.push_back({loaded.calibration.parameters(i).name(), FormatDouble(r.estimates[i]),
                    FormatDouble(r.statistics.standard_errors[i]),
                    r.statistics.undetermined[i] ? "NOT DETERMINED by the data" : ""});
  }
  std::cerr << "fit: " << r.optimizer.stop_reason << " after " << r.optimizer.iterations
            << " iterations, " << r.optimizer.evaluations << " runs; objective "
            << FormatDouble(r.optimizer.objective) << "\n"
            << AlignedColumns(rows);
}

// The best point's results: its scenario run here or as a job.
absl::StatusOr<ResultTable> RunBest(const LoadedCalibration& loaded,
                                    const std::vector<double>& estimates, Options& o,
                                    Client* client) {
  absl::StatusOr<v1::Scenario> scenario =
      VariantScenario(loaded.base, CalibrationSweep(loaded, {estimates}), estimates);
  if (!scenario.ok()) return scenario.status();
  if (client == nullptr) {
    client::EmbeddedOptions options;
    options.cancel = &g_interrupted;
    options.worker_log_format = o.log.format;
    absl::StatusOr<JobResults> results = client::RunEmbedded(*scenario, options);
    if (!results.ok()) return results.status();
    return static_cast<ResultTable>(*std::move(results));
  }
  absl::StatusOr<std::string> job = client->Submit(*scenario);
  if (!job.ok()) return job.status();
  if (WatchToEnd(*client, *job) != 0) return absl::AbortedError("the best run's job " + *job);
  absl::StatusOr<JobResults> results = client->Results(*job);
  if (!results.ok()) return results.status();
  return static_cast<ResultTable>(*std::move(results));
}

int Finish(const LoadedCalibration& loaded, const CalibrationResult& r, Options& o,
           Client* client) {
  PrintEstimates(loaded, r);
  const fs::path dir(o.fit.out_dir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Fail(absl::PermissionDeniedError("cannot create '" + o.fit.out_dir + "'"));
  for (const auto& [name, table] :
       {std::pair{"iterations.csv", IterationsTable(loaded, r.optimizer)},
        std::pair{"estimates.csv", EstimatesTable(loaded, r)}}) {
    if (absl::Status s = WriteCsvFile((dir / name).string(), table); !s.ok()) return Fail(s);
  }
  absl::StatusOr<ResultTable> best = RunBest(loaded, r.estimates, o, client);
  if (!best.ok()) return Fail(best.status(), ExitCodeFor(best.status()));
  if (absl::Status s = WriteCsvFile((dir / "best.csv").string(), *best); !s.ok()) return Fail(s);
  std::cerr << "fit: iterations.csv, estimates.csv and best.csv (the best run's results) written "
               "to "
            << o.fit.out_dir << "\n";
  return 0;
}

}  // namespace

void DefineFit(CLI::App& cmd, Options& o) {
  FitCommand& c = o.fit;
  cmd.add_option("calibration", c.calibration_path, "calibration JSON file (docs/calibration.md)")
      ->required();
  cmd.add_option("--out-dir", c.out_dir,
                 "folder of iterations.csv, estimates.csv and best.csv (the best run's results)")
      ->capture_default_str();
  cmd.add_option("--parallel", c.parallel,
                 "variants run at once here (default: this machine's cores)")
      ->check(cosimo::Within(1, 4096));
  AddOrchestrator(cmd, o,
                  "run each batch of variants as a sweep job of this orchestrator HOST:PORT "
                  "instead of here");
}

int Fit(Options& o) {
  if (o.orchestrator_given && o.fit.parallel > 0) {
    return Fail(absl::InvalidArgumentError("fit: --parallel is for a fit run here"), 2);
  }
  absl::StatusOr<LoadedCalibration> loaded = CheckedCalibration(o.fit.calibration_path);
  if (!loaded.ok()) return Fail(loaded.status(), 2);
  auto progress = [&](const IterationRecord& r) { PrintIteration(*loaded, r); };
  if (!o.orchestrator_given) {
    absl::StatusOr<CalibrationResult> r = RunCalibration(*loaded, SweepsHere(*loaded, o), progress);
    if (!r.ok()) return Fail(r.status(), ExitCodeFor(r.status()));
    return Finish(*loaded, *r, o, nullptr);
  }
  return WithClient(o, [&](Client& client) {
    absl::StatusOr<CalibrationResult> r =
        RunCalibration(*loaded, SweepJobs(*loaded, client), progress);
    if (!r.ok()) return Fail(r.status(), ExitCodeFor(r.status()));
    return Finish(*loaded, *r, o, &client);
  });
}

}  // namespace cosimo::cli
