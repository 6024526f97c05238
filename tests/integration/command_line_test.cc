// The command line's small promises (README, "The command line"): --version, --log-level after
// the verb, --out - for standard output, the metadata's contents, `cosimo workers`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "cosimo/client/client.h"
#include "cosimo/common/process.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/version.h"
#include "tests/integration/fixture.h"
#include "tests/integration/process.h"

namespace cosimo::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(CommandLineTest, EveryProgramPrintsItsVersion) {
  const std::string dir = TempDir("cosimo-version");
  for (const std::string program : {"cosimo", "cosimo-orchestrator", "cosimo-worker"}) {
    Process p({BinDir() + "/" + program, "--version"}, dir + "/" + program + ".log");
    EXPECT_EQ(p.Wait(std::chrono::seconds(30)), 0) << program << ": " << p.log();
    EXPECT_EQ(p.log(), program + " " + kVersion + "\n");
  }
}

TEST(CommandLineTest, RunWritesTheCsvToStandardOutputAndTheMetadataWhereAsked) {
  const std::string dir = TempDir("cosimo-stdout");
  // Standard output and standard error in separate files: the CSV must be alone on stdout.
  Process run(
      {"/bin/sh", "-c", "\"$0\" run \"$1\" --out - --metadata \"$2\" --log-level info 2>\"$3\"",
       BinDir() + "/cosimo", std::string(COSIMO_SOURCE_DIR) + "/examples/car.json",
       dir + "/car.meta.json", dir + "/stderr.log"},
      dir + "/stdout.csv");
  ASSERT_EQ(run.Wait(std::chrono::seconds(120)), 0) << ReadFile(dir + "/stderr.log");
  const std::string csv = ReadFile(dir + "/stdout.csv");
  // The shortest form that reads back: 0.1, not 0.10000000000000001.
  EXPECT_THAT(csv, StartsWith("time,vehicle.v,controller.F\n0,0,40000\n0.1,"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 101);
  EXPECT_THAT(ReadFile(dir + "/stderr.log"), HasSubstr("results written to standard output"));
  EXPECT_FALSE(std::filesystem::exists("-.meta.json"));

  const nlohmann::json meta = nlohmann::json::parse(ReadFile(dir + "/car.meta.json"));
  // Counts are numbers, not protobuf's quoted 64-bit integers.
  ASSERT_TRUE(meta["steps_accepted"].is_number_unsigned()) << meta.dump();
  EXPECT_EQ(meta["steps_accepted"].get<uint64_t>(), 100u);
  EXPECT_TRUE(meta["units"][0]["real_integrations"].is_number()) << meta.dump();
  EXPECT_EQ(meta["start_time"].get<double>(), 0.0);
  EXPECT_EQ(meta["stop_time"].get<double>(), 10.0);
  EXPECT_GT(meta["wall_seconds"].get<double>(), 0.0);
  EXPECT_LE(meta["started_unix_ms"].get<int64_t>(), meta["finished_unix_ms"].get<int64_t>());
  EXPECT_EQ(meta["cosimo_version"].get<std::string>(), kVersion);
  ASSERT_EQ(meta["variables"].size(), 2u) << meta.dump();
  EXPECT_EQ(meta["variables"][0]["name"], "vehicle.v");
  EXPECT_EQ(meta["variables"][0]["unit"], "m/s");
  EXPECT_EQ(meta["variables"][0]["causality"], "output");
  EXPECT_EQ(meta["variables"][0]["type"], "real");
  EXPECT_EQ(meta["variables"][1]["name"], "controller.F");
  EXPECT_EQ(meta["variables"][1]["unit"], "N");
  EXPECT_EQ(meta["variables"][1]["causality"], "output");
}

TEST_F(DistributedTest, WorkersVerbListsTheAttachedWorkers) {
  StartWorkers(1);
  // A host name wider than the column's header: the columns still line up (issue 42).
  const std::string host = "sim-b-with-a-host-name-wider-than-its-column.example.org";
  StartWorkers(1, {"--label", "licensed", "--host", host, "--slots", "3"});
  client::Client client(orchestrator_->address());
  // The log level may follow the verb.
  std::string log;
  for (int attempt = 0; attempt < 200; ++attempt) {
    Process workers({BinDir() + "/cosimo", "workers", "--orchestrator", orchestrator_->address(),
                     "--log-level", "debug"},
                    dir_ + "/workers.log");
    ASSERT_EQ(workers.Wait(std::chrono::seconds(30)), 0) << workers.log();
    log = workers.log();
    if (log.find("2 workers") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_THAT(log, HasSubstr("2 workers"));
  EXPECT_THAT(log, HasSubstr("sim-b"));
  EXPECT_THAT(log, HasSubstr("licensed"));
  EXPECT_THAT(log, HasSubstr("idle"));
  EXPECT_THAT(log, HasSubstr(std::to_string(workers_[1]->pid())));
  // The SLOTS column: slots in use of the worker's slots.
  EXPECT_THAT(log, HasSubstr("SLOTS"));
  EXPECT_THAT(log, HasSubstr(" 0/3 "));
  EXPECT_THAT(log, HasSubstr(" 0/1 "));
  // Every row's STATE starts where the header's does.
  std::istringstream lines(log);
  size_t state_at = std::string::npos;
  int rows = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("WORKER ", 0) == 0) state_at = line.find("STATE");
    if (line.find(" idle ") == std::string::npos) continue;
    ASSERT_NE(state_at, std::string::npos) << log;
    EXPECT_EQ(line.find(" idle ") + 1, state_at) << log;
    ++rows;
  }
  EXPECT_EQ(rows, 2) << log;
}

// `cosimo cancel` says what became of the job: CANCELED for a queued one, "cancel requested" for
// a running one, which stops at its next step (issue 42: it printed the state before the cancel).
TEST_F(DistributedTest, CancelSaysWhatTheJobBecame) {
  const std::string scenario = std::string(COSIMO_SOURCE_DIR) + "/examples/car.json";
  auto cli = [&](std::vector<std::string> args, const std::string& name) {
    args.insert(args.begin(), BinDir() + "/cosimo");
    args.insert(args.end(), {"--orchestrator", orchestrator_->address()});
    Process p(args, dir_ + "/" + name + ".log");
    EXPECT_EQ(p.Wait(std::chrono::seconds(60)), 0) << p.log();
    return p.log();
  };
  const std::string queued = cli({"submit", scenario}, "submit1");
  const std::string id = queued.substr(0, queued.find('\n'));
  EXPECT_EQ(cli({"cancel", id}, "cancel1"), id + " CANCELED\n");
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  absl::StatusOr<v1::Scenario> long_car = LoadScenarioFile(scenario);
  ASSERT_TRUE(long_car.ok()) << long_car.status();
  long_car->set_stop_time(1e7);
  absl::StatusOr<std::string> running = client.Submit(*long_car);
  ASSERT_TRUE(running.ok()) << running.status();
  for (int i = 0; i < 400 && client.Get(*running)->state() != v1::RUNNING; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_EQ(client.Get(*running)->state(), v1::RUNNING);
  EXPECT_THAT(cli({"cancel", *running}, "cancel2"), StartsWith(*running + " cancel requested"));
  absl::StatusOr<v1::JobStatus> end = client.Watch(*running, nullptr, 50);
  ASSERT_TRUE(end.ok()) << end.status();
  EXPECT_EQ(end->state(), v1::CANCELED);
}

// An unreachable orchestrator is said first, not as a unit's upload failing; a missing FMU file
// is "file not found" (issue 42).
TEST(CommandLineTest, UnreachableOrchestratorAndMissingFmuAreSaidPlainly) {
  const std::string dir = TempDir("cosimo-plain-errors");
  WriteFile(dir + "/fmu.json", R"({"name": "one", "start_time": 0, "stop_time": 1,
      "units": [{"name": "chassis", "fmu": {"path": ")" +
                                   Fmu("fmi2_msd") + R"("}}],
      "algorithm": {"kind": "JACOBI", "step_size": 0.01}})");
  Process submit(
      {BinDir() + "/cosimo", "submit", dir + "/fmu.json", "--orchestrator", "127.0.0.1:1"},
      dir + "/submit.log");
  EXPECT_EQ(submit.Wait(std::chrono::seconds(60)), 1) << submit.log();
  EXPECT_THAT(submit.log(), StartsWith("cosimo: cannot reach the orchestrator at 127.0.0.1:1"));
  EXPECT_THAT(submit.log(), ::testing::Not(HasSubstr("unit 'chassis'")));
  Process run({BinDir() + "/cosimo", "run", dir + "/missing.fmu"}, dir + "/run.log");
  EXPECT_NE(run.Wait(std::chrono::seconds(60)), 0) << run.log();
  EXPECT_THAT(run.log(), HasSubstr("file not found"));
  EXPECT_THAT(run.log(), ::testing::Not(HasSubstr("zip")));
  std::filesystem::remove_all(dir);
}

TEST_F(DistributedTest, WorkerWithCpusRunsEveryThreadThere) {
  const std::vector<int> allowed = AllowedCpus();
  ASSERT_FALSE(allowed.empty());
  const std::string cpu = std::to_string(allowed.back());
  StartWorkers(1, {"--cpus", cpu});
  client::Client client(orchestrator_->address());
  bool attached = false;
  for (int attempt = 0; attempt < 400 && !attached; ++attempt) {
    absl::StatusOr<std::vector<v1::WorkerStatus>> pool = client.Workers();
    attached = pool.ok() && pool->size() == 1;
    if (!attached) std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  ASSERT_TRUE(attached) << workers_[0]->log();
  // Every thread: gRPC's, the heartbeat's, the signal thread.
  const std::string tasks = "/proc/" + std::to_string(workers_[0]->pid()) + "/task";
  int threads = 0;
  for (const auto& task : std::filesystem::directory_iterator(tasks)) {
    const std::string status = ReadFile(task.path().string() + "/status");
    EXPECT_THAT(status, HasSubstr("Cpus_allowed_list:\t" + cpu + "\n")) << task.path();
    ++threads;
  }
  EXPECT_GT(threads, 2);
}

TEST(CommandLineTest, WorkerRefusesCpusItMayNotUse) {
  const std::string dir = TempDir("cosimo-cpus");
  const std::vector<int> allowed = AllowedCpus();
  ASSERT_FALSE(allowed.empty());
  const std::string beyond = std::to_string(allowed.back() + 1);
  Process worker({BinDir() + "/cosimo-worker", "--cpus", "0," + beyond, "--once"},
                 dir + "/beyond.log");
  EXPECT_EQ(worker.Wait(std::chrono::seconds(30)), 2) << worker.log();
  EXPECT_THAT(worker.log(), HasSubstr("--cpus: CPU " + beyond +
                                      " is not one this process may "
                                      "run on (0"));
  Process typo({BinDir() + "/cosimo-worker", "--cpus", "0-", "--once"}, dir + "/typo.log");
  EXPECT_EQ(typo.Wait(std::chrono::seconds(30)), 2) << typo.log();
  EXPECT_THAT(typo.log(), HasSubstr("--cpus '0-': '0-' is not a CPU number or a range"));
}

std::string TestFmu(const std::string& name) {
  return std::string(COSIMO_BINARY_DIR) + "/fmus/" + name + ".fmu";
}

// A copy of a test FMU whose DefaultExperiment also gives a stepSize.
std::string FmuWithStepSize(const std::string& dir, const std::string& step) {
  const std::string out = dir + "/msd_step.fmu";
  Process python(
      {"/usr/bin/python3", "-c",
       "import sys, zipfile\n"
       "src, dst, step = sys.argv[1:]\n"
       "with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, 'w') as b:\n"
       "    for i in a.infolist():\n"
       "        data = a.read(i)\n"
       "        if i.filename == 'modelDescription.xml':\n"
       "            data = data.replace(b'stopTime=\"10\"', b'stopTime=\"4\" stepSize=\"' + "
       "step.encode() + b'\"')\n"
       "        b.writestr(i, data)\n",
       TestFmu("fmi2_msd"), out, step},
      dir + "/python.log");
  EXPECT_EQ(python.Wait(std::chrono::seconds(30)), 0) << python.log();
  return out;
}

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

// `cosimo run --timings`: the moments of the run on standard error, in the order they happen,
// from the scenario checked to the processes stopped (the results are written while they stop);
// none without the flag.
TEST(SingleFmuTest, TimingsListTheMomentsOfTheRunInOrder) {
  const std::string dir = TempDir("cosimo-timings");
  Process run({BinDir() + "/cosimo", "run", TestFmu("fmi2_msd"), "--stop-time", "0.01", "--step",
               "0.01", "--out", dir + "/msd.csv", "--timings"},
              dir + "/run.log");
  ASSERT_EQ(run.Wait(std::chrono::seconds(120)), 0) << run.log();
  EXPECT_EQ(Lines(ReadFile(dir + "/msd.csv")), 1u + 2u);
  const std::string log = run.log();
  size_t at = log.find("timings (wall, from the start of `cosimo run`):");
  ASSERT_NE(at, std::string::npos) << log;
  // The client's own moments, each after the one before (the orchestrator's two, on its clock
  // in whole ms, fall between them).
  for (const char* moment :
       {"scenario read and checked", "worker processes started",
        "orchestrator listening on 127.0.0.1:", "job submitted (artifacts uploaded)",
        "job's end seen", "results downloaded", "results written", "workers stopped",
        "orchestrator stopped"}) {
    const size_t next = log.find(moment, at);
    ASSERT_NE(next, std::string::npos) << moment << " missing after offset " << at << ":\n" << log;
    at = next;
  }
  EXPECT_THAT(log, HasSubstr("job started on its worker (orchestrator's clock)"));
  EXPECT_THAT(log, HasSubstr("job's results stored (orchestrator's clock)"));

  Process quiet({BinDir() + "/cosimo", "run", TestFmu("fmi2_msd"), "--stop-time", "0.01", "--step",
                 "0.01", "--out", dir + "/quiet.csv"},
                dir + "/quiet.log");
  ASSERT_EQ(quiet.Wait(std::chrono::seconds(120)), 0) << quiet.log();
  EXPECT_THAT(quiet.log(), ::testing::Not(HasSubstr("timings (wall")));
}

// `cosimo run model.fmu`, like `fmpy simulate`: its DefaultExperiment, every output recorded.
TEST(SingleFmuTest, RunsAnFmuOnItsOwnFromItsDefaultExperiment) {
  const std::string dir = TempDir("cosimo-fmu");
  Process run({BinDir() + "/cosimo", "run", TestFmu("fmi2_msd"), "--out", dir + "/msd.csv"},
              dir + "/run.log");
  ASSERT_EQ(run.Wait(std::chrono::seconds(120)), 0) << run.log();
  const std::string csv = ReadFile(dir + "/msd.csv");
  EXPECT_THAT(csv, StartsWith("time,msd.x,msd.v,msd.steps\n0,1,0,"));
  // stopTime 10 and no stepSize: a thousandth of the run, said so.
  EXPECT_EQ(Lines(csv), 1u + 1001u);
  EXPECT_THAT(csv, HasSubstr("\n10,"));
  EXPECT_THAT(run.log(), HasSubstr("a thousandth of the run"));

  // --stop-time and --step override it.
  Process shorter({BinDir() + "/cosimo", "run", TestFmu("fmi2_msd"), "--stop-time", "2", "--step",
                   "0.25", "--out", dir + "/short.csv"},
                  dir + "/short.log");
  ASSERT_EQ(shorter.Wait(std::chrono::seconds(120)), 0) << shorter.log();
  const std::string short_csv = ReadFile(dir + "/short.csv");
  EXPECT_EQ(Lines(short_csv), 1u + 9u);
  EXPECT_THAT(short_csv, HasSubstr("\n0.25,"));
  EXPECT_THAT(short_csv, HasSubstr("\n2,"));

  // The FMU's stepSize when it has one.
  Process stepped(
      {BinDir() + "/cosimo", "run", FmuWithStepSize(dir, "0.5"), "--out", dir + "/stepped.csv"},
      dir + "/stepped.log");
  ASSERT_EQ(stepped.Wait(std::chrono::seconds(120)), 0) << stepped.log();
  EXPECT_EQ(Lines(ReadFile(dir + "/stepped.csv")), 1u + 9u);  // 0, 0.5, ..., 4
}

// `cosimo run model.fmu` with an FMI 1.0 FMU (issue 43): Co-Simulation (an <Implementation>
// element) and Model Exchange (none: CVODE at the DefaultExperiment's tolerance), every output
// recorded (`position` is an alias of x).
TEST(SingleFmuTest, RunsAnFmi1FmuOnItsOwnFromItsDefaultExperiment) {
  const std::string dir = TempDir("cosimo-fmu");
  for (const std::string name : {"fmi1_msd_cs", "fmi1_msd_me"}) {
    Process run({BinDir() + "/cosimo", "run", TestFmu(name), "--out", dir + "/" + name + ".csv"},
                dir + "/" + name + ".log");
    ASSERT_EQ(run.Wait(std::chrono::seconds(120)), 0) << run.log();
    const std::string csv = ReadFile(dir + "/" + name + ".csv");
    EXPECT_THAT(csv, StartsWith("time,msd.x,msd.v,msd.steps,msd.position\n0,1,0,0,1\n")) << name;
    EXPECT_EQ(Lines(csv), 1u + 1001u) << name;
    EXPECT_THAT(csv, HasSubstr("\n10,")) << name;
    if (name == "fmi1_msd_me") {
      EXPECT_THAT(run.log(), HasSubstr("the FMU offers only Model Exchange: solver CVODE, "
                                       "tolerance 1e-06 (DefaultExperiment's)"));
    }
  }
}

// A scenario may leave out stop_time and the step when every FMU has a DefaultExperiment.
TEST(SingleFmuTest, ScenarioWithoutStopTimeOrStepTakesThemFromTheFmus) {
  const std::string dir = TempDir("cosimo-fmu");
  const std::string fmu = FmuWithStepSize(dir, "0.5");
  WriteFile(dir + "/s.json",
            R"({"name": "s", "units": [{"name": "m", "fmu": {"path": "msd_step.fmu"}}],
      "record": ["m.x"]})");
  Process run({BinDir() + "/cosimo", "run", dir + "/s.json", "--out", dir + "/s.csv"},
              dir + "/run.log");
  ASSERT_EQ(run.Wait(std::chrono::seconds(120)), 0) << run.log();
  EXPECT_EQ(Lines(ReadFile(dir + "/s.csv")), 1u + 9u);
  EXPECT_THAT(run.log(), HasSubstr("stop_time 4 from the FMUs' DefaultExperiment (m 4)"));
  EXPECT_THAT(run.log(), HasSubstr("algorithm.step_size 0.5 from the FMUs' DefaultExperiment"));

  // A built-in model has no DefaultExperiment: without a stop time the scenario is refused.
  WriteFile(dir + "/b.json", R"({"units": [{"name": "c", "builtin": {"model": "car_controller"}}],
      "algorithm": {"step_size": 0.1}})");
  Process bad({BinDir() + "/cosimo", "run", dir + "/b.json", "--out", dir + "/b.csv"},
              dir + "/bad.log");
  EXPECT_EQ(bad.Wait(std::chrono::seconds(60)), 2) << bad.log();
  EXPECT_THAT(bad.log(), HasSubstr("stop_time"));
}

class UnschedulableTest : public DistributedTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    return {"--heartbeat-interval-ms", "200", "--unschedulable-timeout-s", "2"};
  }
};

// Needs 2 workers, the pool has 1: the job says so while it waits, then fails.
TEST_F(UnschedulableTest, JobNeedingMoreWorkersThanThePoolHasSaysSoAndFails) {
  StartWorkers(1);
  client::Client client(orchestrator_->address());
  for (int i = 0; i < 200; ++i) {
    absl::StatusOr<std::vector<v1::WorkerStatus>> pool = client.Workers();
    if (pool.ok() && pool->size() == 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  absl::StatusOr<std::string> job = client.Submit(CarScenario(0.1));
  ASSERT_TRUE(job.ok()) << job.status();
  absl::StatusOr<v1::JobStatus> status = client.Get(*job);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::QUEUED);
  EXPECT_THAT(status->message(),
              HasSubstr("cannot be scheduled yet: needs 2 workers, the pool has 1"));
  const auto submitted = std::chrono::steady_clock::now();
  status = client.Watch(*job, nullptr, 50);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::FAILED);
  EXPECT_THAT(status->message(), HasSubstr("cannot be scheduled: needs 2 workers, the pool has 1"));
  EXPECT_GE(std::chrono::steady_clock::now() - submitted, std::chrono::milliseconds(1500));
  // A busy pool is not a small one: with a second worker the next job runs.
  StartWorkers(1);
  absl::StatusOr<std::string> next = client.Submit(CarScenario(0.1));
  ASSERT_TRUE(next.ok()) << next.status();
  status = client.Watch(*next, nullptr, 50);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::SUCCEEDED) << status->message();
}

}  // namespace
}  // namespace cosimo::testing
