// cosimo-orchestrator: the Cosimo server. Accepts jobs from clients and workers that dial in.
//   cosimo-orchestrator --listen HOST:PORT [--data-dir DIR]
//                       [--tls-cert FILE --tls-key FILE [--tls-client-ca FILE] [--token-file FILE]
//                        [--tokens-file FILE] [--worker-token-file FILE]]
//                       [--artifact-retention-hours H] [--job-retention-days D]
//                       [--max-upload-mb MB] [--max-message-mb MB] [--max-scenario-kb KB]
//                       [--max-units-per-job N] [--max-queued-jobs-per-client N]
//                       [--max-recorded-rows N] [--command-timeout-s S]
//                       [--log-level LEVEL] [--log-format text|json] [--http HOST:PORT]
//                       [--http-max-connections N] [--http-max-connections-per-client N]
//                       [--http-request-timeout-s S]
#include <pthread.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <csignal>
#include <fstream>
#include <iostream>
#include <thread>

#include "cosimo/common/command_line.h"
#include "cosimo/common/process.h"
#include "cosimo/common/status.h"
#include "cosimo/orchestrator/server.h"

namespace {

// The options given in other units than ServerOptions keeps, and the port files.
struct RawOptions {
  int heartbeat_timeout_ms = 0;
  int heartbeat_interval_ms = 0;
  double retention_hours = 0;
  double job_retention_days = 0;
  int unschedulable_timeout_s = 0;
  int checkpoint_interval_s = 0;
  double command_timeout_s = 0;
  uint64_t max_upload_mb = 0;
  uint64_t max_message_mb = 0;
  uint64_t max_scenario_kb = 0;
  uint64_t checkpoint_part_kb = 4096;
  std::string http_port_file;
  int http_request_timeout_s = 10;
  std::string port_file;
};

// Listening, workers' heartbeats, TLS and tokens (the defaults are ServerOptions').
void AddServiceOptions(CLI::App& app, cosimo::orchestrator::ServerOptions& options,
                       RawOptions& raw) {
  app.add_option("--listen", options.listen, "address to listen on, HOST:PORT")
      ->capture_default_str();
  app.add_option("--data-dir", options.data_dir,
                 "folder for the job store and artifacts (default: in memory)");
  raw.heartbeat_timeout_ms = static_cast<int>(options.heartbeat_timeout.count());
  raw.heartbeat_interval_ms = static_cast<int>(options.heartbeat_interval.count());
  app.add_option("--heartbeat-timeout-ms", raw.heartbeat_timeout_ms,
                 "silence after which a worker is declared lost, ms")
      ->capture_default_str()
      ->check(cosimo::Within(1, 86400e3));
  app.add_option("--heartbeat-interval-ms", raw.heartbeat_interval_ms,
                 "heartbeat period asked of workers, ms")
      ->capture_default_str()
      ->check(cosimo::Within(1, 3600e3));
  app.add_option("--tls-cert", options.tls_cert_file,
                 "serve TLS with this PEM certificate chain (with --tls-key)");
  app.add_option("--tls-key", options.tls_key_file, "the PEM private key of --tls-cert");
  app.add_option("--tls-client-ca", options.tls_client_ca_file,
                 "require every worker to show a client certificate signed by the PEM "
                 "certificates in this file (mutual TLS; needs --tls-cert)");
  app.add_option("--token-file", options.token_file,
                 "require the token in this file from every client, and from every worker unless "
                 "--worker-token-file is given (needs TLS)");
  app.add_option(
      "--tokens-file", options.tokens_file,
      "a client per line, 'NAME TOKEN [admin]' (# comments): each client's token; a "
      "job records its submitter, and only it or an admin may cancel or delete it "
      "(needs TLS, and --worker-token-file or --token-file for workers); SIGHUP re-reads "
      "the token files");
  app.add_option("--worker-token-file", options.worker_token_file,
                 "require this other token from workers (and refuse the clients' tokens on their "
                 "streams); needs --token-file or --tokens-file");
}

// The HTTP port's flags: where it listens and its bounds on clients (docs/deployment.md).
void AddHttpOptions(CLI::App& app, cosimo::orchestrator::ServerOptions& options, RawOptions& raw) {
  app.add_option("--http", options.http_listen,
                 "serve Prometheus /metrics and the web page on HOST:PORT (same token and TLS as "
                 "the gRPC port; default: off)");
  app.add_option("--http-max-connections", options.http_max_connections,
                 "HTTP connections open at once; more wait until one closes")
      ->capture_default_str()
      ->check(cosimo::Within(1U, 100'000U));
  app.add_option("--http-max-connections-per-client", options.http_max_connections_per_client,
                 "HTTP connections open at once from one client address; more are closed")
      ->capture_default_str()
      ->check(cosimo::Within(1U, 100'000U));
  raw.http_request_timeout_s = static_cast<int>(options.http_request_timeout.count());
  app.add_option("--http-request-timeout-s", raw.http_request_timeout_s,
                 "close an HTTP connection that has not sent a whole request this long after it "
                 "opened or after its last answer, s")
      ->capture_default_str()
      ->check(cosimo::Within(1, 3600));
  app.add_option("--http-port-file", raw.http_port_file,
                 "write the bound HTTP port to this file once listening (useful with port 0)");
}

// Retention, timeouts, limits and the gRPC port file.
void AddLimitOptions(CLI::App& app, cosimo::orchestrator::ServerOptions& options, RawOptions& raw) {
  raw.retention_hours = static_cast<double>(options.artifact_retention.count()) / 3600.0;
  app.add_option("--artifact-retention-hours", raw.retention_hours,
                 "remove artifacts that no job names and nobody used for this long, and "
                 "abandoned uploads (0: keep them forever)")
      ->capture_default_str()
      ->check(cosimo::Within(0.0, 24.0 * 365 * 100));
  raw.job_retention_days = static_cast<double>(options.job_retention.count()) / 86400.0;
  app.add_option("--job-retention-days", raw.job_retention_days,
                 "delete finished jobs and their results this long after they ended (0: keep "
                 "them until a client deletes them)")
      ->capture_default_str()
      ->check(cosimo::Within(0.0, 365.0 * 100));
  raw.unschedulable_timeout_s = static_cast<int>(options.unschedulable_timeout.count());
  app.add_option("--unschedulable-timeout-s", raw.unschedulable_timeout_s,
                 "fail a queued job that needs more workers than are attached (busy or idle, "
                 "matching its labels) once that has lasted this long, s (0: it waits)")
      ->capture_default_str()
      ->check(cosimo::Within(0, 365.0 * 86400));
  raw.checkpoint_interval_s = static_cast<int>(options.checkpoint_interval.count());
  app.add_option("--checkpoint-interval-s", raw.checkpoint_interval_s,
                 "checkpoint every running job this often, s, besides the scenario's "
                 "algorithm.checkpoint_every (0: only by steps); a job resumes from its last "
                 "checkpoint after losing a worker or the orchestrator")
      ->capture_default_str()
      ->check(cosimo::Within(0, 365.0 * 86400));
  app.add_option("--max-resumptions", options.max_resumptions,
                 "how often one job resumes from its checkpoint after losing a worker before it "
                 "fails (0: a lost worker fails the job)")
      ->capture_default_str()
      ->check(cosimo::Within(0, 1e6));
  app.add_option("--master-in-worker", options.master_in_worker,
                 "run the master of a job whose units all sit on one worker in that worker "
                 "(false: every job's master runs here, unit by unit)")
      ->capture_default_str();
  app.add_option("--checkpoint-part-kb", raw.checkpoint_part_kb,
                 "a checkpoint of such a job bigger than this travels between its worker and "
                 "here in parts of this size, KiB (a large model's states can pass the message "
                 "limits)")
      ->capture_default_str()
      ->check(cosimo::Within(1, 1 << 20));
  raw.command_timeout_s = static_cast<double>(options.command_timeout.count());
  app.add_option("--command-timeout-s", raw.command_timeout_s,
                 "fail a job whose unit does not answer one command (a step, a load) within this "
                 "long, s (0: no limit)")
      ->capture_default_str()
      ->check(cosimo::Within(0.0, 365.0 * 86400));
  raw.max_upload_mb = options.max_upload_bytes >> 20;
  app.add_option("--max-upload-mb", raw.max_upload_mb,
                 "refuse uploads of artifacts bigger than this, MiB")
      ->capture_default_str()
      ->check(cosimo::Within(uint64_t{1}, uint64_t{1} << 30));
  raw.max_message_mb = options.max_message_bytes >> 20;
  app.add_option("--max-message-mb", raw.max_message_mb,
                 "refuse gRPC messages bigger than this (a submitted scenario, a worker's reply), "
                 "MiB")
      ->capture_default_str()
      ->check(cosimo::Within(uint64_t{1}, uint64_t{2047}));
  raw.max_scenario_kb = options.limits.max_scenario_bytes >> 10;
  app.add_option("--max-scenario-kb", raw.max_scenario_kb,
                 "refuse scenarios bigger than this (serialized), KiB")
      ->capture_default_str()
      ->check(cosimo::Within(uint64_t{1}, uint64_t{1} << 30));
  app.add_option("--max-units-per-job", options.limits.max_units,
                 "refuse jobs of more units than this")
      ->capture_default_str()
      ->check(cosimo::Within(1, 1 << 20));
  app.add_option("--max-queued-jobs-per-client", options.limits.max_queued_per_client,
                 "refuse a client's submission while it has this many jobs queued (with "
                 "--tokens-file each client counts its own; without, all count together)")
      ->capture_default_str()
      ->check(cosimo::Within(1, 1 << 30));
  app.add_option("--max-recorded-rows", options.limits.max_recorded_rows,
                 "fail a job that records more rows of results than this (it fails when it gets "
                 "there)")
      ->capture_default_str()
      ->check(cosimo::Within(uint64_t{1}, uint64_t{1} << 40));
  app.add_option("--port-file", raw.port_file,
                 "write the bound port to this file once listening (useful with port 0)");
}

// The options given in other units into ServerOptions.
void ApplyOptions(const RawOptions& raw, cosimo::orchestrator::ServerOptions& options) {
  options.max_upload_bytes = raw.max_upload_mb << 20;
  options.checkpoint_part_bytes = raw.checkpoint_part_kb << 10;
  options.max_message_bytes = raw.max_message_mb << 20;
  options.limits.max_scenario_bytes = raw.max_scenario_kb << 10;
  options.heartbeat_timeout = std::chrono::milliseconds(raw.heartbeat_timeout_ms);
  options.heartbeat_interval = std::chrono::milliseconds(raw.heartbeat_interval_ms);
  options.unschedulable_timeout = std::chrono::seconds(raw.unschedulable_timeout_s);
  options.checkpoint_interval = std::chrono::seconds(raw.checkpoint_interval_s);
  // A period that is set stays at least a second (0 means "keep").
  auto period = [](double seconds) {
    return std::chrono::seconds(seconds > 0.0 ? std::max(1LL, std::llround(seconds)) : 0LL);
  };
  options.artifact_retention = period(raw.retention_hours * 3600.0);
  options.job_retention = period(raw.job_retention_days * 86400.0);
  options.command_timeout = period(raw.command_timeout_s);
  options.http_request_timeout = std::chrono::seconds(raw.http_request_timeout_s);
}

// Serves until SIGINT or SIGTERM; SIGHUP re-reads the token files.
int Serve(const cosimo::orchestrator::ServerOptions& options, const RawOptions& raw) {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = cosimo::orchestrator::OrchestratorServer::Start(options);
  if (!server.ok()) {
    spdlog::error("{}", server.status().message());
    return 1;
  }
  if (!raw.port_file.empty()) {
    std::ofstream(raw.port_file) << (*server)->port() << "\n";
  }
  if (!raw.http_port_file.empty()) {
    std::ofstream(raw.http_port_file) << (*server)->http_port() << "\n";
  }
  int signal = 0;
  // SIGHUP: the token files again (a client added or removed, a token rotated), no restart.
  while (sigwait(&signals, &signal) == 0 && signal == SIGHUP) {
    absl::StatusOr<size_t> clients = (*server)->ReloadTokens();
    if (clients.ok()) {
      spdlog::info("SIGHUP: re-read the token files: {} client token(s)", *clients);
    } else {
      spdlog::error("SIGHUP: kept the previous tokens: {}", clients.status().message());
    }
  }
  spdlog::info("signal {}: shutting down", signal);
  (*server)->Shutdown();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  cosimo::SetUpProcess();
  cosimo::KeepFreedMemory();
  CLI::App app{"cosimo-orchestrator: the Cosimo co-simulation server"};
  cosimo::orchestrator::ServerOptions options;
  RawOptions raw;
  AddServiceOptions(app, options, raw);
  AddLimitOptions(app, options, raw);
  AddHttpOptions(app, options, raw);
  cosimo::LogOptions log;
  cosimo::AddLogOptions(app, log);
  if (const int code = cosimo::ParseCommandLine(app, argc, argv); code >= 0) return code;
  ApplyOptions(raw, options);
  if (absl::Status s = cosimo::SetUpLogging("cosimo-orchestrator", log); !s.ok()) {
    std::cerr << s.message() << "\n";
    return 2;
  }
  return Serve(options, raw);
}
