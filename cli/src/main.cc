// cosimo: the Cosimo command line.
//   cosimo run SCENARIO.json [--out results.csv]   (or an SSP: SYSTEM.ssp / SYSTEM.ssd)
//   cosimo run MODEL.fmu [--stop-time T] [--step H] [--out f.csv]   (its DefaultExperiment)
//   cosimo import SYSTEM.ssp [--out scenario.json] [--step-size H] [--stop-time T]
//   cosimo submit SCENARIO.json [--orchestrator HOST:PORT] [--wait]
//   run, submit and import of an SSP (run and submit of an FMU too) take --stop-time T and
//   --step-size H (also --step)
//   cosimo watch JOB | cosimo results JOB --out results.csv | cosimo cancel JOB | cosimo list
//   cosimo resume JOB   (a sweep or a calibration that failed or was canceled: runs the rest,
//   keeps its finished rows or batches)
//   cosimo status JOB | cosimo delete JOB | cosimo workers
//   cosimo plot RESULTS.csv [--vars a,b] [--one-panel] [--out plot.svg|plot.png] [--title T]
//   cosimo plot TABLE.csv --x PARAM --y KPI [--out plot.svg|plot.png] [--title T]   (a scatter
//   plot of two columns of a sweep table; --x and --y go together)
//   cosimo plot FIT_DIR [--out fit.svg|fit.png]   (a fit's measured data against its best run)
//   --out - writes the CSV to standard output; --log-level may come before or after the verb.
//   cosimo train SCENARIO.json --data measured.csv --unit NAME [--epochs N] [--out weights.json]
//                [--orchestrator HOST:PORT [--wait]]   (without --orchestrator: trains here)
//   cosimo sweep SWEEP.json [--out sweep.csv] [--keep-results DIR]   (here; docs/sweeps.md)
//   cosimo sweep SWEEP.json --orchestrator HOST:PORT [--wait] [--out sweep.csv]   (as a job)
//   cosimo fit CALIBRATION.json [--out-dir fit] [--orchestrator HOST:PORT]   (docs/calibration.md)
// Every verb but run also takes --tls-ca FILE and --token-file FILE (a secured orchestrator).
// Exit codes: 0 success; 1 the job failed or was canceled, or a request failed; 2 bad usage or
// bad scenario; 130 interrupted (Ctrl-C, SIGTERM: at once; run cancels its job first).
#include <pthread.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/client/client.h"
#include "cosimo/client/fmu_scenario.h"
#include "cosimo/client/plot_file.h"
#include "cosimo/client/results_file.h"
#include "cosimo/common/command_line.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/process.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/security.h"
#include "cosimo/common/status.h"
#include "cosimo/ssp/ssp_import.h"
#include "cosimo/units/scenario_check.h"
#include "interrupts.h"
#include "progress.h"
#include "scenario_files.h"
#include "train.h"
#include "verbs.h"

namespace cosimo::cli {

namespace {

void AddSspOptions(CLI::App& cmd, Options& o) {
  cmd.add_option("--step-size,--step", o.ssp.step_size,
                 "SSP or FMU input: the communication step (default: DefaultExperiment's "
                 "stepSize, else a thousandth of the run)")
      ->check(cosimo::Within(0, 1e300));
  cmd.add_option("--stop-time", o.ssp.stop_time,
                 "SSP or FMU input: override DefaultExperiment's stopTime")
      ->check(cosimo::Within(0, 1e300));
  // The SSP's limits in MiB (ssp::SspLimits, in bytes).
  struct Limit {
    const char* flag;
    uint64_t* bytes;
    const char* help;
  };
  for (const Limit& limit :
       {Limit{"--ssp-max-document-mb", &o.ssp.limits.max_document_bytes,
              "SSP input: the largest XML document (.ssd, .ssv, .ssm) it may hold, MiB"},
        Limit{"--ssp-max-file-mb", &o.ssp.limits.max_file_bytes,
              "SSP input: the largest file (an FMU) it may extract, MiB"},
        Limit{"--ssp-max-total-mb", &o.ssp.limits.max_total_bytes,
              "SSP input: the most it may extract, every file together, MiB"}}) {
    uint64_t* bytes = limit.bytes;
    cmd.add_option_function<uint64_t>(
           limit.flag, [bytes](const uint64_t& mb) { *bytes = mb << 20; }, limit.help)
        ->check(cosimo::Within(uint64_t{1}, uint64_t{1} << 30))
        ->default_str(std::to_string(*bytes >> 20));
  }
}

void DefineRun(CLI::App& cmd, Options& o) {
  cmd.add_option("scenario", o.scenario_path,
                 "scenario JSON file, an SSP (.ssp, .ssd), or one FMU (.fmu) to run on its own")
      ->required();
  AddResultsOut(cmd, o);
  cmd.add_option("--workers", o.run_workers,
                 "spread the units over at most this many worker processes, each hosting several "
                 "units when the scenario has more (default: one process holding all the units, "
                 "per worker label, the master running in it)")
      ->check(cosimo::Within(1, 4096));
  cmd.add_flag("--timings", o.timings,
               "print where the run's wall time went (start-up, the job, results) on standard "
               "error; the debug log has it too");
  AddSspOptions(cmd, o);
}

int Run(Options& o) {
  client::PhaseTimer timer;  // from here: the program's own loading is not in it
  TempFolder temp;
  absl::StatusOr<v1::Scenario> scenario = CheckedScenario(o, temp);
  if (!scenario.ok()) return Fail(scenario.status(), 2);
  timer.Mark("scenario read and checked");
  client::ProgressPrinter printer;
  client::EmbeddedOptions options;
  options.on_update = [&](const v1::JobStatus& s) { printer.Update(s); };
  options.cancel = &g_interrupted;
  options.worker_log_format = o.log.format;
  options.max_workers = o.run_workers;
  options.timings = &timer;
  if (o.log.level == "debug" || o.log.level == "trace") options.worker_log_level = o.log.level;
  // The CSV is written as the rows come, the rest after the job's end.
  client::ResultsFileWriter writer(o.out);
  options.on_rows = [&](const JobResults& rows) { writer.Update(rows); };
  options.on_results = [&](const JobResults& results) {
    printer.Finish();
    absl::Status written = WriteResults(results, o.out, o.metadata_out, &writer);
    timer.Mark("results written");
    return written;
  };
  absl::StatusOr<JobResults> results = client::RunEmbedded(*scenario, options);
  printer.Finish();
  if (!results.ok()) return Fail(results.status(), ExitCodeFor(results.status()));
  if (results->metadata.interrupted()) {  // Ctrl-C: the rows recorded until then
    std::cerr << "cosimo: partial results: the rows recorded until t="
              << FormatDouble(results->metadata.interrupted_time()) << " s\n";
    return 130;
  }
  if (o.timings) std::cerr << "timings (wall, from the start of `cosimo run`):\n" << timer.Report();
  return 0;
}

void DefineImport(CLI::App& cmd, Options& o) {
  cmd.add_option("system", o.scenario_path, "the .ssp archive or .ssd file")->required();
  cmd.add_option("--out", o.import_out, "scenario JSON to write (FMUs go to <name>_resources/)")
      ->capture_default_str();
  AddSspOptions(cmd, o);
}

int Import(Options& o) {
  const std::filesystem::path out_path(o.import_out);
  o.ssp.resources_dir =
      (out_path.parent_path() / (out_path.stem().string() + "_resources")).string();
  absl::StatusOr<v1::Scenario> scenario = ImportSystem(o.scenario_path, o.ssp);
  if (!scenario.ok()) return Fail(scenario.status(), 2);
  if (absl::Status s = WriteScenario(*scenario, o.import_out); !s.ok()) return Fail(s);
  std::cerr << "scenario written to " << o.import_out << " (" << scenario->units_size()
            << " units, " << scenario->connections_size() << " connections)\n";
  return 0;
}

void DefineSubmit(CLI::App& cmd, Options& o) {
  cmd.add_option("scenario", o.scenario_path,
                 "scenario JSON file, an SSP (.ssp, .ssd), or one FMU (.fmu) on its own")
      ->required();
  cmd.add_flag("--wait", o.wait, "follow the job until it ends; exit 0 only if it succeeded");
  AddOrchestrator(cmd, o);
  AddSspOptions(cmd, o);
}

int Submit(Options& o) {
  TempFolder temp;
  absl::StatusOr<v1::Scenario> scenario = CheckedScenario(o, temp);
  if (!scenario.ok()) return Fail(scenario.status(), 2);
  return WithClient(o, [&](Client& client) {
    absl::StatusOr<std::string> job = client.Submit(*scenario);
    if (!job.ok()) return Fail(job.status(), ExitCodeFor(job.status()));
    std::cout << *job << std::endl;
    return o.wait ? WatchToEnd(client, *job) : 0;
  });
}

void DefinePlot(CLI::App& cmd, Options& o) {
  cmd.add_option("csv", o.plot_csv,
                 "results CSV (from run or results), or with --x and --y any CSV with a header, "
                 "a sweep table (from sweep or results of a sweep job) say; or a fit's folder "
                 "(from fit or results of a calibration job), or its measured.csv: the measured "
                 "data against the best run")
      ->required();
  cmd.add_option("--out", o.plot_out, "plot file: .svg or .png")->capture_default_str();
  cmd.add_option("--vars", o.plot_options.variables, "time plots: columns to plot (default: all)")
      ->delimiter(',');
  cmd.add_flag("--one-panel", o.plot_options.one_panel,
               "time plots: all variables in one panel (default: one panel per unit)");
  cmd.add_option("--x", o.plot_x,
                 "scatter plot of column --y against this column (a sweep's parameter, say); "
                 "give both or neither");
  cmd.add_option("--y", o.plot_y,
                 "scatter plot: the column along the y axis (a sweep's KPI, say); failed rows "
                 "(status FAILED) and NaN values are left out and counted in a caption");
  cmd.add_option("--title", o.plot_options.title, "title (default: the CSV's file name)");
  cmd.add_option("--width", o.plot_options.width, "width in pixels (a scatter plot is 2/3 as high)")
      ->capture_default_str()
      ->check(cosimo::Within(64, 16384));
}

// Time plots, or with --x and --y a scatter plot.
int Plot(Options& o) {
  absl::Status s;
  std::error_code ec;
  const bool fit = std::filesystem::is_directory(o.plot_csv, ec) ||
                   std::filesystem::path(o.plot_csv).filename() == "measured.csv";
  if (fit) {
    if (!o.plot_x.empty() || !o.plot_y.empty() || !o.plot_options.variables.empty() ||
        o.plot_options.one_panel) {
      return Fail(absl::InvalidArgumentError(
                      "plot: --x, --y, --vars and --one-panel are not for a fit's plot (of '" +
                      o.plot_csv + "': one panel per measured column)"),
                  2);
    }
    s = client::WriteFitPlotFile(o.plot_csv, o.plot_out, o.plot_options);
  } else if (o.plot_x.empty() && o.plot_y.empty()) {
    s = client::WritePlotFile(o.plot_csv, o.plot_out, o.plot_options);
    if (absl::StrContains(s.message(), "no 'time' column")) {
      s = absl::InvalidArgumentError(
          absl::StrCat(s.message(), " (a sweep table? --x PARAM --y KPI draws a scatter plot)"));
    }
  } else if (o.plot_x.empty() || o.plot_y.empty()) {
    return Fail(absl::InvalidArgumentError(
                    std::string("plot: --x and --y go together (a scatter plot of column --y "
                                "against column --x); ") +
                    (o.plot_x.empty() ? "--y" : "--x") + " is given alone"),
                2);
  } else if (!o.plot_options.variables.empty() || o.plot_options.one_panel) {
    return Fail(absl::InvalidArgumentError(
                    "plot: --vars and --one-panel are for time plots, not with --x and --y"),
                2);
  } else {
    ScatterOptions options;
    options.title = o.plot_options.title;
    options.width = o.plot_options.width;
    options.height = o.plot_options.width * 2 / 3;
    s = client::WriteScatterFile(o.plot_csv, o.plot_out, o.plot_x, o.plot_y, options);
  }
  if (!s.ok()) return Fail(s, s.code() == absl::StatusCode::kInvalidArgument ? 2 : 1);
  std::cerr << "plot written to " << o.plot_out << "\n";
  return 0;
}

void DefineTrain(CLI::App& cmd, Options& o) {
  client::TrainCommand& t = o.train;
  cmd.add_option("scenario", t.scenario_path, "scenario JSON file")->required();
  cmd.add_option("--data", t.data_path,
                 "measured CSV: time, then <unit>.<variable> columns (a results CSV)")
      ->required();
  cmd.add_option("--unit", t.unit, "the hybrid unit to train")->required();
  cmd.add_option("--epochs", t.epochs, "Adam steps, one simulation each")
      ->capture_default_str()
      ->check(cosimo::Within(1, 1e7));
  cmd.add_option("--learning-rate", t.learning_rate, "Adam's step size")
      ->capture_default_str()
      ->check(cosimo::Within(0, 1e6));  // 0 too: the training's own check names it
  cmd.add_option("--out", t.out, "weights file to write (default: <unit>.weights.json)");
  AddOrchestrator(cmd, o,
                  "submit the training as a job to this orchestrator HOST:PORT and print its "
                  "id (default: train here, in this process)");
  cmd.add_flag("--wait", o.wait,
               "with --orchestrator: follow the job and write the weights file once it ends");
}

// Here (cli/src/train.h) without --orchestrator, else as a job of the service.
int Train(Options& o) {
  if (!o.orchestrator_given) {
    if (o.wait) return Fail(absl::InvalidArgumentError("train: --wait needs --orchestrator"), 2);
    o.train.cancel = &g_interrupted;
    return client::RunTrain(o.train);
  }
  absl::StatusOr<v1::Scenario> scenario = cosimo::LoadScenarioFile(o.train.scenario_path);
  if (!scenario.ok()) return Fail(scenario.status(), 2);
  if (absl::Status s = cosimo::ValidateScenario(*scenario); !s.ok()) return Fail(s, 2);
  return WithClient(o, [&](Client& client) {
    v1::TrainingRequest request;
    request.set_unit(o.train.unit);
    request.set_epochs(o.train.epochs);
    request.set_learning_rate(o.train.learning_rate);
    absl::StatusOr<std::string> job = client.SubmitTraining(*scenario, request, o.train.data_path);
    if (!job.ok()) return Fail(job.status(), ExitCodeFor(job.status()));
    std::cout << *job << std::endl;
    if (!o.wait) return 0;
    if (const int code = WatchToEnd(client, *job); code != 0) return code;
    return WriteWeights(client, *job, o.train.out);
  });
}

constexpr Verb kVerbs[] = {
    {"run",
     "run a scenario here: an orchestrator and worker processes of its own (one per unit, at most "
     "one per core: then several units each)",
     DefineRun, Run},
    {"import", "turn an SSP system (.ssp or .ssd) into a scenario JSON, its FMUs beside it",
     DefineImport, Import},
    {"submit", "submit a scenario; prints the job id", DefineSubmit, Submit},
    {"watch", "follow a job until it ends (--follow: the latest values of variables)", DefineWatch,
     Watch},
    {"results",
     "write a succeeded job's results as CSV (--partial: a running job's rows recorded so far)",
     DefineResults, Results},
    {"status", "print one job's status, once", AddJob, Status},
    {"logs",
     "print a job's log: what its units said through the FMI logger and printed on their "
     "standard output and error, so far",
     [](CLI::App& cmd, Options& o) {
       AddJob(cmd, o);
       cmd.add_option("--unit", o.log_unit, "that unit's lines only");
     },
     Logs},
    {"cancel", "cancel a queued or running job", AddJob, Cancel},
    {"resume",
     "run the rest of a sweep or a calibration that failed or was canceled, keeping its finished "
     "rows or batches",
     AddJob, Resume},
    {"list", "list the orchestrator's jobs",
     [](CLI::App& cmd, Options& o) { AddOrchestrator(cmd, o); }, List},
    {"delete", "forget a finished job and its results", AddJob, Delete},
    {"plot",
     "draw a results CSV as time plots, or with --x and --y a scatter plot of two columns of a "
     "sweep table (SVG or PNG)",
     DefinePlot, Plot},
    {"workers", "list the workers attached to the orchestrator",
     [](CLI::App& cmd, Options& o) { AddOrchestrator(cmd, o); }, Workers},
    {"train", "fit a hybrid unit's networks to measured data, here; writes the weights file",
     DefineTrain, Train},
    {"sweep", "run a parameter sweep here, or as a job with --orchestrator; one row per variant",
     DefineSweep, Sweep},
    {"fit",
     "calibrate parameters to measured data (CMA-ES or Levenberg-Marquardt), each batch of "
     "variants a sweep here, or a sweep job with --orchestrator",
     DefineFit, Fit},
};

}  // namespace

// The options the verbs share (verbs.h).
void AddOrchestrator(CLI::App& cmd, Options& o, const std::string& help) {
  cmd.add_option("--orchestrator", o.orchestrator, help);
  cmd.add_option("--tls-ca", o.security.tls_ca_file,
                 "dial TLS, trusting the PEM certificates in this file (default: "
                 "$COSIMO_TLS_CA)");
  cmd.add_option("--token-file", o.security.token_file,
                 "send the token in this file (default: $COSIMO_TOKEN_FILE; needs --tls-ca)");
}

void AddJob(CLI::App& cmd, Options& o) {
  cmd.add_option("job", o.job_id, "job id")->required();
  AddOrchestrator(cmd, o);
}

void AddResultsOut(CLI::App& cmd, Options& o) {
  cmd.add_option("--out", o.out, "results CSV, - for standard output (metadata beside a file)")
      ->capture_default_str();
  cmd.add_option("--metadata", o.metadata_out,
                 "metadata JSON (default: the CSV's name + .meta.json; none with --out -)");
}

void DefineResults(CLI::App& cmd, Options& o) {
  cmd.add_option("job", o.job_id, "job id")->required();
  AddResultsOut(cmd, o);
  cmd.add_option("--variant", o.variant,
                 "a sweep job's variant K: its full results (a sweep that keeps them, "
                 "\"keep_results\": \"ALL\"), not the sweep's table")
      ->check(cosimo::Within(0, 9e15));
  cmd.add_flag("--partial", o.partial,
               "a running job: write the rows recorded so far (a prefix of its results, byte for "
               "byte; the metadata says \"partial\": true); without it, results fails unless the "
               "job succeeded");
  AddOrchestrator(cmd, o);
}

void DefineWatch(CLI::App& cmd, Options& o) {
  AddJob(cmd, o);
  cmd.add_option("--follow", o.follow,
                 "print the latest values of these recorded variables (unit.variable, several or "
                 "comma-separated) as the job runs, a line each time new rows are recorded")
      ->delimiter(',');
}

int Main(int argc, char** argv) {
  cosimo::SetUpProcess();
  cosimo::KeepFreedMemory();
  CLI::App app{"cosimo: run and manage Cosimo co-simulation jobs"};
  app.require_subcommand(1);
  // Options a verb does not know fall through to the app (--log-level after the verb); set
  // before the verbs are added, which copy it.
  app.fallthrough();
  Options o;
  std::vector<std::pair<CLI::App*, const Verb*>> verbs;
  for (const Verb& verb : kVerbs) {
    CLI::App* cmd = app.add_subcommand(verb.name, verb.help);
    verb.define(*cmd, o);
    verbs.emplace_back(cmd, &verb);
  }
  // Before or after the verb (app.fallthrough() above).
  cosimo::AddLogOptions(app, o.log);
  // An unknown verb is named (CLI11 would only say that a subcommand is required).
  if (argc > 1 && argv[1][0] != '-' &&
      std::none_of(std::begin(kVerbs), std::end(kVerbs),
                   [&](const Verb& v) { return std::string(v.name) == argv[1]; })) {
    std::string names;
    for (const Verb& v : kVerbs) names += (names.empty() ? "" : ", ") + std::string(v.name);
    std::cerr << "cosimo: unknown command '" << argv[1] << "' (commands: " << names
              << "; see --help)\n";
    return 2;
  }
  if (const int code = cosimo::ParseCommandLine(app, argc, argv); code >= 0) return code;
  // Log lines go to stderr: stdout carries results (--out -) and job ids.
  if (absl::Status s = cosimo::SetUpLogging("cosimo", o.log); !s.ok()) return Fail(s, 2);
  for (const auto& [cmd, verb] : verbs) {
    if (!cmd->parsed()) continue;
    // A structured binding is not captured (clang before C++20 refuses it): the verb's pointer.
    auto given = [parsed = cmd](const char* name) {
      const CLI::Option* option = parsed->get_option_no_throw(name);
      return option != nullptr && option->count() > 0;
    };
    o.out_given = given("--out");
    o.orchestrator_given = given("--orchestrator");
    StartInterruptHandler(verb->run == Run || verb->run == Fit ||
                          (verb->run == Sweep && SweepRunsHere(o)));
    return verb->run(o);
  }
  return 2;
}

}  // namespace cosimo::cli

int main(int argc, char** argv) { return cosimo::cli::Main(argc, argv); }
