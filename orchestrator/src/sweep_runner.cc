#include "orchestrator/src/sweep_runner.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/common/crash.h"
#include "cosimo/common/sweep_design.h"
#include "cosimo/common/version.h"
#include "orchestrator/src/sweep_run.h"
#include "orchestrator/src/sweep_variant.h"
#include "orchestrator/src/thread_group.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {

absl::StatusOr<StoredResults> UnfinishedSweepTable(const v1::JobStatus& status, JobStore& store) {
  const v1::Sweep& sweep = status.sweep().sweep();
  ResultTable rows = SweepTableColumns(sweep);
  const std::vector<std::vector<double>> values = DesignValues(sweep);
  absl::StatusOr<std::vector<bool>> finished =
      LoadFinishedRows(store, status.job_id(), values.size(), &rows);
  if (!finished.ok()) return finished.status();
  absl::StatusOr<v1::Scenario> base = store.LoadScenario(status.job_id());
  if (!base.ok()) return base.status();
  SweepOutcome not_run;
  not_run.status = v1::CANCELED;
  not_run.message = "not run: the sweep is " + v1::JobState_Name(status.state()) +
                    (status.state() == v1::RUNNING ? "" : " (cosimo resume runs it)");
  for (uint64_t k = 0; k < values.size(); ++k) {
    if (!(*finished)[k]) AddSweepRow(&rows, k, values[k], not_run);
  }
  uint64_t failed = 0;
  StoredResults stored = SortedSweepTable(sweep, *base, rows, &failed);
  stored.metadata.set_partial(true);
  return stored;
}

void SweepRunner::Run(const std::shared_ptr<Job>& job, const v1::Scenario& scenario,
                      WorkerLease lease) {
  SweepRun run(env_, job, scenario);
  if (absl::Status s = run.Prepare(); !s.ok()) {
    lease.Release();
    env_.recorder->Finish(
        *job, v1::FAILED,
        "the sweep's finished variants could not be read back: " + std::string(s.message()));
    return;
  }
  run.RunLanes(std::move(lease));
  run.End();
}

}  // namespace cosimo::orchestrator
