// A calibration as one job of the orchestrator
// (docs/calibration.md#as-one-job-of-the-orchestrator), with real processes: a fit whose
// orchestrator is killed (kill -9) mid-fit and restarted on the same data directory resumes from
// its stored batches and ends with the numbers of an uninterrupted fit bit for bit (estimates,
// objective, statistics, history, the best run's results), and so does one that lost a worker
// (kill -9) mid-fit; a cancel ends a fit CANCELED; a running fit's status has its history so
// far but not its measured samples (GetJob gives them when asked), nor has any WatchJob message
// or ListJobs entry; a canceled fit resumed (`cosimo resume`) ends as an uninterrupted one; and
// `cosimo results JOB` of a calibration job writes the files `cosimo fit` writes. The data are
// synthetic: the car run with known parameters.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

// GCC 12 warns falsely about std::string's inlined copies here too (-Wstringop-overread, its
// bug 105651; tests/CMakeLists.txt turns off its siblings for every test).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif

#include <chrono>
#include <cmath>
#include <filesystem>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "cosimo/client/client.h"
#include "cosimo/common/calibration.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sweep_design.h"
#include "tests/integration/fixture.h"
#include "tests/integration/process.h"

namespace cosimo::testing {
namespace {

using ::testing::HasSubstr;

// The car with its mass and friction as given (a gain k = 300, so that the friction matters).
std::string Car(double m, double c_f) {
  return R"({"name": "car", "stop_time": 10,
    "units": [
      {"name": "controller", "builtin": {"model": "car_controller", "parameters": {"k": 300}}},
      {"name": "vehicle", "builtin": {"model": "car_vehicle", "parameters": {"m": )" +
         FormatDouble(m) + R"(, "c_f": )" + FormatDouble(c_f) +
         R"(}}, "solver": {"method": "RK4", "step": 0.01}}],
    "connections": [ {"from": "vehicle.v", "to": "controller.v"},
                     {"from": "controller.F", "to": "vehicle.F"} ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.1}, "record": ["vehicle.v"]})";
}

// "time,measured": the car's speed with m = 1200, c_f = 60 at 0.25, 0.55, ... (linear between
// the communication points), plus 0.05 N(0, 1) noise from std::mt19937_64(5).
std::string MeasuredSpeed() {
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(Car(1200, 60));
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  const master::MasterResult r = InProcess(*scenario);
  std::mt19937_64 rng(5);
  std::string csv = "time,measured\n";
  for (int k = 0; k < 33; ++k) {
    const double t = 0.25 + 0.3 * k;
    size_t i = 0;
    while (i + 2 < r.rows() && r.values[(i + 1) * 2] <= t) ++i;
    const double t0 = r.values[i * 2], t1 = r.values[(i + 1) * 2];
    const double y0 = r.values[i * 2 + 1], y1 = r.values[(i + 1) * 2 + 1];
    csv += FormatDouble(t) + "," +
           FormatDouble(y0 + (t - t0) / (t1 - t0) * (y1 - y0) + 0.05 * StandardNormal(rng)) + "\n";
  }
  return csv;
}

// A CMA-ES fit of the car's mass and friction that runs all its `generations` (tolerances that
// never stop it), written into `dir` and loaded.
LoadedCalibration CarFit(const std::string& dir, int generations) {
  WriteFile(dir + "/car.json", Car(1500, 20));
  WriteFile(dir + "/bench.csv", MeasuredSpeed());
  WriteFile(dir + "/fit.json", R"({"name": "car fit", "scenario_file": "car.json",
    "parameters": [ {"name": "vehicle.m", "start": 1800, "lower": 500, "upper": 3000},
                    {"name": "vehicle.c_f", "start": 20, "lower": 1, "upper": 500, "scale": "log"} ],
    "data": {"csv": "bench.csv", "columns": [ {"column": "measured", "variable": "vehicle.v",
                                               "standard_deviation": 0.05} ]},
    "optimizer": {"kind": "cmaes", "max_iterations": )" +
                                   std::to_string(generations) +
                                   R"(, "population": 6, "f_tolerance": 1e-300,
                  "x_tolerance": 1e-300}, "seed": 7})");
  absl::StatusOr<LoadedCalibration> loaded = LoadCalibrationFile(dir + "/fit.json");
  EXPECT_TRUE(loaded.ok()) << loaded.status();
  return loaded.ok() ? *loaded : LoadedCalibration{};
}

// The job's status once its fit has done `iterations` iterations (or it ended).
v1::JobStatus WaitForIteration(client::Client& client, const std::string& id, uint32_t iterations) {
  v1::JobStatus status;
  for (int i = 0; i < 6000; ++i) {
    absl::StatusOr<v1::JobStatus> s = client.Get(id);
    EXPECT_TRUE(s.ok()) << s.status();
    if (!s.ok()) break;
    status = *s;
    if (status.fit().iteration() >= iterations || status.state() > v1::RUNNING) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return status;
}

std::string Csv(const ResultTable& table) {
  std::ostringstream out;
  WriteCsv(out, table);
  return out.str();
}

std::string ResultsCsv(client::Client& client, const std::string& id) {
  absl::StatusOr<client::JobResults> results = client.Results(id);
  EXPECT_TRUE(results.ok()) << results.status();
  return results.ok() ? Csv(*results) : "";
}

// Submits the fit of `loaded` again and lets it run uninterrupted: its result must be `ended`'s,
// bit for bit. `again` is its job id (for the callers' comparison of the results).
void ExpectTheResultOfAnUninterruptedFit(client::Client& client, const LoadedCalibration& loaded,
                                         const v1::JobStatus& ended, std::string* again) {
  absl::StatusOr<std::string> id = client.SubmitFit(loaded.base, ToCalibrationJob(loaded));
  ASSERT_TRUE(id.ok()) << id.status();
  *again = *id;
  absl::StatusOr<v1::JobStatus> uninterrupted = client.Watch(*id, nullptr, 50);
  ASSERT_TRUE(uninterrupted.ok()) << uninterrupted.status();
  ASSERT_EQ(uninterrupted->state(), v1::SUCCEEDED) << uninterrupted->message();
  EXPECT_EQ(uninterrupted->fit().batches_replayed(), 0u);
  EXPECT_EQ(ended.fit().result().SerializeAsString(),
            uninterrupted->fit().result().SerializeAsString())
      << ended.fit().result().DebugString() << "\n"
      << uninterrupted->fit().result().DebugString();
}

// Submits the fit of `loaded`, cancels it once it has done `iterations` iterations (it must still
// run then) and waits for its end: CANCELED, its id in `job` and the iterations it reached in
// `reached` (at least `iterations`).
void CancelAfter(client::Client& client, const LoadedCalibration& loaded, uint32_t iterations,
                 std::optional<std::string>* job, uint32_t* reached) {
  absl::StatusOr<std::string> id = client.SubmitFit(loaded.base, ToCalibrationJob(loaded));
  ASSERT_TRUE(id.ok()) << id.status();
  *job = *id;
  const v1::JobStatus running = WaitForIteration(client, *id, iterations);
  ASSERT_EQ(running.state(), v1::RUNNING) << "the fit ended before the cancel";
  ASSERT_TRUE(client.Cancel(*id).ok());
  absl::StatusOr<v1::JobStatus> canceled = client.Watch(*id, nullptr, 50);
  ASSERT_TRUE(canceled.ok()) << canceled.status();
  ASSERT_EQ(canceled->state(), v1::CANCELED) << canceled->message();
  *reached = canceled->fit().iteration();
  ASSERT_GE(*reached, iterations);
}

// A running (or unsuccessful) fit's status: one history entry per iteration done, in order, the
// last the progress shown.
void ExpectTheHistorySoFar(const v1::JobStatus& s) {
  const v1::FitStatus& fit = s.fit();
  ASSERT_EQ(fit.history_size(), static_cast<int>(fit.iteration()));
  for (int i = 0; i < fit.history_size(); ++i) {
    EXPECT_EQ(fit.history(i).iteration(), static_cast<uint32_t>(i + 1));
    if (i > 0) {
      EXPECT_LE(fit.history(i).objective(), fit.history(i - 1).objective());
    }
  }
  ASSERT_GT(fit.history_size(), 0);
  EXPECT_EQ(fit.history(fit.history_size() - 1).objective(), fit.best_objective());
  EXPECT_EQ(fit.history(fit.history_size() - 1).evaluations(), fit.evaluations());
}

TEST(FitJobTest, AKilledOrchestratorResumesTheFitWithTheNumbersOfAnUninterruptedFit) {
  const std::string dir = TempDir("cosimo-fit-resume");
  const std::string data = dir + "/data";
  constexpr int kGenerations = 20;
  const LoadedCalibration loaded = CarFit(dir, kGenerations);
  auto first = std::make_unique<OrchestratorProcess>(
      dir, std::vector<std::string>{"--data-dir", data, "--heartbeat-interval-ms", "100"});
  ASSERT_GT(first->port(), 0) << first->process().log();
  const std::string address = first->address();
  const std::vector<std::unique_ptr<Process>> workers = ReconnectingWorkers(address, dir, 2);
  std::string id;
  {
    client::Client client(address);
    absl::StatusOr<std::string> job = client.SubmitFit(loaded.base, ToCalibrationJob(loaded));
    ASSERT_TRUE(job.ok()) << job.status();
    id = *job;
    const v1::JobStatus before = WaitForIteration(client, id, 3);
    ASSERT_EQ(before.state(), v1::RUNNING) << "the fit ended before the fault";
    ASSERT_LT(before.fit().iteration(), static_cast<uint32_t>(kGenerations));
  }
  first->process().Signal(SIGKILL);
  first->process().Wait(std::chrono::seconds(5));
  Process restarted({BinDir() + "/cosimo-orchestrator", "--listen", address, "--data-dir", data},
                    dir + "/orchestrator2.log");
  client::Client client(address);
  absl::StatusOr<v1::JobStatus> resumed = WatchOnceItAnswers(client, id);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  ASSERT_EQ(resumed->state(), v1::SUCCEEDED) << resumed->message();
  EXPECT_THAT(restarted.log(), HasSubstr("batches stored before"));
  EXPECT_GE(resumed->fit().batches_replayed(), 3u);  // the batches stored before the kill
  EXPECT_EQ(resumed->fit().result().iterations(), static_cast<uint32_t>(kGenerations));

  // The same fit uninterrupted, on the same orchestrator: the same numbers, bit for bit.
  std::string again;
  ASSERT_NO_FATAL_FAILURE(ExpectTheResultOfAnUninterruptedFit(client, loaded, *resumed, &again));
  EXPECT_EQ(ResultsCsv(client, id), ResultsCsv(client, again));
  std::filesystem::remove_all(dir);
}

class FitJobServiceTest : public DistributedTest {};

TEST_F(FitJobServiceTest, ACanceledFitEndsCanceled) {
  StartWorkers(2, {"--slots", "2"});
  const LoadedCalibration loaded = CarFit(dir_, 500);
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> job = client.SubmitFit(loaded.base, ToCalibrationJob(loaded));
  ASSERT_TRUE(job.ok()) << job.status();
  const v1::JobStatus running = WaitForIteration(client, *job, 2);
  ASSERT_EQ(running.state(), v1::RUNNING);
  EXPECT_EQ(running.fit().parameters_size(), 2);
  EXPECT_TRUE(std::isfinite(running.fit().best_objective()));
  ExpectTheHistorySoFar(running);
  // The status carries the calibration but not its 33 samples, stored once with the job: GetJob
  // gives them when asked.
  EXPECT_EQ(running.fit().calibration().calibration().parameters_size(), 2);
  EXPECT_EQ(running.fit().calibration().samples_size(), 0);
  absl::StatusOr<v1::JobStatus> with_samples =
      client.Get(*job, std::chrono::milliseconds(0), /*calibration_samples=*/true);
  ASSERT_TRUE(with_samples.ok()) << with_samples.status();
  ASSERT_EQ(with_samples->fit().calibration().samples_size(), 1);
  EXPECT_EQ(with_samples->fit().calibration().samples(0).SerializeAsString(),
            ToCalibrationJob(loaded).samples(0).SerializeAsString());
  ASSERT_TRUE(client.Cancel(*job).ok());
  size_t updates = 0;
  absl::StatusOr<v1::JobStatus> end = client.Watch(
      *job,
      [&](const v1::JobStatus& s) {
        ++updates;
        EXPECT_EQ(s.fit().calibration().samples_size(), 0);
      },
      50);
  ASSERT_TRUE(end.ok()) << end.status();
  EXPECT_GT(updates, 0u);
  EXPECT_EQ(end->state(), v1::CANCELED) << end->message();
  EXPECT_FALSE(end->fit().has_result());
  ExpectTheHistorySoFar(*end);  // as far as it got
  EXPECT_GE(end->fit().history_size(), 2);
  absl::StatusOr<std::vector<v1::JobStatus>> listed = client.List();
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().fit().calibration().samples_size(), 0);
}

// A fit canceled mid-fit keeps its finished batches: `cosimo resume JOB` runs it on from them to
// the numbers of an uninterrupted fit, bit for bit; a fit that succeeded does not resume, nor
// does a simulation job.
TEST_F(FitJobServiceTest, ACanceledFitResumedEndsWithTheNumbersOfAnUninterruptedOne) {
  StartWorkers(2, {"--slots", "2"});
  constexpr int kGenerations = 12;
  const LoadedCalibration loaded = CarFit(dir_, kGenerations);
  client::Client client(orchestrator_->address());
  std::optional<std::string> job;
  uint32_t reached = 0;
  ASSERT_NO_FATAL_FAILURE(CancelAfter(client, loaded, 3, &job, &reached));
  ASSERT_LT(reached, static_cast<uint32_t>(kGenerations));

  Process resume({BinDir() + "/cosimo", "resume", *job, "--orchestrator", orchestrator_->address()},
                 dir_ + "/resume.log");
  ASSERT_EQ(resume.Wait(std::chrono::seconds(60)), 0) << resume.log();
  EXPECT_THAT(resume.log(), HasSubstr(*job + " QUEUED: resumed: its finished batches ("));
  absl::StatusOr<v1::JobStatus> resumed = client.Watch(*job, nullptr, 50);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  ASSERT_EQ(resumed->state(), v1::SUCCEEDED) << resumed->message();
  // Every batch finished before the cancel (one per generation) was answered from the store.
  EXPECT_GE(resumed->fit().batches_replayed(), reached);
  EXPECT_EQ(resumed->fit().result().iterations(), static_cast<uint32_t>(kGenerations));

  std::string again;
  ASSERT_NO_FATAL_FAILURE(ExpectTheResultOfAnUninterruptedFit(client, loaded, *resumed, &again));
  EXPECT_EQ(ResultsCsv(client, *job), ResultsCsv(client, again));

  absl::StatusOr<v1::JobStatus> twice = client.Resume(*job);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(twice.status().message(),
              HasSubstr("is SUCCEEDED: only a calibration that failed or was canceled resumes"));
  absl::StatusOr<std::string> simulation = client.Submit(loaded.base);
  ASSERT_TRUE(simulation.ok()) << simulation.status();
  ASSERT_TRUE(client.Watch(*simulation, nullptr, 50).ok());
  absl::StatusOr<v1::JobStatus> not_fit = client.Resume(*simulation);
  ASSERT_FALSE(not_fit.ok());
  EXPECT_THAT(not_fit.status().message(), HasSubstr("is neither a sweep nor a calibration"));
}

// A Levenberg-Marquardt fit takes its Jacobians from forward sensitivities (one run each), and
// their batches are stored as the others: canceled and resumed, it ends with the numbers of an
// uninterrupted fit.
TEST_F(FitJobServiceTest, ALevenbergMarquardtFitOnSensitivitiesResumesWithTheSameNumbers) {
  StartWorkers(2, {"--slots", "2"});
  CarFit(dir_, 1);
  // The vehicle's solver at a finer step (500,000 steps a run), so that the cancel finds the fit
  // running.
  std::string car = Car(1500, 20);
  const std::string coarse = R"("step": 0.01)";
  car.replace(car.find(coarse), coarse.size(), R"("step": 0.00002)");
  WriteFile(dir_ + "/car.json", car);
  WriteFile(dir_ + "/lm.json", R"({"name": "car fit", "scenario_file": "car.json",
    "parameters": [ {"name": "vehicle.m", "start": 2800, "lower": 500, "upper": 3000},
                    {"name": "vehicle.c_f", "start": 2, "lower": 1, "upper": 500, "scale": "log"} ],
    "data": {"csv": "bench.csv", "columns": [ {"column": "measured", "variable": "vehicle.v",
                                               "standard_deviation": 0.05} ]},
    "optimizer": {"kind": "levenberg_marquardt", "max_iterations": 8, "f_tolerance": 1e-300,
                  "x_tolerance": 1e-300}})");
  absl::StatusOr<LoadedCalibration> loaded = LoadCalibrationFile(dir_ + "/lm.json");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  client::Client client(orchestrator_->address());
  std::optional<std::string> job;
  uint32_t reached = 0;
  ASSERT_NO_FATAL_FAILURE(CancelAfter(client, *loaded, 2, &job, &reached));

  absl::StatusOr<v1::JobStatus> queued = client.Resume(*job);
  ASSERT_TRUE(queued.ok()) << queued.status();
  absl::StatusOr<v1::JobStatus> resumed = client.Watch(*job, nullptr, 50);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  ASSERT_EQ(resumed->state(), v1::SUCCEEDED) << resumed->message();
  // Each iteration before the cancel stored a batch of sensitivities and at least one step.
  EXPECT_GE(resumed->fit().batches_replayed(), 2 * reached);
  EXPECT_EQ(resumed->fit().result().jacobian(), "forward sensitivities");
  std::string again;
  ASSERT_NO_FATAL_FAILURE(ExpectTheResultOfAnUninterruptedFit(client, *loaded, *resumed, &again));
}

// kill -9 of a worker mid-fit: its variants run again on the others, as a sweep's, and the fit
// ends with the numbers of an uninterrupted one.
TEST_F(FitJobServiceTest, ALostWorkersVariantsRunAgainAndTheFitEndsAsAnUninterruptedOne) {
  StartWorkers(3, {"--slots", "2"});
  const LoadedCalibration loaded = CarFit(dir_, 20);
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> job = client.SubmitFit(loaded.base, ToCalibrationJob(loaded));
  ASSERT_TRUE(job.ok()) << job.status();
  const v1::JobStatus before = WaitForIteration(client, *job, 2);
  ASSERT_EQ(before.state(), v1::RUNNING) << "the fit ended before the fault";
  int victim = -1;
  for (int i = 0; i < 500 && victim < 0; ++i) {
    absl::StatusOr<std::vector<v1::WorkerStatus>> workers = client.Workers();
    ASSERT_TRUE(workers.ok()) << workers.status();
    for (const v1::WorkerStatus& w : *workers) {
      if (w.busy() && w.job_id() == *job) victim = w.pid();
    }
    if (victim < 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_GT(victim, 0) << "no worker ran the fit";
  ASSERT_EQ(kill(victim, SIGKILL), 0);
  absl::StatusOr<v1::JobStatus> faulted = client.Watch(*job, nullptr, 50);
  ASSERT_TRUE(faulted.ok()) << faulted.status();
  ASSERT_EQ(faulted->state(), v1::SUCCEEDED) << faulted->message();
  EXPECT_THAT(orchestrator_->process().log(), HasSubstr("runs again, alone"));
  std::string again;
  ExpectTheResultOfAnUninterruptedFit(client, loaded, *faulted, &again);
}

TEST_F(FitJobServiceTest, ResultsOfAFitJobAreTheFilesOfCosimoFit) {
  StartWorkers(2, {"--slots", "2"});
  CarFit(dir_, 4);
  Process fit({BinDir() + "/cosimo", "fit", dir_ + "/fit.json", "--out-dir", dir_ + "/a",
               "--orchestrator", orchestrator_->address()},
              dir_ + "/fit.log");
  ASSERT_EQ(fit.Wait(std::chrono::seconds(300)), 0) << fit.log();
  // Each iteration printed once, in order.
  const std::string log = fit.log();
  size_t at = 0;
  for (int i = 1; i <= 4; ++i) {
    const std::string line = "iteration " + std::to_string(i) + " (";
    const size_t found = log.find(line, at);
    ASSERT_NE(found, std::string::npos) << line << " in order in\n" << log;
    EXPECT_EQ(log.find(line, found + 1), std::string::npos) << line << " twice";
    at = found;
  }
  // One job, a calibration job.
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::vector<v1::JobStatus>> jobs = client.List();
  ASSERT_TRUE(jobs.ok()) << jobs.status();
  ASSERT_EQ(jobs->size(), 1u);
  const v1::JobStatus& job = jobs->front();
  EXPECT_EQ(job.state(), v1::SUCCEEDED);
  EXPECT_EQ(job.name(), "car fit");
  ASSERT_TRUE(job.fit().has_result());
  EXPECT_EQ(job.fit().result().history_size(), 4);
  EXPECT_EQ(job.fit().history_size(), 0);  // result.history holds it
  EXPECT_EQ(job.fit().result().jacobian(), "forward sensitivities");
  // 4 generations, the Jacobian at the best point from one run of its sensitivities.
  EXPECT_EQ(job.fit().result().evaluations(), 4u * 6u + 1u);
  Process results({BinDir() + "/cosimo", "results", job.job_id(), "--out", dir_ + "/b",
                   "--orchestrator", orchestrator_->address()},
                  dir_ + "/results.log");
  ASSERT_EQ(results.Wait(std::chrono::seconds(60)), 0) << results.log();
  for (const char* file : {"/iterations.csv", "/estimates.csv", "/best.csv", "/measured.csv"}) {
    EXPECT_EQ(ReadFile(dir_ + "/a" + file), ReadFile(dir_ + "/b" + file)) << file;
    EXPECT_FALSE(ReadFile(dir_ + "/b" + file).empty()) << file;
  }
}

}  // namespace
}  // namespace cosimo::testing
