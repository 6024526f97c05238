#include "orchestrator/src/sweep_variant.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "cosimo/common/kpi.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sweep.h"
#include "cosimo/orchestrator/master.h"
#include "orchestrator/src/remote_unit.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {
namespace {

constexpr const char* kRowsExceeded =
    "the variant recorded more rows than this orchestrator keeps for one job "
    "(cosimo-orchestrator --max-recorded-rows raises it)";

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
  RowLimitObserver observer(context.cancel, context.max_recorded_rows);
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

// Whether the variant runs whole on its worker (RunVariant): every unit on one worker that can,
// and no full results to bring back (RunVariant replies with the KPIs only).
bool RunsWhole(const WorkerLease::Workers& workers, const VariantContext& context) {
  if (workers.empty() || context.keep_results || !workers.front()->runs_variants()) return false;
  return std::all_of(workers.begin(), workers.end(),
                     [&](const auto& w) { return w == workers.front(); });
}

// The variant as one command to its worker; `out` gets the worker's outcome. The wait is the
// command timeout per macro step (the variant's many steps are one command here).
void RunWhole(const v1::Scenario& scenario, const v1::Sweep& sweep, WorkerConnection& worker,
              const VariantContext& context, VariantOutcome* out) {
  constexpr uint64_t kSeq = 1;
  v1::OrchestratorMessage command;
  command.set_seq(kSeq);
  v1::RunVariant* run = command.mutable_run_variant();
  run->set_job_id(context.job_id);
  *run->mutable_scenario() = scenario;
  for (int i = 0; i < scenario.units_size(); ++i) {
    *run->add_loads() = LoadUnitFor(scenario, i, context.job_id);
  }
  *run->mutable_kpis() = sweep.kpis();
  run->set_max_recorded_rows(context.max_recorded_rows);
  ReplyWaitOptions wait{context.command_timeout, context.cancel};
  const double step = scenario.algorithm().step_size();
  const double span = scenario.stop_time() - scenario.start_time();
  if (wait.timeout.count() > 0 && step > 0.0 && span > 0.0) {
    wait.timeout *= static_cast<int64_t>(std::min(1e6, std::ceil(span / step)) + 2);
  }
  v1::WorkerMessage reply;
  absl::Status status =
      worker.Write(command)
          ? worker.WaitReply(kSeq, &reply, wait)
          : absl::UnavailableError(worker.Describe() + " is gone: " + worker.lost_reason());
  if (status.ok() && !reply.has_variant_done()) {
    status = absl::InternalError(worker.Describe() + ": expected VariantDone from the worker");
  }
  if (!status.ok()) {
    out->lost_worker = worker.lost() && !(context.cancel != nullptr && context.cancel->load());
    out->status = context.cancel != nullptr && context.cancel->load() ? "CANCELED" : "FAILED";
    out->message = std::string(status.message());
    return;
  }
  v1::VariantDone& done = *reply.mutable_variant_done();
  out->status = done.status();
  out->message = done.rows_exceeded() ? kRowsExceeded : done.message();
  out->kpis.assign(done.kpis().begin(), done.kpis().end());
  out->wall_s = done.wall_s();
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
  if (RunsWhole(workers, context)) {
    if (context.running_units != nullptr) context.running_units->Set(workers, *scenario);
    RunWhole(*scenario, sweep, *workers.front(), context, &out);
    if (context.running_units != nullptr) context.running_units->Clear(workers);
    if (out.status != "SUCCEEDED") out.kpis.clear();
    // The wall time seen here: the worker's run and the round trip.
    out.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
  }
  bool rows_exceeded = false;
  absl::StatusOr<MasterResult> result =
      RunOnWorkers(*scenario, workers, context, &out.lost_worker, &rows_exceeded);
  if (!result.ok()) {
    if (rows_exceeded) {
      return finish("FAILED", kRowsExceeded);
    }
    const bool canceled = context.cancel != nullptr && context.cancel->load();
    return finish(canceled ? "CANCELED" : "FAILED", std::string(result.status().message()));
  }
  out.EndWithKpis(sweep, *result, start);
  if (context.keep_results && out.status == "SUCCEEDED") out.results = *std::move(result);
  return out;
}

}  // namespace cosimo::orchestrator
