#include "orchestrator/src/worker_connection.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <string>

#include "cosimo/common/crash.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {
namespace {

int64_t NowNs(const Clock& clock) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clock.Now().time_since_epoch())
      .count();
}

// The most units a worker may host (Hello.slots): a worker asking for more is refused.
constexpr int kMaxSlots = 4096;

}  // namespace

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

void WorkerConnection::HandOverLoop() {
  absl::MutexLock lock(&loop_->mutex());
  loop_->LeadNowLocked();
}

void WorkerConnection::Released() {
  absl::MutexLock lock(&loop_->mutex());
  defer_reads_ = false;  // a late reply to the job's last command does not stop the reads
  has_reply_ = false;    // nor does one the job left untaken: no one waits for it now
  ResumeReadsLocked();
}

void WorkerConnection::ResumeReadsLocked() {
  // Not while a reply waits to be taken: the next message would be read over it (the watchdog's
  // pass came between a RunJob's JobRows and its job thread, which then saw the chunk after it:
  // "the rows ... do not continue"). The reply's taker resumes the reads.
  if (!read_deferred_ || has_reply_) return;
  read_deferred_ = false;
  if (state_ == State::kAttached) StartRead();
}

absl::Status WorkerConnection::WaitReply(uint64_t seq, v1::WorkerMessage* out,
                                         const WaitOptions& options) {
  auto deadline = options.timeout.count() > 0 ? std::chrono::steady_clock::now() + options.timeout
                                              : std::chrono::steady_clock::time_point::max();
  bool graced = false;  // the cancel was seen: the grace runs (deadline)
  auto canceled = [&] { return !graced && options.cancel != nullptr && options.cancel->load(); };
  auto expired = [&] { return std::chrono::steady_clock::now() >= deadline; };
  absl::MutexLock lock(&loop_->mutex());
  auto replied = [&] {
    loop_->mutex().AssertHeld();
    if (has_reply_ && reply_seq_ < seq) {  // a stop's reply, late: not this wait's
      has_reply_ = false;
      ResumeReadsLocked();
    }
    return has_reply_ && reply_seq_ == seq;
  };
  // A reply still to come is read (a stop's reply follows the one it came after with no write
  // between them to post the read).
  if (!replied()) ResumeReadsLocked();
  waiting_.store(true);
  while (true) {
    loop_->Wait(cv_, [&] {
      loop_->mutex().AssertHeld();
      return replied() || lost_ || canceled() || expired();
    });
    if (replied() || lost_ || !canceled() || options.cancel_grace.count() <= 0) break;
    // Canceled: the command in flight may end within the grace, leaving the worker in step.
    graced = true;
    deadline = std::chrono::steady_clock::now() + options.cancel_grace;
    if (options.stop != nullptr) {
      loop_->Wait(cv_, [&] {
        loop_->mutex().AssertHeld();
        return !write_pending_ || lost_;
      });
      if (!lost_ && state_ == State::kAttached) StartWrite(*options.stop);
    }
  }
  waiting_.store(false);
  if (replied()) {
    out->Swap(&reply_);
    has_reply_ = false;
    if (!graced) return absl::OkStatus();
    return absl::CancelledError(
        Describe() + ": the job was canceled (the worker finished its command and stays)");
  }
  if (!lost_ && (graced || canceled() || expired())) {
    const bool cancel = graced || canceled();
    const std::string reason =
        !cancel ? "no reply within " + std::to_string(options.timeout.count()) +
                      " ms (the orchestrator's --command-timeout-s)"
        : graced ? "the job was canceled and the worker's command did not end within " +
                       std::to_string(options.cancel_grace.count()) + " ms"
                 : "the job was canceled while it waited for the worker's reply";
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
  if (read_.body_case() == v1::WorkerMessage::kUnitLogs) {
    // Before the reply that follows it (a job's end): the job's log is whole once it ended.
    pool_->DeliverLogs(read_.unit_logs());
  } else if (read_.body_case() != v1::WorkerMessage::kHeartbeat) {
    reply_.Swap(&read_);
    reply_seq_ = reply_.seq();
    replies_read_.fetch_add(1, std::memory_order_relaxed);
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
  runs_jobs_ = hello.runs_jobs();
  labels_.assign(hello.labels().begin(), hello.labels().end());
  pid_ = hello.pid();
  if (hello.has_crash()) {
    spdlog::warn("worker {} (host {}, pid {}) started after the one before it crashed: {}", id_,
                 host_, pid_, DescribeCrash(hello.crash()));
    pool_->RecordCrash(hello.crash());
  }
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

}  // namespace cosimo::orchestrator
