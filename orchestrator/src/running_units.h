// Which units each busy worker runs, for the HTTP port's worker list: worker id -> unit names,
// ","-joined (a worker with slots runs several of a job's units). Set by a job runner once its
// units are loading, cleared when it lets its workers go. Thread safe.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::orchestrator {

class WorkerConnection;

class RunningUnitsMap {
 public:
  // `workers[i]` runs scenario.units(i) (WorkerPool::TryAcquire's entries).
  void Set(const std::vector<std::shared_ptr<WorkerConnection>>& workers,
           const v1::Scenario& scenario) ABSL_LOCKS_EXCLUDED(mutex_);
  void Clear(const std::vector<std::shared_ptr<WorkerConnection>>& workers)
      ABSL_LOCKS_EXCLUDED(mutex_);
  std::map<std::string, std::string> All() const ABSL_LOCKS_EXCLUDED(mutex_);

 private:
  mutable absl::Mutex mutex_;
  std::map<std::string, std::string> units_ ABSL_GUARDED_BY(mutex_);
};

}  // namespace cosimo::orchestrator
