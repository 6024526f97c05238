// One attached worker's Attach stream (WorkerConnection): the stream's state machine on gRPC's
// async API over the WorkerService's CompletionLoop (orchestrator/src/completion_loop.h), the
// Hello handshake, the writes of commands and the replies a job waits for (WaitReply), deferred
// reads and being lost. The pool of connections is worker_pool.h.
//
// Deferred reads: during a job, the read after a reply waits for the job's next command and is
// posted right behind it. gRPC 1.51 returns the HTTP/2 flow-control window the moment a read is
// posted on an empty stream; posted behind the command, that window update reaches the worker in
// the same wake as the command instead of waking it on its own (docs/benchmarks.md). The waiting
// read is also posted when the job releases the worker (after which replies no longer defer it),
// on every watchdog pass (so that heartbeats are read while a job computes), and when the stream
// is canceled. Thread safe.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/v1/worker_service.grpc.pb.h"
#include "orchestrator/src/clock.h"
#include "orchestrator/src/completion_loop.h"
#include "orchestrator/src/token_check.h"

namespace cosimo::orchestrator {

class WorkerPool;

// How long a job waits for a worker's reply, and what else ends the wait.
struct ReplyWaitOptions {
  std::chrono::milliseconds timeout{0};       // 0: no limit
  const std::atomic<bool>* cancel = nullptr;  // set: stop waiting (the job was canceled)
  // After a cancel, how long the wait goes on for the reply to the command in flight before the
  // worker is given up (0: at once). A reply in that time ends the wait Cancelled with the
  // worker kept, attached and in step with its stream (a sweep's cancel, kCancelGrace).
  std::chrono::milliseconds cancel_grace{0};
  // Written to the worker when the cancel is seen, before the grace (null: nothing): what makes
  // it stop a long command early (a Terminate while it runs whole variants). Its reply comes
  // after the awaited one, under the message's own seq.
  const v1::OrchestratorMessage* stop = nullptr;
};

// The grace a sweep gives its workers' commands in flight at a cancel (ReplyWaitOptions).
inline constexpr std::chrono::milliseconds kCancelGrace{1000};

// One worker's Attach stream. WorkerService makes one per call it asks for (RequestAttach with
// context(), stream() and accept_tag()); from then on the loop runs the handlers of its tags until
// the stream has finished. Job side: Write, WaitReply. Identity (id, host, labels, pid) is set from
// the worker's Hello before the worker is registered in the pool, and constant afterwards.
class WorkerConnection {
 public:
  using Stream = grpc::ServerAsyncReaderWriter<v1::OrchestratorMessage, v1::WorkerMessage>;

  // `heartbeat_interval`: the period asked of the worker in its Welcome. `auth`, when given,
  // checks the stream's token at the Hello (a worker without the right one is refused).
  WorkerConnection(CompletionLoop* loop, WorkerPool* pool,
                   std::chrono::milliseconds heartbeat_interval, const TokenCheck* auth = nullptr);

  const std::string& id() const { return id_; }
  const std::string& host() const { return host_; }
  const std::vector<std::string>& labels() const { return labels_; }
  int pid() const { return pid_; }
  int slots() const { return slots_; }                   // units it hosts at once, >= 1
  bool runs_variants() const { return runs_variants_; }  // Hello.runs_variants
  bool runs_jobs() const { return runs_jobs_; }          // Hello.runs_jobs
  std::string Describe() const;                          // "worker w3 on host h1"

  // Job side. Sends one message to the worker (serialized at once: the caller may reuse it); false
  // once the worker is lost. If the previous write's completion has not been handled yet (it may
  // come after its reply), waits for it on the loop first, so that nothing is copied.
  bool Write(const v1::OrchestratorMessage& message);
  using WaitOptions = ReplyWaitOptions;
  // Waits for the reply with sequence number `seq` and swaps it into `out` (heartbeats still
  // count as signs of life). Fails (naming the worker and why) if the worker is lost first. When
  // the timeout passes (DeadlineExceeded) or `cancel` is set (Cancelled) first, the worker is
  // given up: marked lost and its stream canceled, which tells it to abandon the command (a
  // worker that computes on does so without a stream, and attaches anew); but after a cancel,
  // `options.stop` goes out and the wait goes on for `options.cancel_grace`: a reply in that time
  // is swapped into `out` and the wait ends Cancelled, the worker kept. A reply to an earlier seq
  // (a stop's, after the reply it followed) is dropped. One job thread at a time.
  [[nodiscard]] absl::Status WaitReply(uint64_t seq, v1::WorkerMessage* out,
                                       const WaitOptions& options = {});

  // Posts the read that waits after a reply (see the file comment), if it waits and the reply was
  // taken (WaitReply): a reply not yet taken is never read over. Idempotent.
  void ResumeReads();
  // Its job's thread is done with it for good (a job whose master ran on it ended): the loop's
  // background thread leads now, so that the sync services' requests (a client asking whether
  // the job ended) are served at once rather than after CompletionLoop::kIdlePeriod.
  void HandOverLoop();
  // The job let the worker go: reads wait no more (until a job's next Write), and the waiting
  // one is posted.
  void Released();

  // Idempotent; wakes a waiting job. The first reason stays.
  void MarkLost(const std::string& reason);
  bool lost() const { return lost_.load(); }
  // The CPU the worker's latest reply left from (WorkerMessage.cpu); -1: not said yet.
  int cpu() const { return cpu_.load(std::memory_order_relaxed); }
  std::string lost_reason() const;
  std::chrono::steady_clock::time_point last_seen() const;
  // Ends the stream (the watchdog, the server's shutdown); the worker sees it canceled.
  void CancelStream();
  // The call was accepted and its Hello has not arrived yet; since when.
  bool AwaitingHello(std::chrono::steady_clock::time_point* since) const;

  // WorkerService side: what RequestAttach fills in, and the tag it completes.
  // (Before the call is asked for: no handler runs yet, so no lock.)
  grpc::ServerContext* context() ABSL_NO_THREAD_SAFETY_ANALYSIS { return context_.get(); }
  Stream* stream() ABSL_NO_THREAD_SAFETY_ANALYSIS { return stream_.get(); }
  CompletionLoop::Tag* accept_tag() { return &accept_tag_; }
  // Keeps the connection alive until its stream has finished (all its tags are handled).
  void set_self(std::shared_ptr<WorkerConnection> self) { self_ = std::move(self); }
  // Handlers run on the loop's leader, without its mutex. on_accepted(ok): the call started (ok)
  // or the server shuts down (!ok, the connection is done); returning false ends the stream at
  // once. on_finished: the stream of an accepted call has finished.
  void set_on_accepted(std::function<bool(bool ok)> on_accepted) {
    on_accepted_ = std::move(on_accepted);
  }
  void set_on_finished(std::function<void()> on_finished) { on_finished_ = std::move(on_finished); }

  // Messages written to the worker by jobs so far (a batch counts once; tests and benchmarks).
  uint64_t messages_written() const { return messages_written_.load(std::memory_order_relaxed); }
  // Replies read from the worker so far (heartbeats not counted; tests).
  uint64_t replies_read() const { return replies_read_.load(std::memory_order_relaxed); }
  // A job waits in WaitReply now (tests: act while the wait is in progress, not before it).
  bool waiting() const { return waiting_.load(); }

 private:
  enum class Op { kAccept, kRead, kWrite, kFinish };
  class OpTag final : public CompletionLoop::Tag {
   public:
    OpTag(WorkerConnection* connection, Op op) : connection_(connection), op_(op) {}
    void Handle(bool ok) override { connection_->OnEvent(op_, ok); }

   private:
    WorkerConnection* connection_;
    Op op_;
  };
  enum class State { kAccepting, kHello, kAttaching, kAttached, kClosing, kFinished };

  void OnEvent(Op op, bool ok) ABSL_LOCKS_EXCLUDED(loop_->mutex());
  void OnRead(bool ok) ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_->mutex());
  // True: the welcome went out, register the worker.
  bool OnWrite(bool ok) ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_->mutex());
  void OnHello() ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_->mutex());  // answers read_, a Hello or not
  void StartRead() ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_->mutex());
  void ResumeReadsLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_->mutex());
  // One write at a time: the welcome (no write is pending at Hello), then the jobs' (Write waits
  // for the previous one). Serialized at once.
  void StartWrite(const v1::OrchestratorMessage& message)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_->mutex());
  // Finish once closing and no write is pending.
  void MaybeFinish() ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_->mutex());
  // No more reads; Finish once every write is out.
  void Close(grpc::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_->mutex());
  void LoseLocked(const std::string& reason) ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_->mutex());
  void CancelStreamLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(loop_->mutex());

  CompletionLoop* const loop_;
  WorkerPool* const pool_;
  const std::chrono::milliseconds heartbeat_interval_;
  const TokenCheck* const auth_;
  std::string id_;
  std::string host_;
  std::vector<std::string> labels_;
  int pid_ = 0;
  int slots_ = 1;
  bool runs_variants_ = false;
  bool runs_jobs_ = false;
  std::atomic<uint64_t> messages_written_{0};
  std::atomic<uint64_t> replies_read_{0};
  std::atomic<bool> waiting_{false};

  std::unique_ptr<grpc::ServerContext> context_ ABSL_GUARDED_BY(loop_->mutex());
  std::unique_ptr<Stream> stream_ ABSL_GUARDED_BY(loop_->mutex());
  State state_ ABSL_GUARDED_BY(loop_->mutex()) = State::kAccepting;
  v1::WorkerMessage read_ ABSL_GUARDED_BY(loop_->mutex());  // the pending Read's target
  v1::WorkerMessage reply_ ABSL_GUARDED_BY(loop_->mutex());
  std::atomic<int> cpu_{-1};
  uint64_t reply_seq_ ABSL_GUARDED_BY(loop_->mutex()) = 0;
  bool has_reply_ ABSL_GUARDED_BY(loop_->mutex()) = false;
  bool read_pending_ ABSL_GUARDED_BY(loop_->mutex()) = false;
  // A job writes to the worker: reads after replies wait.
  bool defer_reads_ ABSL_GUARDED_BY(loop_->mutex()) = false;
  // A reply came and the next read waits (the file comment).
  bool read_deferred_ ABSL_GUARDED_BY(loop_->mutex()) = false;
  bool write_pending_ ABSL_GUARDED_BY(loop_->mutex()) = false;
  grpc::Status finish_status_ ABSL_GUARDED_BY(loop_->mutex());
  bool finish_started_ ABSL_GUARDED_BY(loop_->mutex()) = false;
  bool finish_done_ ABSL_GUARDED_BY(loop_->mutex()) = false;
  bool registered_ = false;  // only the handlers touch it (one at a time)
  std::string lost_reason_ ABSL_GUARDED_BY(loop_->mutex());
  absl::CondVar cv_;  // the waiting job's

  std::atomic<bool> lost_{false};
  std::atomic<int64_t> last_seen_ns_;
  OpTag accept_tag_{this, Op::kAccept};
  OpTag read_tag_{this, Op::kRead};
  OpTag write_tag_{this, Op::kWrite};
  OpTag finish_tag_{this, Op::kFinish};
  std::function<bool(bool)> on_accepted_;
  std::function<void()> on_finished_;
  std::shared_ptr<WorkerConnection> self_;
};

}  // namespace cosimo::orchestrator
