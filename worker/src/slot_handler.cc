#include "cosimo/worker/slot_handler.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/common/unit_api_proto.h"

namespace cosimo::worker {
namespace {

// Answers `command` with `status`, in the reply its kind expects.
void ReplyError(const v1::OrchestratorMessage& command, const absl::Status& status,
                v1::WorkerMessage* reply) {
  reply->Clear();
  reply->set_seq(command.seq());
  switch (command.body_case()) {
    case v1::OrchestratorMessage::kLoadUnit:
      return ToProto(status, reply->mutable_unit_loaded()->mutable_error());
    case v1::OrchestratorMessage::kInitialize:
    case v1::OrchestratorMessage::kEvaluate:
      return ToProto(status, reply->mutable_outputs()->mutable_error());
    case v1::OrchestratorMessage::kStep:
    case v1::OrchestratorMessage::kCommit:
      reply->mutable_step_done()->set_status(v1::StepDone::FAILED);
      return ToProto(status, reply->mutable_step_done()->mutable_error());
    case v1::OrchestratorMessage::kTakeCheckpoint:
      return ToProto(status, reply->mutable_checkpoint_taken()->mutable_error());
    default:
      return ToProto(status, reply->mutable_ack()->mutable_error());
  }
}

}  // namespace

class SlotHandler::Impl {
 public:
  Impl(int slots, int threads, CommandHandler::ArtifactFetcher fetch) : fetch_(std::move(fetch)) {
    slots = std::max(1, slots);
    for (int i = 0; i < slots; ++i) {
      handlers_.push_back(std::make_unique<CommandHandler>([this](const std::string& digest) {
        absl::MutexLock lock(&fetch_mutex_);
        return fetch_(digest);
      }));
    }
    const int helpers = std::clamp(threads, 1, slots) - 1;
    for (int i = 0; i < helpers; ++i) helpers_.emplace_back([this] { Help(); });
  }

  ~Impl() {
    {
      absl::MutexLock lock(&mutex_);
      stop_ = true;
    }
    start_.SignalAll();
    for (std::thread& t : helpers_) t.join();
  }

  int slots() const { return static_cast<int>(handlers_.size()); }
  int threads() const { return static_cast<int>(helpers_.size()) + 1; }

  void Handle(const v1::OrchestratorMessage& message, v1::WorkerMessage* reply) {
    if (message.body_case() != v1::OrchestratorMessage::kBatch) {
      if (!InRange(message.slot())) return ReplyError(message, OutOfRange(message.slot()), reply);
      return handlers_[message.slot()]->Handle(message, reply);
    }
    const auto& commands = message.batch().commands();
    const int n = commands.size();
    if (!reply->has_batch()) reply->Clear();
    reply->set_seq(message.seq());
    auto* replies = reply->mutable_batch()->mutable_replies();
    while (replies->size() > n) replies->RemoveLast();
    while (replies->size() < n) replies->Add();
    // Each slot at most once: its handler then runs on one thread.
    runnable_.clear();
    seen_.assign(handlers_.size(), false);
    for (int i = 0; i < n; ++i) {
      const uint32_t slot = commands.Get(i).slot();
      if (!InRange(slot)) {
        ReplyError(commands.Get(i), OutOfRange(slot), replies->Mutable(i));
      } else if (seen_[slot]) {
        ReplyError(commands.Get(i),
                   absl::InvalidArgumentError("worker: slot " + std::to_string(slot) +
                                              " has more than one command in one batch"),
                   replies->Mutable(i));
      } else {
        seen_[slot] = true;
        runnable_.push_back(i);
      }
    }
    RunAll(commands, replies);
  }

  std::vector<std::string> DropUnits() {
    std::vector<std::string> dropped;
    for (auto& handler : handlers_) {
      if (std::string name = handler->DropUnit(); !name.empty()) dropped.push_back(name);
    }
    return dropped;
  }

 private:
  bool InRange(uint32_t slot) const { return slot < handlers_.size(); }
  absl::Status OutOfRange(uint32_t slot) const {
    return absl::InvalidArgumentError("worker: slot " + std::to_string(slot) +
                                      " is out of range (this worker has " +
                                      std::to_string(handlers_.size()) + " slots)");
  }

  using Commands = google::protobuf::RepeatedPtrField<v1::OrchestratorMessage>;
  using Replies = google::protobuf::RepeatedPtrField<v1::WorkerMessage>;

  // Runs the runnable commands of a batch on this thread and the helpers; returns when all are
  // done and no helper touches the batch any more.
  void RunAll(const Commands& commands, Replies* replies) {
    const int count = static_cast<int>(runnable_.size());
    if (count <= 1 || helpers_.empty()) {
      for (int i : runnable_) {
        handlers_[commands.Get(i).slot()]->Handle(commands.Get(i), replies->Mutable(i));
      }
      return;
    }
    {
      absl::MutexLock lock(&mutex_);
      commands_ = &commands;
      replies_ = replies;
      next_.store(0);
      pending_ = count;
      ++generation_;
    }
    start_.SignalAll();
    RunTasks();
    absl::MutexLock lock(&mutex_);
    while (pending_ != 0 || active_ != 0) done_.Wait(&mutex_);
    commands_ = nullptr;
    replies_ = nullptr;
  }

  // Takes tasks of the current batch until none is left.
  void RunTasks() {
    const int count = static_cast<int>(runnable_.size());
    int finished = 0;
    for (int t = next_.fetch_add(1); t < count; t = next_.fetch_add(1)) {
      const int i = runnable_[static_cast<size_t>(t)];
      handlers_[commands_->Get(i).slot()]->Handle(commands_->Get(i), replies_->Mutable(i));
      ++finished;
    }
    absl::MutexLock lock(&mutex_);
    pending_ -= finished;
    if (pending_ == 0) done_.SignalAll();
  }

  // A helper joins a batch only while it has tasks left (pending_ > 0), and counts itself
  // active meanwhile, so that the batch's state is not touched once RunAll returned.
  void Help() {
    uint64_t seen_generation = 0;
    mutex_.Lock();
    while (true) {
      while (!stop_ && generation_ == seen_generation) start_.Wait(&mutex_);
      if (stop_) break;
      seen_generation = generation_;
      if (pending_ == 0) continue;
      ++active_;
      mutex_.Unlock();
      RunTasks();
      mutex_.Lock();
      if (--active_ == 0) done_.SignalAll();
    }
    mutex_.Unlock();
  }

  CommandHandler::ArtifactFetcher fetch_ ABSL_GUARDED_BY(fetch_mutex_);
  absl::Mutex fetch_mutex_;  // the slots' fetches one at a time
  std::vector<std::unique_ptr<CommandHandler>> handlers_;
  std::vector<int> runnable_;  // indices into the batch, one per slot
  std::vector<bool> seen_;

  std::vector<std::thread> helpers_;
  absl::Mutex mutex_;
  absl::CondVar start_;  // a new batch, or stop
  absl::CondVar done_;   // the batch's tasks finished and no helper inside RunTasks
  bool stop_ ABSL_GUARDED_BY(mutex_) = false;
  uint64_t generation_ ABSL_GUARDED_BY(mutex_) = 0;
  // The batch being run: set under mutex_ before the helpers are woken (which read them after
  // they saw the new generation under it), cleared once no helper is inside RunTasks.
  const Commands* commands_ = nullptr;
  Replies* replies_ = nullptr;
  std::atomic<int> next_{0};
  int pending_ ABSL_GUARDED_BY(mutex_) = 0;  // tasks of the batch not finished
  int active_ ABSL_GUARDED_BY(mutex_) = 0;   // helpers inside RunTasks
};

SlotHandler::SlotHandler(int slots, int threads, CommandHandler::ArtifactFetcher fetch)
    : impl_(std::make_unique<Impl>(slots, threads, std::move(fetch))) {}

SlotHandler::~SlotHandler() { impl_->DropUnits(); }

int SlotHandler::slots() const { return impl_->slots(); }
int SlotHandler::threads() const { return impl_->threads(); }

void SlotHandler::Handle(const v1::OrchestratorMessage& message, v1::WorkerMessage* reply) {
  impl_->Handle(message, reply);
}

std::vector<std::string> SlotHandler::DropUnits() { return impl_->DropUnits(); }

}  // namespace cosimo::worker
