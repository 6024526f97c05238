// The verbs of the `cosimo` command line (cli/src/main.cc holds the table of them and the
// verbs that run or submit scenarios; job_verbs.cc those that look after jobs on the service):
// what they share. Private to the program.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cosimo/client/client.h"
#include "cosimo/client/results_file.h"
#include "cosimo/common/logging.h"
#include "cosimo/common/plot.h"
#include "cosimo/common/security.h"
#include "cosimo/ssp/ssp_import.h"
#include "fit_verb.h"
#include "interrupts.h"
#include "sweep_verb.h"
#include "train.h"

namespace CLI {
class App;  // CLI11: only the verbs' options functions (main.cc) include it
}  // namespace CLI

namespace cosimo::cli {

using client::Client;
using client::JobResults;

// Everything the verbs' options fill in; each verb reads what it defined.
struct Options {
  std::string orchestrator = client::DefaultOrchestrator();
  ClientSecurity security = ClientSecurityFromEnvironment();
  std::string scenario_path, job_id, out = "results.csv", metadata_out;
  bool wait = false;
  int64_t variant = -1;             // results --variant K (-1: none)
  bool partial = false;             // results --partial: a running job's rows so far
  std::vector<std::string> follow;  // watch --follow VAR...: the latest values of these
  std::string log_unit;             // logs --unit NAME
  int run_workers = 0;
  bool timings = false;  // cosimo run --timings
  ssp::SspImportOptions ssp;
  std::string import_out = "scenario.json";
  std::string plot_csv, plot_out = "plot.svg";
  std::string plot_x, plot_y;  // plot --x, --y: a scatter plot
  PlotOptions plot_options;
  client::TrainCommand train;
  SweepCommand sweep;
  FitCommand fit;
  LogOptions log{.level = "warn"};
  bool out_given = false;           // --out was given
  bool orchestrator_given = false;  // --orchestrator was given
};

// A verb of the command line: its options, then what it does (the exit code).
struct Verb {
  const char* name;
  const char* help;
  void (*define)(CLI::App& cmd, Options& o);
  int (*run)(Options& o);
};

// Prints "cosimo: <message>" and returns `code`.
int Fail(const absl::Status& status, int code = 1);
// 130 when interrupted, 2 for bad input (kInvalidArgument), else 1.
int ExitCodeFor(const absl::Status& status);

// Options shared by the verbs.
void AddOrchestrator(CLI::App& cmd, Options& o,
                     const std::string& help =
                         "orchestrator HOST:PORT (default: "
                         "$COSIMO_ORCHESTRATOR, else localhost:7700)");
void AddJob(CLI::App& cmd, Options& o);  // a job id and the orchestrator
void AddResultsOut(CLI::App& cmd, Options& o);

// Runs `verb` with a client of the orchestrator the options name (exit 2 when the TLS options
// are wrong).
template <typename F>
int WithClient(Options& o, F verb) {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeChannelCredentials(o.security);
  if (!credentials.ok()) return Fail(credentials.status(), 2);
  Client client(o.orchestrator, std::chrono::seconds(30), *credentials);
  return verb(client);
}

// The CSV to `out` ("-": standard output) and the metadata to `metadata` (default: beside a CSV
// file, none beside standard output); says where on stderr. With `writer` (made for `out`), the
// rows it wrote while the job ran stand and it writes the rest.
absl::Status WriteResults(const JobResults& results, const std::string& out, std::string metadata,
                          client::ResultsFileWriter* writer = nullptr);
// Watches until the job ends with a progress display; 0 only if it succeeded.
int WatchToEnd(Client& client, const std::string& job);
// A training job's weights file to `out` (empty: "<unit>.weights.json"; "-": standard output).
int WriteWeights(Client& client, const std::string& job, std::string out);

// The verbs that look after jobs (job_verbs.cc).
int Watch(Options& o);
void DefineWatch(CLI::App& cmd, Options& o);
void DefineResults(CLI::App& cmd, Options& o);
int Results(Options& o);
int Status(Options& o);
int Logs(Options& o);
int Cancel(Options& o);
// `rows` as text, each column as wide as its widest entry plus one space (the last unpadded).
std::string AlignedColumns(const std::vector<std::vector<std::string>>& rows);
int Resume(Options& o);
int Delete(Options& o);
int List(Options& o);
int Workers(Options& o);

// The sweep run here, or submitted with --orchestrator (sweep_verb.cc).
void DefineSweep(CLI::App& cmd, Options& o);
int Sweep(Options& o);
// Whether the sweep verb runs the sweep here (no --orchestrator given).
bool SweepRunsHere(const Options& o);

// A calibration's fit (fit_verb.cc).
void DefineFit(CLI::App& cmd, Options& o);
int Fit(Options& o);

}  // namespace cosimo::cli
