#include "orchestrator/src/worker_pool.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace cosimo::orchestrator {
namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool Matches(const WorkerConnection& worker, const std::string& label) {
  if (label.empty()) return true;
  const auto& labels = worker.labels();
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

}  // namespace

WorkerConnection::WorkerConnection(std::string id, const v1::Hello& hello, WorkerStream* stream,
                                   grpc::ServerContext* context)
    : id_(std::move(id)),
      host_(hello.host()),
      labels_(hello.labels().begin(), hello.labels().end()),
      pid_(hello.pid()),
      stream_(stream),
      context_(context),
      last_seen_ns_(NowNs()) {}

std::string WorkerConnection::Describe() const { return "worker " + id_ + " on host " + host_; }

bool WorkerConnection::Write(const v1::OrchestratorMessage& message) {
  {
    std::lock_guard<std::mutex> lock(write_mutex_);
    if (closed_ || lost_) return false;
    if (stream_->Write(message)) return true;
  }
  // While a job reads the stream the parked handler cannot notice the end; say it here, as the
  // handler would have.
  bool job_reads = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_reads = job_reads_;
  }
  if (job_reads) {
    MarkLost(context_->IsCancelled() ? "stream canceled" : "the worker closed its stream");
  }
  return false;
}

void WorkerConnection::CloseStream() {
  std::lock_guard<std::mutex> lock(write_mutex_);
  closed_ = true;
}

absl::Status WorkerConnection::WaitReply(uint64_t seq, v1::WorkerMessage* out) {
  std::unique_lock<std::mutex> lock(mutex_);
  job_reads_ = true;
  cv_.wait(lock, [&] { return (has_reply_ && reply_seq_ == seq) || lost_ || handler_parked_; });
  if (has_reply_ && reply_seq_ == seq) {
    out->Swap(&reply_);
    has_reply_ = false;
    return absl::OkStatus();
  }
  if (lost_) return absl::UnavailableError(Describe() + " was lost: " + lost_reason_);
  // The handler is parked: no other Read is pending, this thread reads.
  lock.unlock();
  while (stream_->Read(out)) {
    last_seen_ns_.store(NowNs(), std::memory_order_relaxed);
    if (out->body_case() == v1::WorkerMessage::kHeartbeat) continue;
    if (out->seq() == seq) return absl::OkStatus();
  }
  MarkLost(context_->IsCancelled() ? "stream canceled" : "the worker closed its stream");
  lock.lock();
  return absl::UnavailableError(Describe() + " was lost: " + lost_reason_);
}

void WorkerConnection::ReleaseReads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_reads_ = false;
  }
  cv_.notify_all();
}

void WorkerConnection::OnMessage(v1::WorkerMessage* message) {
  last_seen_ns_.store(NowNs(), std::memory_order_relaxed);
  std::unique_lock<std::mutex> lock(mutex_);
  if (message->body_case() != v1::WorkerMessage::kHeartbeat) {
    reply_.Swap(message);
    reply_seq_ = reply_.seq();
    has_reply_ = true;
  }
  if (!job_reads_) {
    lock.unlock();
    cv_.notify_all();
    return;
  }
  handler_parked_ = true;
  cv_.notify_all();
  // Not on lost_: the job thread may still be in Read, and a stream takes one reader at a time.
  cv_.wait(lock, [&] { return !job_reads_; });
  handler_parked_ = false;
}

void WorkerConnection::MarkLost(const std::string& reason) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (lost_) return;
    lost_reason_ = reason;
    lost_ = true;
  }
  cv_.notify_all();
}

std::string WorkerConnection::lost_reason() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lost_reason_;
}

std::chrono::steady_clock::time_point WorkerConnection::last_seen() const {
  return std::chrono::steady_clock::time_point(
      std::chrono::nanoseconds(last_seen_ns_.load(std::memory_order_relaxed)));
}

WorkerPool::WorkerPool(std::chrono::milliseconds heartbeat_timeout)
    : heartbeat_timeout_(heartbeat_timeout), watchdog_([this] { Watchdog(); }) {}

WorkerPool::~WorkerPool() { Shutdown(); }

void WorkerPool::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (shutdown_) return;
    shutdown_ = true;
  }
  watchdog_cv_.notify_all();
  if (watchdog_.joinable()) watchdog_.join();
}

std::shared_ptr<WorkerConnection> WorkerPool::Create(const v1::Hello& hello, WorkerStream* stream,
                                                     grpc::ServerContext* context) {
  std::lock_guard<std::mutex> lock(mutex_);
  // Appended rather than "w" + to_string(): GCC 12 at -O3 (Release) reports a false -Wrestrict
  // on operator+(const char*, string&&).
  std::string id = "w";
  id += std::to_string(next_id_++);
  return std::make_shared<WorkerConnection>(std::move(id), hello, stream, context);
}

void WorkerPool::Register(const std::shared_ptr<WorkerConnection>& worker) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    workers_.push_back(worker);
  }
  spdlog::info("{} attached (pid {}, labels [{}])", worker->Describe(), worker->pid(),
               fmt::join(worker->labels(), ","));
  NotifyChange();
}

void WorkerPool::Unregister(const std::shared_ptr<WorkerConnection>& worker) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    workers_.erase(std::remove(workers_.begin(), workers_.end(), worker), workers_.end());
  }
  spdlog::info("{} detached: {}", worker->Describe(), worker->lost_reason());
  NotifyChange();
}

std::optional<std::vector<std::shared_ptr<WorkerConnection>>> WorkerPool::TryAcquire(
    const std::vector<std::string>& labels, const std::string& job_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::shared_ptr<WorkerConnection>> chosen;
  // Labelled units first, so that a free-for-all unit does not take the licensed machine.
  std::vector<size_t> order(labels.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return !labels[a].empty() && labels[b].empty(); });
  chosen.resize(labels.size());
  std::vector<WorkerConnection*> taken;
  for (size_t i : order) {
    for (const auto& w : workers_) {
      if (w->busy || w->lost() || !Matches(*w, labels[i])) continue;
      if (std::find(taken.begin(), taken.end(), w.get()) != taken.end()) continue;
      chosen[i] = w;
      taken.push_back(w.get());
      break;
    }
    if (!chosen[i]) return std::nullopt;
  }
  for (const auto& w : chosen) {
    w->busy = true;
    w->job_id = job_id;
  }
  return chosen;
}

void WorkerPool::Release(const std::vector<std::shared_ptr<WorkerConnection>>& workers) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& w : workers) {
      w->busy = false;
      w->job_id.clear();
      w->ReleaseReads();
    }
  }
  NotifyChange();
}

int WorkerPool::CountAvailable(const std::vector<std::string>& labels) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<WorkerConnection*> taken;
  int count = 0;
  for (const std::string& label : labels) {
    for (const auto& w : workers_) {
      if (w->busy || w->lost() || !Matches(*w, label)) continue;
      if (std::find(taken.begin(), taken.end(), w.get()) != taken.end()) continue;
      taken.push_back(w.get());
      ++count;
      break;
    }
  }
  return count;
}

std::vector<WorkerInfo> WorkerPool::List() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<WorkerInfo> out;
  for (const auto& w : workers_)
    out.push_back({w->id(), w->host(), w->labels(), w->busy, w->job_id});
  return out;
}

void WorkerPool::SetOnChange(std::function<void()> on_change) {
  std::lock_guard<std::mutex> lock(mutex_);
  on_change_ = std::move(on_change);
}

void WorkerPool::NotifyChange() {
  std::function<void()> callback;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    callback = on_change_;
  }
  if (callback) callback();
}

void WorkerPool::Watchdog() {
  std::unique_lock<std::mutex> lock(mutex_);
  const auto period = std::max(std::chrono::milliseconds(20), heartbeat_timeout_ / 5);
  while (!shutdown_) {
    watchdog_cv_.wait_for(lock, period);
    const auto now = std::chrono::steady_clock::now();
    for (const auto& w : workers_) {
      if (w->lost() || now - w->last_seen() <= heartbeat_timeout_) continue;
      const auto silent =
          std::chrono::duration_cast<std::chrono::milliseconds>(now - w->last_seen());
      w->MarkLost("no heartbeat for " + std::to_string(silent.count()) + " ms (timeout " +
                  std::to_string(heartbeat_timeout_.count()) + " ms)");
      spdlog::warn("{} lost: no heartbeat for {} ms", w->Describe(), silent.count());
      w->CancelStream();
    }
  }
}

}  // namespace cosimo::orchestrator
