// WorkerLease: the workers a job holds, from the pool's TryAcquire to the job's end. They go back
// to the pool exactly once: at Release() or when the lease is destroyed, whichever comes first,
// on every path out of a job (an early return, an error, an exception). Move-only: a moved-from
// lease holds nothing. `workers()` are TryAcquire's entries (entry i: unit i's worker; a worker
// with slots appears once per unit on it).
//
// Thread safety: none; a lease belongs to one job thread.
#pragma once

#include <functional>
#include <memory>
#include <vector>

namespace cosimo::orchestrator {

class WorkerConnection;
class WorkerPool;

class WorkerLease {
 public:
  using Workers = std::vector<std::shared_ptr<WorkerConnection>>;
  // Gives the workers back (WorkerPool::Release, or a test's fake).
  using Releaser = std::function<void(const Workers&)>;

  WorkerLease() = default;  // holds nothing
  WorkerLease(Workers workers, Releaser release);
  // `workers` from pool->TryAcquire, released to `pool` (not owned; it outlives the lease).
  static WorkerLease FromPool(WorkerPool* pool, Workers workers);

  WorkerLease(WorkerLease&& other) noexcept;
  // Releases what this lease held, then takes over `other`'s.
  WorkerLease& operator=(WorkerLease&& other) noexcept;
  WorkerLease(const WorkerLease&) = delete;
  WorkerLease& operator=(const WorkerLease&) = delete;
  ~WorkerLease() { Release(); }

  const Workers& workers() const { return workers_; }
  // Whether the workers are still held (not released yet).
  bool held() const { return static_cast<bool>(release_); }
  // Gives the workers back now; later calls (and the destructor) do nothing. workers() stays
  // readable (ids for logs), but the job no longer owns them.
  void Release();

 private:
  Workers workers_;
  Releaser release_;  // empty once released
};

}  // namespace cosimo::orchestrator
