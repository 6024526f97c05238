#include "orchestrator/src/worker_pool.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <random>

namespace cosimo::orchestrator {
namespace {

int64_t NowNs(const Clock& clock) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clock.Now().time_since_epoch())
      .count();
}

// The most units a worker may host (Hello.slots): a worker asking for more is refused.
constexpr int kMaxSlots = 4096;

bool Matches(const WorkerConnection& worker, const std::string& label) {
  if (label.empty()) return true;
  const auto& labels = worker.labels();
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

// Six random hex digits, different for each pool (each orchestrator start).
std::string RandomSuffix() {
  static constexpr char kHex[] = "0123456789abcdef";
  uint32_t bits = std::random_device{}();
  std::string suffix;
  for (int i = 0; i < 6; ++i, bits >>= 4) suffix.push_back(kHex[bits & 15]);
  return suffix;
}

}  // namespace

std::vector<int> SlotsOf(const std::vector<std::shared_ptr<WorkerConnection>>& workers) {
  std::vector<int> slots(workers.size(), 0);
  for (size_t i = 0; i < workers.size(); ++i) {
    for (size_t j = 0; j < i; ++j) slots[i] += workers[j] == workers[i] ? 1 : 0;
  }
  return slots;
}

WorkerConnection::WorkerConnection(CompletionLoop* loop, WorkerPool* pool,
                                   std::chrono::milliseconds heartbeat_interval,
                                   const TokenCheck* auth)
    : loop_(loop),
      pool_(pool),
      heartbeat_interval_(heartbeat_interval),
      auth_(auth),
      context_(std::make_unique<grpc::ServerContext>()),
      stream_(std::make_unique<Stream>(context_.get())),
      last_seen_ns_(NowNs(*pool->clock())) {}

std::string WorkerConnection::Describe() const { return "worker " + id_ + " on host " + host_; }

bool WorkerConnection::Write(const v1::OrchestratorMessage& message) {
  absl::MutexLock lock(&loop_->mutex());
  loop_->Wait(cv_, [&] {
    loop_->mutex().AssertHeld();
    return !write_pending_ || lost_;
  });
  if (lost_ || state_ != State::kAttached || write_pending_) return false;
  StartWrite(message);
  messages_written_.fetch_add(1, std::memory_order_relaxed);
  // A job exchanges commands and replies: from now on the read after a reply waits for the next
  // command, and a waiting read is posted here, behind the command, so that its window update
  // travels with it.
  defer_reads_ = true;
  ResumeReadsLocked();
  return true;
}

void WorkerConnection::ResumeReads() {
  absl::MutexLock lock(&loop_->mutex());
  ResumeReadsLocked();
}

void WorkerConnection::Released() {
  absl::MutexLock lock(&loop_->mutex());
  defer_reads_ = false;  // a late reply to the job's last command does not stop the reads
  ResumeReadsLocked();
}

void WorkerConnection::ResumeReadsLocked() {
  if (!read_deferred_) return;
  read_deferred_ = false;
  if (state_ == State::kAttached) StartRead();
}

absl::Status WorkerConnection::WaitReply(uint64_t seq, v1::WorkerMessage* out,
                                         const WaitOptions& options) {
  const auto deadline = options.timeout.count() > 0
                            ? std::chrono::steady_clock::now() + options.timeout
                            : std::chrono::steady_clock::time_point::max();
  auto canceled = [&] { return options.cancel != nullptr && options.cancel->load(); };
  auto expired = [&] { return std::chrono::steady_clock::now() >= deadline; };
  absl::MutexLock lock(&loop_->mutex());
  loop_->Wait(cv_, [&] {
    loop_->mutex().AssertHeld();
    return (has_reply_ && reply_seq_ == seq) || lost_ || canceled() || expired();
  });
  if (has_reply_ && reply_seq_ == seq) {
    out->Swap(&reply_);
    has_reply_ = false;
    return absl::OkStatus();
  }
  if (!lost_ && (canceled() || expired())) {
    const bool cancel = canceled();
    const std::string reason = cancel
                                   ? "the job was canceled while it waited for the worker's reply"
                                   : "no reply within " + std::to_string(options.timeout.count()) +
                                         " ms (the orchestrator's --command-timeout-s)";
    spdlog::warn("{} given up: {}", Describe(), reason);
    LoseLocked(reason);
    CancelStreamLocked();
    return cancel ? absl::CancelledError(Describe() + ": " + reason)
                  : absl::DeadlineExceededError(Describe() + ": " + reason);
  }
  return absl::UnavailableError(
      Describe() + " was lost: " + (lost_ ? lost_reason_ : "the orchestrator shut down"));
}

void WorkerConnection::MarkLost(const std::string& reason) {
  absl::MutexLock lock(&loop_->mutex());
  LoseLocked(reason);
}

void WorkerConnection::LoseLocked(const std::string& reason) {
  if (!lost_) {
    lost_reason_ = reason;
    lost_ = true;
  }
  cv_.SignalAll();
}

std::string WorkerConnection::lost_reason() const {
  absl::MutexLock lock(&loop_->mutex());
  return lost_reason_;
}

std::chrono::steady_clock::time_point WorkerConnection::last_seen() const {
  return std::chrono::steady_clock::time_point(
      std::chrono::nanoseconds(last_seen_ns_.load(std::memory_order_relaxed)));
}

void WorkerConnection::CancelStream() {
  absl::MutexLock lock(&loop_->mutex());
  CancelStreamLocked();
}

void WorkerConnection::CancelStreamLocked() {
  if (context_ == nullptr || state_ == State::kAccepting) return;
  context_->TryCancel();
  ResumeReadsLocked();  // the read fails at once and closes the stream
}

bool WorkerConnection::AwaitingHello(std::chrono::steady_clock::time_point* since) const {
  absl::MutexLock lock(&loop_->mutex());
  if (state_ != State::kHello) return false;
  *since = last_seen();  // set when the call was accepted; a read moves it on
  return true;
}

void WorkerConnection::OnEvent(Op op, bool ok) {
  std::shared_ptr<WorkerConnection> registering, finished, awaiting_hello;
  bool finish_was_started = false;
  // The service asks for the next call first, so that workers never wait for this one.
  const bool proceed = op == Op::kAccept && on_accepted_ && on_accepted_(ok);
  {
    absl::MutexLock lock(&loop_->mutex());
    switch (op) {
      case Op::kAccept:
        if (!ok) {
          state_ = State::kFinished;  // never started: nothing is pending
        } else {
          state_ = State::kHello;
          if (!proceed || lost_) {  // no more workers, or the service closed its streams meanwhile
            LoseLocked("the orchestrator shut down");
            Close(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the orchestrator is shutting down"));
          } else {
            last_seen_ns_.store(NowNs(*pool_->clock()), std::memory_order_relaxed);
            awaiting_hello = self_;
            StartRead();
          }
        }
        break;
      case Op::kRead:
        read_pending_ = false;
        OnRead(ok);
        break;
      case Op::kWrite:
        write_pending_ = false;
        cv_.Signal();  // a job's next Write may wait for this
        if (OnWrite(ok)) registering = self_;
        break;
      case Op::kFinish:
        finish_done_ = true;
        break;
    }
    if (state_ == State::kClosing && finish_done_ && !read_pending_ && !write_pending_) {
      state_ = State::kFinished;
    }
    if (state_ == State::kFinished) {
      stream_.reset();
      context_.reset();
      finished = std::move(self_);
      finish_was_started = finish_started_;
    }
  }
  if (awaiting_hello) pool_->WatchHello(awaiting_hello);
  if (registering) {
    registered_ = true;  // only handlers touch it, one at a time
    pool_->Register(registering);
  }
  if (finished && registered_) pool_->Unregister(finished);
  if (finished && finish_was_started && on_finished_) on_finished_();
  // `finished` may hold the last reference: nothing touches `this` after it goes.
}

void WorkerConnection::OnRead(bool ok) {
  if (!ok) {
    // The worker half-closed or died, or the stream was canceled.
    LoseLocked("the worker closed its stream");
    Close(grpc::Status::OK);
    return;
  }
  last_seen_ns_.store(NowNs(*pool_->clock()), std::memory_order_relaxed);
  if (state_ == State::kHello) {
    OnHello();
    return;
  }
  if (state_ == State::kClosing) return;
  if (read_.body_case() != v1::WorkerMessage::kHeartbeat) {
    reply_.Swap(&read_);
    reply_seq_ = reply_.seq();
    if (reply_.cpu() > 0) cpu_.store(static_cast<int>(reply_.cpu()) - 1, std::memory_order_relaxed);
    has_reply_ = true;
    cv_.Signal();
    if (defer_reads_) {
      read_deferred_ = true;  // until the next command (Write) or ResumeReads
      return;
    }
  }
  StartRead();
}

void WorkerConnection::StartRead() {
  read_pending_ = true;
  stream_->Read(&read_, &read_tag_);
}

void WorkerConnection::OnHello() {
  if (!read_.has_hello()) {
    Close(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "the first message must be Hello"));
    return;
  }
  const v1::Hello& hello = read_.hello();
  v1::OrchestratorMessage welcome;
  auto refuse = [&](grpc::StatusCode code, const std::string& reason) {
    loop_->mutex().AssertHeld();
    spdlog::warn("refused a worker from host {}: {}", hello.host(), reason);
    welcome.mutable_welcome()->set_accepted(false);
    welcome.mutable_welcome()->set_reason(reason);
    StartWrite(welcome);
    Close(grpc::Status(code, reason));
  };
  // Authenticate first: a caller without the token learns nothing of this orchestrator, not
  // even the protocol version it speaks (issue 31).
  if (auth_ != nullptr) {
    if (grpc::Status s = auth_->Check(*context_); !s.ok()) {
      refuse(grpc::StatusCode::UNAUTHENTICATED, s.error_message());
      return;
    }
  }
  if (hello.protocol_version() != v1::PROTOCOL_VERSION_1) {
    refuse(grpc::StatusCode::FAILED_PRECONDITION,
           "incompatible protocol version " + std::to_string(hello.protocol_version()) +
               " from host " + hello.host() + " (this orchestrator speaks " +
               std::to_string(v1::PROTOCOL_VERSION_1) + ")");
    return;
  }
  if (hello.slots() < 0 || hello.slots() > kMaxSlots) {
    refuse(grpc::StatusCode::INVALID_ARGUMENT,
           "slots " + std::to_string(hello.slots()) + " from host " + hello.host() +
               " is out of range (1 to " + std::to_string(kMaxSlots) + ")");
    return;
  }
  if (std::string subject; VerifiedClientCertificate(*context_, &subject)) {
    spdlog::info("a worker from host {} shows the client certificate of '{}'", hello.host(),
                 subject);
  }
  id_ = pool_->NextId();
  host_ = hello.host();
  slots_ = std::max(1, hello.slots());
  runs_variants_ = hello.runs_variants();
  labels_.assign(hello.labels().begin(), hello.labels().end());
  pid_ = hello.pid();
  welcome.mutable_welcome()->set_accepted(true);
  welcome.mutable_welcome()->set_worker_id(id_);
  welcome.mutable_welcome()->set_heartbeat_ms(static_cast<int>(heartbeat_interval_.count()));
  // The welcome goes out before the worker becomes visible to jobs (OnWrite registers it).
  state_ = State::kAttaching;
  StartWrite(welcome);
  StartRead();
}

bool WorkerConnection::OnWrite(bool ok) {
  bool registering = false;
  if (!ok) {
    LoseLocked("the worker closed its stream");
    Close(grpc::Status::OK);
  } else if (state_ == State::kAttaching) {
    state_ = State::kAttached;
    registering = true;
  }
  // Also when the stream was closing already (its read failed first): Close deferred the Finish
  // until this write was out.
  MaybeFinish();
  return registering;
}

void WorkerConnection::StartWrite(const v1::OrchestratorMessage& message) {
  stream_->Write(message, &write_tag_);
  write_pending_ = true;
}

void WorkerConnection::MaybeFinish() {
  if (write_pending_) return;
  if (state_ == State::kClosing && !finish_started_) {
    finish_started_ = true;
    stream_->Finish(finish_status_, &finish_tag_);
  }
}

void WorkerConnection::Close(grpc::Status status) {
  if (state_ == State::kClosing || state_ == State::kFinished) return;
  state_ = State::kClosing;
  finish_status_ = std::move(status);
  MaybeFinish();
}

WorkerPool::WorkerPool(std::chrono::milliseconds heartbeat_timeout, Clock* clock)
    : heartbeat_timeout_(heartbeat_timeout),
      clock_(clock),
      id_suffix_(RandomSuffix()),
      watchdog_([this] { Watchdog(); }) {}

WorkerPool::~WorkerPool() { Shutdown(); }

void WorkerPool::Shutdown() {
  {
    absl::MutexLock lock(&mutex_);
    if (shutdown_) return;
    shutdown_ = true;
  }
  watchdog_cv_.SignalAll();
  if (watchdog_.joinable()) watchdog_.join();
}

std::string WorkerPool::NextId() {
  // Appended rather than "w" + to_string(): GCC 12 at -O3 (Release) reports a false -Wrestrict
  // on operator+(const char*, string&&).
  std::string id = "w";
  id += std::to_string(next_id_.fetch_add(1));
  id += '-';
  id += id_suffix_;
  return id;
}

void WorkerPool::WatchHello(const std::shared_ptr<WorkerConnection>& connection) {
  absl::MutexLock lock(&mutex_);
  awaiting_hello_.push_back(connection);
}

void WorkerPool::Register(const std::shared_ptr<WorkerConnection>& worker) {
  {
    absl::MutexLock lock(&mutex_);
    workers_.push_back(worker);
  }
  spdlog::info("{} attached (pid {}, labels [{}])", worker->Describe(), worker->pid(),
               fmt::join(worker->labels(), ","));
  NotifyChange();
}

void WorkerPool::Unregister(const std::shared_ptr<WorkerConnection>& worker) {
  {
    absl::MutexLock lock(&mutex_);
    workers_.erase(std::remove(workers_.begin(), workers_.end(), worker), workers_.end());
  }
  spdlog::info("{} detached: {}", worker->Describe(), worker->lost_reason());
  NotifyChange();
}

std::optional<std::vector<std::shared_ptr<WorkerConnection>>> WorkerPool::TryAcquire(
    const std::vector<std::string>& labels, const std::string& job_id) {
  absl::MutexLock lock(&mutex_);
  // Labelled units first, so that a free-for-all unit does not take the licensed machine.
  std::vector<size_t> order(labels.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return !labels[a].empty() && labels[b].empty(); });
  std::vector<std::shared_ptr<WorkerConnection>> chosen(labels.size());
  std::vector<std::pair<WorkerConnection*, int>> used;  // worker, slots taken by this job
  auto taken = [&](const WorkerConnection* w) {
    for (const auto& [worker, count] : used) {
      if (worker == w) return count;
    }
    return 0;
  };
  for (size_t i : order) {
    // A worker the job already has, while it has a free slot; else the idle worker with the
    // most free slots (the job packs onto few workers).
    const std::shared_ptr<WorkerConnection>* best = nullptr;
    int best_free = 0;
    bool best_used = false;
    for (const auto& w : workers_) {
      if (Busy(*w) || w->lost() || !Matches(*w, labels[i])) continue;
      const int already = taken(w.get());
      const int free = w->slots() - already;
      if (free <= 0) continue;
      const bool in_use = already > 0;
      if (best == nullptr || (in_use && !best_used) || (in_use == best_used && free > best_free)) {
        best = &w;
        best_free = free;
        best_used = in_use;
      }
    }
    if (best == nullptr) return std::nullopt;
    chosen[i] = *best;
    if (best_used) {
      for (auto& [worker, count] : used) count += worker == best->get() ? 1 : 0;
    } else {
      used.emplace_back(best->get(), 1);
    }
  }
  for (const auto& [worker, count] : used) assigned_[worker] = {count, job_id};
  return chosen;
}

void WorkerPool::Release(const std::vector<std::shared_ptr<WorkerConnection>>& workers) {
  {
    absl::MutexLock lock(&mutex_);
    for (const auto& w : workers) {
      if (assigned_.erase(w.get()) == 0) continue;  // a repeated entry, already freed
      w->Released();  // an idle worker's heartbeats and end of stream are read at once
    }
  }
  NotifyChange();
}

int WorkerPool::CountAvailable(const std::vector<std::string>& labels) const {
  return Count(labels, /*idle_only=*/true);
}

int WorkerPool::CountMatching(const std::vector<std::string>& labels) const {
  return Count(labels, /*idle_only=*/false);
}

int WorkerPool::Count(const std::vector<std::string>& labels, bool idle_only) const {
  absl::MutexLock lock(&mutex_);
  std::vector<std::pair<WorkerConnection*, int>> used;  // worker, slots counted
  int count = 0;
  for (const std::string& label : labels) {
    for (const auto& w : workers_) {
      if ((idle_only && Busy(*w)) || w->lost() || !Matches(*w, label)) continue;
      auto it = std::find_if(used.begin(), used.end(),
                             [&](const auto& entry) { return entry.first == w.get(); });
      if (it == used.end()) it = used.insert(used.end(), {w.get(), 0});
      if (it->second >= w->slots()) continue;
      ++it->second;
      ++count;
      break;
    }
  }
  return count;
}

std::vector<WorkerInfo> WorkerPool::List() const {
  absl::MutexLock lock(&mutex_);
  std::vector<WorkerInfo> out;
  for (const auto& w : workers_) {
    const auto assigned = assigned_.find(w.get());
    const bool busy = assigned != assigned_.end();
    out.push_back({w->id(), w->host(), w->labels(), busy, busy ? assigned->second.job_id : "",
                   w->pid(), w->slots(), busy ? assigned->second.slots_busy : 0,
                   w->messages_written(), w->last_seen()});
  }
  return out;
}

void WorkerPool::SetOnChange(std::function<void()> on_change) {
  absl::MutexLock lock(&mutex_);
  on_change_ = std::move(on_change);
}

void WorkerPool::NotifyChange() {
  std::function<void()> callback;
  {
    absl::MutexLock lock(&mutex_);
    callback = on_change_;
  }
  if (callback) callback();
}

void WorkerPool::Watchdog() {
  const auto period = std::max(std::chrono::milliseconds(20), heartbeat_timeout_ / 5);
  absl::MutexLock lock(&mutex_);
  while (!shutdown_) {
    watchdog_cv_.WaitWithTimeout(&mutex_, absl::FromChrono(period));
    if (!shutdown_) CheckWorkersLocked();
  }
}

void WorkerPool::CheckWorkers() {
  absl::MutexLock lock(&mutex_);
  CheckWorkersLocked();
}

void WorkerPool::CheckWorkersLocked() {
  const auto now = clock_->Now();
  for (auto it = awaiting_hello_.begin(); it != awaiting_hello_.end();) {
    std::shared_ptr<WorkerConnection> c = it->lock();
    std::chrono::steady_clock::time_point since;
    if (c && c->AwaitingHello(&since) && now - since <= heartbeat_timeout_) {
      ++it;
      continue;
    }
    if (c && c->AwaitingHello(&since)) {
      spdlog::warn("ended an Attach stream that sent no Hello within {} ms",
                   heartbeat_timeout_.count());
      c->MarkLost("no Hello within the heartbeat timeout");
      c->CancelStream();
    }
    it = awaiting_hello_.erase(it);
  }
  for (const auto& w : workers_) {
    // A job's worker whose read waits for the next command would have its heartbeats unread
    // while the job computes (a read posted now reads them, and costs one window update).
    w->ResumeReads();
    if (w->lost() || now - w->last_seen() <= heartbeat_timeout_) continue;
    const auto silent = std::chrono::duration_cast<std::chrono::milliseconds>(now - w->last_seen());
    w->MarkLost("no heartbeat for " + std::to_string(silent.count()) + " ms (timeout " +
                std::to_string(heartbeat_timeout_.count()) + " ms)");
    spdlog::warn("{} lost: no heartbeat for {} ms", w->Describe(), silent.count());
    w->CancelStream();
  }
}

}  // namespace cosimo::orchestrator
