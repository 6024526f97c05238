// JobManager's queries: a job's status, the list of jobs by pages, results, waiting for a
// change, the workers (job_manager.h). The lifecycle is job_manager.cc, retention job_retention.cc.
#include "orchestrator/src/job_manager.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "cosimo/common/job_state.h"
#include "cosimo/common/results_proto.h"
#include "cosimo/common/status.h"
#include "orchestrator/src/job_access.h"
#include "orchestrator/src/sweep_runner.h"

namespace cosimo::orchestrator {

std::vector<v1::WorkerStatus> JobManager::Workers() const {
  std::vector<v1::WorkerStatus> out;
  for (const WorkerInfo& info : pool_->List()) {
    v1::WorkerStatus& w = out.emplace_back();
    w.set_worker_id(info.id);
    w.set_host(info.host);
    w.set_pid(info.pid);
    for (const std::string& label : info.labels) w.add_labels(label);
    w.set_busy(info.busy);
    w.set_job_id(info.job_id);
    w.set_slots(info.slots);
    w.set_slots_busy(info.slots_busy);
    w.set_messages(info.messages);
  }
  return out;
}

std::map<std::string, std::string> JobManager::RunningUnits() const { return running_units_.All(); }

JobManager::Counts JobManager::Count() const {
  Counts counts;
  absl::ReaderMutexLock lock(&mutex_);
  for (const auto& [id, job] : jobs_) {
    ++counts.by_state[job->State()];
    counts.job_ids.insert(id);
    if (job->kind == JobKind::kSweep) counts.sweeps[id] = job->Status().sweep();
    if (job->kind == JobKind::kFit) {
      v1::FitStatus fit = job->Status().fit();
      fit.clear_calibration();
      fit.clear_result();
      counts.fits[id] = std::move(fit);
    }
  }
  counts.queued = scheduler_.size();
  counts.units_waiting = scheduler_.UnitsWaiting();
  return counts;
}

std::shared_ptr<Job> JobManager::Find(const std::string& job_id) const {
  auto it = jobs_.find(job_id);
  return it == jobs_.end() ? nullptr : it->second;
}

absl::StatusOr<v1::JobStatus> JobManager::Get(const std::string& job_id) const {
  absl::ReaderMutexLock lock(&mutex_);
  std::shared_ptr<Job> job = Find(job_id);
  if (!job) return UnknownJob(job_id);
  return job->Status();
}

absl::StatusOr<v1::CalibrationJob> JobManager::CalibrationSamples(const std::string& job_id) const {
  absl::StatusOr<v1::JobStatus> status = Get(job_id);
  if (!status.ok()) return status.status();
  if (!status->has_fit()) {
    return absl::FailedPreconditionError("job " + job_id + " is not a calibration job");
  }
  absl::StatusOr<v1::CalibrationJob> samples = store_->LoadCalibrationSamples(job_id);
  if (samples.status().code() != absl::StatusCode::kNotFound) return samples;
  // A job recorded before the samples were stored apart has them in its status.
  v1::CalibrationJob in_status;
  *in_status.mutable_samples() = status->fit().calibration().samples();
  return in_status;
}

absl::StatusOr<JobManager::JobPage> JobManager::List(uint32_t page_size,
                                                     const std::string& page_token) const {
  constexpr uint32_t kDefaultPage = 100, kMaxPage = 1000;
  page_size = page_size == 0 ? kDefaultPage : std::min(page_size, kMaxPage);
  // Newest first; ties by id. A token is "<submitted_unix_ms>/<id>" of the last job of a page.
  using Key = std::pair<int64_t, std::string>;
  std::optional<Key> after;
  if (!page_token.empty()) {
    const size_t slash = page_token.find('/');
    int64_t ms = 0;
    if (slash == std::string::npos || page_token.size() > 128 ||
        !absl::SimpleAtoi(page_token.substr(0, slash), &ms)) {
      return absl::InvalidArgumentError("page_token is not one this orchestrator gave");
    }
    after = Key(ms, page_token.substr(slash + 1));
  }
  std::vector<std::pair<Key, std::shared_ptr<Job>>> selected;
  {
    absl::ReaderMutexLock lock(&mutex_);
    for (const auto& [id, job] : jobs_) {
      Key key(job->submitted_unix_ms, id);
      if (!after || key < *after) selected.emplace_back(std::move(key), job);
    }
  }
  const size_t count = std::min<size_t>(page_size, selected.size());
  std::partial_sort(selected.begin(), selected.begin() + static_cast<std::ptrdiff_t>(count),
                    selected.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  JobPage page;
  for (size_t i = 0; i < count; ++i) page.jobs.push_back(selected[i].second->Status());
  if (count < selected.size()) {
    const Key& last = selected[count - 1].first;
    page.next_page_token = std::to_string(last.first) + "/" + last.second;
  }
  return page;
}

absl::StatusOr<StoredResults> JobManager::Results(const std::string& job_id, bool partial) const {
  std::shared_ptr<Job> job;
  v1::JobStatus status;
  {
    absl::ReaderMutexLock lock(&mutex_);
    job = Find(job_id);
    if (!job) return UnknownJob(job_id);
    status = job->Status();
    if (job->kind == JobKind::kTraining) {
      return absl::FailedPreconditionError(
          "job " + job_id +
          " is a training job: its result is a weights file, not a results table "
          "(GetTrainingResult; cosimo results JOB --out weights.json)");
    }
    if (job->kind == JobKind::kSweep && status.state() != v1::SUCCEEDED &&
        status.state() != v1::QUEUED) {
      return UnfinishedSweepTable(status, *store_);
    }
    if (status.state() == v1::RUNNING && !partial) {
      return absl::FailedPreconditionError(
          "job " + job_id +
          " has no results yet: it is RUNNING (its rows recorded so far: cosimo results --partial, "
          "GetResults with partial)");
    }
    if (status.state() != v1::SUCCEEDED && status.state() != v1::RUNNING) {
      return absl::FailedPreconditionError(
          "job " + job_id + " has no results: it is " + v1::JobState_Name(status.state()) +
          (status.message().empty() ? "" : " (" + status.message() + ")"));
    }
  }
  if (status.state() == v1::SUCCEEDED) return store_->LoadResults(job_id);
  StoredResults so_far;  // a running simulation job's rows so far, read whole
  COSIMO_RETURN_IF_ERROR(ReadRowsSoFar(
      *job, status, {},
      [&](const v1::ResultsHeader& header) {
        cosimo::FromProto(header, &so_far);
        so_far.metadata = header.metadata();
        return true;
      },
      [&](uint64_t, uint64_t, const v1::ResultRows& rows) {
        cosimo::AppendRows(rows, &so_far);
        return true;
      }));
  return so_far;
}

absl::StatusOr<std::vector<v1::LogEntry>> JobManager::Logs(const std::string& job_id,
                                                           const std::string& unit) const {
  {
    absl::ReaderMutexLock lock(&mutex_);
    if (!Find(job_id)) return UnknownJob(job_id);
  }
  return store_->LoadLogs(job_id, unit);
}

absl::StatusOr<v1::TrainingResult> JobManager::TrainingResult(const std::string& job_id) const {
  {
    absl::ReaderMutexLock lock(&mutex_);
    std::shared_ptr<Job> job = Find(job_id);
    if (!job) return UnknownJob(job_id);
    const v1::JobStatus status = job->Status();
    if (job->kind != JobKind::kTraining) {
      return absl::FailedPreconditionError("job " + job_id +
                                           " is not a training job: its results are a table "
                                           "(GetResults)");
    }
    if (status.state() != v1::SUCCEEDED) {
      return absl::FailedPreconditionError(
          "job " + job_id + " has no trained weights: it is " + v1::JobState_Name(status.state()) +
          (status.message().empty() ? "" : " (" + status.message() + ")"));
    }
  }
  return store_->LoadTrainingResult(job_id);
}

absl::StatusOr<v1::JobStatus> JobManager::WaitForChange(const std::string& job_id,
                                                        uint64_t* version,
                                                        std::chrono::milliseconds timeout) {
  std::shared_ptr<Job> job;
  {
    absl::ReaderMutexLock lock(&mutex_);
    job = Find(job_id);
    if (!job) return UnknownJob(job_id);
  }
  return job->WaitForChange(version, absl::Now() + absl::FromChrono(timeout));
}

}  // namespace cosimo::orchestrator
