// The pool of attached workers and their connections. Each worker's Attach stream runs on gRPC's
// async API over the WorkerService's CompletionLoop (orchestrator/src/completion_loop.h): a read
// is pending on it, and whichever thread leads the loop handles what arrives (a reply, a
// heartbeat, the end of the stream). A job thread waiting for a reply (WaitReply) leads the loop
// itself when no other thread does, so it reads its workers' replies from the sockets with no
// thread hand-off (WorkerConnection, worker_connection.h, with its deferred reads).
//
// Jobs acquire idle workers, matching unit labels, and release them when they end. A worker
// hosts up to slots() units (its Hello.slots); a job's units are packed onto as few workers as
// their slots allow, and a worker serves one job at a time (its free slots are not lent to
// another job while it is busy). A watchdog
// marks a worker lost when it has been silent longer than the heartbeat timeout (host cut off)
// and cancels its stream, and ends a stream whose Hello has not come within that timeout; a
// closed stream (process killed) is noticed as soon as a thread leads
// the loop with a read pending (at once while a job waits). Thread safe.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <deque>
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
#include "orchestrator/src/worker_connection.h"

namespace cosimo::orchestrator {

// The slot of each of TryAcquire's entries: the number of earlier entries with the same worker.
std::vector<int> SlotsOf(const std::vector<std::shared_ptr<WorkerConnection>>& workers);

struct WorkerInfo {
  std::string id;
  std::string host;
  std::vector<std::string> labels;
  bool busy = false;
  std::string job_id;
  int pid = 0;
  int slots = 1;
  int slots_busy = 0;
  uint64_t messages = 0;                            // WorkerConnection::messages_written
  std::chrono::steady_clock::time_point last_seen;  // its last message, by the pool's clock
};

class WorkerPool {
 public:
  // `heartbeat_timeout`: silence after which a worker is lost, by `clock` (not owned), which
  // the connections' last_seen() read too.
  explicit WorkerPool(std::chrono::milliseconds heartbeat_timeout, Clock* clock = Clock::Real());
  ~WorkerPool();

  std::chrono::milliseconds heartbeat_timeout() const { return heartbeat_timeout_; }
  Clock* clock() const { return clock_; }

  // A fresh worker id ("w1-3fa2c1", "w2-3fa2c1", ...): a counter and a suffix drawn at random for
  // each pool, so that ids from before an orchestrator restart name no worker after it.
  std::string NextId();
  // Watches an accepted stream until its Hello: the watchdog ends it when none came within the
  // heartbeat timeout (an unauthenticated caller cannot hold a stream open by saying nothing).
  void WatchHello(const std::shared_ptr<WorkerConnection>& connection);
  // Makes the worker available to jobs (once its Welcome has gone out).
  void Register(const std::shared_ptr<WorkerConnection>& worker);
  void Unregister(const std::shared_ptr<WorkerConnection>& worker);

  // A slot of an idle worker per entry of `labels` (empty label: any worker), all or nothing;
  // entry i is unit i's worker, the same worker for units packed onto it (its slot: the number
  // of earlier entries with that worker, SlotsOf). Packs: a unit goes to a worker the job
  // already has while it has a free slot, else to the matching idle worker with the most slots.
  // Marks them busy for `job_id`.
  std::optional<std::vector<std::shared_ptr<WorkerConnection>>> TryAcquire(
      const std::vector<std::string>& labels, const std::string& job_id);
  // Frees the workers TryAcquire gave (repeated entries are fine).
  void Release(const std::vector<std::shared_ptr<WorkerConnection>>& workers);
  // How many of `labels` could be served by slots of idle workers now.
  int CountAvailable(const std::vector<std::string>& labels) const;
  // How many of `labels` could be served by the slots of the attached workers, idle or busy:
  // fewer than labels.size() means the job cannot run until more workers attach.
  int CountMatching(const std::vector<std::string>& labels) const;

  std::vector<WorkerInfo> List() const;
  // A crash report a worker sent in its Hello (the worker process before it died of a signal),
  // kept (the latest 256) for the job that ran the unit to name the crash.
  void RecordCrash(const v1::CrashReport& report) ABSL_LOCKS_EXCLUDED(mutex_);
  // The latest report of a crash in job `job_id` while it ran sweep variant `variant` (or no
  // variant: a unit run unit by unit).
  std::optional<v1::CrashReport> CrashOf(const std::string& job_id, int64_t variant) const
      ABSL_LOCKS_EXCLUDED(mutex_);
  // Called (without locks held) whenever the pool changes: a worker came, left or was freed.
  void SetOnChange(std::function<void()> on_change) ABSL_LOCKS_EXCLUDED(mutex_);
  // Where the workers' log lines go (UnitLogs: the job manager stores them with their jobs).
  void SetLogSink(std::function<void(const v1::UnitLogs&)> sink) ABSL_LOCKS_EXCLUDED(mutex_);
  // A worker's UnitLogs, to the sink (without the pool's lock held; none set: dropped).
  void DeliverLogs(const v1::UnitLogs& logs) ABSL_LOCKS_EXCLUDED(mutex_);
  // One pass of the watchdog (which makes one every fifth of the heartbeat timeout, at least
  // every 20 ms): ends the streams that sent no Hello and loses the workers silent for longer
  // than the heartbeat timeout, by the clock. Tests call it after moving a ManualClock.
  void CheckWorkers() ABSL_LOCKS_EXCLUDED(mutex_);
  void Shutdown() ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  void Watchdog() ABSL_LOCKS_EXCLUDED(mutex_);
  void CheckWorkersLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void NotifyChange() ABSL_LOCKS_EXCLUDED(mutex_);
  int Count(const std::vector<std::string>& labels, bool idle_only) const
      ABSL_LOCKS_EXCLUDED(mutex_);
  bool Busy(const WorkerConnection& worker) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) {
    return assigned_.contains(&worker);
  }

  const std::chrono::milliseconds heartbeat_timeout_;
  Clock* const clock_;
  mutable absl::Mutex mutex_;
  std::vector<std::shared_ptr<WorkerConnection>> workers_ ABSL_GUARDED_BY(mutex_);
  std::vector<std::weak_ptr<WorkerConnection>> awaiting_hello_ ABSL_GUARDED_BY(mutex_);
  std::atomic<uint64_t> next_id_{1};
  const std::string id_suffix_;
  // The busy workers: what TryAcquire gave a job, until Release (also for a worker that
  // detached meanwhile: the job still holds it).
  struct Assignment {
    int slots_busy = 0;  // slots the job uses
    std::string job_id;
  };
  std::map<const WorkerConnection*, Assignment> assigned_ ABSL_GUARDED_BY(mutex_);
  std::deque<v1::CrashReport> crashes_ ABSL_GUARDED_BY(mutex_);  // oldest first
  std::function<void()> on_change_ ABSL_GUARDED_BY(mutex_);
  std::function<void(const v1::UnitLogs&)> log_sink_ ABSL_GUARDED_BY(mutex_);
  absl::CondVar watchdog_cv_;
  bool shutdown_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread watchdog_;
};

}  // namespace cosimo::orchestrator
