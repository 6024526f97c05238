// The pool of attached workers. Each worker's Attach stream is served by one gRPC handler thread
// that reads the worker's messages while the worker is idle. Once a job waits for a reply
// (WorkerConnection::WaitReply), the handler hands the reads over: after delivering the message
// it has, it parks in OnMessage, and the job thread reads the stream itself (one thread wake per
// reply instead of two) until the job releases the worker. Jobs acquire idle workers, matching
// unit labels, and release them when they end. A watchdog marks a worker lost when it has been
// silent longer than the heartbeat timeout (host cut off) and cancels its stream; a closed stream
// (process killed) is noticed at once (by the handler, or by the job thread while it reads).
// Thread safe.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/v1/worker_service.grpc.pb.h"

namespace cosimo::orchestrator {

using WorkerStream = grpc::ServerReaderWriter<v1::OrchestratorMessage, v1::WorkerMessage>;

class WorkerConnection {
 public:
  WorkerConnection(std::string id, const v1::Hello& hello, WorkerStream* stream,
                   grpc::ServerContext* context);

  const std::string& id() const { return id_; }
  const std::string& host() const { return host_; }
  const std::vector<std::string>& labels() const { return labels_; }
  int pid() const { return pid_; }
  std::string Describe() const;  // "worker w3 on host h1"

  // Job side. Write returns false once the worker is lost.
  bool Write(const v1::OrchestratorMessage& message);
  // Waits for the reply with sequence number `seq` and puts it into `out`: handed over by the
  // handler, or read from the stream by the calling thread once the handler has parked (skipping
  // heartbeats, which still count as signs of life). Fails (naming the worker and why) if the
  // worker is lost first. One job thread at a time.
  [[nodiscard]] absl::Status WaitReply(uint64_t seq, v1::WorkerMessage* out);
  // Job side, when the job lets the worker go: the handler reads again (WorkerPool::Release).
  void ReleaseReads();

  // Handler side: every message the worker sends. Parks (returns only when the job released
  // the reads or the worker is lost) while a job reads the stream itself.
  void OnMessage(v1::WorkerMessage* message);
  // The stream ended or the watchdog gave up on the worker. Idempotent; wakes waiters.
  void MarkLost(const std::string& reason);
  bool lost() const { return lost_.load(); }
  std::string lost_reason() const;
  // Handler side, before returning from Attach: no Write may touch the stream afterwards.
  void CloseStream();

  std::chrono::steady_clock::time_point last_seen() const;
  void CancelStream() { context_->TryCancel(); }

  // Pool bookkeeping (guarded by the pool's mutex).
  bool busy = false;
  std::string job_id;

 private:
  const std::string id_;
  const std::string host_;
  const std::vector<std::string> labels_;
  const int pid_;
  WorkerStream* stream_;
  grpc::ServerContext* context_;

  std::mutex write_mutex_;
  bool closed_ = false;  // guarded by write_mutex_

  mutable std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t reply_seq_ = 0;  // guarded by mutex_
  bool has_reply_ = false;
  bool job_reads_ = false;       // guarded by mutex_: a job thread is the stream's reader
  bool handler_parked_ = false;  // guarded by mutex_: the handler waits in OnMessage
  v1::WorkerMessage reply_;
  std::atomic<bool> lost_{false};
  std::string lost_reason_;  // guarded by mutex_
  std::atomic<int64_t> last_seen_ns_;
};

struct WorkerInfo {
  std::string id;
  std::string host;
  std::vector<std::string> labels;
  bool busy = false;
  std::string job_id;
};

class WorkerPool {
 public:
  // `heartbeat_timeout`: silence after which a worker is lost.
  explicit WorkerPool(std::chrono::milliseconds heartbeat_timeout);
  ~WorkerPool();

  std::chrono::milliseconds heartbeat_timeout() const { return heartbeat_timeout_; }

  // A new connection with a fresh id; not yet visible to jobs (so its Welcome goes out first).
  std::shared_ptr<WorkerConnection> Create(const v1::Hello& hello, WorkerStream* stream,
                                           grpc::ServerContext* context);
  // Makes the worker available to jobs.
  void Register(const std::shared_ptr<WorkerConnection>& worker);
  void Unregister(const std::shared_ptr<WorkerConnection>& worker);

  // One idle worker per entry of `labels` (empty label: any worker), all or nothing. Marks them
  // busy for `job_id`.
  std::optional<std::vector<std::shared_ptr<WorkerConnection>>> TryAcquire(
      const std::vector<std::string>& labels, const std::string& job_id);
  void Release(const std::vector<std::shared_ptr<WorkerConnection>>& workers);
  // How many of `labels` could be served by idle workers now.
  int CountAvailable(const std::vector<std::string>& labels) const;

  std::vector<WorkerInfo> List() const;
  // Called (without locks held) whenever the pool changes: a worker came, left or was freed.
  void SetOnChange(std::function<void()> on_change);
  void Shutdown();

 private:
  void Watchdog();
  void NotifyChange();

  const std::chrono::milliseconds heartbeat_timeout_;
  mutable std::mutex mutex_;
  std::vector<std::shared_ptr<WorkerConnection>> workers_;
  uint64_t next_id_ = 1;
  std::function<void()> on_change_;
  std::condition_variable watchdog_cv_;
  bool shutdown_ = false;
  std::thread watchdog_;
};

}  // namespace cosimo::orchestrator
