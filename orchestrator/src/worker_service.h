// WorkerService.Attach on gRPC's async API: every worker's stream is a WorkerConnection driven by
// one CompletionLoop over a completion queue of the server's own (orchestrator/src/
// completion_loop.h says why). Registering this queue makes the server "hybrid": its sync
// services then wait on non-polling queues, so while a job waits for its workers' replies its
// thread is the process's only poller.
//
// Call order: AddTo(builder) before the server is built; Start() once it runs; at shutdown
// CloseStreams(), then the server's Shutdown() and Wait(), then Shutdown(). Thread safe.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <unordered_set>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/v1/worker_service.grpc.pb.h"
#include "orchestrator/src/completion_loop.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {

class WorkerServiceImpl {
 public:
  // `heartbeat_interval`: the period asked of every worker in its Welcome; `auth` (optional,
  // outlives the service) checks every worker's token at its Hello.
  WorkerServiceImpl(WorkerPool* pool, std::chrono::milliseconds heartbeat_interval,
                    const TokenCheck* auth = nullptr);
  ~WorkerServiceImpl();

  void AddTo(grpc::ServerBuilder* builder);
  void Start();
  // Refuses new workers and ends every worker's stream; waits (up to `timeout`) until all have
  // finished, so that the server's shutdown does not wait for them.
  void CloseStreams(std::chrono::milliseconds timeout);
  // Shuts the queue down and drains it.
  void Shutdown();

  CompletionLoop& loop() { return *loop_; }

 private:
  void Accept();  // asks for the next Attach call

  WorkerPool* const pool_;
  const std::chrono::milliseconds heartbeat_interval_;
  const TokenCheck* const auth_;
  v1::WorkerService::AsyncService service_;
  std::unique_ptr<grpc::ServerCompletionQueue> cq_;
  std::unique_ptr<CompletionLoop> loop_;
  absl::Mutex mutex_;  // before the loop's mutex, never after it
  bool accepting_ ABSL_GUARDED_BY(mutex_) = true;
  std::unordered_set<WorkerConnection*> live_ ABSL_GUARDED_BY(mutex_);  // accepted, not finished
};

}  // namespace cosimo::orchestrator
