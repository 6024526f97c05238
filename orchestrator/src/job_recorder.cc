#include "orchestrator/src/job_recorder.h"

#include <spdlog/spdlog.h>

#include "cosimo/common/job_state.h"
#include "cosimo/common/status.h"

namespace cosimo::orchestrator {

bool JobRecorder::Record(Job& job) {
  const absl::Status s = store_->UpdateStatus(job.status);
  if (s.ok()) return true;
  spdlog::error("job {}: its status ({}) could not be stored: {}", job.id,
                v1::JobState_Name(job.status.state()), s.message());
  if (job.store_error.empty()) job.store_error = std::string(s.message());
  job.cancel = true;
  const std::string& message = job.status.message();
  if (IsFinished(job.status.state()) && message.rfind(kNotStored, 0) != 0) {
    job.status.set_message(kNotStored + job.store_error +
                           (message.empty() ? "" : " (" + message + ")"));
    job.status.set_state(v1::FAILED);
  }
  return false;
}

void JobRecorder::Progressed(Job& job, std::chrono::steady_clock::time_point* stored_at) {
  const auto now = clock_->Now();
  job.status.set_wall_seconds(std::chrono::duration<double>(now - job.started).count());
  if (now - *stored_at >= std::chrono::seconds(1)) {
    *stored_at = now;
    Record(job);  // a failed write cancels the job, which then fails naming it
  }
  job.Touch();
}

void JobRecorder::Finish(Job& job, v1::JobState state, const std::string& message) {
  v1::JobStatus ended;
  {
    absl::MutexLock lock(&job.mutex);
    if (job.store_error.empty()) {
      job.status.set_state(state);
      job.status.set_message(message);
    } else {  // an earlier write failed: the job was stopped for it
      job.status.set_state(v1::FAILED);
      job.status.set_message(kNotStored + job.store_error);
    }
    job.status.set_finished_unix_ms(clock_->UnixMs());
    job.status.set_wall_seconds(std::chrono::duration<double>(clock_->Now() - job.started).count());
    job.resuming = false;
    Record(job);
    job.Touch();
    ended = job.status;
  }
  DropCheckpoint(job, ended.state());
  // The rows a run stored as it went are results only with the results record.
  if (ended.state() != v1::SUCCEEDED) {
    if (absl::Status s = store_->TruncateRows(job.id, 0); !s.ok()) {
      spdlog::warn("job {}: its stored rows could not be removed: {}", job.id, s.message());
    }
  }
  if (ended.state() == v1::SUCCEEDED) {
    spdlog::info("job {} succeeded", job.id);
  } else {
    spdlog::warn("job {} {}: {}", job.id, v1::JobState_Name(ended.state()), ended.message());
  }
}

void JobRecorder::FinishUnsuccessful(Job& job, const absl::Status& status, std::string message,
                                     const std::string& reached) {
  const bool shutting_down = ShuttingDown();
  // Stopped by the orchestrator's shutdown, not by a client: the job failed
  // (docs/deployment.md), as it does when the orchestrator is killed.
  const bool stopped = status.code() == absl::StatusCode::kCancelled || job.cancel;
  const bool canceled = stopped && !shutting_down;
  if (stopped && shutting_down) message = kShutDownWhileRunning;
  if (!canceled && message.find("t=") == std::string::npos) message += reached;
  Finish(job, canceled ? v1::CANCELED : v1::FAILED, canceled ? "canceled" : message);
}

void JobRecorder::DropCheckpoint(const Job& job, v1::JobState ended) {
  // Only a running job resumes: an ended one's checkpoint is of no more use, but for the
  // finished rows of a sweep and the finished batches of a calibration that may resume
  // (JobManager::ResumeEnded).
  if ((job.kind == JobKind::kSweep || job.kind == JobKind::kFit) && ended != v1::SUCCEEDED) return;
  if (absl::Status s = store_->DeleteCheckpoint(job.id); !s.ok()) {
    spdlog::warn("job {}: its checkpoint could not be removed: {}", job.id, s.message());
  }
}

}  // namespace cosimo::orchestrator
