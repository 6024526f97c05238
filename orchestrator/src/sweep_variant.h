// One variant of a sweep job (sweep_runner.h) run on the workers of one lease (several at once
// when they run whole on a worker with slots for them, docs/sweeps.md#where-the-variants-run): its
// scenario made from the base (VariantScenario, cosimo/common/sweep.h) and checked as a submission
// is (job_admission.h), its units loaded, the master run (RunMaster), and its KPIs computed from
// the recorded table (cosimo/common/kpi.h). A variant that fails is an outcome, not an error: its
// status says FAILED and its message why; one whose worker was lost says so, to run again on
// other workers. The table of a sweep (SweepTableColumns, AddSweepRow) is the one `cosimo sweep`
// writes when it runs a sweep locally (docs/sweeps.md).
//
// Thread safety: RunSweepVariants may run on several threads at once, each with its own workers.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "cosimo/common/csv.h"
#include "cosimo/common/kpi.h"
#include "cosimo/master/master.h"
#include "cosimo/v1/scenario.pb.h"
#include "cosimo/v1/sweep.pb.h"
#include "orchestrator/src/metrics.h"
#include "orchestrator/src/running_units.h"
#include "orchestrator/src/worker_lease.h"

namespace cosimo::orchestrator {

// What became of one variant: its row of the sweep table but for the index and the values.
struct VariantOutcome : SweepOutcome {  // its row (cosimo/common/kpi.h), and:
  bool lost_worker = false;  // it stopped because a worker was lost: it runs again elsewhere
  // Its full results, when it succeeded and VariantContext::keep_results.
  std::optional<master::MasterResult> results;
};

// What every variant of a job shares. Nothing owned.
struct VariantContext {
  std::string job_id;
  const std::atomic<bool>* cancel = nullptr;  // the job's: stops the variant
  std::chrono::milliseconds command_timeout{0};
  uint64_t max_recorded_rows = 0;  // 0: no limit
  Metrics* metrics = nullptr;      // may be null
  RunningUnitsMap* running_units = nullptr;
  std::function<absl::Status(const v1::Scenario&)> check;  // the submission's scenario checks
  bool keep_results = false;  // keep a succeeded variant's full results (VariantOutcome::results)
};

// How many variants the lease `workers` runs at once: when they run whole on one worker
// (RunVariants; not for keep_results, or a worker before it), as many as its slots hold (its
// slots / the units of a variant, at least 1); else 1.
int VariantsAtOnce(const WorkerLease::Workers& workers, const VariantContext& context);

// Runs the variants `indices` of `base` with `values` (one per sweep parameter each; at most
// VariantsAtOnce of them) on `workers` (a lease of one worker slot per unit, WorkerLabelsOf
// order): whole on their worker (RunVariants) when it can, else one after the other unit by unit.
// One outcome each, in their order.
std::vector<VariantOutcome> RunSweepVariants(const v1::Scenario& base, const v1::Sweep& sweep,
                                             const std::vector<uint64_t>& indices,
                                             const std::vector<std::vector<double>>& values,
                                             const WorkerLease::Workers& workers,
                                             const VariantContext& context);

}  // namespace cosimo::orchestrator
