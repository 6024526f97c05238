// The worker process's connection to the orchestrator. It dials out (only the orchestrator
// listens), opens one Attach stream, says Hello, and then serves the units of one job at a time
// (up to `slots`, through a SlotHandler: one CommandHandler per slot, a batch's units stepped on
// `threads` threads), returning to the pool after Terminate. It sends heartbeats from a second
// thread so that a long step is not mistaken for a lost worker. When the stream breaks it
// reconnects with backoff (unless `once`), so a worker outlives orchestrator restarts.
//
// Thread safety: Run() on one thread; Shutdown() from any thread (e.g. a signal watcher).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/common/security.h"
#include "cosimo/v1/worker_service.pb.h"

namespace cosimo::worker {

struct WorkerOptions {
  std::string orchestrator = "localhost:7700";  // HOST:PORT
  std::vector<std::string> labels;              // matched against Unit.worker_label
  std::string host;                             // reported host name; default gethostname()
  std::string cache_dir;  // artifact cache; default $XDG_CACHE_HOME/cosimo or ~/.cache/cosimo
  // The cache's size limit (cosimo/worker/artifact_cache.h): least recently used artifacts go.
  uint64_t cache_max_bytes = uint64_t{20} << 30;
  int reconnect_ms = 1000;   // wait between connection attempts, ms
  bool once = false;         // exit when the first stream ends instead of reconnecting
  int protocol_version = 1;  // only tests change this (to check the refusal)
  int slots = 1;             // units hosted at once (Hello.slots), 1 to 4096
  int threads = 1;           // threads that step a batch's units, 1 to slots
  ClientSecurity security;   // TLS and token toward the orchestrator (cosimo/common/security.h)
  // Health file (empty: none): written when the orchestrator welcomes the worker, rewritten at
  // every heartbeat sent, removed when the connection ends; CheckHealthFile reads it.
  std::string health_file;
  // The crash report of the worker process before this one (crash file), sent in the first
  // Hello that is welcomed.
  std::optional<v1::CrashReport> crash;
};

// The health check of a worker (`cosimo-worker --health-check`, the images' HEALTHCHECK): OK
// when `health_file` exists and was written within `max_age`, i.e. the worker is attached to an
// orchestrator and its heartbeats go out; otherwise an error that says which.
[[nodiscard]] absl::Status CheckHealthFile(const std::string& health_file,
                                           std::chrono::seconds max_age);

class WorkerClient {
 public:
  explicit WorkerClient(WorkerOptions options);
  ~WorkerClient();

  // Serves until Shutdown(), or until the stream ends when options.once. A refusal by the
  // orchestrator (incompatible protocol) is returned as an error and not retried.
  [[nodiscard]] absl::Status Run();
  void Shutdown();

 private:
  class Session;
  [[nodiscard]] absl::Status RunOnce(bool* connected);

  WorkerOptions options_;
  std::shared_ptr<grpc::ChannelCredentials> credentials_;  // made by Run
  std::atomic<bool> shutdown_{false};
  absl::Mutex mutex_;
  grpc::ClientContext* active_context_ ABSL_GUARDED_BY(mutex_) = nullptr;
};

}  // namespace cosimo::worker
