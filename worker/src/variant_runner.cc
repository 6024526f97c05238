#include "cosimo/worker/variant_runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "cosimo/common/kpi.h"
#include "cosimo/master/local_unit.h"
#include "cosimo/master/master.h"
#include "cosimo/units/abandon.h"
#include "cosimo/units/crash_context.h"

namespace cosimo::worker {

void RunVariant(const v1::RunVariant& command, const CommandHandler::ArtifactFetcher& fetch,
                v1::VariantDone* done) {
  const auto start = std::chrono::steady_clock::now();
  const units::ScopedVariant variant(command.variant());
  SweepOutcome outcome;
  auto finish = [&](const SweepOutcome& o) {
    done->set_status(v1::JobState_Name(o.status));
    done->set_message(o.message);
    done->mutable_kpis()->Assign(o.kpis.begin(), o.kpis.end());
    done->set_wall_s(o.wall_s);
  };
  master::RowLimitObserver observer(&units::AbandonRequest(), command.max_recorded_rows());
  const std::vector<v1::LoadUnit> loads(command.loads().begin(), command.loads().end());
  absl::StatusOr<master::MasterResult> result = master::RunInProcess(
      command.scenario(), loads, {.observer = &observer},
      [&fetch](v1::LoadUnit* load) { return FetchUnitArtifacts(load, fetch); });
  if (!result.ok()) {
    done->set_rows_exceeded(observer.rows_exceeded());
    return finish(outcome.End(v1::FAILED, std::string(result.status().message()), start));
  }
  v1::Sweep sweep;
  *sweep.mutable_kpis() = command.kpis();
  finish(outcome.EndWithKpis(sweep, *result, start));
}

void RunVariants(const v1::RunVariants& command, const CommandHandler::ArtifactFetcher& fetch,
                 int threads, v1::VariantsDone* done) {
  const int n = command.variants_size();
  done->clear_done();
  for (int i = 0; i < n; ++i) done->add_done();
  absl::Mutex fetch_mutex;
  const CommandHandler::ArtifactFetcher one_at_a_time = [&](const std::string& digest) {
    absl::MutexLock lock(&fetch_mutex);
    return fetch(digest);
  };
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i = next.fetch_add(1); i < n; i = next.fetch_add(1)) {
      RunVariant(command.variants(i), one_at_a_time, done->mutable_done(i));
    }
  };
  std::vector<std::thread> helpers;
  for (int t = 1; t < std::min(threads, n); ++t) helpers.emplace_back(work);
  work();
  for (std::thread& t : helpers) t.join();
}

}  // namespace cosimo::worker
