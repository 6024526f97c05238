// Ctrl-C and SIGTERM on the command line (README, "The command line": 130 interrupted). Ctrl-C is
// typed on a pseudo-terminal, so the terminal delivers SIGINT to the whole foreground process
// group, as it does for a user.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "cosimo/client/client.h"
#include "tests/integration/fixture.h"
#include "tests/integration/process.h"

namespace cosimo::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A program on a pseudo-terminal of its own (its controlling terminal), output collected.
class PtyProcess {
 public:
  explicit PtyProcess(std::vector<std::string> argv) {
    struct winsize size = {};
    size.ws_row = 24;
    size.ws_col = 80;
    pid_ = forkpty(&master_, nullptr, nullptr, &size);
    if (pid_ == 0) {
      std::vector<char*> args;
      for (std::string& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    fcntl(master_, F_SETFL, fcntl(master_, F_GETFL) | O_NONBLOCK);
  }
  ~PtyProcess() {
    if (!exited_ && pid_ > 0) {
      kill(pid_, SIGKILL);
      Wait(std::chrono::seconds(5));
    }
    if (master_ >= 0) close(master_);
  }

  pid_t pid() const { return pid_; }

  // Reads what the program wrote so far.
  const std::string& output() {
    char buffer[4096];
    ssize_t n = 0;
    while ((n = read(master_, buffer, sizeof(buffer))) > 0) output_.append(buffer, n);
    return output_;
  }

  bool WaitForOutput(const std::string& text, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (output().find(text) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }

  // Types Ctrl-C: the terminal sends SIGINT to its foreground process group.
  void CtrlC() { (void)write(master_, "\x03", 1); }

  // The exit code, -1 if still running after `timeout`, 128 + signal if killed.
  int Wait(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!exited_) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        break;
      }
      if (std::chrono::steady_clock::now() > deadline) return -1;
      output();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    output();
    return code_;
  }

 private:
  int master_ = -1;
  pid_t pid_ = -1;
  bool exited_ = false;
  int code_ = -1;
  std::string output_;
};

// The processes whose parent is `parent` (from /proc).
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    std::getline(stat, line);
    const size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    char state = 0;
    int ppid = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == parent) {
      children.push_back(std::stoi(name));
    }
  }
  return children;
}

bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t close = line.rfind(')');
  return close != std::string::npos && line[close + 2] != 'Z';
}

// The car example, made to run far longer than any test waits.
std::string EndlessCar(const std::string& dir) {
  std::ifstream in(std::string(COSIMO_SOURCE_DIR) + "/examples/car.json");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string stop = "\"stop_time\": 10.0";
  text.replace(text.find(stop), stop.size(), "\"stop_time\": 1e9");
  WriteFile(dir + "/endless.json", text);
  return dir + "/endless.json";
}

TEST(InterruptTest, CtrlCStopsRunWith130AndStopsItsWorkers) {
  const std::string dir = TempDir("cosimo-interrupt");
  // Two worker processes also on a machine with one core (cosimo run starts one per core).
  PtyProcess run(
      {BinDir() + "/cosimo", "run", EndlessCar(dir), "--out", dir + "/out.csv", "--workers", "2"});
  ASSERT_TRUE(run.WaitForOutput("steps/s", std::chrono::seconds(60))) << run.output();
  // Its children: the two workers (the run's orchestrator is in its own process).
  const std::vector<pid_t> workers = ChildrenOf(run.pid());
  ASSERT_EQ(workers.size(), 2u);
  const auto typed = std::chrono::steady_clock::now();
  run.CtrlC();
  EXPECT_EQ(run.Wait(std::chrono::seconds(20)), 130) << run.output();
  EXPECT_LT(std::chrono::steady_clock::now() - typed, std::chrono::seconds(6));
  EXPECT_THAT(run.output(), HasSubstr("interrupted: keeping the rows recorded so far"));
  EXPECT_THAT(run.output(), Not(HasSubstr("lost")));
  for (pid_t child : workers) EXPECT_FALSE(Alive(child)) << "child " << child;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Issue 42: Ctrl-C keeps the rows recorded so far in --out, the metadata saying it was
// interrupted and when; they are the first rows of the uninterrupted run's CSV, byte for byte
// (that run stopped past them: a fixed-step run's rows do not depend on its stop time before
// it). The log says "interrupted" once, not what the cancel makes the orchestrator and workers
// say.
TEST(InterruptTest, CtrlCOnRunKeepsTheRowsSoFarAPrefixOfTheWholeRun) {
  const std::string dir = TempDir("cosimo-interrupt");
  PtyProcess run({BinDir() + "/cosimo", "run", EndlessCar(dir), "--out", dir + "/out.csv"});
  // Once it ran some steps (its first rows are stored before its progress says so).
  const std::regex ran("t=[0-9.]*[1-9]");
  for (int i = 0; i < 3000 && !std::regex_search(run.output(), ran); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(std::regex_search(run.output(), ran)) << run.output();
  run.CtrlC();
  ASSERT_EQ(run.Wait(std::chrono::seconds(20)), 130) << run.output();
  EXPECT_EQ(Count(run.output(), "interrupted"), 1u) << run.output();
  EXPECT_THAT(run.output(), Not(HasSubstr("Cancelled on the server side")));
  EXPECT_THAT(run.output(), Not(HasSubstr("terminating units")));
  EXPECT_THAT(run.output(), Not(HasSubstr("[error]")));
  EXPECT_THAT(run.output(), Not(HasSubstr("[warning]")));
  EXPECT_THAT(run.output(), HasSubstr("partial results: the rows recorded until t="));
  const std::string kept = ReadFile(dir + "/out.csv");
  const std::string meta = ReadFile(dir + "/out.csv.meta.json");
  EXPECT_THAT(meta, HasSubstr("\"interrupted\": true"));
  EXPECT_THAT(meta, HasSubstr("\"partial\": true"));
  EXPECT_THAT(meta, Not(HasSubstr("\"interrupted_unix_ms\": 0,")));
  // Its last row's time, and the car run to a second past it.
  ASSERT_GT(std::count(kept.begin(), kept.end(), '\n'), 1) << kept;
  const size_t last = kept.rfind('\n', kept.size() - 2) + 1;
  const double reached = std::stod(kept.substr(last, kept.find(',', last) - last));
  const size_t at = meta.find("\"interrupted_time\": ");
  ASSERT_NE(at, std::string::npos) << meta;
  EXPECT_EQ(std::stod(meta.substr(at + 20)), reached) << "the time its last row reached";
  std::string car = ReadFile(dir + "/endless.json");
  const std::string stop = "\"stop_time\": 1e9";
  car.replace(car.find(stop), stop.size(), "\"stop_time\": " + std::to_string(reached + 1.0));
  WriteFile(dir + "/finite.json", car);
  Process whole({BinDir() + "/cosimo", "run", dir + "/finite.json", "--out", dir + "/whole.csv"},
                dir + "/whole.log");
  ASSERT_EQ(whole.Wait(std::chrono::seconds(300)), 0) << whole.log();
  const std::string all = ReadFile(dir + "/whole.csv");
  EXPECT_GT(all.size(), kept.size());
  EXPECT_EQ(all.substr(0, kept.size()), kept);
}

TEST(InterruptTest, SigtermStopsRunWith130) {
  const std::string dir = TempDir("cosimo-interrupt");
  Process run({BinDir() + "/cosimo", "run", EndlessCar(dir), "--out", dir + "/out.csv"},
              dir + "/run.log");
  // Plain progress lines (not a terminal) once the job runs.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (run.log().find("running") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_THAT(run.log(), HasSubstr("running"));
  run.Signal(SIGTERM);
  EXPECT_EQ(run.Wait(std::chrono::seconds(20)), 130) << run.log();
}

class WatchInterruptTest : public DistributedTest {};

// No worker: the job stays queued, as a job waiting for a busy pool does.
TEST_F(WatchInterruptTest, CtrlCStopsSubmitWaitAt130AndLeavesTheJobQueued) {
  PtyProcess submit({BinDir() + "/cosimo", "submit",
                     std::string(COSIMO_SOURCE_DIR) + "/examples/car.json", "--orchestrator",
                     orchestrator_->address(), "--wait"});
  ASSERT_TRUE(submit.WaitForOutput("queued", std::chrono::seconds(30))) << submit.output();
  const std::string job = submit.output().substr(0, submit.output().find_first_of("\r\n"));
  submit.CtrlC();
  EXPECT_EQ(submit.Wait(std::chrono::seconds(5)), 130) << submit.output();
  EXPECT_THAT(submit.output(), HasSubstr("job " + job + " is still running"));
  EXPECT_THAT(submit.output(), HasSubstr("cosimo cancel " + job));
  client::Client client(orchestrator_->address());
  absl::StatusOr<v1::JobStatus> status = client.Get(job);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::QUEUED);
}

TEST_F(WatchInterruptTest, SigtermStopsWatchAt130AndLeavesTheJobRunning) {
  client::Client client(orchestrator_->address());
  absl::StatusOr<std::string> job = client.Submit(CarScenario(0.1));
  ASSERT_TRUE(job.ok()) << job.status();
  Process watch({BinDir() + "/cosimo", "watch", *job, "--orchestrator", orchestrator_->address()},
                dir_ + "/watch.log");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (watch.log().find("queued") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_THAT(watch.log(), HasSubstr("queued"));
  watch.Signal(SIGTERM);
  EXPECT_EQ(watch.Wait(std::chrono::seconds(5)), 130) << watch.log();
  EXPECT_THAT(watch.log(), HasSubstr("cosimo watch " + *job + " follows it again"));
  absl::StatusOr<v1::JobStatus> status = client.Get(*job);
  ASSERT_TRUE(status.ok()) << status.status();
  EXPECT_EQ(status->state(), v1::QUEUED);
}

}  // namespace
}  // namespace cosimo::testing
