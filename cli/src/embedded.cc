#include <fcntl.h>
#include <grpc/grpc.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/client/client.h"
#include "cosimo/client/phase_timer.h"
#include "cosimo/common/digest.h"
#include "cosimo/common/job_state.h"
#include "cosimo/common/process.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "cosimo/orchestrator/server.h"
#include "cosimo/worker/worker_main.h"

namespace cosimo::client {
namespace {

namespace fs = std::filesystem;

// How long a canceled job may take to reach its end before its workers are stopped anyway.
constexpr std::chrono::seconds kCancelGrace{2};
// How often a running job's rows so far are read (FollowJob): the store gets them a chunk of
// rows at a time or every second (JobObserver), so more often would mostly read nothing.
constexpr std::chrono::milliseconds kRowsReadInterval{50};

// A program beside this one (or where `given` or the environment variable `env` says).
std::string ProgramBeside(const std::string& given, const char* env, const char* name) {
  if (!given.empty()) return given;
  if (const char* value = std::getenv(env); value && *value) return value;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / name).string();
}

// The child processes of one embedded run (the orchestrator, the workers); stopped (TERM, then
// KILL) on destruction.
class ChildProcesses {
 public:
  ~ChildProcesses() { StopAll(); }

  // Starts `argv` in a process group of its own: Ctrl-C on the terminal reaches `cosimo run`
  // only, which cancels the job and then stops its children (a worker stopped first would fail
  // the job). The child dies with this process, whatever kills it. `fd` (when >= 0, a
  // close-on-exec descriptor of ours) is the child's descriptor 3; it inherits no other.
  // `stderr_fd` (when >= 0) is its standard error (ChildLog), else it shares ours. With `main`
  // (only when ForkKeepsNoLocks() and gRPC has not started here) the child is a fork of this
  // process that calls `main` with `argv` (argv[0] its name): no second program to load
  // (ForkProcess); else it execs argv[0] (SpawnProcess: no fork of this process's memory).
  absl::StatusOr<pid_t> Spawn(std::vector<std::string> argv, int fd = -1, int stderr_fd = -1,
                              int (*main)(int, char**) = nullptr) {
    const SpawnOptions spawn{
        .stderr_fd = stderr_fd, .fd3 = fd, .death_signal = SIGTERM, .own_process_group = true};
    absl::StatusOr<pid_t> pid = absl::UnknownError("not started");
    if (main != nullptr) {
      pid = ForkProcess(
          [&argv, main] {
            // ps and top name it as the program it runs.
            prctl(PR_SET_NAME, argv[0].c_str());
            std::vector<char*> args;
            for (std::string& a : argv) args.push_back(a.data());
            args.push_back(nullptr);
            return main(static_cast<int>(argv.size()), args.data());
          },
          spawn);
    } else {
      pid = SpawnProcess(std::move(argv), spawn);
    }
    if (pid.ok()) pids_.push_back(*pid);
    return pid;
  }

  // A child that already exited (e.g. exec failed): what it was and how it ended.
  std::string Exited(const char* what) {
    for (pid_t pid : pids_) {
      int status = 0;
      if (waitpid(pid, &status, WNOHANG) == pid) {
        reaped_.push_back(pid);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
          return absl::StrCat(what, " process ", pid, " could not be started");
        }
        return absl::StrCat(what, " process ", pid, " exited early");
      }
    }
    return "";
  }

  // Asks every child to stop (SIGTERM), without waiting; StopAll waits.
  void Terminate() {
    for (pid_t pid : pids_) {
      if (!Reaped(pid) &&
          std::find(terminated_.begin(), terminated_.end(), pid) == terminated_.end()) {
        kill(pid, SIGTERM);
        terminated_.push_back(pid);
      }
    }
  }

  // Terminates every child and waits for them (at most 3 s, then SIGKILL).
  void StopAll() {
    Terminate();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    for (pid_t pid : pids_) {
      if (Reaped(pid) || AwaitExit(pid, deadline)) continue;
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    pids_.clear();
    reaped_.clear();
    terminated_.clear();
  }

 private:
  // Whether child `pid` exited by `deadline`; if so, it is reaped. Woken by its exit (a pidfd),
  // not by polling every millisecond (up to 1 ms late at the end of every run); polls only
  // without pidfds (Linux before 5.3).
  static bool AwaitExit(pid_t pid, std::chrono::steady_clock::time_point deadline) {
    const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (fd >= 0) {
        pollfd exit_fd{.fd = fd, .events = POLLIN, .revents = 0};
        const int ready = poll(&exit_fd, 1, static_cast<int>(std::max<int64_t>(0, left.count())));
        if (ready < 0 && errno == EINTR) continue;
        close(fd);
        if (ready <= 0) return false;
        waitpid(pid, nullptr, 0);  // it has exited: does not block
        return true;
      }
      if (waitpid(pid, nullptr, WNOHANG) != 0) return true;  // reaped here (or not our child)
      if (left.count() <= 0) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  bool Reaped(pid_t pid) const {
    return std::find(reaped_.begin(), reaped_.end(), pid) != reaped_.end();
  }

  std::vector<pid_t> pids_;
  std::vector<pid_t> reaped_;
  std::vector<pid_t> terminated_;
};

// The standard error of an embedded run's children, passed on to ours until Silence(): once
// Ctrl-C stops the run, its end is this program's to tell ("interrupted"), not the warnings and
// errors of the workers it cancels and stops, nor those of the orchestrator (which logs in this
// process: Silence stops this process's log too). Destroyed after the children: Close forwards
// what they wrote last.
class ChildLog {
 public:
  ~ChildLog() { Close(); }

  // The pipe; without it (fd() -1) the children write to ours. Forwarded once Start()ed: after
  // the workers are forked (they must not be forked while another thread runs).
  void Open() {
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return;
    read_ = ends[0];
    write_ = ends[1];
  }
  void Start() {
    if (read_ >= 0) thread_ = std::thread([this] { Forward(); });
  }
  int fd() const { return write_; }
  void Silence() {
    silent_ = true;
    spdlog::set_level(spdlog::level::off);
  }
  // Once every child has exited: the rest forwarded, the thread joined.
  void Close() {
    if (write_ >= 0) close(write_);
    write_ = -1;
    if (thread_.joinable()) thread_.join();
    if (read_ >= 0) close(read_);
    read_ = -1;
  }

 private:
  void Forward() {
    char buffer[4096];
    while (true) {
      const ssize_t n = read(read_, buffer, sizeof(buffer));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // every writer closed it
      if (!silent_) (void)!write(STDERR_FILENO, buffer, static_cast<size_t>(n));
    }
  }

  int read_ = -1;
  int write_ = -1;
  std::atomic<bool> silent_{false};
  std::thread thread_;
};

// The worker processes of one embedded run. Each starts at once and waits, with its process
// loaded, for the orchestrator's address on a socket of ours (cosimo-worker --orchestrator-fd),
// so that it dials the moment the orchestrator listens, while that one starts. Each is a fork of
// this process that runs the worker's main (cosimo/worker/worker_main.h) when nothing here keeps
// that from being safe, else the program `binary` (cosimo-worker).
class WorkerProcesses {
 public:
  ~WorkerProcesses() { StopAll(); }

  // `label`: the worker label of the units it hosts (empty: none), so pinned scenarios run
  // unchanged on one machine; `slots`: how many units it hosts. `binary` empty: forked.
  absl::Status Spawn(const std::string& binary, const EmbeddedOptions& options,
                     const std::string& label, int slots, int stderr_fd) {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
      return absl::ResourceExhaustedError("cannot create a socket pair for a worker");
    }
    std::vector<std::string> argv = {binary.empty() ? "cosimo-worker" : binary,
                                     "--orchestrator-fd",
                                     "3",
                                     "--once",
                                     "--log-level",
                                     options.worker_log_level,
                                     "--log-format",
                                     options.worker_log_format};
    if (!label.empty()) argv.insert(argv.end(), {"--label", label});
    if (slots > 1) argv.insert(argv.end(), {"--slots", std::to_string(slots)});
    absl::StatusOr<pid_t> pid = children_.Spawn(std::move(argv), ends[1], stderr_fd,
                                                binary.empty() ? worker::WorkerMain : nullptr);
    close(ends[1]);
    if (!pid.ok()) {
      close(ends[0]);
      return pid.status();
    }
    sockets_.push_back(ends[0]);
    return absl::OkStatus();
  }

  // Tells every worker where to dial (a worker that died meanwhile is noticed by Exited).
  void Dial(const std::string& address) {
    const std::string line = address + "\n";
    for (int fd : sockets_) (void)send(fd, line.data(), line.size(), MSG_NOSIGNAL);
    CloseSockets();
  }

  std::string Exited() { return children_.Exited("worker"); }
  void Terminate() { children_.Terminate(); }
  // Workers still waiting for an address see their socket close and exit.
  void StopAll() {
    CloseSockets();
    children_.StopAll();
  }

 private:
  void CloseSockets() {
    for (int fd : sockets_) close(fd);
    sockets_.clear();
  }

  ChildProcesses children_;
  std::vector<int> sockets_;  // ours of each worker's pair, until Dial
};

// The run's orchestrator: in this process, its job store in memory, on loopback on a port of its
// choosing; the workers dial it. No unit runs in this process: a unit that crashes takes its
// worker down, not the run. (Until issue 40 it was a cosimo-orchestrator child process: a third
// process to start, load and stop, on the path of every run.)
absl::StatusOr<std::unique_ptr<orchestrator::OrchestratorServer>> StartOrchestrator() {
  orchestrator::ServerOptions server;
  server.listen = "127.0.0.1:0";
  server.heartbeat_interval = std::chrono::milliseconds(500);
  server.heartbeat_timeout = std::chrono::seconds(10);
  return orchestrator::OrchestratorServer::Start(server);
}

}  // namespace

std::vector<EmbeddedWorkers> EmbeddedWorkerPlan(const v1::Scenario& scenario, int max_workers) {
  std::vector<EmbeddedWorkers> plan;
  std::vector<int> units;  // per entry of plan
  for (const v1::Unit& unit : scenario.units()) {
    auto it = std::find_if(plan.begin(), plan.end(), [&](const EmbeddedWorkers& g) {
      return g.label == unit.worker_label();
    });
    if (it == plan.end()) {
      plan.push_back({unit.worker_label(), 1, 1});
      units.push_back(0);
      it = plan.end() - 1;
    }
    ++units[static_cast<size_t>(it - plan.begin())];
  }
  const int total = scenario.units_size();
  for (size_t g = 0; g < plan.size() && max_workers <= 0; ++g) {
    plan[g].slots = units[g];  // one process per label: its jobs' masters run in it (RunJob)
  }
  for (size_t g = 0; g < plan.size() && max_workers > 0; ++g) {
    const int share = static_cast<int>(static_cast<int64_t>(max_workers) * units[g] / total);
    plan[g].processes = std::clamp(share, 1, units[g]);
    plan[g].slots = (units[g] + plan[g].processes - 1) / plan[g].processes;
  }
  return plan;
}

namespace {

// Follow the job by polling, not with a WatchJob stream: a thread of this process blocked in
// a gRPC call takes part in polling the whole process's sockets (gRPC 1.51's epoll1), the
// workers' included, and would pick up their replies and hand them to the job thread, two
// thread wakes per step (the embedded run took 125 us per step against 72-92 us for a
// standalone orchestrator, docs/benchmarks.md). Between short GetJob calls no thread waits
// in gRPC. The first polls come quickly (a short job ends within milliseconds of its submit),
// then every 50 ms. With `long_poll` (one worker process: the job's master runs in it, no step
// crosses a socket) each GetJob waits up to kRowsReadInterval for the job's end, which is then
// seen at once (issue 40: polling saw a short job's end 15 ms late). The rows recorded so far are
// read as the job runs (`held`, at most every kRowsReadInterval), so their download overlaps the
// run rather than following it (issue 40), and once more on a cancel (issue 42). Cancel on request,
// the children's log silenced; notice workers that die before attaching (`workers_failed` says
// which, and the job is canceled).
absl::StatusOr<v1::JobStatus> FollowJob(Client& client, const std::string& job,
                                        const EmbeddedOptions& options, WorkerProcesses& workers,
                                        ChildLog& log, bool long_poll, std::string* workers_failed,
                                        JobResults* held) {
  absl::StatusOr<v1::JobStatus> final_status = absl::UnknownError("not watched");
  bool cancel_sent = false;
  bool cancel_asked = false;
  std::chrono::steady_clock::time_point cancel_time;
  // The job waits while its workers start: that is shown only if it lasts.
  const auto submitted = std::chrono::steady_clock::now();
  std::chrono::microseconds poll{500};
  auto rows_read = submitted;
  while (true) {
    if (!cancel_asked && options.cancel != nullptr && options.cancel->load()) {
      log.Silence();
      if (!cancel_sent) (void)client.ReadMoreResults(job, /*partial=*/true, held);
      if (!cancel_sent) (void)client.Cancel(job);
      cancel_sent = cancel_asked = true;
      cancel_time = std::chrono::steady_clock::now();
    }
    // Asked to cancel: the job ends at its next communication point; a step that takes
    // longer is not waited for (the workers are stopped below).
    if (cancel_asked && std::chrono::steady_clock::now() - cancel_time > kCancelGrace) {
      final_status = absl::CancelledError("the run was canceled");
      break;
    }
    final_status = client.Get(job, long_poll ? kRowsReadInterval : std::chrono::milliseconds(0));
    if (!final_status.ok()) break;
    const v1::JobState state = final_status->state();
    const bool starting = state == v1::QUEUED &&
                          std::chrono::steady_clock::now() - submitted < std::chrono::seconds(3);
    if (options.on_update && !starting) options.on_update(*final_status);
    if (IsFinished(state)) break;
    if (state == v1::RUNNING && std::chrono::steady_clock::now() - rows_read > kRowsReadInterval) {
      // The rest later, if it fails.
      if (client.ReadMoreResults(job, /*partial=*/true, held).ok() && options.on_rows) {
        options.on_rows(*held);
      }
      rows_read = std::chrono::steady_clock::now();
    }
    if (state == v1::QUEUED && !cancel_sent) {
      if (std::string exited = workers.Exited(); !exited.empty()) {
        spdlog::error("{}", exited);
        *workers_failed = exited;
        (void)client.Cancel(job);
        cancel_sent = true;
      }
    }
    if (long_poll) continue;
    std::this_thread::sleep_for(poll);
    poll = std::min<std::chrono::microseconds>(poll * 5 / 4, std::chrono::milliseconds(50));
  }
  return final_status;
}

// What the run gives: the results of a job that succeeded (`held`, its rows read while it ran,
// and the rest), the rows recorded until a cancel asked for (`interrupted`: those held, marked
// so, when it had any), or why it gave none.
absl::StatusOr<JobResults> Outcome(Client& client, const std::string& job,
                                   const absl::StatusOr<v1::JobStatus>& final_status,
                                   const std::string& workers_failed, bool interrupted,
                                   JobResults held, PhaseTimer& timer) {
  if (final_status.ok() && final_status->state() == v1::SUCCEEDED) {
    const uint64_t read_before = held.rows();
    COSIMO_RETURN_IF_ERROR(client.ReadMoreResults(job, /*partial=*/false, &held));
    timer.MarkAt("job started on its worker (orchestrator's clock)",
                 held.metadata.started_unix_ms());
    timer.MarkAt("job's results stored (orchestrator's clock)", held.metadata.finished_unix_ms());
    timer.Mark(absl::StrCat("results downloaded (", read_before, " rows while it ran, ",
                            held.rows() - read_before, " after)"));
    return held;
  }
  if (interrupted && !held.columns.empty()) {  // Ctrl-C while it ran: the rows so far
    const size_t rows = held.rows();
    held.metadata.set_partial(true);
    held.metadata.set_interrupted(true);
    held.metadata.set_interrupted_unix_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::system_clock::now().time_since_epoch())
                                              .count());
    held.metadata.set_interrupted_time(rows > 0 ? held.values[(rows - 1) * held.columns.size()]
                                                : held.metadata.start_time());
    return held;
  }
  if (!final_status.ok()) return final_status.status();
  if (final_status->state() == v1::CANCELED && !workers_failed.empty()) {
    // The cause, not only "canceled before it started" (a 1000-unit run said just that).
    return absl::UnavailableError("the run could not start: " + workers_failed);
  }
  if (final_status->state() == v1::CANCELED) return absl::CancelledError("the run was canceled");
  // The job's own message: its id is this run's private orchestrator's, drawn anew each time
  // (issue 41: a local sweep's failed rows differed from run to run and from the service's
  // table).
  return absl::AbortedError(final_status->message());
}

// The job's log (what its units said through the FMI logger and printed), after the progress:
// the worker kept it off the terminal while the job ran. Its first and last 20 lines.
void PrintJobLog(Client& client, const std::string& job) {
  absl::StatusOr<std::vector<v1::LogEntry>> lines = client.Logs(job);
  if (!lines.ok() || lines->empty()) return;
  constexpr size_t kEnds = 20;
  std::cerr << "the units' log (" << lines->size() << " lines):\n";
  for (size_t i = 0; i < lines->size(); ++i) {
    if (i == kEnds && lines->size() > 2 * kEnds) {
      std::cerr << "  ... " << lines->size() - 2 * kEnds << " lines left out ...\n";
      i = lines->size() - kEnds;
    }
    std::cerr << "  " << FormatLogLine((*lines)[i]) << "\n";
  }
}

// The run's end, its outcome known (`results`) and its client gone: the workers (--once) end on
// the signal (sent when the job's end was seen, else now), and the orchestrator stops on a thread
// of its own, while the results are written (`options.on_results`): the three overlap (on a
// loaded machine the workers' end and the orchestrator's took 20 and 14 ms one after the other).
// The orchestrator is freed on that thread too, and with it gRPC ends in this process (its threads
// joined: 2-5 ms), not after the run (issue 40).
void EndRun(const EmbeddedOptions& options, WorkerProcesses& workers,
            std::unique_ptr<orchestrator::OrchestratorServer>& server,
            absl::StatusOr<JobResults>* results, PhaseTimer& timer) {
  workers.Terminate();
  std::thread orchestrator_stop([&server] {
    server->Shutdown();
    server.reset();
  });
  if (results->ok() && options.on_results) {
    if (absl::Status s = options.on_results(**results); !s.ok()) *results = s;
  }
  workers.StopAll();
  timer.Mark("workers stopped");
  orchestrator_stop.join();
  timer.Mark("orchestrator stopped");
}

}  // namespace

absl::StatusOr<JobResults> RunEmbedded(const v1::Scenario& scenario,
                                       const EmbeddedOptions& options) {
  if (absl::Status s = ValidateScenario(scenario); !s.ok()) return s;
  // The workers are forks of this process unless a program was asked for, or this process
  // already runs threads or gRPC (a test's, a second run's): then they are cosimo-worker.
  const char* asked = std::getenv("COSIMO_WORKER_BINARY");
  const bool fork_workers = options.worker_binary.empty() && (asked == nullptr || *asked == 0) &&
                            grpc_is_initialized() == 0 && ForkKeepsNoLocks();
  const std::string binary =
      fork_workers ? ""
                   : ProgramBeside(options.worker_binary, "COSIMO_WORKER_BINARY", "cosimo-worker");
  if (!fork_workers && access(binary.c_str(), X_OK) != 0) {
    return absl::NotFoundError(
        absl::StrCat("cannot find the program '", binary, "' (set COSIMO_WORKER_BINARY)"));
  }
  PhaseTimer own_timer;
  PhaseTimer& timer = options.timings != nullptr ? *options.timings : own_timer;
  ChildLog log;  // first: destroyed after the children
  log.Open();
  absl::StatusOr<JobResults> results = absl::UnknownError("not run");
  std::unique_ptr<orchestrator::OrchestratorServer> server;
  {
    // The workers first: they load while the orchestrator starts here, and wait for its address.
    WorkerProcesses workers;
    std::vector<EmbeddedWorkers> plan = EmbeddedWorkerPlan(scenario, options.max_workers);
    for (EmbeddedWorkers& group : plan) group.processes *= std::max(1, options.worker_copies);
    for (const EmbeddedWorkers& group : plan) {
      for (int i = 0; i < group.processes; ++i) {
        if (absl::Status s = workers.Spawn(binary, options, group.label, group.slots, log.fd());
            !s.ok()) {
          return s;
        }
      }
    }
    log.Start();
    timer.Mark(fork_workers ? "worker processes started (forked)" : "worker processes started");
    // OpenSSL's first use (2-3 ms: its configuration, its default provider) while the
    // orchestrator starts, not in the upload's digest of the FMUs after it.
    std::thread openssl_warm_up([] { (void)Sha256().Finish(); });
    absl::StatusOr<std::unique_ptr<orchestrator::OrchestratorServer>> started = StartOrchestrator();
    openssl_warm_up.join();
    if (!started.ok()) return started.status();
    server = *std::move(started);
    const std::string address = server->local_address();
    timer.Mark("orchestrator listening on " + address);
    workers.Dial(address);
    auto own_client =
        std::make_unique<Client>(server->InProcessChannel(), address + " (in this process)");
    Client& client = *own_client;
    client.AssumeEmptyStore();  // started for this run
    absl::StatusOr<std::string> job =
        options.submit ? options.submit(client, scenario) : client.Submit(scenario);
    if (!job.ok()) return job.status();
    timer.Mark("job submitted (artifacts uploaded)");
    std::string workers_failed;  // why the job was canceled for want of its workers
    JobResults held;             // its rows, read as it runs
    const absl::StatusOr<v1::JobStatus> final_status =
        FollowJob(client, *job, options, workers, log, plan.size() == 1 && plan[0].processes == 1,
                  &workers_failed, &held);
    timer.Mark("job's end seen (GetJob)");
    // Its workers have nothing left to do once the job ended (its log and its rows are the
    // orchestrator's): they stop while those are read and written, not after (issue 40).
    if (final_status.ok() && IsFinished(final_status->state())) workers.Terminate();
    // Not after Ctrl-C: the run's end is then its one "interrupted" line and its rows.
    const bool interrupted = options.cancel != nullptr && options.cancel->load();
    if (!interrupted) PrintJobLog(client, *job);
    results =
        Outcome(client, *job, final_status, workers_failed, interrupted, std::move(held), timer);
    own_client.reset();  // before EndRun: the orchestrator's stop then ends gRPC here
    EndRun(options, workers, server, &results, timer);
  }
  return results;
}

}  // namespace cosimo::client
