#include "orchestrator/src/worker_pool.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <random>

namespace cosimo::orchestrator {
namespace {

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

void WorkerPool::SetLogSink(std::function<void(const v1::UnitLogs&)> sink) {
  absl::MutexLock lock(&mutex_);
  log_sink_ = std::move(sink);
}

void WorkerPool::DeliverLogs(const v1::UnitLogs& logs) {
  std::function<void(const v1::UnitLogs&)> sink;
  {
    absl::MutexLock lock(&mutex_);
    sink = log_sink_;
  }
  if (sink) sink(logs);
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

void WorkerPool::RecordCrash(const v1::CrashReport& report) {
  constexpr size_t kKept = 256;
  absl::MutexLock lock(&mutex_);
  crashes_.push_back(report);
  if (crashes_.size() > kKept) crashes_.pop_front();
}

std::optional<v1::CrashReport> WorkerPool::CrashOf(const std::string& job_id,
                                                   int64_t variant) const {
  absl::MutexLock lock(&mutex_);
  for (auto it = crashes_.rbegin(); it != crashes_.rend(); ++it) {
    if (it->job_id() == job_id && (it->variant() == variant || it->variant() < 0)) return *it;
  }
  return std::nullopt;
}

}  // namespace cosimo::orchestrator
