// Several machines on one: Linux network namespaces joined by a bridge (docs/deployment.md,
// "Workers on other machines"). The orchestrator runs in one namespace, workers in two others with
// their own addresses, the client in a fourth. The bridge lives in a fifth namespace, so the
// machine's own network is untouched. The test creates and removes everything itself, and is
// skipped where namespaces cannot be made (not root, no iproute2). A host cut off mid-job: a job
// without a checkpoint fails; one with a checkpoint resumes on a spare worker.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "cosimo/common/scenario.h"
#include "tests/integration/process.h"

namespace cosimo {
namespace {

using testing::BinDir;
using ::testing::HasSubstr;
using testing::Process;
using testing::ReadFile;

std::string IpBinary() {
  for (const char* p : {"/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"}) {
    if (access(p, X_OK) == 0) return p;
  }
  return "";
}

class NetnsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ip_ = IpBinary();
    if (ip_.empty()) GTEST_SKIP() << "iproute2 (ip) is not installed";
    if (geteuid() != 0) GTEST_SKIP() << "network namespaces need root";
    id_ = std::to_string(getpid() % 100000);
    dir_ = testing::TempDir("cosimo-netns");
    if (!Ip("netns add " + Ns("sw"))) {
      GTEST_SKIP() << "cannot create network namespaces here (ip netns add failed)";
    }
    created_.push_back(Ns("sw"));
    ASSERT_TRUE(Ip("-n " + Ns("sw") + " link add br0 type bridge"));
    ASSERT_TRUE(Ip("-n " + Ns("sw") + " link set br0 up"));
    const char* hosts[] = {"orch", "w1", "w2", "cli"};
    for (int i = 0; i < 4; ++i) {
      const std::string ns = Ns(hosts[i]);
      ASSERT_TRUE(Ip("netns add " + ns));
      created_.push_back(ns);
      const std::string peer = "vs" + std::to_string(i);
      ASSERT_TRUE(
          Ip("link add eth0 netns " + ns + " type veth peer name " + peer + " netns " + Ns("sw")));
      ASSERT_TRUE(Ip("-n " + ns + " addr add " + Address(i) + "/24 dev eth0"));
      ASSERT_TRUE(Ip("-n " + ns + " link set eth0 up"));
      ASSERT_TRUE(Ip("-n " + ns + " link set lo up"));
      ASSERT_TRUE(Ip("-n " + Ns("sw") + " link set " + peer + " master br0"));
      ASSERT_TRUE(Ip("-n " + Ns("sw") + " link set " + peer + " up"));
    }
  }

  void TearDown() override {
    processes_.clear();  // stop every process before its namespace goes
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) Ip("netns del " + *it);
  }

  std::string Ns(const std::string& host) const { return "cosimo-" + id_ + "-" + host; }
  static std::string Address(int host) { return "10.251.77." + std::to_string(host + 1); }
  std::string OrchestratorAddress() const { return Address(0) + ":7700"; }

  bool Ip(const std::string& args) {
    return std::system((ip_ + " " + args + " >/dev/null 2>&1").c_str()) == 0;
  }

  // Runs `argv` inside namespace `host`; the process is stopped at teardown.
  Process& Start(const std::string& host, std::vector<std::string> argv, const std::string& log) {
    std::vector<std::string> full = {ip_, "netns", "exec", Ns(host)};
    full.insert(full.end(), argv.begin(), argv.end());
    processes_.push_back(std::make_unique<Process>(full, dir_ + "/" + log));
    return *processes_.back();
  }

  Process& StartWorker(const std::string& host, const std::string& label, int n) {
    return Start(host,
                 {BinDir() + "/cosimo-worker", "--orchestrator", OrchestratorAddress(), "--label",
                  label, "--host", host, "--cache-dir", dir_ + "/cache-" + host},
                 "worker-" + host + "-" + std::to_string(n) + ".log");
  }

  // Runs the CLI in the client namespace to completion; returns its exit code and output.
  int Cli(std::vector<std::string> args, std::string* output,
          std::chrono::seconds timeout = std::chrono::seconds(60)) {
    std::vector<std::string> argv = {BinDir() + "/cosimo"};
    argv.insert(argv.end(), args.begin(), args.end());
    Process& p = Start("cli", argv, "cli-" + std::to_string(processes_.size()) + ".log");
    const int code = p.Wait(timeout);
    *output = p.log();
    return code;
  }

  // Polls `cosimo status JOB` until the job runs past simulated time `t` (30 s at most).
  bool RunningPast(const std::string& job, double t) {
    std::string out;
    for (int i = 0; i < 300; ++i) {
      if (Cli({"status", job, "--orchestrator", OrchestratorAddress()}, &out) != 0) return false;
      const size_t at = out.find("time:");
      if (out.find("RUNNING") != std::string::npos && at != std::string::npos &&
          std::stod(out.substr(at + 5)) > t) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  std::string WriteScenario(const std::string& name, double stop_time, bool pinned) {
    absl::StatusOr<v1::Scenario> s =
        LoadScenarioFile(std::string(COSIMO_SOURCE_DIR) + "/examples/car.json");
    EXPECT_TRUE(s.ok());
    s->set_stop_time(stop_time);
    if (pinned) {
      s->mutable_units(0)->set_worker_label("h1");
      s->mutable_units(1)->set_worker_label("h2");
    }
    if (stop_time > 100) s->mutable_algorithm()->set_step_size(1e-3);
    const std::string path = dir_ + "/" + name + ".json";
    std::ofstream(path) << ScenarioToJson(*s);
    return path;
  }

  std::string ip_, id_, dir_;
  std::vector<std::string> created_;
  std::vector<std::unique_ptr<Process>> processes_;
};

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST_F(NetnsTest, WorkersOnTwoHostsThenOneHostCutOff) {
  Start("orch",
        {BinDir() + "/cosimo-orchestrator", "--listen", OrchestratorAddress(),
         "--heartbeat-interval-ms", "200", "--heartbeat-timeout-ms", "2000", "--port-file",
         dir_ + "/port"},
        "orchestrator.log");
  for (int i = 0; i < 500 && ReadFile(dir_ + "/port").find('\n') == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_THAT(ReadFile(dir_ + "/port"), HasSubstr("7700"));
  StartWorker("w1", "h1", 0);
  StartWorker("w1", "h1", 1);
  StartWorker("w2", "h2", 0);

  // 1. A job with one unit on each worker host gives the same CSV as `cosimo run`.
  const std::string car = WriteScenario("car", 10.0, /*pinned=*/true);
  std::string out;
  ASSERT_EQ(Cli({"submit", car, "--orchestrator", OrchestratorAddress()}, &out), 0) << out;
  const std::string job = FirstLine(out);
  ASSERT_THAT(job, HasSubstr("job-"));
  ASSERT_EQ(Cli({"watch", job, "--orchestrator", OrchestratorAddress()}, &out), 0) << out;
  ASSERT_EQ(Cli({"results", job, "--orchestrator", OrchestratorAddress(), "--out",
                 dir_ + "/distributed.csv"},
                &out),
            0)
      << out;
  Process local({BinDir() + "/cosimo", "run", car, "--out", dir_ + "/local.csv"},
                dir_ + "/local.log");
  ASSERT_EQ(local.Wait(std::chrono::seconds(60)), 0) << local.log();
  const std::string distributed_csv = ReadFile(dir_ + "/distributed.csv");
  EXPECT_EQ(std::count(distributed_csv.begin(), distributed_csv.end(), '\n'), 102);
  EXPECT_EQ(distributed_csv, ReadFile(dir_ + "/local.csv"));
  const std::string meta = ReadFile(dir_ + "/distributed.csv.meta.json");
  EXPECT_THAT(meta, HasSubstr("\"host\": \"w1\""));
  EXPECT_THAT(meta, HasSubstr("\"host\": \"w2\""));

  // 2. Host w2 is cut off mid-job: the job fails within the heartbeat timeout, naming the unit,
  // the worker and the time reached.
  const std::string long_car = WriteScenario("long", 2000.0, /*pinned=*/true);
  ASSERT_EQ(Cli({"submit", long_car, "--orchestrator", OrchestratorAddress()}, &out), 0) << out;
  const std::string doomed = FirstLine(out);
  ASSERT_TRUE(RunningPast(doomed, 0.0));  // cut off mid-job, its units stepping
  ASSERT_TRUE(Ip("-n " + Ns("sw") + " link set vs2 down"));
  const auto cut = std::chrono::steady_clock::now();
  const int code = Cli({"watch", doomed, "--orchestrator", OrchestratorAddress()}, &out,
                       std::chrono::seconds(30));
  const auto noticed = std::chrono::steady_clock::now() - cut;
  EXPECT_EQ(code, 1) << out;
  EXPECT_LT(noticed, std::chrono::seconds(6)) << out;
  EXPECT_THAT(out, HasSubstr("FAILED"));
  EXPECT_THAT(out, HasSubstr("unit 'vehicle'"));
  EXPECT_THAT(out, HasSubstr("on host w2"));
  EXPECT_THAT(out, HasSubstr("no heartbeat"));
  EXPECT_THAT(out, HasSubstr("t="));

  // 3. A new job runs on the remaining workers (both on host w1).
  const std::string free_car = WriteScenario("free", 5.0, /*pinned=*/false);
  ASSERT_EQ(Cli({"submit", free_car, "--orchestrator", OrchestratorAddress(), "--wait"}, &out), 0)
      << out;
  EXPECT_THAT(out, HasSubstr("SUCCEEDED"));

  // 4. Host w2 back: a checkpointed job with a unit on it resumes on a spare when w2 is cut off
  // again, and gives the CSV of `cosimo run` byte for byte (issue 18).
  ASSERT_TRUE(Ip("-n " + Ns("sw") + " link set vs2 up"));
  absl::StatusOr<v1::Scenario> resumable =
      LoadScenarioFile(std::string(COSIMO_SOURCE_DIR) + "/examples/car.json");
  ASSERT_TRUE(resumable.ok());
  resumable->set_stop_time(6.0);
  resumable->mutable_algorithm()->set_step_size(1e-3);
  resumable->mutable_algorithm()->set_checkpoint_every(500);
  resumable->mutable_units(0)->set_worker_label("h1");
  resumable->mutable_units(1)->set_worker_label("h2");
  const std::string resumable_path = dir_ + "/resumable.json";
  std::ofstream(resumable_path) << ScenarioToJson(*resumable);
  ASSERT_EQ(Cli({"submit", resumable_path, "--orchestrator", OrchestratorAddress()}, &out), 0)
      << out;
  const std::string resumed = FirstLine(out);
  // Runs once w2's worker has re-attached (its only h2 worker); cut off past a checkpoint.
  ASSERT_TRUE(RunningPast(resumed, 1.0));
  StartWorker("w1", "h2", 2);  // the spare, on host w1
  ASSERT_TRUE(Ip("-n " + Ns("sw") + " link set vs2 down"));
  ASSERT_EQ(Cli({"watch", resumed, "--orchestrator", OrchestratorAddress()}, &out,
                std::chrono::seconds(120)),
            0)
      << out;
  ASSERT_EQ(Cli({"results", resumed, "--orchestrator", OrchestratorAddress(), "--out",
                 dir_ + "/resumed.csv"},
                &out),
            0)
      << out;
  Process local_resumable(
      {BinDir() + "/cosimo", "run", resumable_path, "--out", dir_ + "/resumable-local.csv"},
      dir_ + "/resumable-local.log");
  ASSERT_EQ(local_resumable.Wait(std::chrono::seconds(120)), 0) << local_resumable.log();
  EXPECT_EQ(ReadFile(dir_ + "/resumed.csv"), ReadFile(dir_ + "/resumable-local.csv"));
  EXPECT_THAT(ReadFile(dir_ + "/orchestrator.log"), HasSubstr("resumes from its checkpoint"));
}

}  // namespace
}  // namespace cosimo
