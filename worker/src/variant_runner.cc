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
#include "cosimo/orchestrator/local_unit.h"
#include "cosimo/orchestrator/master.h"
#include "cosimo/worker/abandon.h"

namespace cosimo::worker {

void RunVariant(const v1::RunVariant& command, const CommandHandler::ArtifactFetcher& fetch,
                v1::VariantDone* done) {
  const auto start = std::chrono::steady_clock::now();
  SweepOutcome outcome;
  auto finish = [&](const SweepOutcome& o) {
    done->set_status(o.status);
    done->set_message(o.message);
    done->mutable_kpis()->Assign(o.kpis.begin(), o.kpis.end());
    done->set_wall_s(o.wall_s);
  };
  std::vector<std::unique_ptr<orchestrator::LocalUnit>> units;
  for (const v1::LoadUnit& given : command.loads()) {
    v1::LoadUnit load = given;
    absl::Status status = FetchUnitArtifacts(&load, fetch);
    absl::StatusOr<std::unique_ptr<orchestrator::LocalUnit>> unit =
        status.ok() ? orchestrator::LocalUnit::Create(load)
                    : absl::StatusOr<std::unique_ptr<orchestrator::LocalUnit>>(status);
    if (!unit.ok()) {
      return finish(outcome.End("FAILED", std::string(unit.status().message()), start));
    }
    units.push_back(*std::move(unit));
  }
  std::vector<orchestrator::UnitProxy*> proxies;
  for (auto& unit : units) proxies.push_back(unit.get());
  orchestrator::RowLimitObserver observer(&AbandonRequest(), command.max_recorded_rows());
  absl::StatusOr<orchestrator::MasterResult> result =
      orchestrator::RunMaster(command.scenario(), proxies, &observer);
  if (!result.ok()) {
    done->set_rows_exceeded(observer.rows_exceeded());
    return finish(outcome.End("FAILED", std::string(result.status().message()), start));
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
