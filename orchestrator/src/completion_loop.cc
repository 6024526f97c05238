#include "orchestrator/src/completion_loop.h"

namespace cosimo::orchestrator {

CompletionLoop::CompletionLoop(grpc::CompletionQueue* cq) : cq_(cq) {}

CompletionLoop::~CompletionLoop() { Shutdown(); }

void CompletionLoop::Start() {
  absl::MutexLock lock(&mutex_);
  if (background_.joinable() || stopping_) return;
  background_ = std::thread([this] { Background(); });
}

void CompletionLoop::Shutdown() {
  bool started = false;
  {
    absl::MutexLock lock(&mutex_);
    if (stopping_) return;
    stopping_ = true;
    lead_in_background_ = true;
    started = background_.joinable();
  }
  background_cv_.SignalAll();
  cq_->Shutdown();
  if (started) {
    background_.join();
    return;
  }
  while (PollOnce()) {
  }
}

void CompletionLoop::LeadInBackground() {
  {
    absl::MutexLock lock(&mutex_);
    lead_in_background_ = true;
  }
  background_cv_.SignalAll();
}

void CompletionLoop::LeadNowLocked() {
  lead_now_ = true;
  background_cv_.SignalAll();
}

CompletionLoop::Counts CompletionLoop::counts() const {
  absl::MutexLock lock(&mutex_);
  return counts_;
}

bool CompletionLoop::PollOnce(std::chrono::system_clock::time_point deadline) {
  void* tag = nullptr;
  bool ok = false;
  const grpc::CompletionQueue::NextStatus status =
      deadline == std::chrono::system_clock::time_point::max()
          ? (cq_->Next(&tag, &ok) ? grpc::CompletionQueue::GOT_EVENT
                                  : grpc::CompletionQueue::SHUTDOWN)
          : cq_->AsyncNext(&tag, &ok, deadline);
  if (status == grpc::CompletionQueue::TIMEOUT) return true;
  if (status == grpc::CompletionQueue::SHUTDOWN) {
    absl::MutexLock lock(&mutex_);
    drained_ = true;
    for (absl::CondVar* follower : followers_) follower->Signal();
    background_cv_.SignalAll();
    return false;
  }
  static_cast<Tag*>(tag)->Handle(ok);
  return true;
}

void CompletionLoop::StopLeading() {
  leading_ = false;
  if (!followers_.empty()) followers_.front()->Signal();
}

void CompletionLoop::AlarmTag::Handle(bool) {
  absl::MutexLock lock(&loop_->mutex_);
  loop_->alarm_pending_ = false;
}

void CompletionLoop::Background() {
  absl::MutexLock lock(&mutex_);
  uint64_t seen = epoch_;
  bool first = true;
  while (!drained_) {
    // Lead if the lead is free and no job took it since the last look (or when told to).
    if (!leading_ && (first || epoch_ == seen || lead_in_background_ || lead_now_)) {
      lead_now_ = false;
      leading_ = true;
      background_leads_ = true;
      ++epoch_;
      bool polling = true;
      while (polling && followers_.empty()) {
        mutex_.Unlock();
        polling = PollOnce();
        mutex_.Lock();
      }
      background_leads_ = false;
      StopLeading();
      if (!polling) break;
    }
    first = false;
    seen = epoch_;
    background_cv_.WaitWithTimeout(&mutex_, absl::FromChrono(kIdlePeriod));
  }
}

}  // namespace cosimo::orchestrator
