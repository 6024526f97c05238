#include "cosimo/worker/worker_main.h"

#include <grpc/grpc.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <spdlog/spdlog.h>

#include <pthread.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "cosimo/common/command_line.h"
#include "cosimo/common/process.h"
#include "cosimo/common/status.h"
#include "cosimo/fmi/fmu_archive.h"
#include "cosimo/units/unit_factory.h"
#include "cosimo/units/unit_log.h"
#include "cosimo/worker/crash_report.h"
#include "cosimo/worker/worker_client.h"

namespace {

// The first line of descriptor `fd` (without its newline; empty at its end), then closed.
std::string ReadLine(int fd) {
  std::string line;
  char c = 0;
  while (true) {
    const ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\n') break;
    line.push_back(c);
  }
  close(fd);
  return line;
}

// Serves the orchestrator until the stream ends or a signal in `signals` asks to stop, then ends
// the process. The unpacked FMUs' folders are removed first; nothing else needs an orderly end
// once the stream is closed (gRPC's threads, the static objects), and ending them one by one took
// longer than a short job's whole run (issue 40): the process exits without.
[[noreturn]] void Serve(const cosimo::worker::WorkerOptions& options, sigset_t signals) {
  cosimo::worker::WorkerClient client(options);
  std::thread([&client, signals] {
    int signal = 0;
    sigwait(&signals, &signal);
    spdlog::info("signal {}: shutting down", signal);
    client.Shutdown();
  }).detach();
  const absl::Status status = client.Run();
  if (!status.ok()) spdlog::error("{}", status.message());
  cosimo::units::SetFmuCacheSize(0);
  spdlog::shutdown();
  std::fflush(nullptr);
  _exit(status.ok() ? 0 : 1);
}

// The command line's values beside WorkerOptions.
struct CommandLine {
  cosimo::worker::WorkerOptions options;
  uint64_t cache_max_mb = 0;
  size_t fmu_cache = cosimo::units::kDefaultFmuCacheSize;
  int threads = 0;
  std::string cpus;
  int orchestrator_fd = -1;
  std::string crash_file;
  bool health_check = false;
  int health_max_age_s = 30;
  bool keep_output = false;
  cosimo::LogOptions log;
};

// cosimo-worker's options into `c` (its defaults from the environment first).
void AddOptions(CLI::App& app, CommandLine& c) {
  cosimo::worker::WorkerOptions& options = c.options;
  const char* env = std::getenv("COSIMO_ORCHESTRATOR");
  if (env != nullptr && *env != '\0') options.orchestrator = env;
  app.add_option("--orchestrator", options.orchestrator,
                 "orchestrator address HOST:PORT (default: $COSIMO_ORCHESTRATOR, else "
                 "localhost:7700)");
  app.add_option("--label", options.labels, "worker label units can be pinned to (repeatable)");
  app.add_option("--host", options.host, "host name to report (default: this machine's)");
  app.add_option("--cache-dir", options.cache_dir, "artifact cache directory");
  c.cache_max_mb = options.cache_max_bytes >> 20;
  app.add_option("--cache-max-mb", c.cache_max_mb,
                 "artifact cache limit, MiB: the least recently used artifacts go")
      ->capture_default_str()
      ->check(cosimo::Within(0, 1 << 30));
  options.security = cosimo::ClientSecurityFromEnvironment();
  app.add_option("--tls-ca", options.security.tls_ca_file,
                 "dial TLS, trusting the PEM certificates in this file (default: $COSIMO_TLS_CA)");
  app.add_option("--token-file", options.security.token_file,
                 "send the token in this file (default: $COSIMO_TOKEN_FILE; needs --tls-ca)");
  app.add_option("--tls-cert", options.security.tls_cert_file,
                 "show this PEM client certificate chain to the orchestrator (mutual TLS; with "
                 "--tls-key and --tls-ca)");
  app.add_option("--tls-key", options.security.tls_key_file, "the PEM private key of --tls-cert");
  app.add_flag("--once", options.once, "exit when the connection ends instead of reconnecting");
  app.add_option("--reconnect-ms", options.reconnect_ms,
                 "first wait between connection attempts, ms")
      ->capture_default_str()
      ->check(cosimo::Within(1, 3600e3));
  app.add_option("--fmu-cache", c.fmu_cache,
                 "unpacked FMUs kept loaded between the units made from one file (a sweep's "
                 "variants), 0: unpack each unit's FMU anew")
      ->capture_default_str()
      ->check(cosimo::Within(0, 4096));
  app.add_option("--slots", options.slots,
                 "how many units this worker hosts at once; the units of a job on one worker get "
                 "one message per step")
      ->check(cosimo::Within(1, 4096))
      ->capture_default_str();
  app.add_option("--threads", c.threads,
                 "threads that step the units of one message (default: the smaller of --slots and "
                 "this machine's cores)")
      ->check(cosimo::Within(1, 4096));
  app.add_option("--cpus", c.cpus,
                 "run only on these CPUs, as taskset -c takes them (0, 2-3, 0,2-3); --threads "
                 "then defaults to at most as many threads as CPUs");
  app.add_option("--protocol-version", options.protocol_version, "for tests only")->group("");
  app.add_option("--orchestrator-fd", c.orchestrator_fd,
                 "read the orchestrator's address from this descriptor (one line) instead, "
                 "waiting for it: `cosimo run` starts its worker while its orchestrator starts")
      ->group("");
  if (const char* health = std::getenv("COSIMO_WORKER_HEALTH_FILE"); health != nullptr) {
    options.health_file = health;
  }
  app.add_option("--health-file", options.health_file,
                 "write this file while attached, at every heartbeat; removed when the connection "
                 "ends (default: $COSIMO_WORKER_HEALTH_FILE)");
  app.add_option("--crash-file", c.crash_file,
                 "when a unit's code kills the worker with a signal (SIGSEGV...), write what it "
                 "ran to this file; the next worker started with it reports that to the "
                 "orchestrator, which names the crash in the job (give each worker its own; "
                 "default: $COSIMO_WORKER_CRASH_FILE, else none)");
  if (const char* crash = std::getenv("COSIMO_WORKER_CRASH_FILE"); crash != nullptr) {
    c.crash_file = crash;
  }
  app.add_flag("--health-check", c.health_check,
               "check another worker's health file instead of running: exit 0 if it was written "
               "within --health-max-age-s, else 1");
  app.add_option("--health-max-age-s", c.health_max_age_s, "for --health-check, seconds")
      ->capture_default_str()
      ->check(cosimo::Within(1, 365.0 * 86400));
  app.add_flag("--no-capture-output", c.keep_output,
               "leave what the units print on the worker's own standard output and error "
               "(default: each job's log has it, with the units' FMI log messages: cosimo logs)");
  cosimo::AddLogOptions(app, c.log);
}

}  // namespace

namespace cosimo::worker {

int WorkerMain(int argc, char** argv) {
  cosimo::SetUpProcess();
  CLI::App app{"cosimo-worker: runs simulation units for a Cosimo orchestrator"};
  CommandLine c;
  AddOptions(app, c);
  cosimo::worker::WorkerOptions& options = c.options;
  if (const int code = cosimo::ParseCommandLine(app, argc, argv); code >= 0) return code;
  // Before any thread starts, so that every thread of the worker inherits the CPUs.
  int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!c.cpus.empty()) {
    absl::StatusOr<std::vector<int>> list = cosimo::ParseCpuList(c.cpus, "--cpus");
    absl::Status pinned = list.ok() ? cosimo::PinToCpus(*list, "--cpus") : list.status();
    if (!pinned.ok()) {
      std::cerr << "cosimo-worker: " << pinned.message() << "\n";
      return 2;
    }
    cores = static_cast<int>(list->size());
  }
  if (c.health_check) {
    const absl::Status health = cosimo::worker::CheckHealthFile(
        options.health_file, std::chrono::seconds(c.health_max_age_s));
    std::cout << (health.ok() ? "healthy" : health.message()) << "\n";
    return health.ok() ? 0 : 1;
  }
  options.cache_max_bytes = c.cache_max_mb << 20;
  cosimo::units::SetFmuCacheSize(c.fmu_cache);
  // The units' FMI log messages, and what they print, go to their jobs' logs (unit_log.h).
  cosimo::units::EnableUnitLog();
  if (!c.keep_output) {
    c.log.fd = cosimo::units::CaptureOutput();
    if (c.log.fd < 0) std::perror("cosimo-worker: the units' output stays here");
  }
  if (absl::Status s = cosimo::SetUpLogging("cosimo-worker", c.log); !s.ok()) {
    std::cerr << s.message() << "\n";
    return 2;
  }
  options.threads = std::min(options.slots, c.threads > 0 ? c.threads : cores);
  options.crash = cosimo::worker::TakeCrashReport(c.crash_file);
  cosimo::worker::InstallCrashReport(c.crash_file, c.log.fd >= 0 ? c.log.fd : STDERR_FILENO);

  // SIGINT/SIGTERM are handled on a thread of their own (sigwait), so that shutting down can
  // take locks safely; every other thread inherits the blocked mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  // gRPC's own start (its threads, its pollers) before the address comes, not after; its
  // threads inherit the blocked signals. (The process ends with _exit: no grpc_shutdown.)
  grpc_init();
  if (c.orchestrator_fd >= 0) {
    // gRPC's first channel (its core configuration, resolvers, filters: 2-9 ms on this machine)
    // made while the address is awaited, not on the way of the dial, and first: the address may
    // come before what follows is done (issue 40). A channel connects on its first call only:
    // this one never does.
    (void)grpc::CreateChannel("127.0.0.1:1", grpc::InsecureChannelCredentials());
  }
  cosimo::fmi::RemoveAbandonedUnpacksOnce();  // not on the way of the first job
  // OpenSSL is not warmed up here (it was, until issue 40): it checks the digest of a fetched
  // artifact only, and an FMU run before is in the artifact cache, not fetched. Its first use
  // (its configuration, its default provider: 2-3 ms and 75 page faults here) fell in the
  // orchestrator's start, which it slowed down on a machine of two cores.
  if (c.orchestrator_fd >= 0) {
    // Until the address comes, a stop is the descriptor's end (cosimo run closes it).
    options.orchestrator = ReadLine(c.orchestrator_fd);
    if (options.orchestrator.empty()) {
      spdlog::debug("--orchestrator-fd {}: closed before an address came", c.orchestrator_fd);
      return 1;
    }
  }
  Serve(options, signals);
}

}  // namespace cosimo::worker
