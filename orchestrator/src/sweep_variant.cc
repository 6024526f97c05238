#include "orchestrator/src/sweep_variant.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "cosimo/common/kpi.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sweep.h"
#include "cosimo/orchestrator/master.h"
#include "orchestrator/src/remote_unit.h"

namespace cosimo::orchestrator {
namespace {

// Stops the run on a cancel or past the rows the orchestrator keeps for one job.
class VariantObserver final : public MasterObserver {
 public:
  VariantObserver(const std::atomic<bool>* cancel, uint64_t max_rows)
      : cancel_(cancel), max_rows_(max_rows) {}
  void OnProgress(const Progress& progress) override { steps_ = progress.steps_accepted; }
  bool Canceled() override {
    rows_exceeded_ = max_rows_ > 0 && steps_ + 1 > max_rows_;
    return rows_exceeded_ || (cancel_ != nullptr && cancel_->load());
  }
  bool rows_exceeded() const { return rows_exceeded_; }

 private:
  const std::atomic<bool>* const cancel_;
  const uint64_t max_rows_;
  uint64_t steps_ = 0;
  bool rows_exceeded_ = false;
};

// Loads the scenario's units on `workers` and runs the master; `lost` says whether a worker was
// lost on the way.
absl::StatusOr<MasterResult> RunOnWorkers(const v1::Scenario& scenario,
                                          const WorkerLease::Workers& workers,
                                          const VariantContext& context, bool* lost,
                                          bool* rows_exceeded) {
  std::vector<v1::LoadUnit> loads;
  for (int i = 0; i < scenario.units_size(); ++i) {
    loads.push_back(LoadUnitFor(scenario, i, context.job_id));
  }
  std::vector<std::unique_ptr<RemoteUnit>> units =
      RemoteUnit::StartLoads(workers, loads, {context.command_timeout, context.cancel});
  for (size_t i = 0; i < units.size() && context.metrics != nullptr; ++i) {
    units[i]->set_round_trips(context.metrics->WorkerRoundTrip(workers[i]->id()));
  }
  if (context.running_units != nullptr) context.running_units->Set(workers, scenario);
  VariantObserver observer(context.cancel, context.max_recorded_rows);
  absl::StatusOr<MasterResult> result = [&]() -> absl::StatusOr<MasterResult> {
    if (absl::Status loaded = RemoteUnit::FinishLoads(units); !loaded.ok()) return loaded;
    std::vector<UnitProxy*> proxies;
    for (auto& unit : units) proxies.push_back(unit.get());
    return RunMaster(scenario, proxies, &observer);
  }();
  *lost = std::any_of(units.begin(), units.end(),
                      [](const auto& unit) { return unit->worker().lost(); });
  *rows_exceeded = observer.rows_exceeded();
  if (!result.ok()) RemoteUnit::TerminateSurvivors(units);
  units.clear();
  if (context.running_units != nullptr) context.running_units->Clear(workers);
  return result;
}

}  // namespace

VariantOutcome RunSweepVariant(const v1::Scenario& base, const v1::Sweep& sweep,
                               const std::vector<double>& values,
                               const WorkerLease::Workers& workers, const VariantContext& context) {
  VariantOutcome out;
  const auto start = std::chrono::steady_clock::now();
  auto finish = [&](std::string status, std::string message) {
    out.End(std::move(status), std::move(message), start);
    return out;
  };
  absl::StatusOr<v1::Scenario> scenario = VariantScenario(base, sweep, values);
  if (!scenario.ok()) return finish("FAILED", std::string(scenario.status().message()));
  if (context.check) {
    if (absl::Status s = context.check(*scenario); !s.ok()) {
      return finish("FAILED", std::string(s.message()));
    }
  }
  bool rows_exceeded = false;
  absl::StatusOr<MasterResult> result =
      RunOnWorkers(*scenario, workers, context, &out.lost_worker, &rows_exceeded);
  if (!result.ok()) {
    if (rows_exceeded) {
      return finish("FAILED",
                    "the variant recorded more rows than this orchestrator keeps for "
                    "one job (cosimo-orchestrator --max-recorded-rows raises it)");
    }
    const bool canceled = context.cancel != nullptr && context.cancel->load();
    return finish(canceled ? "CANCELED" : "FAILED", std::string(result.status().message()));
  }
  out.EndWithKpis(sweep, *result, start);
  if (context.keep_results && out.status == "SUCCEEDED") out.results = *std::move(result);
  return out;
}

}  // namespace cosimo::orchestrator
