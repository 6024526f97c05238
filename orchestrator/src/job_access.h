// Who may see and change a job: the errors for an unknown job id and for a client that does not
// own the job, and the rule (its owner, or an admin token). JobManager's queries, cancel and
// delete share them.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "cosimo/v1/job_service.pb.h"
#include "orchestrator/src/caller.h"

namespace cosimo::orchestrator {

// The error for an id that names no job. It quotes at most 64 bytes of the id: a client that
// sent 60 MB got them echoed back.
inline absl::Status UnknownJob(const std::string& job_id) {
  constexpr size_t kQuoted = 64;
  if (job_id.size() <= kQuoted) return absl::NotFoundError("unknown job id '" + job_id + "'");
  return absl::NotFoundError("unknown job id '" + job_id.substr(0, kQuoted) + "...' (" +
                             std::to_string(job_id.size()) + " bytes)");
}

// The error for a client that may not change `status`'s job (`verb`: "cancel", "delete").
inline absl::Status NotYours(const v1::JobStatus& status, const Caller& caller,
                             const std::string& verb) {
  const std::string rule = "a client may " + verb +
                           " only its own jobs unless its token is an admin's (admin in the "
                           "orchestrator's --tokens-file, or the shared --token-file)";
  if (status.owner().empty()) {
    return absl::PermissionDeniedError("job " + status.job_id() +
                                       " has no recorded owner (submitted before owners were "
                                       "recorded): " +
                                       rule);
  }
  return absl::PermissionDeniedError("job " + status.job_id() + " belongs to '" + status.owner() +
                                     "', not to '" + caller.name + "': " + rule);
}

// Whether `caller` may cancel or delete the job of `status`: its owner or an admin.
inline bool MayChange(const v1::JobStatus& status, const Caller& caller) {
  return caller.admin || (!caller.name.empty() && caller.name == status.owner());
}

}  // namespace cosimo::orchestrator
