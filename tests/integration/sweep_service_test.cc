// A sweep as one job of the orchestrator (issue 32, docs/sweeps.md): its table is the one
// `cosimo sweep` writes when the sweep runs here (every column but the wall time), a variant the
// model refuses is a FAILED row of a sweep that succeeds, `cosimo results` writes the same table,
// a cancel stops the sweep, its progress is in /metrics and the JSON API, and a sweep whose
// orchestrator is killed resumes after a restart with the variants that had finished kept. A
// variant runs whole on a worker that holds all its units (RunVariants), several at a time when
// its slots hold them, else unit by unit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <map>
#include <string>
#include <thread>

#include "cosimo/client/client.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/sweep.h"
#include "tests/integration/fixture.h"
#include "tests/integration/process.h"
// Last: through <resolv.h> it defines the macro _res, a parameter name in Eigen's headers.
#include <httplib.h>

namespace cosimo::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string CarJson() { return std::string(COSIMO_SOURCE_DIR) + "/examples/car.json"; }

// Equal tables but for the wall time column (NaN equals NaN).
void ExpectSameTableButWallTime(const ResultTable& a, const ResultTable& b) {
  ASSERT_EQ(a.columns, b.columns);
  ASSERT_EQ(a.values.size(), b.values.size());
  const size_t w = a.columns.size();
  for (size_t i = 0; i < a.values.size(); ++i) {
    if (a.columns[i % w] == "wall_time_s") continue;
    if (std::isnan(a.values[i])) {
      EXPECT_TRUE(std::isnan(b.values[i])) << "row " << i / w << ", " << a.columns[i % w];
    } else {
      EXPECT_EQ(a.values[i], b.values[i]) << "row " << i / w << ", " << a.columns[i % w];
    }
  }
  EXPECT_EQ(a.strings, b.strings);
}

absl::StatusOr<v1::JobStatus> WaitForVariants(client::Client& client, const std::string& id,
                                              uint64_t done) {
  for (int i = 0; i < 1200; ++i) {
    absl::StatusOr<v1::JobStatus> s = client.Get(id);
    if (!s.ok() || s->sweep().variants_done() >= done || s->state() > v1::RUNNING) return s;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return absl::DeadlineExceededError("the sweep did not get there");
}

// Submits a sweep of 20 long variants (`*id`), cancels it once one is done and waits for its end.
absl::StatusOr<v1::JobStatus> CancelAfterAVariant(client::Client& client, std::string* id) {
  absl::StatusOr<std::string> submitted = client.SubmitSweep(LongCar(50), GainSweep(20));
  if (!submitted.ok()) return submitted.status();
  *id = *submitted;
  absl::StatusOr<v1::JobStatus> status = WaitForVariants(client, *id, 1);
  if (!status.ok()) return status;
  if (status->state() != v1::RUNNING) {
    return absl::FailedPreconditionError("the sweep ended before the cancel: " + status->message());
  }
  if (!client.Cancel(*id).ok()) return absl::InternalError("the cancel failed");
  return client.Watch(*id, nullptr, 50);
}

class SweepServiceTest : public DistributedTest {
 protected:
  // Writes the sweep `json` (its base: the car) to sweep.json, runs it here (`cosimo sweep`, with
  // `here_flags`) and as a job of the orchestrator (--wait), expects the same table but for the
  // wall times, with `rows` rows, and returns the service's (there.csv).
  ResultTable SameTableHereAndThere(const std::string& json, size_t rows,
                                    std::vector<std::string> here_flags = {}) {
    WriteFile(dir_ + "/sweep.json", R"({"scenario_file": ")" + CarJson() + "\", " + json + "}");
    std::vector<std::string> here_argv = {BinDir() + "/cosimo", "sweep", dir_ + "/sweep.json",
                                          "--out", dir_ + "/here.csv"};
    here_argv.insert(here_argv.end(), here_flags.begin(), here_flags.end());
    Process here(here_argv, dir_ + "/here.log");
    EXPECT_EQ(here.Wait(std::chrono::seconds(300)), 0) << here.log();
    Process there({BinDir() + "/cosimo", "sweep", dir_ + "/sweep.json", "--orchestrator",
                   orchestrator_->address(), "--wait", "--out", dir_ + "/there.csv"},
                  dir_ + "/there.log");
    EXPECT_EQ(there.Wait(std::chrono::seconds(300)), 0) << there.log();
    absl::StatusOr<ResultTable> a = ReadCsvFile(dir_ + "/here.csv");
    absl::StatusOr<ResultTable> b = ReadCsvFile(dir_ + "/there.csv");
    EXPECT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
    if (!a.ok() || !b.ok()) return {};
    EXPECT_EQ(b->rows(), rows);
    ExpectSameTableButWallTime(*a, *b);
    return *b;
  }
};

TEST_F(SweepServiceTest, TableIsTheLocalSweepsAndAFailedVariantIsARow) {
  StartWorkers(2, {"--slots", "2"});  // two variants at once, each on one worker
  // m = -5 is refused by car_vehicle (m > 0): variants 4 and 5 fail.
  const ResultTable b = SameTableHereAndThere(R"(
    "name": "car: mass and gain",
    "parameters": [ {"name": "vehicle.m", "values": [1000, 2000, -5]},
                    {"name": "controller.k", "values": [500, 1000]} ],
    "kpis": [ {"variable": "vehicle.v", "kind": "FINAL"},
              {"variable": "vehicle.v", "kind": "FIRST_CROSSING", "level": 30},
              {"name": "force_rms", "variable": "controller.F", "kind": "RMS"} ])",
                                              6, {"--parallel", "2"});
  ASSERT_EQ(b.rows(), 6u);
  EXPECT_EQ(b.strings[0], "SUCCEEDED");
  EXPECT_EQ(b.strings[8], "FAILED");
  EXPECT_THAT(b.strings[9], HasSubstr("parameter 'm' must be > 0"));
  // Each variant ran whole on one worker (RunVariants): no unit was loaded unit by unit.
  EXPECT_THAT(workers_[0]->log() + workers_[1]->log(), Not(HasSubstr("loaded unit")));

  client::Client client(orchestrator_->address());
  absl::StatusOr<std::vector<v1::JobStatus>> jobs = client.List();
  ASSERT_TRUE(jobs.ok() && jobs->size() == 1) << jobs.status();
  const v1::JobStatus& job = jobs->front();
  EXPECT_EQ(job.state(), v1::SUCCEEDED) << job.message();
  EXPECT_EQ(job.sweep().variants_total(), 6u);
  EXPECT_EQ(job.sweep().variants_done(), 6u);
  EXPECT_EQ(job.sweep().variants_failed(), 2u);
  EXPECT_EQ(job.name(), "car: mass and gain");  // the sweep's name, not its base scenario's
  // `cosimo status` of a sweep says how many variants are done, failed and to go, and no
  // simulated time or steps (a sweep job has none of its own).
  Process status(
      {BinDir() + "/cosimo", "status", job.job_id(), "--orchestrator", orchestrator_->address()},
      dir_ + "/status.log");
  ASSERT_EQ(status.Wait(std::chrono::seconds(60)), 0) << status.log();
  EXPECT_THAT(status.log(), HasSubstr("name:      car: mass and gain\n"));
  EXPECT_THAT(status.log(), HasSubstr("variants:  6 of 6 done, 2 failed, 0 to go\n"));
  EXPECT_THAT(status.log(), Not(HasSubstr("steps:")));
  Process results({BinDir() + "/cosimo", "results", job.job_id(), "--orchestrator",
                   orchestrator_->address(), "--out", dir_ + "/results.csv"},
                  dir_ + "/results.log");
  ASSERT_EQ(results.Wait(std::chrono::seconds(60)), 0) << results.log();
  EXPECT_EQ(ReadFile(dir_ + "/results.csv"), ReadFile(dir_ + "/there.csv"));
  Process list({BinDir() + "/cosimo", "list", "--orchestrator", orchestrator_->address()},
               dir_ + "/list.log");
  ASSERT_EQ(list.Wait(std::chrono::seconds(60)), 0) << list.log();
  EXPECT_THAT(list.log(), HasSubstr("6/6 var"));
}

// Workers of one slot: no worker holds a whole variant, so each runs unit by unit from the
// orchestrator (the path of keep_results ALL too) rather than as RunVariants; the same table.
TEST_F(SweepServiceTest, VariantsOverOneSlotWorkersRunUnitByUnitWithTheSameTable) {
  StartWorkers(2);
  SameTableHereAndThere(R"(
    "parameters": [ {"name": "controller.k", "values": [500, 1000, 2000]} ],
    "kpis": [ {"variable": "vehicle.v"}, {"variable": "controller.F", "kind": "MAX"} ])",
                        3);
  // Loaded unit by unit (LoadUnit, logged), not run whole.
  EXPECT_THAT(workers_[0]->log() + workers_[1]->log(), HasSubstr("loaded unit 'vehicle'"));
}

// One worker of 4 slots and a variant of 2 units: two variants at a time on it (one RunVariants
// of two, the worker's two threads), five in all (the last alone); the same table.
TEST_F(SweepServiceTest, AWorkerWithSlotsForTwoVariantsRunsTwoAtATime) {
  StartWorkers(1, {"--slots", "4", "--threads", "2"});
  SameTableHereAndThere(R"(
    "parameters": [ {"name": "controller.k", "linspace": [500, 2500, 5]} ],
    "kpis": [ {"variable": "vehicle.v"}, {"variable": "controller.F", "kind": "INTEGRAL"} ])",
                        5);
  EXPECT_THAT(orchestrator_->process().log(), HasSubstr("2 variants at a time"));
  EXPECT_THAT(workers_[0]->log(), Not(HasSubstr("loaded unit")));
}

TEST_F(SweepServiceTest, BadSweepIsRefusedNamingTheField) {
  client::Client client(orchestrator_->address());
  v1::Sweep sweep = GainSweep(2);
  sweep.mutable_parameters(0)->set_name("controller.gain");
  absl::StatusOr<std::string> job = client.SubmitSweep(LongCar(1), sweep);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(job.status().message(), HasSubstr("sweep.parameters[0].name: 'controller.gain'"));
}

TEST_F(SweepServiceTest, CancelStopsTheSweep) {
  StartWorkers(1, {"--slots", "2"});
  client::Client client(orchestrator_->address());
  std::string id;
  absl::StatusOr<v1::JobStatus> status = CancelAfterAVariant(client, &id);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::CANCELED) << status->message();
  EXPECT_LT(status->sweep().variants_done(), 20u);
  // Its finished rows stay readable: a partial table, the others CANCELED "not run" rows.
  absl::StatusOr<client::JobResults> partial = client.Results(id);
  ASSERT_TRUE(partial.ok()) << partial.status();
  EXPECT_TRUE(partial->metadata.partial());
  ASSERT_EQ(partial->rows(), 20u);
  size_t not_run = 0;
  for (size_t r = 0; r < partial->rows(); ++r) {
    not_run += partial->strings[2 * r + 1].rfind("not run", 0) == 0 ? 1 : 0;
  }
  EXPECT_EQ(not_run, 20u - status->sweep().variants_done());
}

// The attached workers' ids, and how many messages jobs wrote to each.
std::map<std::string, uint64_t> WorkerMessages(client::Client& client) {
  std::map<std::string, uint64_t> ids;
  absl::StatusOr<std::vector<v1::WorkerStatus>> workers = client.Workers();
  EXPECT_TRUE(workers.ok()) << workers.status();
  if (workers.ok()) {
    for (const v1::WorkerStatus& w : *workers) ids[w.worker_id()] = w.messages();
  }
  return ids;
}

// Issue 41 item 11: cancelling a sweep disconnected its workers, which attached again under new
// ids. Now the variants in flight stop (whole ones: the worker is told to stop them; unit by unit:
// the step in flight ends) and the same workers stay attached, idle, and run the next job.
void ExpectCancelLeavesTheWorkersAttached(client::Client& client, OrchestratorProcess& o,
                                          size_t workers) {
  std::map<std::string, uint64_t> before;
  for (int i = 0; i < 400 && before.size() < workers; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    before = WorkerMessages(client);
  }
  ASSERT_EQ(before.size(), workers);
  std::string id;
  absl::StatusOr<v1::JobStatus> status = CancelAfterAVariant(client, &id);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::CANCELED) << status->message();
  std::map<std::string, uint64_t> after = WorkerMessages(client);
  ASSERT_EQ(after.size(), workers);
  for (const auto& [worker, messages] : before) {
    EXPECT_TRUE(after.contains(worker)) << worker << " is no longer attached";
  }
  EXPECT_THAT(o.process().log(), Not(HasSubstr("given up")));
  absl::StatusOr<std::string> job = client.Submit(LongCar(1));
  ASSERT_TRUE(job.ok()) << job.status();
  status = client.Watch(*job, nullptr, 50);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::SUCCEEDED) << status->message();
  std::map<std::string, uint64_t> ran = WorkerMessages(client);
  EXPECT_EQ(ran.size(), workers);
  uint64_t more = 0;
  for (const auto& [worker, messages] : after) {
    ASSERT_TRUE(ran.contains(worker)) << worker << " is no longer attached";
    more += ran[worker] - messages;
  }
  EXPECT_GT(more, 0u) << "the next job ran on other workers";
}

TEST_F(SweepServiceTest, CancelLeavesAWorkerRunningVariantsWholeAttached) {
  StartWorkers(1, {"--slots", "2"});
  client::Client client(orchestrator_->address());
  ExpectCancelLeavesTheWorkersAttached(client, *orchestrator_, 1);
}

TEST_F(SweepServiceTest, CancelLeavesWorkersRunningVariantsUnitByUnitAttached) {
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  ExpectCancelLeavesTheWorkersAttached(client, *orchestrator_, 2);
}

// Counts the rows of a sweep table by their status.
std::map<std::string, size_t> StatusCounts(const ResultTable& table) {
  std::map<std::string, size_t> counts;
  for (size_t r = 0; r < table.rows(); ++r) ++counts[table.strings[2 * r]];
  return counts;
}

class SweepOutageTest : public SweepServiceTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    std::vector<std::string> args = SweepServiceTest::OrchestratorArgs();
    args.insert(args.end(), {"--unschedulable-timeout-s", "1"});
    return args;
  }
};

// Issue 41 item 3: a sweep whose only worker is lost for longer than --unschedulable-timeout-s
// fails, but keeps the rows of the variants it finished: `cosimo results` gives them with the
// others as "not run" rows, and `cosimo resume` runs only those, ending with the table a local
// sweep writes (but for the wall times).
TEST_F(SweepOutageTest, AFailedSweepKeepsItsFinishedRowsAndResumesTheRest) {
  constexpr uint64_t kVariants = 24;
  client::Client client(orchestrator_->address());
  // Attached before the sweep comes: a second without a worker would fail it.
  auto attach_one = [&] {
    const size_t before = client.Workers()->size();
    StartWorkers(1, {"--slots", "2"});  // the car's two units: its variants run whole there
    for (int i = 0; i < 800 && client.Workers()->size() == before; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return client.Workers()->size() > before;
  };
  ASSERT_TRUE(attach_one());
  absl::StatusOr<std::string> id = client.SubmitSweep(LongCar(100), GainSweep(kVariants));
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<v1::JobStatus> status = WaitForVariants(client, *id, 2);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->state(), v1::RUNNING) << "the sweep ended before the outage";
  workers_[0]->Signal(SIGKILL);
  workers_[0]->Wait(std::chrono::seconds(5));
  status = client.Watch(*id, nullptr, 50);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->state(), v1::FAILED) << status->message();
  EXPECT_THAT(status->message(), HasSubstr("cannot be scheduled"));
  const uint64_t done = status->sweep().variants_done();
  ASSERT_GE(done, 2u);
  ASSERT_LT(done, kVariants);

  Process partial_cli({BinDir() + "/cosimo", "results", *id, "--orchestrator",
                       orchestrator_->address(), "--out", dir_ + "/partial.csv"},
                      dir_ + "/partial.log");
  ASSERT_EQ(partial_cli.Wait(std::chrono::seconds(60)), 0) << partial_cli.log();
  EXPECT_THAT(partial_cli.log(), HasSubstr("partial table"));
  absl::StatusOr<ResultTable> partial = ReadCsvFile(dir_ + "/partial.csv");
  ASSERT_TRUE(partial.ok()) << partial.status();
  ASSERT_EQ(partial->rows(), kVariants);
  std::map<std::string, size_t> counts = StatusCounts(*partial);
  EXPECT_EQ(counts["SUCCEEDED"], done);
  EXPECT_EQ(counts["CANCELED"], kVariants - done);
  absl::StatusOr<client::JobResults> kept = client.Results(*id);
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_TRUE(kept->metadata.partial());

  absl::StatusOr<v1::JobStatus> resumed = client.Resume(*id);
  ASSERT_TRUE(resumed.ok()) << resumed.status();
  EXPECT_EQ(resumed->state(), v1::QUEUED);
  ASSERT_TRUE(attach_one());
  status = client.Watch(*id, nullptr, 50);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->state(), v1::SUCCEEDED) << status->message();
  EXPECT_THAT(orchestrator_->process().log(),
              HasSubstr("sweep of 24 variants, " + std::to_string(kVariants - done) + " to run"));
  absl::StatusOr<client::JobResults> there = client.Results(*id);
  ASSERT_TRUE(there.ok()) << there.status();
  EXPECT_FALSE(there->metadata.partial());
  EXPECT_EQ(StatusCounts(*there)["SUCCEEDED"], kVariants);
  const size_t w = kept->columns.size();
  for (size_t i = 0; i < kept->values.size(); ++i) {  // the rows kept: those finished before
    if (kept->strings[2 * (i / w)] != "SUCCEEDED" || std::isnan(kept->values[i])) continue;
    EXPECT_EQ(there->values[i], kept->values[i]) << "row " << i / w << ", " << kept->columns[i % w];
  }
  // The same sweep, uninterrupted.
  absl::StatusOr<std::string> whole = client.SubmitSweep(LongCar(100), GainSweep(kVariants));
  ASSERT_TRUE(whole.ok()) << whole.status();
  status = client.Watch(*whole, nullptr, 50);
  ASSERT_TRUE(status.ok() && status->state() == v1::SUCCEEDED) << status->message();
  absl::StatusOr<client::JobResults> uninterrupted = client.Results(*whole);
  ASSERT_TRUE(uninterrupted.ok()) << uninterrupted.status();
  ExpectSameTableButWallTime(*uninterrupted, *there);

  absl::StatusOr<v1::JobStatus> again = client.Resume(*id);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.status().message(), HasSubstr("is SUCCEEDED"));
}

TEST_F(SweepServiceTest, KeptVariantResultsAreThoseOfTheVariantsScenario) {
  StartWorkers(1, {"--slots", "2"});
  client::Client client(orchestrator_->address());
  v1::Sweep sweep = GainSweep(3);
  sweep.set_keep_results(v1::Sweep::ALL);
  absl::StatusOr<std::string> id = client.SubmitSweep(LongCar(2), sweep);
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<v1::JobStatus> status = client.Watch(*id, nullptr, 50);
  ASSERT_TRUE(status.ok() && status->state() == v1::SUCCEEDED) << status->message();
  v1::Scenario variant = LongCar(2);
  variant.mutable_units(0)->mutable_builtin()->mutable_parameters()->at("k").set_number_value(1500);
  std::string simulation;
  ASSERT_EQ(RunJob(client, variant, &simulation).state(), v1::SUCCEEDED);
  absl::StatusOr<client::JobResults> expected = client.Results(simulation);
  absl::StatusOr<client::JobResults> kept = client.Results(*id, 2);  // k = 1500
  ASSERT_TRUE(expected.ok() && kept.ok()) << expected.status() << kept.status();
  EXPECT_EQ(kept->columns, expected->columns);
  EXPECT_EQ(kept->values, expected->values);
  Process cli({BinDir() + "/cosimo", "results", *id, "--variant", "0", "--orchestrator",
               orchestrator_->address(), "--out", dir_ + "/v0.csv"},
              dir_ + "/v0.log");
  ASSERT_EQ(cli.Wait(std::chrono::seconds(60)), 0) << cli.log();
  EXPECT_THAT(ReadFile(dir_ + "/v0.csv"), HasSubstr("time,vehicle.v,controller.F\n0,"));
  absl::StatusOr<client::JobResults> none = client.Results(*id, 3);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument) << none.status();
  absl::StatusOr<std::string> kpis_only = client.SubmitSweep(LongCar(1), GainSweep(1));
  ASSERT_TRUE(kpis_only.ok());
  ASSERT_TRUE(client.Watch(*kpis_only, nullptr, 50).ok());
  absl::StatusOr<client::JobResults> refused = client.Results(*kpis_only, 0);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(refused.status().message(), HasSubstr("keep_results"));
}

class SweepHttpTest : public DistributedTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    std::vector<std::string> args = DistributedTest::OrchestratorArgs();
    args.insert(args.end(), {"--http", "127.0.0.1:0", "--http-port-file", dir_ + "/http_port"});
    return args;
  }
};

TEST_F(SweepHttpTest, ProgressIsInTheMetricsAndTheJsonApi) {
  StartWorkers(1, {"--slots", "2"});
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> id = client.SubmitSweep(LongCar(1), GainSweep(3));
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<v1::JobStatus> status = client.Watch(*id, nullptr, 50);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->state(), v1::SUCCEEDED) << status->message();
  int port = 0;
  for (int i = 0; i < 100 && port == 0; ++i) {
    const std::string text = ReadFile(dir_ + "/http_port");
    if (text.find('\n') != std::string::npos) port = std::stoi(text);
  }
  httplib::Client http("127.0.0.1", port);
  httplib::Result metrics = http.Get("/metrics");
  ASSERT_TRUE(metrics && metrics->status == 200);
  EXPECT_THAT(metrics->body,
              HasSubstr("cosimo_sweep_variants{job=\"" + *id + "\",state=\"done\"} 3"));
  EXPECT_THAT(metrics->body,
              HasSubstr("cosimo_sweep_variants{job=\"" + *id + "\",state=\"failed\"} 0"));
  httplib::Result job = http.Get("/api/jobs/" + *id);
  ASSERT_TRUE(job && job->status == 200);
  EXPECT_THAT(job->body, HasSubstr("\"variants_done\":3"));
  EXPECT_THAT(job->body, HasSubstr("\"progress\":1.0"));
}

// kill -9 of the orchestrator mid-sweep: restarted on the same address and data directory, the
// sweep resumes once the workers re-attach, keeps the variants that had finished and runs the
// others.
TEST(SweepRestartTest, KilledOrchestratorResumesTheSweepKeepingFinishedVariants) {
  const std::string dir = TempDir("cosimo-sweep-resume");
  const std::string data = dir + "/data";
  auto first = std::make_unique<OrchestratorProcess>(
      dir, std::vector<std::string>{"--data-dir", data, "--heartbeat-interval-ms", "100"});
  ASSERT_GT(first->port(), 0) << first->process().log();
  const std::string address = first->address();
  const auto workers = ReconnectingWorkers(address, dir, 2);
  constexpr int kVariants = 6;
  std::string id;
  {
    client::Client client(address);
    absl::StatusOr<std::string> job = client.SubmitSweep(LongCar(50), GainSweep(kVariants));
    ASSERT_TRUE(job.ok()) << job.status();
    id = *job;
    absl::StatusOr<v1::JobStatus> status = WaitForVariants(client, id, 2);
    ASSERT_TRUE(status.ok()) << status.status();
    ASSERT_EQ(status->state(), v1::RUNNING) << "the sweep ended before the fault";
  }
  first->process().Signal(SIGKILL);
  first->process().Wait(std::chrono::seconds(5));
  Process restarted({BinDir() + "/cosimo-orchestrator", "--listen", address, "--data-dir", data},
                    dir + "/orchestrator2.log");
  client::Client client(address);
  absl::StatusOr<v1::JobStatus> status = WatchOnceItAnswers(client, id);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->state(), v1::SUCCEEDED) << status->message();
  EXPECT_THAT(restarted.log(), HasSubstr("sweep of 6 variants, "));
  EXPECT_THAT(restarted.log(), ::testing::Not(HasSubstr("sweep of 6 variants, 6 to run")));
  absl::StatusOr<client::JobResults> table = client.Results(id);
  ASSERT_TRUE(table.ok()) << table.status();
  ASSERT_EQ(table->rows(), static_cast<size_t>(kVariants));
  const size_t w = table->columns.size();
  for (int k = 0; k < kVariants; ++k) {
    EXPECT_EQ(table->values[k * w], k);
    EXPECT_EQ(table->strings[2 * k], "SUCCEEDED") << table->strings[2 * k + 1];
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cosimo::testing
