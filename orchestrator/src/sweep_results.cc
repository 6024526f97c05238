// A sweep job's first status and the ids and checks of its variants' kept results
// (sweep_runner.h; the run itself is sweep_runner.cc).
#include <string>

#include "cosimo/common/sweep_design.h"
#include "orchestrator/src/sweep_runner.h"

namespace cosimo::orchestrator {

v1::SweepStatus NewSweepStatus(const v1::Sweep& sweep) {
  v1::SweepStatus status;
  *status.mutable_sweep() = sweep;
  status.mutable_sweep()->clear_base();
  status.set_variants_total(VariantCount(sweep));
  return status;
}

std::string VariantResultsId(const std::string& job_id, uint64_t variant) {
  return job_id + "/variant-" + std::to_string(variant);
}

absl::Status CheckVariantResults(const v1::JobStatus& status, uint64_t variant) {
  const std::string job = "job " + status.job_id();
  if (!status.has_sweep()) {
    return absl::FailedPreconditionError(job + " is not a sweep: it has no variants");
  }
  if (status.sweep().sweep().keep_results() != v1::Sweep::ALL) {
    return absl::FailedPreconditionError(
        job +
        " keeps only its variants' KPIs (its table); a sweep with \"keep_results\": "
        "\"ALL\" keeps every variant's full results");
  }
  if (variant >= status.sweep().variants_total()) {
    return absl::InvalidArgumentError("variant " + std::to_string(variant) + ": " + job + " has " +
                                      std::to_string(status.sweep().variants_total()) +
                                      " variants (0 to " +
                                      std::to_string(status.sweep().variants_total() - 1) + ")");
  }
  return absl::OkStatus();
}

}  // namespace cosimo::orchestrator
