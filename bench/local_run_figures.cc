// Figures 9 and 10 (issue 40): what `cosimo run` costs on one machine now that a job whose units
// all sit on one worker runs its master in that worker.
// fig9: `cosimo run` of the test FMU of figure 5 (fmi2_msd, alone), its marginal cost per step
// (runs of 3N and N steps, the difference over 2N: start-up cancels out) against fig5's bare
// dlopen loop over the same shared library. fig9.overhead: that difference in us a step.
// fig9.cheap: the same difference for the cheapest FMU (fmi2_msd_cheap: one RK4 step a DoStep).
// fig9.startup: wall time of a 1-step `cosimo run` of it against the bare loop's load +
// instantiate + initialise + free of the same library in this process; fig9.startup.cpu: the CPU
// time of that run (every process of it: cosimo, its orchestrator and worker).
// fig10: the car example (2 built-in units, Jacobi, 100,000 steps) by `cosimo run`, whole
// program, against RunInProcess in this process (fig4's floor).
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "bare_fmu.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "cosimo/master/local_unit.h"
#include "figures.h"
#include "harness.h"
#include "scenarios.h"

namespace cosimo::bench {
namespace {

namespace fs = std::filesystem;

double CpuSecondsOfChildren() {
  rusage usage{};
  getrusage(RUSAGE_CHILDREN, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e-6;
}

struct RunTime {
  double wall_us = 0.0;
  double cpu_us = 0.0;  // of every process of the run
};

// One `cosimo run` of `args` (after "run"), its wall and CPU time.
absl::StatusOr<RunTime> TimeRun(const std::string& cosimo, std::vector<std::string> args,
                                const std::string& log) {
  std::vector<std::string> argv = {cosimo, "run"};
  argv.insert(argv.end(), args.begin(), args.end());
  const double cpu_before = CpuSecondsOfChildren();
  const int64_t start = NowNs();
  ChildProcess run(argv, log);
  const int code = run.Wait();
  RunTime t;
  t.wall_us = static_cast<double>(NowNs() - start) * 1e-3;
  t.cpu_us = (CpuSecondsOfChildren() - cpu_before) * 1e6;
  if (code != 0) {
    return absl::InternalError(absl::StrCat("'", cosimo, " run' failed (see ", log, ")"));
  }
  return t;
}

// The marginal wall time per step of `cosimo run FMU` (runs of 3n and n steps: start-up cancels
// out) and of the bare loop over its library, one round.
struct MarginalStep {
  double run_us = 0.0, bare_us = 0.0;
};
absl::StatusOr<MarginalStep> MeasureMarginalStep(const Options& options, const std::string& cosimo,
                                                 const std::string& fmu, const std::string& library,
                                                 const std::string& out, int n) {
  const double h = kMacroStep;
  auto run = [&](int steps) {
    return TimeRun(
        cosimo,
        {fmu, "--stop-time", absl::StrCat(steps * h), "--step", absl::StrCat(h), "--out", out},
        options.log_path);
  };
  MarginalStep m;
  COSIMO_ASSIGN_OR_RETURN(const RunTime short_run, run(n));
  COSIMO_ASSIGN_OR_RETURN(const RunTime long_run, run(3 * n));
  m.run_us = (long_run.wall_us - short_run.wall_us) / (2.0 * n);
  BareFmu loop;
  COSIMO_RETURN_IF_ERROR(loop.Open(library));
  const int batch = 3 * n;
  const int64_t start = NowNs();
  bool ok = true;
  for (int i = 0; i < batch; ++i) ok = loop.Step(h) && ok;
  if (!ok) return absl::InternalError("figure 9: a bare step failed");
  m.bare_us = static_cast<double>(NowNs() - start) * 1e-3 / batch;
  return m;
}

absl::Status Fig9(const Options& options, const std::string& cosimo, const std::string& dir,
                  Report* report) {
  const double h = kMacroStep;
  // Long enough that the start-up's spread (10-20 ms) is a few hundredths of a us a step.
  const int n = options.smoke ? 200 : 200000;
  const std::string out = dir + "/fmu.csv";
  // The 1-step runs write a file of their own: overwriting the 600,000-row CSV of the runs before
  // (37 MB, in the page cache) costs its truncation, 7-22 ms on this machine, which is the file
  // system's and not the start-up's.
  const std::string startup_out = dir + "/startup.csv";
  std::vector<double> marginal, bare, cheap, cheap_bare, startup_wall, startup_cpu, bare_startup;
  const int rounds = options.smoke ? 1 : 3;
  for (int r = 0; r < rounds; ++r) {
    COSIMO_ASSIGN_OR_RETURN(
        const MarginalStep msd,
        MeasureMarginalStep(options, cosimo, options.fmu_path, options.fmu_library, out, n));
    marginal.push_back(msd.run_us);
    bare.push_back(msd.bare_us);
    if (!options.cheap_fmu_path.empty()) {
      COSIMO_ASSIGN_OR_RETURN(const MarginalStep c,
                              MeasureMarginalStep(options, cosimo, options.cheap_fmu_path,
                                                  options.cheap_fmu_library, out, n));
      cheap.push_back(c.run_us);
      cheap_bare.push_back(c.bare_us);
    }
    COSIMO_ASSIGN_OR_RETURN(const RunTime one,
                            TimeRun(cosimo,
                                    {options.fmu_path, "--stop-time", absl::StrCat(h), "--step",
                                     absl::StrCat(h), "--out", startup_out},
                                    options.log_path));
    startup_wall.push_back(one.wall_us);
    startup_cpu.push_back(one.cpu_us);
    const int64_t open = NowNs();
    bool ok = false;
    {
      BareFmu once;
      COSIMO_RETURN_IF_ERROR(once.Open(options.fmu_library));
      ok = once.Step(h);
    }
    if (!ok) return absl::InternalError("figure 9: a bare step failed");
    bare_startup.push_back(static_cast<double>(NowNs() - open) * 1e-3);
  }
  const double step_us = Median(marginal), bare_us = Median(bare);
  const std::string how = absl::StrCat(rounds, " rounds of `cosimo run fmi2_msd.fmu` of ", n,
                                       " and ", 3 * n, " steps of 1 ms; bare loop of fig5");
  report->Add({"fig9", "`cosimo run` of one FMU (fmi2_msd), marginal us per step / bare loop",
               step_us, bare_us, "us", step_us / bare_us, "<= 1.5", step_us / bare_us <= 1.5, how});
  report->Add({"fig9.overhead", "the same, us per step over the bare loop", step_us - bare_us,
               bare_us, "us", step_us - bare_us, "<= 1", step_us - bare_us <= 1.0, how});
  if (!cheap.empty()) {
    const double cheap_us = Median(cheap), cheap_bare_us = Median(cheap_bare);
    report->Add({"fig9.cheap", "the cheapest FMU (fmi2_msd_cheap), us per step over its bare loop",
                 cheap_us - cheap_bare_us, cheap_bare_us, "us", cheap_us - cheap_bare_us, "<= 1",
                 cheap_us - cheap_bare_us <= 1.0,
                 absl::StrCat(rounds, " rounds of `cosimo run fmi2_msd_cheap.fmu` of ", n, " and ",
                              3 * n, " steps (one RK4 step a DoStep) against its bare loop")});
  }
  const double wall_ms = Median(startup_wall) * 1e-3, bare_ms = Median(bare_startup) * 1e-3;
  report->Add({"fig9.startup", "wall time of a 1-step `cosimo run` of it / bare load+init+free",
               wall_ms, bare_ms, "ms", wall_ms / bare_ms, "", true,
               "target <= 60 ms wall on this machine (indicative); the run unpacks the FMU, the "
               "bare loop dlopens the library as built"});
  const double cpu_ms = Median(startup_cpu) * 1e-3;
  report->Add({"fig9.startup.cpu", "CPU time of that 1-step run (every process) / wall", cpu_ms,
               wall_ms, "ms", cpu_ms / wall_ms, "", true, "getrusage(RUSAGE_CHILDREN)"});
  return absl::OkStatus();
}

absl::Status Fig10(const Options& options, const std::string& cosimo, const std::string& dir,
                   Report* report) {
  COSIMO_ASSIGN_OR_RETURN(v1::Scenario scenario, LoadScenarioFile(options.car_scenario));
  const int n = options.smoke ? 1000 : 100000;
  scenario.set_stop_time(n * scenario.algorithm().step_size());
  const std::string path = dir + "/car.json";
  std::ofstream(path) << ScenarioToJson(scenario);
  std::vector<double> run_us, floor_us;
  for (int r = 0; r < (options.smoke ? 1 : 3); ++r) {
    COSIMO_ASSIGN_OR_RETURN(const RunTime run,
                            TimeRun(cosimo, {path, "--out", dir + "/car.csv"}, options.log_path));
    run_us.push_back(run.wall_us / n);
    const int64_t start = NowNs();
    absl::StatusOr<master::MasterResult> local =
        master::RunInProcess(scenario, LoadUnitsFor(scenario, "bench"));
    if (!local.ok()) return local.status();
    floor_us.push_back(static_cast<double>(NowNs() - start) * 1e-3 / n);
  }
  const double value = Median(run_us), floor = Median(floor_us);
  report->Add({"fig10", "`cosimo run` of the car (2 built-ins, Jacobi) / RunInProcess, per step",
               value, floor, "us", value / floor, "<= 1.3", value / floor <= 1.3,
               absl::StrCat(run_us.size(), " alternating pairs of ", n,
                            "-step runs; `cosimo run`: the whole program, start-up included")});
  return absl::OkStatus();
}

}  // namespace

absl::Status RunLocalRunFigures(const Options& options, Report* report) {
  const std::string cosimo = (fs::path(options.worker_binary).parent_path() / "cosimo").string();
  if (access(cosimo.c_str(), X_OK) != 0) {
    return absl::FailedPreconditionError("figures 9 and 10 need the cosimo program: " + cosimo);
  }
  const std::string dir =
      fs::temp_directory_path() / ("cosimo-bench-local-" + std::to_string(getpid()));
  fs::create_directories(dir);
  absl::Status s = absl::OkStatus();
  if (options.Wants("fig9")) {
    if (options.fmu_path.empty() || options.fmu_library.empty()) {
      s = absl::FailedPreconditionError("figure 9 needs the test FMUs (COSIMO_BUILD_TESTS=ON)");
    } else {
      s = Fig9(options, cosimo, dir, report);
    }
  }
  if (s.ok() && options.Wants("fig10")) s = Fig10(options, cosimo, dir, report);
  std::error_code ignored;
  fs::remove_all(dir, ignored);
  return s;
}

}  // namespace cosimo::bench
