// cosimo: the Cosimo command line.
//   cosimo run SCENARIO.json [--out results.csv]   (or an SSP: SYSTEM.ssp / SYSTEM.ssd)
//   cosimo run MODEL.fmu [--stop-time T] [--step H] [--out f.csv]   (its DefaultExperiment)
//   cosimo import SYSTEM.ssp [--out scenario.json] [--step-size H] [--stop-time T]
//   cosimo submit SCENARIO.json [--orchestrator HOST:PORT] [--wait]
//   run, submit and import of an SSP (run and submit of an FMU too) take --stop-time T and
//   --step-size H (also --step)
//   cosimo watch JOB | cosimo results JOB --out results.csv | cosimo cancel JOB | cosimo list
//   cosimo status JOB | cosimo delete JOB | cosimo workers
//   cosimo plot RESULTS.csv [--vars a,b] [--one-panel] [--out plot.svg|plot.png]
//   --out - writes the CSV to standard output; --log-level may come before or after the verb.
//   cosimo train SCENARIO.json --data measured.csv --unit NAME [--epochs N] [--out weights.json]
//                [--orchestrator HOST:PORT [--wait]]   (without --orchestrator: trains here)
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
#include <mutex>
#include <thread>

#include "cosimo/client/client.h"
#include "cosimo/client/fmu_scenario.h"
#include "cosimo/client/plot_file.h"
#include "cosimo/client/results_file.h"
#include "cosimo/client/ssp_import.h"
#include "cosimo/common/command_line.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/process.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/security.h"
#include "cosimo/common/status.h"
#include "cosimo/worker/scenario_check.h"
#include "progress.h"
#include "train.h"

namespace {

using cosimo::client::Client;
using cosimo::client::JobResults;

std::atomic<bool> g_interrupted{false};

// What Ctrl-C or SIGTERM does (README: exit 130 at once), as main goes on: `run` cancels its
// job and stops its workers (a second signal exits at once); a watched job is left running and
// the message says how to follow or cancel it; anything else exits.
struct InterruptState {
  std::mutex mutex;
  bool cancel_run = false;
  std::string watched_job;
  std::string temp_dir;  // removed before exiting
};
InterruptState g_interrupt;

void HandleInterrupts(sigset_t signals) {
  int signal = 0;
  sigwait(&signals, &signal);
  g_interrupted = true;
  std::string temp_dir;
  {
    std::unique_lock<std::mutex> lock(g_interrupt.mutex);
    temp_dir = g_interrupt.temp_dir;
    if (g_interrupt.cancel_run) {
      std::cerr << "\ncosimo: interrupted: canceling the job and stopping its workers\n";
      lock.unlock();
      sigwait(&signals, &signal);
    } else if (!g_interrupt.watched_job.empty()) {
      const std::string& job = g_interrupt.watched_job;
      std::cerr << "\ncosimo: interrupted; job " << job
                << " is still running on the orchestrator (cosimo watch " << job
                << " follows it again, cosimo cancel " << job << " stops it)\n";
    } else {
      std::cerr << "\ncosimo: interrupted\n";
    }
  }
  std::error_code ignored;
  if (!temp_dir.empty()) std::filesystem::remove_all(temp_dir, ignored);
  std::fflush(stdout);
  _exit(130);
}

void SetWatchedJob(const std::string& job) {
  std::lock_guard<std::mutex> lock(g_interrupt.mutex);
  g_interrupt.watched_job = job;
}

int Fail(const absl::Status& status, int code = 1) {
  std::cerr << "cosimo: " << status.message() << "\n";
  return code;
}

int ExitCodeFor(const absl::Status& status) {
  if (g_interrupted) return 130;
  if (status.code() == absl::StatusCode::kInvalidArgument) return 2;
  return 1;
}

// The CSV to `out` ("-": standard output) and the metadata to `metadata` (default: beside a CSV
// file, none beside standard output); says where on stderr.
absl::Status WriteResults(const JobResults& results, const std::string& out, std::string metadata) {
  if (metadata.empty() && out != "-") metadata = out + ".meta.json";
  if (absl::Status s = cosimo::client::WriteResultFiles(results, out, metadata); !s.ok()) return s;
  std::cerr << "results written to " << (out == "-" ? "standard output" : out) << " ("
            << results.rows() << " rows, " << results.columns.size() << " columns"
            << (metadata.empty() ? "" : "; metadata in " + metadata) << ")\n";
  return absl::OkStatus();
}

// Watches until the job ends with a progress display; 0 only if it succeeded.
int WatchToEnd(Client& client, const std::string& job) {
  SetWatchedJob(job);
  cosimo::client::ProgressPrinter printer;
  absl::StatusOr<cosimo::v1::JobStatus> status =
      client.Watch(job, [&](const cosimo::v1::JobStatus& s) { printer.Update(s); });
  printer.Finish();
  if (!status.ok()) return Fail(status.status());
  return status->state() == cosimo::v1::SUCCEEDED ? 0 : 1;
}

// A training job's weights file to `out` (empty: "<unit>.weights.json"; "-": standard output).
int WriteWeights(Client& client, const std::string& job, std::string out) {
  absl::StatusOr<cosimo::v1::TrainingResult> result = client.TrainingResult(job);
  if (!result.ok()) return Fail(result.status());
  if (out.empty()) out = result->unit() + ".weights.json";
  if (out == "-") {
    std::cout << result->weights_json() << std::flush;
  } else {
    std::ofstream file(out, std::ios::binary | std::ios::trunc);
    file << result->weights_json();
    file.close();
    if (!file) return Fail(absl::PermissionDeniedError("cannot write '" + out + "'"));
  }
  std::fprintf(stderr,
               "trained unit '%s': loss %.6e -> %.6e in %d epochs, %.1f s on worker %s (%s); "
               "weights written to %s\n",
               result->unit().c_str(), result->first_loss(), result->final_loss(), result->epochs(),
               result->seconds(), result->worker().c_str(), result->host().c_str(),
               out == "-" ? "standard output" : out.c_str());
  return 0;
}

bool IsFmu(const std::string& path) {
  return std::filesystem::path(path).extension().string() == ".fmu";
}

bool IsSsp(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  return ext == ".ssp" || ext == ".ssd";
}

// An .ssp or .ssd as a scenario (cosimo/client/ssp_import.h); notices go to stderr.
absl::StatusOr<cosimo::v1::Scenario> ImportSystem(const std::string& path,
                                                  const cosimo::client::SspImportOptions& options) {
  absl::StatusOr<cosimo::client::SspImport> imported = cosimo::client::ImportSsp(path, options);
  if (!imported.ok()) return imported.status();
  for (const std::string& notice : imported->notices) std::cerr << "cosimo: " << notice << "\n";
  return imported->scenario;
}

// The scenario `run` and `submit` are given: a JSON file (stop time and step from the FMUs'
// DefaultExperiment when it leaves them out), an FMU on its own, or an SSP (ImportSystem).
absl::StatusOr<cosimo::v1::Scenario> LoadScenario(const std::string& path,
                                                  const cosimo::client::SspImportOptions& options) {
  if (IsSsp(path)) return ImportSystem(path, options);
  if (IsFmu(path)) {
    cosimo::client::SingleFmuOptions fmu;
    fmu.stop_time = options.stop_time;
    fmu.step_size = options.step_size;
    absl::StatusOr<cosimo::client::SingleFmuScenario> single =
        cosimo::client::ScenarioForFmu(path, fmu);
    if (!single.ok()) return single.status();
    for (const std::string& notice : single->notices) std::cerr << "cosimo: " << notice << "\n";
    return single->scenario;
  }
  absl::StatusOr<cosimo::v1::Scenario> scenario = cosimo::LoadScenarioFile(path);
  if (!scenario.ok()) return scenario;
  absl::StatusOr<std::vector<std::string>> notices =
      cosimo::client::ApplyDefaultExperiments(&*scenario);
  if (!notices.ok()) return notices.status();
  for (const std::string& notice : *notices) std::cerr << "cosimo: " << notice << "\n";
  return scenario;
}

// Writes `scenario` as JSON to `out`, its FMU paths relative to the file's folder.
absl::Status WriteScenario(cosimo::v1::Scenario scenario, const std::string& out) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::absolute(out).parent_path();
  std::error_code ec;
  fs::create_directories(dir, ec);
  for (cosimo::v1::Unit& unit : *scenario.mutable_units()) {
    if (!unit.has_fmu()) continue;
    unit.mutable_fmu()->set_path(
        fs::path(unit.fmu().path()).lexically_relative(dir).generic_string());
  }
  std::ofstream file(out, std::ios::trunc);
  file << cosimo::ScenarioToJson(scenario) << "\n";
  if (!file) return absl::PermissionDeniedError("cannot write '" + out + "'");
  return absl::OkStatus();
}

std::string FormatTime(int64_t unix_ms) {
  const std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%d %H:%M:%S", &tm);
  return buffer;
}

}  // namespace

int main(int argc, char** argv) {
  cosimo::SetUpProcess();
  CLI::App app{"cosimo: run and manage Cosimo co-simulation jobs"};
  app.require_subcommand(1);
  // Options a verb does not know fall through to the app (--log-level after the verb); set
  // before the verbs are added, which copy it.
  app.fallthrough();
  std::string orchestrator = cosimo::client::DefaultOrchestrator();
  std::string scenario_path, job_id, out = "results.csv";
  bool wait = false;

  CLI::App* run = app.add_subcommand(
      "run",
      "run a scenario here: an embedded orchestrator and worker processes (one per unit, at most "
      "one per core: then several units each)");
  run->add_option("scenario", scenario_path,
                  "scenario JSON file, an SSP (.ssp, .ssd), or one FMU (.fmu) to run on its own")
      ->required();
  std::string metadata_out;
  run->add_option("--out", out, "results CSV, - for standard output (metadata beside a file)")
      ->capture_default_str();
  run->add_option("--metadata", metadata_out,
                  "metadata JSON (default: the CSV's name + .meta.json; none with --out -)");
  int run_workers = 0;
  run->add_option("--workers", run_workers,
                  "at most this many worker processes, each hosting several units when the "
                  "scenario has more (default: this machine's cores)")
      ->check(CLI::Range(1, 4096));

  cosimo::ClientSecurity security = cosimo::ClientSecurityFromEnvironment();
  cosimo::client::SspImportOptions ssp;
  CLI::App* import = app.add_subcommand(
      "import", "turn an SSP system (.ssp or .ssd) into a scenario JSON, its FMUs beside it");
  import->add_option("system", scenario_path, "the .ssp archive or .ssd file")->required();
  std::string import_out = "scenario.json";
  import->add_option("--out", import_out, "scenario JSON to write (FMUs go to <name>_resources/)")
      ->capture_default_str();
  auto add_ssp_options = [&](CLI::App* cmd) {
    cmd->add_option("--step-size,--step", ssp.step_size,
                    "SSP or FMU input: the communication step (default: DefaultExperiment's "
                    "stepSize, else a thousandth of the run)");
    cmd->add_option("--stop-time", ssp.stop_time,
                    "SSP or FMU input: override DefaultExperiment's stopTime");
  };
  add_ssp_options(run);
  add_ssp_options(import);
  auto add_orchestrator = [&](CLI::App* cmd, const std::string& help =
                                                 "orchestrator HOST:PORT (default: "
                                                 "$COSIMO_ORCHESTRATOR, else localhost:7700)") {
    cmd->add_option("--orchestrator", orchestrator, help);
    cmd->add_option("--tls-ca", security.tls_ca_file,
                    "dial TLS, trusting the PEM certificates in this file (default: "
                    "$COSIMO_TLS_CA)");
    cmd->add_option("--token-file", security.token_file,
                    "send the token in this file (default: $COSIMO_TOKEN_FILE; needs --tls-ca)");
  };
  CLI::App* submit = app.add_subcommand("submit", "submit a scenario; prints the job id");
  submit
      ->add_option("scenario", scenario_path,
                   "scenario JSON file, an SSP (.ssp, .ssd), or one FMU (.fmu) on its own")
      ->required();
  submit->add_flag("--wait", wait, "follow the job until it ends; exit 0 only if it succeeded");
  add_orchestrator(submit);
  add_ssp_options(submit);
  CLI::App* watch = app.add_subcommand("watch", "follow a job until it ends");
  watch->add_option("job", job_id, "job id")->required();
  add_orchestrator(watch);
  CLI::App* results = app.add_subcommand("results", "write a succeeded job's results as CSV");
  results->add_option("job", job_id, "job id")->required();
  results->add_option("--out", out, "results CSV, - for standard output (metadata beside a file)")
      ->capture_default_str();
  results->add_option("--metadata", metadata_out,
                      "metadata JSON (default: the CSV's name + .meta.json; none with --out -)");
  add_orchestrator(results);
  CLI::App* status = app.add_subcommand("status", "print one job's status, once");
  status->add_option("job", job_id, "job id")->required();
  add_orchestrator(status);
  CLI::App* cancel = app.add_subcommand("cancel", "cancel a queued or running job");
  cancel->add_option("job", job_id, "job id")->required();
  add_orchestrator(cancel);
  CLI::App* list = app.add_subcommand("list", "list the orchestrator's jobs");
  add_orchestrator(list);
  CLI::App* remove = app.add_subcommand("delete", "forget a finished job and its results");
  remove->add_option("job", job_id, "job id")->required();
  add_orchestrator(remove);
  CLI::App* plot = app.add_subcommand("plot", "draw a results CSV as time plots (SVG or PNG)");
  std::string plot_csv, plot_out = "plot.svg";
  cosimo::PlotOptions plot_options;
  plot->add_option("results", plot_csv, "results CSV (from run or results)")->required();
  plot->add_option("--out", plot_out, "plot file: .svg or .png")->capture_default_str();
  plot->add_option("--vars", plot_options.variables, "columns to plot (default: all)")
      ->delimiter(',');
  plot->add_flag("--one-panel", plot_options.one_panel,
                 "all variables in one panel (default: one panel per unit)");
  plot->add_option("--title", plot_options.title, "title (default: the CSV's file name)");
  plot->add_option("--width", plot_options.width, "width in pixels")->capture_default_str();
  CLI::App* workers =
      app.add_subcommand("workers", "list the workers attached to the orchestrator");
  add_orchestrator(workers);
  cosimo::client::TrainCommand train_command;
  CLI::App* train = app.add_subcommand(
      "train", "fit a hybrid unit's networks to measured data, here; writes the weights file");
  train->add_option("scenario", train_command.scenario_path, "scenario JSON file")->required();
  train
      ->add_option("--data", train_command.data_path,
                   "measured CSV: time, then <unit>.<variable> columns (a results CSV)")
      ->required();
  train->add_option("--unit", train_command.unit, "the hybrid unit to train")->required();
  train->add_option("--epochs", train_command.epochs, "Adam steps, one simulation each")
      ->capture_default_str();
  train->add_option("--learning-rate", train_command.learning_rate, "Adam's step size")
      ->capture_default_str();
  train->add_option("--out", train_command.out,
                    "weights file to write (default: <unit>.weights.json)");
  add_orchestrator(train,
                   "submit the training as a job to this orchestrator HOST:PORT and print its "
                   "id (default: train here, in this process)");
  train->add_flag("--wait", wait,
                  "with --orchestrator: follow the job and write the weights file once it ends");
  cosimo::LogOptions log{.level = "warn"};
  // Before or after the verb (app.fallthrough() above).
  cosimo::AddLogOptions(app, log);
  // An unknown verb is named (CLI11 would only say that a subcommand is required).
  if (argc > 1 && argv[1][0] != '-') {
    std::string verbs;
    bool known = false;
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
      known = known || sub->get_name() == argv[1];
      verbs += (verbs.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      std::cerr << "cosimo: unknown command '" << argv[1] << "' (commands: " << verbs
                << "; see --help)\n";
      return 2;
    }
  }
  if (const int code = cosimo::ParseCommandLine(app, argc, argv); code >= 0) return code;
  // Log lines go to stderr: stdout carries results (--out -) and job ids.
  if (absl::Status s = cosimo::SetUpLogging("cosimo", log); !s.ok()) return Fail(s, 2);

  // Ctrl-C / TERM: handled on a thread (sigwait) that asks the run to cancel.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  {
    std::lock_guard<std::mutex> lock(g_interrupt.mutex);
    g_interrupt.cancel_run = run->parsed();
  }
  std::thread(HandleInterrupts, signals).detach();

  if (plot->parsed()) {
    if (absl::Status s = cosimo::client::WritePlotFile(plot_csv, plot_out, plot_options); !s.ok()) {
      return Fail(s, s.code() == absl::StatusCode::kInvalidArgument ? 2 : 1);
    }
    std::cerr << "plot written to " << plot_out << "\n";
    return 0;
  }
  if (train->parsed() && train->get_option("--orchestrator")->count() == 0) {
    if (wait) return Fail(absl::InvalidArgumentError("train: --wait needs --orchestrator"), 2);
    train_command.cancel = &g_interrupted;
    return cosimo::client::RunTrain(train_command);
  }
  if (import->parsed()) {
    const std::filesystem::path out_path(import_out);
    ssp.resources_dir =
        (out_path.parent_path() / (out_path.stem().string() + "_resources")).string();
    absl::StatusOr<cosimo::v1::Scenario> scenario = ImportSystem(scenario_path, ssp);
    if (!scenario.ok()) return Fail(scenario.status(), 2);
    if (absl::Status s = WriteScenario(*scenario, import_out); !s.ok()) return Fail(s);
    std::cerr << "scenario written to " << import_out << " (" << scenario->units_size()
              << " units, " << scenario->connections_size() << " connections)\n";
    return 0;
  }
  // An SSP given to run or submit is imported into a folder that lives as long as this process.
  std::string temp_resources;
  struct RemoveOnExit {
    std::string* dir;
    ~RemoveOnExit() {
      std::error_code ignored;
      if (!dir->empty()) std::filesystem::remove_all(*dir, ignored);
    }
  } remove_on_exit{&temp_resources};
  if ((run->parsed() || submit->parsed()) && IsSsp(scenario_path)) {
    std::string pattern = (std::filesystem::temp_directory_path() / "cosimo-ssp-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return Fail(absl::InternalError("cannot create a folder for the SSP's FMUs"));
    }
    temp_resources = pattern;
    ssp.resources_dir = pattern;
    std::lock_guard<std::mutex> lock(g_interrupt.mutex);
    g_interrupt.temp_dir = pattern;
  }
  if (run->parsed() || submit->parsed()) {
    absl::StatusOr<cosimo::v1::Scenario> scenario = LoadScenario(scenario_path, ssp);
    if (!scenario.ok()) return Fail(scenario.status(), 2);
    // Every problem of the scenario in one round: structure, units, parameters, variables.
    if (absl::Status s = cosimo::worker::CheckScenario(*scenario); !s.ok()) return Fail(s, 2);
    if (run->parsed()) {
      cosimo::client::ProgressPrinter printer;
      cosimo::client::EmbeddedOptions options;
      options.on_update = [&](const cosimo::v1::JobStatus& s) { printer.Update(s); };
      options.cancel = &g_interrupted;
      options.worker_log_format = log.format;
      options.max_workers = run_workers;
      absl::StatusOr<JobResults> results = cosimo::client::RunEmbedded(*scenario, options);
      printer.Finish();
      if (!results.ok()) return Fail(results.status(), ExitCodeFor(results.status()));
      if (absl::Status s = WriteResults(*results, out, metadata_out); !s.ok()) return Fail(s);
      return 0;
    }
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
        cosimo::MakeChannelCredentials(security);
    if (!credentials.ok()) return Fail(credentials.status(), 2);
    Client client(orchestrator, std::chrono::seconds(30), *credentials);
    absl::StatusOr<std::string> job = client.Submit(*scenario);
    if (!job.ok()) return Fail(job.status(), ExitCodeFor(job.status()));
    std::cout << *job << std::endl;
    return wait ? WatchToEnd(client, *job) : 0;
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      cosimo::MakeChannelCredentials(security);
  if (!credentials.ok()) return Fail(credentials.status(), 2);
  Client client(orchestrator, std::chrono::seconds(30), *credentials);
  if (train->parsed()) {
    absl::StatusOr<cosimo::v1::Scenario> scenario =
        cosimo::LoadScenarioFile(train_command.scenario_path);
    if (!scenario.ok()) return Fail(scenario.status(), 2);
    if (absl::Status s = cosimo::ValidateScenario(*scenario); !s.ok()) return Fail(s, 2);
    cosimo::v1::TrainingRequest request;
    request.set_unit(train_command.unit);
    request.set_epochs(train_command.epochs);
    request.set_learning_rate(train_command.learning_rate);
    absl::StatusOr<std::string> job =
        client.SubmitTraining(*scenario, request, train_command.data_path);
    if (!job.ok()) return Fail(job.status(), ExitCodeFor(job.status()));
    std::cout << *job << std::endl;
    if (!wait) return 0;
    if (const int code = WatchToEnd(client, *job); code != 0) return code;
    return WriteWeights(client, *job, train_command.out);
  }
  if (watch->parsed()) return WatchToEnd(client, job_id);
  if (results->parsed()) {
    // A training job's result is its weights file (docs/hybrid.md), not a CSV.
    absl::StatusOr<cosimo::v1::JobStatus> status = client.Get(job_id);
    if (!status.ok()) return Fail(status.status());
    if (status->has_training()) {
      return WriteWeights(client, job_id, results->get_option("--out")->count() > 0 ? out : "");
    }
    absl::StatusOr<JobResults> r = client.Results(job_id);
    if (!r.ok()) return Fail(r.status());
    if (absl::Status s = WriteResults(*r, out, metadata_out); !s.ok()) return Fail(s);
    return 0;
  }
  if (status->parsed()) {
    absl::StatusOr<cosimo::v1::JobStatus> s = client.Get(job_id);
    if (!s.ok()) return Fail(s.status());
    const cosimo::v1::JobStatus& j = *s;
    std::printf("job:       %s\nname:      %s\nowner:     %s\nstate:     %s\n", j.job_id().c_str(),
                j.name().c_str(), j.owner().empty() ? "-" : j.owner().c_str(),
                cosimo::v1::JobState_Name(j.state()).c_str());
    std::printf("time:      %.6g of [%.6g, %.6g] s\nsteps:     %llu accepted, %llu rejected\n",
                j.time(), j.start_time(), j.stop_time(),
                static_cast<unsigned long long>(j.steps_accepted()),
                static_cast<unsigned long long>(j.steps_rejected()));
    std::printf("submitted: %s\nended:     %s\n", FormatTime(j.submitted_unix_ms()).c_str(),
                j.finished_unix_ms() != 0 ? FormatTime(j.finished_unix_ms()).c_str() : "-");
    if (!j.message().empty()) std::printf("message:   %s\n", j.message().c_str());
    return 0;
  }
  if (cancel->parsed()) {
    absl::StatusOr<cosimo::v1::JobStatus> s = client.Cancel(job_id);
    if (!s.ok()) return Fail(s.status());
    std::cout << s->job_id() << " " << cosimo::v1::JobState_Name(s->state()) << "\n";
    return 0;
  }
  if (remove->parsed()) {
    if (absl::Status s = client.Delete(job_id); !s.ok()) return Fail(s);
    std::cout << job_id << " deleted\n";
    return 0;
  }
  if (workers->parsed()) {
    absl::StatusOr<std::vector<cosimo::v1::WorkerStatus>> pool = client.Workers();
    if (!pool.ok()) return Fail(pool.status());
    std::printf("%-8s %-24s %-8s %-10s %-7s %-16s %s\n", "WORKER", "HOST", "PID", "STATE", "SLOTS",
                "JOB", "LABELS");
    for (const cosimo::v1::WorkerStatus& w : *pool) {
      std::string labels;
      for (const std::string& label : w.labels()) labels += (labels.empty() ? "" : ",") + label;
      // Slots the running job uses of the worker's (cosimo-worker --slots; 0 means 1, as a
      // worker from before slots reports).
      const std::string slots =
          std::to_string(w.slots_busy()) + "/" + std::to_string(std::max(w.slots(), 1));
      std::printf("%-8s %-24s %-8d %-10s %-7s %-16s %s\n", w.worker_id().c_str(), w.host().c_str(),
                  w.pid(), w.busy() ? "busy" : "idle", slots.c_str(),
                  w.job_id().empty() ? "-" : w.job_id().c_str(),
                  labels.empty() ? "-" : labels.c_str());
    }
    std::cerr << pool->size() << " worker" << (pool->size() == 1 ? "" : "s") << "\n";
    return 0;
  }
  if (list->parsed()) {
    absl::StatusOr<std::vector<cosimo::v1::JobStatus>> jobs = client.List();
    if (!jobs.ok()) return Fail(jobs.status());
    std::printf("%-16s %-10s %-20s %-12s %-19s %-19s %12s  %s\n", "JOB", "STATE", "NAME", "OWNER",
                "SUBMITTED", "ENDED", "TIME/STOP", "MESSAGE");
    for (const cosimo::v1::JobStatus& j : *jobs) {
      char progress[40];
      if (j.has_training()) {
        std::snprintf(progress, sizeof(progress), "epoch %d/%d", j.training().epoch(),
                      j.training().request().epochs());
      } else {
        std::snprintf(progress, sizeof(progress), "%.4g/%.4g", j.time(), j.stop_time());
      }
      const std::string ended = j.finished_unix_ms() != 0 ? FormatTime(j.finished_unix_ms()) : "-";
      std::printf("%-16s %-10s %-20s %-12s %-19s %-19s %12s  %s\n", j.job_id().c_str(),
                  cosimo::v1::JobState_Name(j.state()).c_str(), j.name().c_str(),
                  j.owner().empty() ? "-" : j.owner().c_str(),
                  FormatTime(j.submitted_unix_ms()).c_str(), ended.c_str(), progress,
                  j.message().c_str());
    }
    return 0;
  }
  return 2;
}
