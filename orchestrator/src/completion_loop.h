// Leader/followers over one gRPC completion queue: the thread that waits for an event polls the
// queue itself. gRPC 1.51's epoll1 engine lets one thread of a process poll the sockets at a time;
// every other thread blocked in gRPC is woken through it. So that a job thread waiting for its
// workers' replies reads them from the sockets itself, with no hand-off, the workers' Attach
// streams run on the async API over this loop and the server is "hybrid": its sync services wait
// on non-polling queues and take no part in polling (docs/benchmarks.md).
//
// A thread calls Wait(cv, done) with the loop's mutex held. If no thread leads, it leads:
// it takes events from the queue and runs their tags' Handle() (without the mutex) until done()
// holds. Otherwise it follows: it sleeps on `cv` until a Handle() notifies it (its event came) or
// the leader stops leading (it may lead then). Either way done() is checked again at least every
// kRecheckPeriod. A background thread leads when no job has led for a
// while (kIdlePeriod), so that idle workers' heartbeats, new workers and the sync services'
// requests are served between jobs; a thread that wants to lead while the background thread does
// wakes it with an alarm, once.
//
// Call order: construct, Start() once the server runs, Shutdown() once the server has shut down
// (it shuts the queue down and drains it). Thread safe.
#pragma once

#include <grpcpp/alarm.h>
#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace cosimo::orchestrator {

class CompletionLoop {
 public:
  // What every tag put on the queue is. Handle runs on the leading thread, without the mutex.
  class Tag {
   public:
    virtual void Handle(bool ok) = 0;

   protected:
    ~Tag() = default;
  };

  // Without a job leading, the background thread takes over after this long.
  static constexpr std::chrono::milliseconds kIdlePeriod{10};
  // A waiting thread checks done() at least this often, also without an event, so that a wait
  // can end on a deadline or on a flag no handler changes (a job canceled, a command timed out).
  static constexpr std::chrono::milliseconds kRecheckPeriod{100};

  explicit CompletionLoop(grpc::CompletionQueue* cq);
  ~CompletionLoop();
  CompletionLoop(const CompletionLoop&) = delete;
  CompletionLoop& operator=(const CompletionLoop&) = delete;

  // The mutex that guards the state the tags' handlers change and the waiters' done() reads
  // (annotated ABSL_GUARDED_BY(loop->mutex()) where it lives).
  absl::Mutex& mutex() ABSL_LOCK_RETURNED(mutex_) { return mutex_; }

  // Starts the background thread.
  void Start() ABSL_LOCKS_EXCLUDED(mutex_);
  // Shuts the queue down, drains it (handlers run) and joins the background thread. Every
  // Wait returns from then on.
  void Shutdown() ABSL_LOCKS_EXCLUDED(mutex_);
  // Makes the background thread lead now (rather than after kIdlePeriod), e.g. while the server
  // shuts down with no job running.
  void LeadInBackground() ABSL_LOCKS_EXCLUDED(mutex_);
  // Makes the background thread lead now, once (until a thread wants to lead): a job's thread
  // is done with the loop (its master ran in its worker and ended), so the sync services'
  // requests (a client asking whether the job ended, for its results) are served at once rather
  // than after kIdlePeriod (issue 40: `cosimo run` waited 10-15 ms for its first request after
  // the end). Not on every release of a worker: a sweep's next variant would find the lead taken.
  void LeadNowLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // Returns once done() holds (true) or the queue is drained (done() false). Called with
  // mutex() held; done() is called with it held. `cv` is the caller's own: handlers signal it
  // when they change what done() reads.
  template <typename Done>
  bool Wait(absl::CondVar& cv, Done done) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);

  // How the Wait calls went (tests and benchmarks).
  struct Counts {
    uint64_t ready = 0;     // done() held at once: another thread had handled the event
    uint64_t led = 0;       // polled the queue themselves
    uint64_t followed = 0;  // slept while another thread led (and may have led afterwards)
  };
  Counts counts() const ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  class AlarmTag final : public Tag {
   public:
    explicit AlarmTag(CompletionLoop* loop) : loop_(loop) {}
    void Handle(bool ok) override;

   private:
    CompletionLoop* loop_;
  };

  // One event from the queue, handled, or none by `deadline`; false once the queue is drained.
  // Without the mutex.
  bool PollOnce(std::chrono::system_clock::time_point deadline =
                    std::chrono::system_clock::time_point::max()) ABSL_LOCKS_EXCLUDED(mutex_);
  // Hands the lead to the first follower, if any.
  void StopLeading() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_);
  void Background() ABSL_LOCKS_EXCLUDED(mutex_);

  grpc::CompletionQueue* const cq_;
  mutable absl::Mutex mutex_;
  bool leading_ ABSL_GUARDED_BY(mutex_) = false;                   // a thread leads
  std::vector<absl::CondVar*> followers_ ABSL_GUARDED_BY(mutex_);  // in arrival order
  bool background_leads_ ABSL_GUARDED_BY(mutex_) = false;
  bool lead_in_background_ ABSL_GUARDED_BY(mutex_) = false;
  bool lead_now_ ABSL_GUARDED_BY(mutex_) = false;  // LeadNowLocked, until the background leads
  bool drained_ ABSL_GUARDED_BY(mutex_) = false;
  bool stopping_ ABSL_GUARDED_BY(mutex_) = false;
  uint64_t epoch_ ABSL_GUARDED_BY(mutex_) = 0;  // counts the times a thread took the lead
  Counts counts_ ABSL_GUARDED_BY(mutex_);
  absl::CondVar background_cv_;
  grpc::Alarm alarm_;
  AlarmTag alarm_tag_{this};
  bool alarm_pending_ ABSL_GUARDED_BY(mutex_) = false;
  std::thread background_;  // started and joined under mutex_'s stopping_ rules
};

template <typename Done>
bool CompletionLoop::Wait(absl::CondVar& cv, Done done) {
  if (done()) {
    ++counts_.ready;
    return true;
  }
  bool counted = false;
  while (!done()) {
    if (drained_) return false;
    if (!leading_) {
      leading_ = true;
      ++epoch_;
      if (!counted) ++counts_.led;
      counted = true;
      bool polling = true;
      while (polling && !done()) {
        mutex_.Unlock();
        polling = PollOnce(std::chrono::system_clock::now() + kRecheckPeriod);
        mutex_.Lock();
      }
      StopLeading();
      continue;
    }
    if (!counted) ++counts_.followed;
    counted = true;
    followers_.push_back(&cv);
    if (background_leads_ && !alarm_pending_ && !stopping_) {
      // Wake the background thread out of its poll: it hands the lead over. (Not once the queue
      // is shut down: it takes no new work then, and drains by itself.)
      alarm_pending_ = true;
      alarm_.Set(cq_, gpr_now(GPR_CLOCK_MONOTONIC), &alarm_tag_);
    }
    cv.WaitWithTimeout(&mutex_, absl::FromChrono(kRecheckPeriod));
    for (auto it = followers_.begin(); it != followers_.end(); ++it) {
      if (*it == &cv) {
        followers_.erase(it);
        break;
      }
    }
  }
  // Woken as the next leader but done already: pass the lead on.
  if (!leading_ && !followers_.empty()) followers_.front()->Signal();
  return true;
}

}  // namespace cosimo::orchestrator
