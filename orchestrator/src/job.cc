#include "orchestrator/src/job.h"

#include <utility>

#include "cosimo/common/scenario.h"

namespace cosimo::orchestrator {
namespace {

std::vector<std::string> ArtifactsOf(const v1::JobStatus& status, const v1::Scenario& scenario) {
  std::vector<std::string> out;
  for (const v1::Unit& unit : scenario.units()) {
    for (const UnitArtifactRef& a : UnitArtifacts(unit)) {
      if (!a.digest.empty()) out.push_back(a.digest);
    }
  }
  if (status.has_training()) out.push_back(status.training().request().data_digest());
  return out;
}

}  // namespace

JobKind KindOf(const v1::JobStatus& status) {
  if (status.has_training()) return JobKind::kTraining;
  if (status.has_fit()) return JobKind::kFit;
  return status.has_sweep() ? JobKind::kSweep : JobKind::kSimulation;
}

std::vector<std::string> WorkerLabelsOf(const v1::JobStatus& status, const v1::Scenario& scenario) {
  std::vector<std::string> labels;
  const bool training = KindOf(status) == JobKind::kTraining;
  for (const v1::Unit& unit : scenario.units()) {
    if (!training || unit.name() == status.training().request().unit()) {
      labels.push_back(unit.worker_label());
    }
  }
  return labels;
}

Job::Job(v1::JobStatus first, const v1::Scenario& scenario)
    : id(first.job_id()),
      owner(first.owner()),
      submitted_unix_ms(first.submitted_unix_ms()),
      kind(KindOf(first)),
      labels(WorkerLabelsOf(first, scenario)),
      artifacts(ArtifactsOf(first, scenario)),
      status(std::move(first)) {}

v1::JobStatus Job::Status() const {
  absl::ReaderMutexLock lock(&mutex);
  return status;
}

v1::JobState Job::State() const {
  absl::ReaderMutexLock lock(&mutex);
  return status.state();
}

void Job::Touch() {
  ++version_;
  changed_.SignalAll();
}

v1::JobStatus Job::WaitForChange(uint64_t* version, absl::Time deadline) {
  absl::MutexLock lock(&mutex);
  if (*version != 0) {
    while (version_ == *version && !closed_) {
      if (changed_.WaitWithDeadline(&mutex, deadline)) break;  // timed out
    }
  }
  *version = version_;
  return status;
}

void Job::Close() {
  absl::MutexLock lock(&mutex);
  closed_ = true;
  changed_.SignalAll();
}

}  // namespace cosimo::orchestrator
