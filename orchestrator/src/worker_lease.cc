#include "orchestrator/src/worker_lease.h"

#include <utility>

#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {

WorkerLease::WorkerLease(Workers workers, Releaser release)
    : workers_(std::move(workers)), release_(std::move(release)) {}

WorkerLease WorkerLease::FromPool(WorkerPool* pool, Workers workers) {
  return WorkerLease(std::move(workers), [pool](const Workers& held) { pool->Release(held); });
}

WorkerLease::WorkerLease(WorkerLease&& other) noexcept
    : workers_(std::move(other.workers_)), release_(std::exchange(other.release_, nullptr)) {}

WorkerLease& WorkerLease::operator=(WorkerLease&& other) noexcept {
  if (this != &other) {
    Release();
    workers_ = std::move(other.workers_);
    release_ = std::exchange(other.release_, nullptr);
  }
  return *this;
}

void WorkerLease::Release() {
  if (!release_) return;
  // Emptied first: a releaser that throws still does not run twice.
  Releaser release = std::exchange(release_, nullptr);
  release(workers_);
}

}  // namespace cosimo::orchestrator
