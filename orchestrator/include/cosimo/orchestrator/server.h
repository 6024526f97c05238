// The orchestrator server: JobService (clients), WorkerService (workers attach), ArtifactService
// (uploads and fetches), the standard gRPC health service and server reflection, on one port;
// optionally an HTTP port with Prometheus metrics and a web page of the jobs and workers.
// With a data directory, jobs, results and artifacts survive restarts; without one they live in
// memory and a temporary folder (the embedded `cosimo run`).
//
// Thread safety: Start, then any thread may call port()/Shutdown().
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace grpc {
class Channel;
}  // namespace grpc

namespace cosimo::orchestrator {

// What one job, and one client, may ask of the orchestrator (ServerOptions; each a flag of
// cosimo-orchestrator, named by the error that refuses a job over it).
struct JobLimits {
  uint64_t max_scenario_bytes = uint64_t{16} << 20;  // serialized; --max-scenario-kb
  int max_units = 1024;                              // --max-units-per-job
  int max_queued_per_client = 1000;                  // --max-queued-jobs-per-client
  // Rows of results (communication points): a job fails when it records one more (checked as
  // it runs, not at submission: a job may run until it is canceled). --max-recorded-rows
  uint64_t max_recorded_rows = 10'000'000;
  // Variants of one sweep job (checked at submission), as cosimo sweep's --max-sweep-variants.
  uint64_t max_sweep_variants = 100'000;
};

struct ServerOptions {
  std::string listen = "0.0.0.0:7700";  // HOST:PORT; port 0 picks a free one (see port())
  std::string data_dir;                 // empty: in memory, artifacts in a temporary folder
  std::chrono::milliseconds heartbeat_interval{1000};  // what workers are asked to send
  std::chrono::milliseconds heartbeat_timeout{10000};  // silence after which a worker is lost
  // TLS (cosimo/common/security.h): PEM certificate chain and private key; both or neither.
  std::string tls_cert_file;
  std::string tls_key_file;
  // PEM certificates that must sign every worker's client certificate (mutual TLS; needs
  // tls_cert_file). Clients of the job service need none. Empty: workers show no certificate.
  std::string tls_client_ca_file;
  // A file holding the token every client (and, without worker_token_file, every worker) must
  // send; needs TLS. Empty: no token.
  std::string token_file;
  // A file naming each client and its token, "NAME TOKEN [admin]" a line
  // (orchestrator/src/tokens_file.h); needs TLS, and workers' tokens from worker_token_file
  // or token_file. A job records its submitter's name as its owner; only the owner or an admin
  // may cancel or delete it. With token_file too, that token's holder is the admin "default".
  std::string tokens_file;
  // A file holding the token workers must send instead (needs token_file or tokens_file, and
  // must differ from every client's): clients' tokens then cannot attach as a worker, nor the
  // workers' call the job service.
  std::string worker_token_file;
  // Artifacts that no job names and that nobody used for this long are removed (at start, then
  // periodically), and so are uploads abandoned that long ago. Zero: kept forever.
  std::chrono::seconds artifact_retention{24 * 3600};
  // Finished jobs (succeeded, failed, canceled) are deleted, with their results, this long after
  // they ended (at start, then periodically). Zero: kept until a client deletes them.
  std::chrono::seconds job_retention{0};
  // A queued job that needs more workers than are attached (busy or idle, with matching labels)
  // fails once that has lasted this long: it says so while it waits. Zero: it waits forever.
  std::chrono::seconds unschedulable_timeout{120};
  // A running job checkpoints its units' and its master's state this often (besides the
  // scenario's algorithm.checkpoint_every), so that it resumes after losing a worker or the
  // orchestrator (docs/deployment.md). Zero: only by the scenario's steps.
  std::chrono::seconds checkpoint_interval{60};
  // How often one job resumes from its checkpoint after losing a worker before it fails (0: never).
  int max_resumptions = 3;
  // A simulation job whose units all sit on one worker runs its master in that worker's process
  // (one message per job and progress report instead of a round trip per macro step); false:
  // every job runs its master here, unit by unit over the workers' streams (docs/deployment.md).
  bool master_in_worker = true;
  // A checkpoint of such a job bigger than this travels between the worker and here in parts
  // (a large model's units' states can pass the message limits). Zero: 4 MiB.
  uint64_t checkpoint_part_bytes = 0;
  // The largest artifact an upload may announce; bigger ones are refused before any byte is
  // written.
  uint64_t max_upload_bytes = uint64_t{4} << 30;
  // The largest gRPC message the port receives (a submitted scenario, an upload chunk, a
  // worker's reply with its outputs); gRPC refuses a larger one with RESOURCE_EXHAUSTED.
  uint64_t max_message_bytes = uint64_t{64} << 20;
  // What one job and one client may ask (scenario size, units, queued jobs, recorded rows).
  JobLimits limits;
  // How long a job waits for a unit's reply to one command (a step, a load) before it fails and
  // gives the worker up. Zero: no limit.
  std::chrono::seconds command_timeout{600};
  // HOST:PORT of the HTTP port (metrics, the web page; orchestrator/src/http/http_server.h),
  // with the same token and TLS as the gRPC port; port 0 picks a free one (see http_port()).
  // Empty: no HTTP port.
  std::string http_listen;
  // The HTTP port's bounds (orchestrator/src/http/mhd_server.h): connections open at once (more
  // wait in the listen backlog), connections from one client address (more are closed), and
  // the time a connection has to send a whole request head (after it opened, or after its last
  // answer); a slow client holds a socket, never one of the port's threads.
  unsigned http_max_connections = 64;
  unsigned http_max_connections_per_client = 8;
  std::chrono::seconds http_request_timeout{10};
};

class OrchestratorServer {
 public:
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<OrchestratorServer>> Start(
      const ServerOptions& options);
  ~OrchestratorServer();

  int port() const;
  // The HTTP port, 0 without ServerOptions::http_listen.
  int http_port() const;
  // "127.0.0.1:<port>"-style address clients on this machine can dial.
  std::string local_address() const;
  // A channel to this server from inside its process: no socket, and no TLS or token checked
  // (for the process's own client: `cosimo run`'s). It receives messages of up to 64 MiB.
  std::shared_ptr<grpc::Channel> InProcessChannel() const;
  void Shutdown();
  // Re-reads --token-file, --tokens-file and --worker-token-file with the checks of the start:
  // from then on every call and every new worker stream is checked against the new tokens
  // (streams already attached and calls already checked go on). Returns how many client tokens
  // there are; an error (naming the flag, the file and the line) leaves the tokens as they were.
  // cosimo-orchestrator calls it on SIGHUP.
  [[nodiscard]] absl::StatusOr<size_t> ReloadTokens();
  // Blocks until Shutdown() from another thread.
  void Wait();

  class Impl;

 private:
  explicit OrchestratorServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosimo::orchestrator
