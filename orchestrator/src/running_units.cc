#include "orchestrator/src/running_units.h"

#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {

void RunningUnitsMap::Set(const std::vector<std::shared_ptr<WorkerConnection>>& workers,
                          const v1::Scenario& scenario) {
  absl::MutexLock lock(&mutex_);
  for (const auto& worker : workers) units_.erase(worker->id());
  for (int i = 0; i < scenario.units_size() && static_cast<size_t>(i) < workers.size(); ++i) {
    std::string& names = units_[workers[static_cast<size_t>(i)]->id()];
    names += (names.empty() ? "" : ",") + scenario.units(i).name();
  }
}

void RunningUnitsMap::Clear(const std::vector<std::shared_ptr<WorkerConnection>>& workers) {
  absl::MutexLock lock(&mutex_);
  for (const auto& worker : workers) units_.erase(worker->id());
}

std::map<std::string, std::string> RunningUnitsMap::All() const {
  absl::ReaderMutexLock lock(&mutex_);
  return units_;
}

}  // namespace cosimo::orchestrator
