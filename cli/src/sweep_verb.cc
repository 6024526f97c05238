// `cosimo sweep` (sweep_verb.h): the sweep read and checked before anything runs (exit 2 naming
// the field), then its variants run here, each an embedded run (client::RunEmbedded: a
// cosimo-orchestrator child process on a loopback port and worker processes), up to --parallel
// at once; a variant that fails is a row of the table, not the end of the sweep. With
// --orchestrator the sweep is submitted as one job of that orchestrator instead (SubmitSweep).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/client/client.h"
#include "cosimo/client/fmu_scenario.h"
#include "cosimo/common/command_line.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/kpi.h"
#include "cosimo/common/sweep.h"
#include "cosimo/common/sweep_design.h"
#include "cosimo/units/scenario_check.h"
#include "verbs.h"

namespace cosimo::cli {
namespace {

namespace fs = std::filesystem;

// What became of one variant: its row of the table but for the parameters' values.
using Outcome = SweepOutcome;

// The sweep read and checked, everything that can be before a variant runs.
absl::StatusOr<LoadedSweep> CheckedSweep(const SweepCommand& c) {
  absl::StatusOr<LoadedSweep> loaded = LoadSweepFile(c.sweep_path);
  if (!loaded.ok()) return loaded.status();
  auto named = [&](const absl::Status& s) {
    return absl::Status(s.code(), c.sweep_path + ": " + std::string(s.message()));
  };
  if (absl::Status s = ValidateSweep(loaded->sweep); !s.ok()) return named(s);
  if (const uint64_t n = VariantCount(loaded->sweep); n > c.max_variants) {
    return named(absl::InvalidArgumentError(absl::StrCat(
        loaded->sweep.design().kind() == v1::SweepDesign::GRID ||
                loaded->sweep.design().kind() == v1::SweepDesign::LIST
            ? "parameters"
            : "design.samples",
        ": ", n, " variants, more than --max-sweep-variants allows (", c.max_variants, ")")));
  }
  absl::StatusOr<std::vector<std::string>> notices = client::ApplyDefaultExperiments(&loaded->base);
  if (!notices.ok()) return named(notices.status());
  for (const std::string& notice : *notices) std::cerr << "cosimo: " << notice << "\n";
  auto check = [](const v1::Scenario& s) { return units::CheckScenario(s); };
  if (absl::Status s = CheckSweepAgainstBase(loaded->sweep, loaded->base, check); !s.ok()) {
    return named(absl::InvalidArgumentError(s.message()));
  }
  return loaded;
}

Outcome RunVariant(const LoadedSweep& sweep, const std::vector<double>& values, size_t index,
                   const std::string& keep_results, const client::EmbeddedOptions& options) {
  Outcome out;
  const auto start = std::chrono::steady_clock::now();
  auto finish = [&](v1::JobState status, std::string message) {
    return out.End(status, std::move(message), start);
  };
  absl::StatusOr<v1::Scenario> scenario = VariantScenario(sweep.base, sweep.sweep, values);
  if (!scenario.ok()) return finish(v1::FAILED, std::string(scenario.status().message()));
  if (absl::Status s = units::CheckScenario(*scenario); !s.ok()) {
    return finish(v1::FAILED, std::string(s.message()));
  }
  absl::StatusOr<client::JobResults> results = client::RunEmbedded(*scenario, options);
  if (!results.ok()) {
    const bool canceled = results.status().code() == absl::StatusCode::kCancelled;
    return finish(canceled ? v1::CANCELED : v1::FAILED, std::string(results.status().message()));
  }
  if (!keep_results.empty()) {
    const fs::path file = fs::path(keep_results) / ("variant-" + std::to_string(index) + ".csv");
    if (absl::Status s = WriteCsvFile(file.string(), *results); !s.ok()) {
      return finish(v1::FAILED, std::string(s.message()));
    }
  }
  return out.EndWithKpis(sweep.sweep, *results, start);
}

// One line on standard error per variant ended; `mutex` keeps the threads' lines whole.
void ReportVariant(size_t k, size_t total, const Outcome& o, absl::Mutex& mutex) {
  absl::MutexLock lock(&mutex);
  std::cerr << "variant " << k << " (" << total << " in all): " << o.status;
  if (!std::isnan(o.wall_s)) std::fprintf(stderr, " in %.2f s", o.wall_s);
  if (!o.message.empty()) std::cerr << ": " << o.message.substr(0, o.message.find('\n'));
  std::cerr << std::endl;
}

// The sweep as a job of the orchestrator: its job id on standard output; with --wait, followed
// to its end and its table written to --out.
int SubmitSweep(Options& o, const LoadedSweep& sweep) {
  const SweepCommand& c = o.sweep;
  return WithClient(o, [&](Client& client) {
    absl::StatusOr<std::string> job = client.SubmitSweep(sweep.base, sweep.sweep);
    if (!job.ok()) return Fail(job.status(), ExitCodeFor(job.status()));
    std::cout << *job << std::endl;
    if (!c.wait) return 0;
    // A sweep that failed or was canceled still has the rows it finished (partial).
    const int code = WatchToEnd(client, *job);
    absl::StatusOr<JobResults> table = client.Results(*job);
    if (!table.ok()) return code != 0 ? code : Fail(table.status());
    if (c.out == "-") {
      WriteCsv(std::cout, *table);
    } else if (absl::Status s = WriteCsvFile(c.out, *table); !s.ok()) {
      return Fail(s);
    }
    std::cerr << "sweep " << *job << ": " << (table->metadata.partial() ? "partial table" : "table")
              << (c.out == "-" ? " on standard output" : " written to " + c.out)
              << (table->metadata.partial() ? " (cosimo resume " + *job + " runs the rest)" : "")
              << "\n";
    return code;
  });
}

}  // namespace

// The sweep table: index, parameters, KPIs, status, wall_time_s, message.
ResultTable SweepTable(const v1::Sweep& sweep, const std::vector<std::vector<double>>& values,
                       const std::vector<Outcome>& outcomes) {
  ResultTable table = SweepTableColumns(sweep);
  for (size_t k = 0; k < outcomes.size(); ++k) {
    AddSweepRow(&table, k, values[k], outcomes[k]);
  }
  return table;
}

std::vector<SweepOutcome> RunSweepHere(const LoadedSweep& sweep,
                                       const std::vector<std::vector<double>>& values,
                                       const SweepHere& here) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int parallel =
      std::min<int>(here.parallel > 0 ? here.parallel : cores, static_cast<int>(values.size()));
  client::EmbeddedOptions options;
  options.cancel = &g_interrupted;
  options.worker_log_format = here.log_format;
  options.max_workers = 0;  // one worker process per variant (and label): the master in it
  std::vector<Outcome> outcomes(values.size());
  std::atomic<size_t> next{0};
  absl::Mutex report;
  std::vector<std::thread> threads;
  for (int t = 0; t < parallel; ++t) {
    threads.emplace_back([&] {
      for (size_t k = next++; k < values.size() && !g_interrupted; k = next++) {
        outcomes[k] = RunVariant(sweep, values[k], k, here.keep_results, options);
        if (here.report) ReportVariant(k, values.size(), outcomes[k], report);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  return outcomes;
}

bool SweepRunsHere(const Options& o) { return !o.orchestrator_given; }

void DefineSweep(CLI::App& cmd, Options& o) {
  SweepCommand& c = o.sweep;
  cmd.add_option("sweep", c.sweep_path, "sweep JSON file (docs/sweeps.md)")->required();
  cmd.add_option("--out", c.out, "the sweep table, CSV (-: standard output)")
      ->capture_default_str();
  cmd.add_option("--keep-results", c.keep_results,
                 "write each variant's results CSV (as cosimo run writes it) to DIR/variant-K.csv");
  cmd.add_option("--max-sweep-variants", c.max_variants,
                 "refuse a sweep of more variants than this")
      ->capture_default_str()
      ->check(cosimo::Within(1, 1e12));
  cmd.add_option("--parallel", c.parallel,
                 "variants run at once (default: this machine's cores), each in one worker "
                 "process of its own (per worker label) that runs its master")
      ->check(cosimo::Within(1, 4096));
  cmd.add_flag("--wait", c.wait,
               "with --orchestrator: follow the sweep job and write its table (a sweep run here "
               "always waits)");
  AddOrchestrator(cmd, o,
                  "submit the sweep as one job of this orchestrator HOST:PORT (prints its job "
                  "id) instead of running it here");
}

int Sweep(Options& o) {
  const SweepCommand& c = o.sweep;
  const bool here = SweepRunsHere(o);
  for (const auto& [flag, given] :
       {std::pair<const char*, bool>{"--keep-results", !c.keep_results.empty()},
        {"--parallel", c.parallel > 0}}) {
    if (!here && given) {
      return Fail(absl::InvalidArgumentError(std::string("sweep: ") + flag +
                                             " is for a sweep run here, not with --orchestrator"),
                  2);
    }
  }
  absl::StatusOr<LoadedSweep> sweep = CheckedSweep(c);
  if (!sweep.ok()) return Fail(sweep.status(), 2);
  if (!here) return SubmitSweep(o, *sweep);
  if (!c.keep_results.empty()) {
    std::error_code ec;
    fs::create_directories(c.keep_results, ec);
    if (ec) return Fail(absl::PermissionDeniedError("cannot create '" + c.keep_results + "'"));
  }
  const std::vector<std::vector<double>> values = DesignValues(sweep->sweep);
  const std::vector<Outcome> outcomes =
      RunSweepHere(*sweep, values, {c.parallel, c.keep_results, o.log.format, true});
  const ResultTable table = SweepTable(sweep->sweep, values, outcomes);
  if (c.out == "-") {
    WriteCsv(std::cout, table);
  } else if (absl::Status s = WriteCsvFile(c.out, table); !s.ok()) {
    return Fail(s);
  }
  const auto succeeded = std::count_if(outcomes.begin(), outcomes.end(),
                                       [](const Outcome& x) { return x.status == v1::SUCCEEDED; });
  std::cerr << "sweep: " << values.size() << " variants, " << succeeded << " succeeded; table "
            << (c.out == "-" ? "on standard output" : "written to " + c.out) << "\n";
  return g_interrupted ? 130 : 0;
}

}  // namespace cosimo::cli
