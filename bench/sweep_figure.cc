// Figures 8 (issue 32, parameter sweeps through the service; docs/benchmarks.md):
// fig8: 1,000 variants of the car example (examples/car.json, the controller's gain over
//   linspace [500, 1500]) as one sweep job of a real cosimo-orchestrator with 2 cosimo-worker
//   processes of 2 slots, from SubmitJob to the job's end, against the same 1,000 runs back to
//   back in this process over LocalUnits (the in-process floor: no process, no socket). Every
//   variant's KPIs from the service must equal those computed here. fig8.slots: the same sweep
//   on one worker of 4 slots, which runs two variants at a time.
// fig8.fmu: 500 variants of the test FMU fmi2_msd (its mass over linspace [1, 2]; 100 steps of
//   0.01 s) as a sweep job on one worker of one slot (one variant at a time): the wall time per
//   variant beyond the FMU's own stepping, which is the bare loop of bare_fmu.h (fmi2SetReal,
//   fmi2DoStep and the reads of the outputs, 100 steps). fig8.fmu.unpack: the same sweep on a
//   worker that unpacks the FMU for every variant (--fmu-cache 0) against the default;
//   fig8.fmu.load: a unit of the FMU made and destroyed in this process, unpacking the FMU each
//   time against the FMU cache.
// fig11 (issue 44, calibration; docs/calibration.md): a CMA-ES calibration of 4 parameters of the
//   car (40 generations of 16) as one calibration job of the service (2 workers x 2 slots; its
//   generations variants on the job's lanes), from SubmitJob to its end, against the same
//   generations' variants back to back in this process: the evaluations per second of each, and
//   the same estimates from both, bit for bit.
#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "bare_fmu.h"
#include "cosimo/client/client.h"
#include "cosimo/common/calibration.h"
#include "cosimo/common/kpi.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "cosimo/common/sweep.h"
#include "cosimo/common/sweep_design.h"
#include "cosimo/master/local_unit.h"
#include "cosimo/master/master.h"
#include "cosimo/units/unit_factory.h"
#include "figures.h"
#include "service.h"

namespace cosimo::bench {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The median of `values` (an odd count).
double Median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

struct SweepRun {
  double seconds = 0.0;
  ResultTable table;
};

// The sweep as one job of the service, from submit to its end; its table.
absl::StatusOr<SweepRun> RunOnService(const ServiceProcesses& service, const v1::Scenario& base,
                                      const v1::Sweep& sweep) {
  client::Client client(service.address());
  SweepRun run;
  const auto start = Clock::now();
  COSIMO_ASSIGN_OR_RETURN(std::string id, client.SubmitSweep(base, sweep));
  v1::JobStatus status;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    COSIMO_ASSIGN_OR_RETURN(status, client.Get(id));
  } while (status.state() == v1::QUEUED || status.state() == v1::RUNNING);
  run.seconds = SecondsSince(start);
  if (status.state() != v1::SUCCEEDED) {
    return absl::InternalError("sweep job " + id + " " + v1::JobState_Name(status.state()) + ": " +
                               status.message());
  }
  COSIMO_ASSIGN_OR_RETURN(client::JobResults table, client.Results(id));
  run.table = std::move(table);
  return run;
}

// The same variants back to back in this process over LocalUnits.
absl::StatusOr<SweepRun> RunHere(const v1::Scenario& base, const v1::Sweep& sweep) {
  const std::vector<std::vector<double>> values = DesignValues(sweep);
  SweepRun run;
  run.table = SweepTableColumns(sweep);
  const auto start = Clock::now();
  for (size_t k = 0; k < values.size(); ++k) {
    const auto variant_start = Clock::now();
    COSIMO_ASSIGN_OR_RETURN(v1::Scenario scenario, VariantScenario(base, sweep, values[k]));
    COSIMO_ASSIGN_OR_RETURN(master::MasterResult result,
                            master::RunInProcess(scenario, LoadUnitsFor(scenario, "here")));
    SweepOutcome outcome;
    outcome.EndWithKpis(sweep, result, variant_start);
    AddSweepRow(&run.table, k, values[k], outcome);
  }
  run.seconds = SecondsSince(start);
  return run;
}

// Every KPI of every variant the same in both tables (matched by index), or the first that
// differs.
absl::Status SameKpis(const v1::Sweep& sweep, const ResultTable& service, const ResultTable& here) {
  auto column = [](const ResultTable& t, const std::string& name) {
    return static_cast<size_t>(std::find(t.columns.begin(), t.columns.end(), name) -
                               t.columns.begin());
  };
  std::map<double, size_t> service_rows;  // index -> row
  for (size_t r = 0; r < service.rows(); ++r) {
    service_rows[service.values[r * service.columns.size()]] = r;
  }
  if (service_rows.size() != here.rows()) {
    return absl::InternalError(absl::StrCat("the service's table has ", service.rows(), " rows, ",
                                            here.rows(), " expected"));
  }
  for (const v1::Kpi& kpi : sweep.kpis()) {
    const std::string name = KpiName(kpi);
    const size_t a = column(service, name), b = column(here, name);
    if (a == service.columns.size() || b == here.columns.size()) {
      return absl::InternalError("no column " + name);
    }
    for (size_t r = 0; r < here.rows(); ++r) {
      const double index = here.values[r * here.columns.size()];
      const double expected = here.values[r * here.columns.size() + b];
      const double got = service.values[service_rows[index] * service.columns.size() + a];
      if (got != expected) {
        return absl::InternalError(absl::StrCat("variant ", index, ": ", name, " is ", got,
                                                " through the service, ", expected, " here"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::Sweep> Sweep(const std::string& parameter, double from, double to, int n,
                                const std::string& kpis) {
  return ParseSweepJson(absl::StrCat(R"({"parameters": [{"name": ")", parameter,
                                     R"(", "linspace": [)", from, ", ", to, ", ", n,
                                     "]}], \"kpis\": ", kpis, "}"));
}

absl::Status CarFigure(const Options& options, Report* report) {
  const int variants = options.smoke ? 20 : 1000;
  constexpr int kWorkers = 2, kSlots = 2;
  const int rounds = options.smoke ? 1 : 3;
  COSIMO_ASSIGN_OR_RETURN(v1::Scenario car, LoadScenarioFile(options.car_scenario));
  COSIMO_ASSIGN_OR_RETURN(
      v1::Sweep sweep,
      Sweep("controller.k", 500, 1500, variants,
            R"([{"variable": "vehicle.v"}, {"variable": "controller.F", "kind": "RMS"}])"));
  COSIMO_ASSIGN_OR_RETURN(
      auto service,
      ServiceProcesses::Start(options, kWorkers, {"--slots", std::to_string(kSlots)}));
  // A first small sweep: the workers' first variants (their threads, gRPC's buffers) are not
  // measured.
  COSIMO_ASSIGN_OR_RETURN(v1::Sweep warm, Sweep("controller.k", 500, 1500, 4, "[]"));
  // fig8.slots: one worker with slots for two variants (it runs two at a time on its threads).
  COSIMO_ASSIGN_OR_RETURN(auto slotted, ServiceProcesses::Start(options, 1, {"--slots", "4"}));
  for (ServiceProcesses* s : {service.get(), slotted.get()}) {
    if (absl::StatusOr<SweepRun> w = RunOnService(*s, car, warm); !w.ok()) return w.status();
  }
  // Interleaved rounds (the machine is shared): the median of each.
  std::vector<double> here_s, there_s, slotted_s;
  for (int round = 0; round < rounds; ++round) {
    COSIMO_ASSIGN_OR_RETURN(SweepRun here, RunHere(car, sweep));
    COSIMO_ASSIGN_OR_RETURN(SweepRun there, RunOnService(*service, car, sweep));
    COSIMO_RETURN_IF_ERROR(SameKpis(sweep, there.table, here.table));
    COSIMO_ASSIGN_OR_RETURN(SweepRun one_worker, RunOnService(*slotted, car, sweep));
    COSIMO_RETURN_IF_ERROR(SameKpis(sweep, one_worker.table, here.table));
    here_s.push_back(here.seconds);
    there_s.push_back(there.seconds);
    slotted_s.push_back(one_worker.seconds);
  }
  const double here_seconds = Median(here_s), there_seconds = Median(there_s);
  const double ratio = there_seconds / here_seconds;
  report->Add({"fig8",
               absl::StrCat(variants, " car variants: one sweep job on ", kWorkers, " workers x ",
                            kSlots, " slots / back to back in-process (LocalUnit)"),
               there_seconds, here_seconds, "s", ratio, "<= 1.25", ratio <= 1.25,
               absl::StrCat("service ", absl::SixDigits(variants / there_seconds),
                            " variants/s, in-process ", absl::SixDigits(variants / here_seconds),
                            " variants/s (medians of ", rounds,
                            " interleaved rounds); every variant's KPIs equal")});
  const double slotted_seconds = Median(slotted_s);
  report->Add({"fig8.slots",
               absl::StrCat(variants,
                            " car variants on 1 worker of 4 slots (2 variants at a time) / back "
                            "to back in-process"),
               slotted_seconds, here_seconds, "s", slotted_seconds / here_seconds, "", true,
               absl::StrCat(absl::SixDigits(variants / slotted_seconds), " variants/s")});
  return absl::OkStatus();
}

absl::Status FmuFigure(const Options& options, Report* report) {
  if (options.fmu_path.empty() || options.fmu_library.empty()) {
    return absl::FailedPreconditionError(
        "fig8.fmu needs the test FMUs (configure with COSIMO_BUILD_TESTS=ON)");
  }
  const int variants = options.smoke ? 20 : 500;
  constexpr int kSteps = 100;
  constexpr double kStep = 0.01;
  COSIMO_ASSIGN_OR_RETURN(
      v1::Scenario msd,
      ParseScenarioJson(absl::StrCat(R"({"name": "msd", "stop_time": )", kSteps * kStep, R"(,
        "units": [ { "name": "msd", "fmu": { "path": ")",
                                     options.fmu_path, R"(" } } ],
        "algorithm": { "kind": "JACOBI", "step_size": )",
                                     kStep, R"( }, "record": [ "msd.x" ] })")));
  COSIMO_ASSIGN_OR_RETURN(v1::Sweep sweep,
                          Sweep("msd.m", 1, 2, variants, R"([{"variable": "msd.x"}])"));
  COSIMO_ASSIGN_OR_RETURN(v1::Sweep warm, Sweep("msd.m", 1, 2, 4, "[]"));
  // The same on a worker that unpacks the FMU for every variant (--fmu-cache 0), for comparison;
  // interleaved rounds on two services (the machine is shared), the median of each.
  const int rounds = options.smoke ? 1 : 3;
  COSIMO_ASSIGN_OR_RETURN(auto keeping, ServiceProcesses::Start(options, 1));
  COSIMO_ASSIGN_OR_RETURN(auto unpacking,
                          ServiceProcesses::Start(options, 1, {"--fmu-cache", "0"}));
  std::vector<double> keeping_s, unpacking_s;
  for (ServiceProcesses* service : {keeping.get(), unpacking.get()}) {
    if (absl::StatusOr<SweepRun> w = RunOnService(*service, msd, warm); !w.ok()) return w.status();
  }
  for (int round = 0; round < rounds; ++round) {
    COSIMO_ASSIGN_OR_RETURN(SweepRun a, RunOnService(*keeping, msd, sweep));
    COSIMO_ASSIGN_OR_RETURN(SweepRun b, RunOnService(*unpacking, msd, sweep));
    keeping_s.push_back(a.seconds);
    unpacking_s.push_back(b.seconds);
  }
  const double there_seconds = Median(keeping_s);
  // The FMU's own stepping of one variant: the median of 21 bare runs of kSteps steps.
  BareFmu bare;
  COSIMO_RETURN_IF_ERROR(bare.Open(options.fmu_library));
  std::vector<double> bare_s;
  for (int r = 0; r < 21; ++r) {
    const auto start = Clock::now();
    for (int i = 0; i < kSteps; ++i) {
      if (!bare.Step(kStep)) return absl::InternalError("the bare loop's fmi2DoStep failed");
    }
    bare_s.push_back(SecondsSince(start));
  }
  const double per_variant_ms = there_seconds / variants * 1e3;
  const double fmu_ms = Median(bare_s) * 1e3;
  const double overhead_ms = per_variant_ms - fmu_ms;
  report->Add({"fig8.fmu",
               absl::StrCat(variants,
                            " fmi2_msd variants on 1 worker: wall per variant, ms / the "
                            "FMU's own stepping (",
                            kSteps, " bare fmi2DoStep); ratio = the difference, ms"),
               per_variant_ms, fmu_ms, "ms", overhead_ms, "<= 5 ms", overhead_ms <= 5.0,
               absl::StrCat("per-variant overhead ", absl::SixDigits(overhead_ms), " ms; ",
                            absl::SixDigits(variants / there_seconds), " variants/s")});
  const double unpacking_ms = Median(unpacking_s) / variants * 1e3;
  report->Add({"fig8.fmu.unpack",
               "the same, the worker unpacking the FMU for every variant (--fmu-cache 0) / "
               "keeping it (the default)",
               unpacking_ms, per_variant_ms, "ms", unpacking_ms / per_variant_ms, "", true,
               absl::StrCat("per-variant overhead without the FMU cache ",
                            absl::SixDigits(unpacking_ms - fmu_ms), " ms")});
  return absl::OkStatus();
}

// fig8.fmu.load: a unit of the FMU made, initialised, terminated and destroyed in this process,
// with the FMU cache (the worker's default) and without (--fmu-cache 0): what a variant's load
// costs the worker, without the noise of the processes around it.
absl::Status FmuLoadFigure(const Options& options, Report* report) {
  auto load_ms = [&](size_t cache) -> absl::StatusOr<double> {
    units::SetFmuCacheSize(cache);
    v1::Unit spec;
    spec.set_name("msd");
    spec.mutable_fmu()->set_path(options.fmu_path);
    std::vector<double> rounds_ms;
    for (int r = 0; r < 5; ++r) {
      constexpr int kLoads = 40;
      const auto start = Clock::now();
      for (int i = 0; i < kLoads; ++i) {
        COSIMO_ASSIGN_OR_RETURN(std::unique_ptr<units::Unit> unit,
                                units::CreateUnit(spec, options.fmu_path));
        COSIMO_RETURN_IF_ERROR(unit->Initialize(0.0, 1.0));
        COSIMO_RETURN_IF_ERROR(unit->Terminate());
      }
      rounds_ms.push_back(SecondsSince(start) / kLoads * 1e3);
    }
    return Median(rounds_ms);
  };
  COSIMO_ASSIGN_OR_RETURN(double unpacked_ms, load_ms(0));
  COSIMO_ASSIGN_OR_RETURN(double cached_ms, load_ms(units::kDefaultFmuCacheSize));
  report->Add({"fig8.fmu.load",
               "fmi2_msd unit made, initialised and destroyed: unpacking the FMU each time / "
               "from the FMU cache",
               unpacked_ms, cached_ms, "ms", unpacked_ms / cached_ms, "", true,
               "in this process; median of 5 rounds of 40"});
  return absl::OkStatus();
}

// The car's controller gain and speed, mass and friction, measured (no noise) every 0.3 s from
// 0.25 s on at k = 800, v_d = 35, m = 1300, c_f = 40; CMA-ES from k = 1000, v_d = 40, m = 1576,
// c_f = 10, running all its generations (no tolerance stops it).
absl::StatusOr<LoadedCalibration> CarCalibration(const v1::Scenario& car, int generations) {
  LoadedCalibration loaded;
  loaded.base = car;
  COSIMO_ASSIGN_OR_RETURN(loaded.calibration, ParseCalibrationJson(absl::StrCat(R"({
    "parameters": [
      {"name": "controller.k", "start": 1000, "lower": 200, "upper": 3000},
      {"name": "controller.v_d", "start": 40, "lower": 20, "upper": 60},
      {"name": "vehicle.m", "start": 1576, "lower": 500, "upper": 3000},
      {"name": "vehicle.c_f", "start": 10, "lower": 1, "upper": 500, "scale": "log"} ],
    "scenario_file": "the car",
    "data": {"csv": "computed here", "columns": [{"column": "v", "variable": "vehicle.v"}]},
    "optimizer": {"kind": "cmaes", "population": 16, "max_iterations": )",
                                                                                generations, R"(,
                  "f_tolerance": 1e-300, "x_tolerance": 1e-300}, "seed": 11})")));
  const std::vector<double> truth = {800, 35, 1300, 40};
  const v1::Sweep one = CalibrationSweep(loaded, {truth});
  COSIMO_ASSIGN_OR_RETURN(v1::Scenario scenario, VariantScenario(car, one, truth));
  COSIMO_ASSIGN_OR_RETURN(master::MasterResult r,
                          master::RunInProcess(scenario, LoadUnitsFor(scenario, "here")));
  MeasuredSeries speed{"v", "vehicle.v", {}, {}, 1.0};
  for (double t = 0.25; t < car.stop_time(); t += 0.3) {
    v1::Kpi at;
    at.set_variable("vehicle.v");
    at.set_kind(v1::Kpi::AT);
    at.set_time(t);
    COSIMO_ASSIGN_OR_RETURN(double v, ComputeKpi(at, r));
    speed.times.push_back(t);
    speed.values.push_back(v);
  }
  loaded.data.push_back(std::move(speed));
  return loaded;
}

absl::Status FitFigure(const Options& options, Report* report) {
  const int generations = options.smoke ? 2 : 40;
  COSIMO_ASSIGN_OR_RETURN(v1::Scenario car, LoadScenarioFile(options.car_scenario));
  COSIMO_ASSIGN_OR_RETURN(LoadedCalibration loaded, CarCalibration(car, generations));
  COSIMO_ASSIGN_OR_RETURN(auto service, ServiceProcesses::Start(options, 2, {"--slots", "2"}));
  // Here: the optimiser in this process, each generation's variants back to back.
  auto here = [&]() -> absl::StatusOr<std::pair<double, CalibrationResult>> {
    const auto start = Clock::now();
    SweepFunction f = [&](const v1::Sweep& sweep) -> absl::StatusOr<ResultTable> {
      COSIMO_ASSIGN_OR_RETURN(SweepRun run, RunHere(car, sweep));
      return std::move(run.table);
    };
    COSIMO_ASSIGN_OR_RETURN(CalibrationResult r, RunCalibration(loaded, f, nullptr));
    return std::pair{SecondsSince(start), std::move(r)};
  };
  // There: one calibration job, from its submission to its end (its best run included).
  auto there = [&]() -> absl::StatusOr<std::pair<double, v1::FitResult>> {
    client::Client client(service->address());
    const auto start = Clock::now();
    COSIMO_ASSIGN_OR_RETURN(std::string id, client.SubmitFit(car, ToCalibrationJob(loaded)));
    v1::JobStatus status;
    do {
      COSIMO_ASSIGN_OR_RETURN(status, client.Get(id, std::chrono::milliseconds(50)));
    } while (status.state() == v1::QUEUED || status.state() == v1::RUNNING);
    const double seconds = SecondsSince(start);
    if (status.state() != v1::SUCCEEDED) {
      return absl::InternalError("calibration job " + id + " " + v1::JobState_Name(status.state()) +
                                 ": " + status.message());
    }
    return std::pair{seconds, status.fit().result()};
  };
  std::vector<double> here_s, there_s;
  int evaluations = 0;
  for (int round = 0; round < (options.smoke ? 1 : 3); ++round) {
    COSIMO_ASSIGN_OR_RETURN(auto h, here());
    COSIMO_ASSIGN_OR_RETURN(auto t, there());
    if (std::vector<double>(t.second.estimates().begin(), t.second.estimates().end()) !=
        h.second.estimates) {
      return absl::InternalError("the calibration job ended elsewhere than the one here");
    }
    here_s.push_back(h.first);
    there_s.push_back(t.first);
    evaluations = h.second.optimizer.evaluations;
  }
  const double here_seconds = Median(here_s), there_seconds = Median(there_s);
  const double ratio = there_seconds / here_seconds;
  report->Add(
      {"fig11",
       absl::StrCat("CMA-ES of 4 car parameters, ", generations,
                    " generations of 16: one calibration job on 2 workers x 2 slots / the "
                    "same variants back to back in-process"),
       there_seconds, here_seconds, "s", ratio, "<= 1.25", ratio <= 1.25,
       absl::StrCat("service ", absl::SixDigits(evaluations / there_seconds),
                    " evaluations/s, in-process ", absl::SixDigits(evaluations / here_seconds),
                    " evaluations/s (", evaluations, " evaluations; medians of ", here_s.size(),
                    " interleaved rounds); the same estimates")});
  return absl::OkStatus();
}

}  // namespace

absl::Status RunSweepFigures(const Options& options, Report* report) {
  if (options.Wants("fig11")) COSIMO_RETURN_IF_ERROR(FitFigure(options, report));
  if (options.Wants("fig8")) COSIMO_RETURN_IF_ERROR(CarFigure(options, report));
  if (options.Wants("fig8.fmu")) {
    COSIMO_RETURN_IF_ERROR(FmuFigure(options, report));
    COSIMO_RETURN_IF_ERROR(FmuLoadFigure(options, report));
  }
  return absl::OkStatus();
}

}  // namespace cosimo::bench
