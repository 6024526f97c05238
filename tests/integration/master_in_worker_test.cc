// A job whose units all sit on one worker runs its master in that worker (RunJob, issue 40): its
// results CSV, its metadata (but for the wall times and where it ran) and its failure messages
// are byte for byte those of the unit-by-unit path (an orchestrator with
// --master-in-worker=false), for every algorithm (Jacobi, Gauss-Seidel, fixed point, Newton with
// a COSTARICA-estimated unit, adaptive steps with rejections), built-in units and a test FMU, FMI
// 3 clock connections, and for a job stopped by the row limit. A worker-run job resumes after
// kill -9 of its worker with the CSV of a fault-free run (its rows reaching the orchestrator's
// store while it runs, some stored before the fault), and after kill -9 of the orchestrator and
// its restart; a cancel stops it at once and the worker serves the next job.
#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <algorithm>
#include <sstream>

#include "cosimo/common/csv.h"
#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

using testing::DualMass;
using ::testing::HasSubstr;
using testing::OrchestratorProcess;
using testing::Process;
using ::testing::StartsWith;

std::string Csv(const ResultTable& table) {
  std::ostringstream out;
  WriteCsv(out, table);
  return out.str();
}

// The metadata but for what differs between two runs of a job: when and where it ran.
v1::ResultsMetadata Comparable(v1::ResultsMetadata meta) {
  meta.clear_wall_seconds();
  meta.clear_started_unix_ms();
  meta.clear_finished_unix_ms();
  meta.clear_master();
  for (v1::UnitReport& unit : *meta.mutable_units()) {
    unit.clear_worker();
    unit.clear_host();
  }
  return meta;
}

// An orchestrator (its extra flags) with its own worker(s) of 4 slots, keeping 400 rows a job.
struct Site {
  Site(const std::string& name, std::vector<std::string> flags, int workers = 1)
      : dir(testing::TempDir(name)) {
    flags.insert(flags.end(), {"--heartbeat-interval-ms", "100", "--heartbeat-timeout-ms", "1000"});
    if (std::find(flags.begin(), flags.end(), "--max-recorded-rows") == flags.end()) {
      flags.insert(flags.end(), {"--max-recorded-rows", "400"});
    }
    orchestrator = std::make_unique<OrchestratorProcess>(dir, flags);
    for (int i = 0; i < workers; ++i) {
      worker.push_back(std::make_unique<Process>(
          std::vector<std::string>{testing::BinDir() + "/cosimo-worker", "--orchestrator",
                                   orchestrator->address(), "--cache-dir", dir + "/cache",
                                   "--slots", "4", "--reconnect-ms", "100"},
          dir + "/worker" + std::to_string(i) + ".log"));
    }
    client = std::make_unique<client::Client>(orchestrator->address());
    for (int i = 0; i < 600; ++i) {
      absl::StatusOr<std::vector<v1::WorkerStatus>> w = client->Workers();
      if (w.ok() && w->size() >= static_cast<size_t>(workers)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  v1::JobStatus Run(const v1::Scenario& scenario, std::string* id) {
    absl::StatusOr<std::string> job = client->Submit(scenario);
    EXPECT_TRUE(job.ok()) << job.status();
    if (!job.ok()) return {};
    *id = *job;
    absl::StatusOr<v1::JobStatus> status = client->Watch(*job, nullptr, 50);
    EXPECT_TRUE(status.ok()) << status.status();
    return status.ok() ? *status : v1::JobStatus();
  }

  std::string dir;
  std::unique_ptr<OrchestratorProcess> orchestrator;
  std::vector<std::unique_ptr<Process>> worker;
  std::unique_ptr<client::Client> client;
};

struct Case {
  std::string name;
  v1::Scenario scenario;
};

v1::Scenario Car(const std::string& kind) {
  v1::Scenario s = testing::CarScenario(0.05);
  s.mutable_algorithm()->set_kind(kind == "JACOBI" ? v1::Algorithm::JACOBI
                                                   : v1::Algorithm::GAUSS_SEIDEL);
  s.set_stop_time(5.0);
  return s;
}

// fmi3_clocks' output clock overflow (a tick at 0.62) feeding fmi3_clock_receiver's triggered
// input clock, with a clocked input (issue 43; tests/conformance/clocks_test.cc); the receiver in
// Model Exchange when `receiver_solver` is not empty.
v1::Scenario ClockPair(const std::string& kind, const std::string& receiver_solver = "") {
  const std::string json = R"({ "name": "pair", "start_time": 0, "stop_time": 1.5,
    "units": [ { "name": "a", "fmu": { "path": ")" +
                           testing::Fmu("fmi3_clocks") + R"(" } },
               { "name": "b", "fmu": { "path": ")" +
                           testing::Fmu("fmi3_clock_receiver") + R"(" })" +
                           (receiver_solver.empty() ? "" : R"(, "solver": )" + receiver_solver) +
                           R"( } ],
    "connections": [ { "from": "a.overflow", "to": "b.trigger" },
                     { "from": "a.overflows", "to": "b.u" } ],
    "algorithm": { "kind": ")" +
                           kind +
                           R"(", "step_size": 0.1 },
    "record": [ "a.overflow", "b.trigger", "b.received", "b.t_received", "b.u_seen" ] })";
  v1::Scenario s;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &s).ok()) << json;
  return s;
}

std::vector<Case> Cases() {
  const std::string adaptive =
      R"("adaptive": {"min_step": 1e-6, "max_step": 0.01, "tolerance": 1e-5},)";
  return {
      {"car Jacobi", Car("JACOBI")},
      {"car Gauss-Seidel", Car("GAUSS_SEIDEL")},
      {"dual mass fixed point, COSTARICA", DualMass("FIXED_POINT", "", 100.0, 2.0)},
      {"dual mass Newton, COSTARICA", DualMass("NEWTON", "", 100.0, 2.0)},
      {"dual mass adaptive Newton with rejections", DualMass("NEWTON", adaptive, 1e4, 0.25)},
      {"FMU with a built-in", testing::MsdWithSpring(testing::Fmu("fmi2_msd"), 0.05)},
      {"failing FMU", testing::MsdWithSpring(testing::Fmu("fmi2_error"), 0.01)},
      {"clock connection Jacobi", ClockPair("JACOBI")},
      {"clock connection Gauss-Seidel", ClockPair("GAUSS_SEIDEL")},
      {"clock connection, the receiver in Model Exchange",
       ClockPair("GAUSS_SEIDEL", R"({ "method": "RK4", "step": 0.01 })")},
      {"over the row limit", DualMass("NEWTON", "", 100.0, 10.0)},
  };
}

TEST(MasterInWorkerTest, ResultsMetadataAndFailuresAreThoseOfTheUnitByUnitPath) {
  Site worker_run("cosimo-miw", {});
  Site unit_by_unit("cosimo-ubu", {"--master-in-worker=false"});
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    std::string a_id, b_id;
    const v1::JobStatus a = worker_run.Run(c.scenario, &a_id);
    const v1::JobStatus b = unit_by_unit.Run(c.scenario, &b_id);
    ASSERT_EQ(v1::JobState_Name(a.state()), v1::JobState_Name(b.state())) << a.message();
    EXPECT_EQ(a.message(), b.message());
    EXPECT_EQ(a.steps_accepted(), b.steps_accepted());
    EXPECT_EQ(a.steps_rejected(), b.steps_rejected());
    EXPECT_EQ(a.time(), b.time());
    if (a.state() != v1::SUCCEEDED) continue;
    absl::StatusOr<client::JobResults> ra = worker_run.client->Results(a_id);
    absl::StatusOr<client::JobResults> rb = unit_by_unit.client->Results(b_id);
    ASSERT_TRUE(ra.ok() && rb.ok());
    EXPECT_EQ(Csv(*ra), Csv(*rb));
    EXPECT_THAT(ra->metadata.master(), StartsWith("worker w"));
    EXPECT_EQ(rb->metadata.master(), "orchestrator");
    std::string diff;
    google::protobuf::util::MessageDifferencer differencer;
    differencer.ReportDifferencesToString(&diff);
    EXPECT_TRUE(differencer.Compare(Comparable(ra->metadata), Comparable(rb->metadata))) << diff;
  }
  // Both kinds of run happened where they should.
  EXPECT_THAT(worker_run.orchestrator->process().log(), HasSubstr("its master there"));
  EXPECT_THAT(unit_by_unit.orchestrator->process().log(),
              ::testing::Not(HasSubstr("its master there")));
}

// Waits until job `id` runs past simulated time `t`; false when it ended first.
bool WaitForTime(client::Client& client, const std::string& id, double t) {
  for (int i = 0; i < 3000; ++i) {
    absl::StatusOr<v1::JobStatus> s = client.Get(id);
    if (s.ok() && s->state() == v1::RUNNING && s->time() > t) return true;
    if (s.ok() && s->state() != v1::RUNNING && s->state() != v1::QUEUED) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// The rows of job `id` the orchestrator's store in `data_dir` holds so far (its result chunks).
uint64_t StoredRows(const std::string& data_dir, const std::string& id) {
  sqlite3* db = nullptr;
  uint64_t rows = 0;
  if (sqlite3_open_v2((data_dir + "/jobs.sqlite").c_str(), &db, SQLITE_OPEN_READONLY, nullptr) ==
      SQLITE_OK) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT MAX(seq + row_count) FROM result_chunks WHERE id = ?", -1,
                           &stmt, nullptr) == SQLITE_OK &&
        sqlite3_bind_text(stmt, 1, id.c_str(), -1, SQLITE_TRANSIENT) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
      rows = static_cast<uint64_t>(sqlite3_column_int64(stmt, 0));
    }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return rows;
}

// Waits until the store holds rows of job `id` while it is still running; false when it ended
// first.
bool WaitForStoredRows(client::Client& client, const std::string& data_dir, const std::string& id) {
  for (int i = 0; i < 3000; ++i) {
    const uint64_t rows = StoredRows(data_dir, id);
    absl::StatusOr<v1::JobStatus> s = client.Get(id);
    if (s.ok() && s->state() == v1::RUNNING && rows > 0) return true;
    if (s.ok() && s->state() != v1::RUNNING && s->state() != v1::QUEUED) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

int BusyWorkerPid(client::Client& client, const std::string& id) {
  absl::StatusOr<std::vector<v1::WorkerStatus>> workers = client.Workers();
  if (!workers.ok()) return -1;
  for (const v1::WorkerStatus& w : *workers) {
    if (w.busy() && w.job_id() == id) return w.pid();
  }
  return -1;
}

// Runs `scenario` on `site` (two workers, its data in `data`), kills the worker that runs it
// (kill -9) once it has stored rows and passed t = 5 s, and expects it to end as the fault-free
// run, byte for byte, after resuming from its checkpoint on the other worker.
void ExpectAKilledWorkersJobToEndAsTheFaultFreeRun(Site& site, const std::string& data,
                                                   const v1::Scenario& scenario) {
  absl::StatusOr<std::string> id = site.client->Submit(scenario);
  ASSERT_TRUE(id.ok()) << id.status();
  // Its rows reach the store while it runs (streamed, not sent after the run), and the fault
  // comes with rows stored, some of them past the checkpoint it resumes from, likely.
  ASSERT_TRUE(WaitForStoredRows(*site.client, data, *id)) << "no rows stored while it ran";
  ASSERT_TRUE(WaitForTime(*site.client, *id, 5.0)) << "the job ended before the fault";
  EXPECT_GT(StoredRows(data, *id), 0u);
  const int pid = BusyWorkerPid(*site.client, *id);
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  absl::StatusOr<v1::JobStatus> status = site.client->Watch(*id, nullptr, 50);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->state(), v1::SUCCEEDED) << status->message();
  const std::string log = site.orchestrator->process().log();
  EXPECT_THAT(log, HasSubstr("resumes from its checkpoint at t="));
  EXPECT_THAT(log, HasSubstr("its master there"));
  absl::StatusOr<client::JobResults> results = site.client->Results(*id);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_THAT(results->metadata.master(), StartsWith("worker w"));
  EXPECT_EQ(Csv(*results), Csv(testing::InProcess(scenario)));
}

TEST(MasterInWorkerTest, KilledWorkerResumesFromItsCheckpointAsAFaultFreeRun) {
  const std::string data = testing::TempDir("cosimo-miw-kill-data");
  Site site(
      "cosimo-miw-kill",
      {"--unschedulable-timeout-s", "30", "--max-recorded-rows", "100000", "--data-dir", data}, 2);
  // Long enough (60,000 steps) to be killed mid-run at its in-process speed; a checkpoint every
  // 1 s of simulated time.
  ExpectAKilledWorkersJobToEndAsTheFaultFreeRun(
      site, data, DualMass("NEWTON", R"("checkpoint_every": 100,)", 100.0, 600.0));
}

// Issue 40: a checkpoint bigger than --checkpoint-part-kb travels in parts, both ways: the
// worker's checkpoints to the orchestrator, and the one the other worker resumes from. With parts
// of 1 KiB (the dual-mass oscillator's checkpoints are a few KiB), the job ends as the fault-free
// run, byte for byte.
TEST(MasterInWorkerTest, CheckpointsBiggerThanAPartTravelInPartsBothWays) {
  const std::string data = testing::TempDir("cosimo-miw-parts-data");
  Site site("cosimo-miw-parts",
            {"--unschedulable-timeout-s", "30", "--max-recorded-rows", "100000", "--data-dir", data,
             "--checkpoint-part-kb", "1", "--log-level", "debug"},
            2);
  ExpectAKilledWorkersJobToEndAsTheFaultFreeRun(
      site, data, DualMass("NEWTON", R"("checkpoint_every": 100,)", 100.0, 600.0));
  const std::string log = site.orchestrator->process().log();
  EXPECT_THAT(log, HasSubstr("came in parts"));
  EXPECT_THAT(log, HasSubstr("in parts ("));
  EXPECT_THAT(log, HasSubstr("sent to worker"));
}

// kill -9 of the orchestrator while its worker runs the job: restarted on the same address and
// data directory, it resumes the job from its checkpoint once the worker re-attaches.
TEST(MasterInWorkerTest, KilledOrchestratorResumesTheJobAfterARestart) {
  const std::string dir = testing::TempDir("cosimo-miw-restart");
  const std::string data = dir + "/data";
  auto first = std::make_unique<OrchestratorProcess>(
      dir, std::vector<std::string>{"--data-dir", data, "--heartbeat-interval-ms", "100"});
  ASSERT_GT(first->port(), 0) << first->process().log();
  const std::string address = first->address();
  Process worker({testing::BinDir() + "/cosimo-worker", "--orchestrator", address, "--slots", "2",
                  "--reconnect-ms", "100", "--cache-dir", dir + "/cache"},
                 dir + "/worker.log");
  const v1::Scenario scenario = DualMass("NEWTON", R"("checkpoint_every": 100,)", 100.0, 600.0);
  std::string id;
  {
    client::Client client(address);
    absl::StatusOr<std::string> job = client.Submit(scenario);
    ASSERT_TRUE(job.ok()) << job.status();
    id = *job;
    ASSERT_TRUE(WaitForTime(client, id, 5.0)) << "the job ended before the fault";
  }
  EXPECT_THAT(first->process().log(), HasSubstr("its master there"));
  first->process().Signal(SIGKILL);
  first->process().Wait(std::chrono::seconds(5));
  Process restarted(
      {testing::BinDir() + "/cosimo-orchestrator", "--listen", address, "--data-dir", data},
      dir + "/orchestrator2.log");
  client::Client client(address);
  absl::StatusOr<v1::JobStatus> status = testing::WatchOnceItAnswers(client, id);
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->state(), v1::SUCCEEDED) << status->message();
  EXPECT_THAT(restarted.log(), HasSubstr("resumes from its checkpoint at t="));
  absl::StatusOr<client::JobResults> results = client.Results(id);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(Csv(*results), Csv(testing::InProcess(scenario)));
}

TEST(MasterInWorkerTest, CancelStopsTheRunAndTheWorkerServesTheNextJob) {
  Site site("cosimo-miw-cancel", {"--max-recorded-rows", "100000000"});
  v1::Scenario slow = Car("JACOBI");
  slow.set_stop_time(1e6);
  absl::StatusOr<std::string> id = site.client->Submit(slow);
  ASSERT_TRUE(id.ok()) << id.status();
  ASSERT_TRUE(WaitForTime(*site.client, *id, 0.5));
  const auto asked = std::chrono::steady_clock::now();
  ASSERT_TRUE(site.client->Cancel(*id).ok());
  absl::StatusOr<v1::JobStatus> status = site.client->Watch(*id, nullptr, 50);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::CANCELED) << status->message();
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(3));
  std::string next;
  const v1::JobStatus done = site.Run(Car("JACOBI"), &next);
  EXPECT_EQ(done.state(), v1::SUCCEEDED) << done.message();
}

}  // namespace
}  // namespace cosimo
