// Job states (cosimo.v1.JobState) as the orchestrator and its clients read them.
#pragma once

#include "cosimo/v1/job_service.pb.h"

namespace cosimo {

// SUCCEEDED, FAILED and CANCELED: the job will not change any more.
inline bool IsFinished(v1::JobState state) {
  return state == v1::SUCCEEDED || state == v1::FAILED || state == v1::CANCELED;
}

}  // namespace cosimo
