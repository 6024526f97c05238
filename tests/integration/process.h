// Test helpers: real cosimo processes (orchestrator, workers, the CLI) started with fork/exec,
// their output captured to files, and stopped when the helper goes out of scope.
#pragma once

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace cosimo::testing {

inline std::string BinDir() { return std::string(COSIMO_BINARY_DIR) + "/bin"; }

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `text` to `path`, creating its folder.
inline void WriteFile(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

// Removes the folders TempDir made when the test program ends with every test passed; after a
// failure they stay, for their logs (and the failure's output names them). Every test program
// is one test under CTest (gtest_discover_tests), so a run of the suite no longer leaves
// thousands of folders and gigabytes in /tmp.
class TempDirCleaner : public ::testing::EmptyTestEventListener {
 public:
  static std::vector<std::string>& Dirs() {
    static std::vector<std::string> dirs;
    return dirs;
  }
  void OnTestProgramEnd(const ::testing::UnitTest& unit_test) override {
    for (const std::string& dir : Dirs()) {
      if (unit_test.Passed()) {
        std::error_code ignored;
        std::filesystem::remove_all(dir, ignored);
      } else {
        std::cerr << "kept for a look: " << dir << "\n";
      }
    }
    Dirs().clear();
  }
};

inline std::string TempDir(const std::string& name) {
  static const bool installed = [] {
    ::testing::UnitTest::GetInstance()->listeners().Append(new TempDirCleaner);
    return true;
  }();
  (void)installed;
  std::string pattern = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) return "/tmp";
  TempDirCleaner::Dirs().push_back(pattern);
  return pattern;
}

class Process {
 public:
  // Starts `argv` (argv[0] is the program path) with stdout and stderr to `log_path`.
  Process(std::vector<std::string> argv, std::string log_path) : log_path_(std::move(log_path)) {
    const pid_t parent = getpid();
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      FILE* log = std::fopen(log_path_.c_str(), "w");
      if (log != nullptr) {
        dup2(fileno(log), 1);
        dup2(fileno(log), 2);
      }
      std::vector<char*> args;
      for (std::string& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
  }
  ~Process() { Stop(); }
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  pid_t pid() const { return pid_; }
  std::string log() const { return ReadFile(log_path_); }

  // Waits up to `timeout` for the process to exit; returns its exit code, or -1 if it is still
  // running, or 128 + signal if killed.
  int Wait(std::chrono::milliseconds timeout) {
    if (exited_) return code_;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      int status = 0;
      const pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) {
        exited_ = true;
        code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return code_;
      }
      if (std::chrono::steady_clock::now() > deadline) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  void Signal(int sig) {
    if (!exited_) kill(pid_, sig);
  }

  void Stop() {
    if (exited_ || pid_ <= 0) return;
    kill(pid_, SIGTERM);
    if (Wait(std::chrono::seconds(5)) < 0) {
      kill(pid_, SIGKILL);
      Wait(std::chrono::seconds(5));
    }
  }

 private:
  std::string log_path_;
  pid_t pid_ = -1;
  bool exited_ = false;
  int code_ = -1;
};

// `n` cosimo-workers dialing `address` that reconnect every 100 ms when their orchestrator
// restarts, logging to `dir`/worker<i>.log.
inline std::vector<std::unique_ptr<Process>> ReconnectingWorkers(const std::string& address,
                                                                 const std::string& dir, int n) {
  std::vector<std::unique_ptr<Process>> workers;
  for (int i = 0; i < n; ++i) {
    workers.push_back(std::make_unique<Process>(
        std::vector<std::string>{BinDir() + "/cosimo-worker", "--orchestrator", address,
                                 "--reconnect-ms", "100"},
        dir + "/worker" + std::to_string(i) + ".log"));
  }
  return workers;
}

// The port a program wrote to `path` (a line), once it did (at most 10 s); 0 if it did not.
inline int ReadPort(const std::string& path) {
  for (int i = 0; i < 1000; ++i) {
    const std::string text = ReadFile(path);
    if (text.find('\n') != std::string::npos) return std::stoi(text);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

// A cosimo-orchestrator on a free loopback port.
class OrchestratorProcess {
 public:
  explicit OrchestratorProcess(const std::string& dir, std::vector<std::string> extra = {}) {
    const std::string port_file = dir + "/port";
    std::filesystem::remove(port_file);
    std::vector<std::string> argv = {BinDir() + "/cosimo-orchestrator", "--listen", "127.0.0.1:0",
                                     "--port-file", port_file};
    argv.insert(argv.end(), extra.begin(), extra.end());
    process_ = std::make_unique<Process>(argv, dir + "/orchestrator.log");
    for (int i = 0; i < 1000 && port_ == 0; ++i) {
      const std::string text = ReadFile(port_file);
      if (text.find('\n') != std::string::npos) port_ = std::stoi(text);
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  int port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  Process& process() { return *process_; }

 private:
  std::unique_ptr<Process> process_;
  int port_ = 0;
};

}  // namespace cosimo::testing
