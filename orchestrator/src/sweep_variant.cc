#include "orchestrator/src/sweep_variant.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <utility>

#include "cosimo/common/job_state.h"
#include "cosimo/common/kpi.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sweep.h"
#include "cosimo/master/master.h"
#include "cosimo/master/run.h"
#include "orchestrator/src/remote_unit.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {
namespace {

constexpr const char* kRowsExceeded =
    "the variant recorded more rows than this orchestrator keeps for one job "
    "(cosimo-orchestrator --max-recorded-rows raises it)";

// Loads the scenario's units on `workers` and runs the master; `lost` says whether a worker was
// lost on the way.
absl::StatusOr<master::MasterResult> RunOnWorkers(const v1::Scenario& scenario,
                                                  const WorkerLease::Workers& workers,
                                                  const VariantContext& context, bool* lost,
                                                  bool* rows_exceeded) {
  // A cancel waits a moment for the commands in flight: the workers stay attached.
  std::vector<std::unique_ptr<RemoteUnit>> units =
      RemoteUnit::StartLoads(workers, LoadUnitsFor(scenario, context.job_id),
                             {context.command_timeout, context.cancel, kCancelGrace});
  for (size_t i = 0; i < units.size() && context.metrics != nullptr; ++i) {
    units[i]->set_round_trips(context.metrics->WorkerRoundTrip(workers[i]->id()));
  }
  if (context.running_units != nullptr) context.running_units->Set(workers, scenario);
  master::RowLimitObserver observer(context.cancel, context.max_recorded_rows);
  const absl::Status loaded = RemoteUnit::FinishLoads(units);
  absl::StatusOr<master::MasterResult> result =
      master::RunOverUnits(scenario, RemoteUnit::Proxies(units), loaded, {.observer = &observer});
  *lost = std::any_of(units.begin(), units.end(),
                      [](const auto& unit) { return unit->worker().lost(); });
  *rows_exceeded = observer.rows_exceeded();
  units.clear();
  if (context.running_units != nullptr) context.running_units->Clear(workers);
  return result;
}

// Whether the variants run whole on their worker (RunVariants): every unit on one worker that
// can, and no full results to bring back (the worker replies with the KPIs only).
bool RunsWhole(const WorkerLease::Workers& workers, const VariantContext& context) {
  if (workers.empty() || context.keep_results || !workers.front()->runs_variants()) return false;
  return std::all_of(workers.begin(), workers.end(),
                     [&](const auto& w) { return w == workers.front(); });
}

// The variants' scenarios as one command to their worker; `outs[i]` gets scenario i's outcome.
// The wait is the command timeout per macro step of every variant (their many steps are one
// command here).
void RunWhole(const std::vector<v1::Scenario>& scenarios, const std::vector<uint64_t>& indices,
              const v1::Sweep& sweep, WorkerConnection& worker, const VariantContext& context,
              const std::vector<VariantOutcome*>& outs) {
  constexpr uint64_t kSeq = 1;
  constexpr uint64_t kStopSeq = 2;
  const auto start = std::chrono::steady_clock::now();
  v1::OrchestratorMessage command;
  command.set_seq(kSeq);
  // A cancel tells the worker to stop the variants (they end at their next step) and waits a
  // moment for its reply: the worker stays attached.
  v1::OrchestratorMessage stop;
  stop.set_seq(kStopSeq);
  stop.mutable_terminate();
  ReplyWaitOptions wait{context.command_timeout, context.cancel, kCancelGrace, &stop};
  int64_t steps = 0;
  for (size_t v = 0; v < scenarios.size(); ++v) {
    const v1::Scenario& scenario = scenarios[v];
    v1::RunVariant* run = command.mutable_run_variants()->add_variants();
    run->set_job_id(context.job_id);
    run->set_variant(static_cast<int64_t>(indices[v]));
    *run->mutable_scenario() = scenario;
    for (int i = 0; i < scenario.units_size(); ++i) {
      *run->add_loads() = LoadUnitFor(scenario, i, context.job_id);
    }
    *run->mutable_kpis() = sweep.kpis();
    run->set_max_recorded_rows(context.max_recorded_rows);
    const double step = scenario.algorithm().step_size();
    const double span = scenario.stop_time() - scenario.start_time();
    steps +=
        2 + (step > 0.0 && span > 0.0 ? static_cast<int64_t>(std::min(1e6, std::ceil(span / step)))
                                      : 0);
  }
  wait.timeout *= steps;
  v1::WorkerMessage reply;
  absl::Status status =
      worker.Write(command)
          ? worker.WaitReply(kSeq, &reply, wait)
          : absl::UnavailableError(worker.Describe() + " is gone: " + worker.lost_reason());
  if (status.code() == absl::StatusCode::kCancelled && !worker.lost()) {
    // Stopped in time: the stop's own reply (the worker had no unit to end) keeps the stream in
    // step; without it within the grace, the worker is given up.
    v1::WorkerMessage ignored;
    (void)worker.WaitReply(kStopSeq, &ignored, {.timeout = kCancelGrace});
  }
  if (status.ok() && reply.variants_done().done_size() != static_cast<int>(outs.size())) {
    status = absl::InternalError(worker.Describe() + ": expected VariantsDone with " +
                                 std::to_string(outs.size()) + " outcomes from the worker");
  }
  const bool canceled = context.cancel != nullptr && context.cancel->load();
  for (size_t i = 0; i < outs.size(); ++i) {
    VariantOutcome* out = outs[i];
    if (!status.ok()) {
      out->lost_worker = worker.lost() && !canceled;
      out->End(canceled ? v1::CANCELED : v1::FAILED, std::string(status.message()), start);
      continue;
    }
    v1::VariantDone& done = *reply.mutable_variants_done()->mutable_done(static_cast<int>(i));
    // A string on the wire (VariantDone.status): the state's name.
    if (!v1::JobState_Parse(done.status(), &out->status) || !IsFinished(out->status)) {
      out->status = v1::FAILED;
    }
    out->message = done.rows_exceeded() ? kRowsExceeded : done.message();
    if (out->status == v1::SUCCEEDED) out->kpis.assign(done.kpis().begin(), done.kpis().end());
    out->wall_s = done.wall_s();  // its run on the worker
  }
}

// Variant `values`'s scenario, checked; nullopt (and `out` FAILED) when it cannot run.
std::optional<v1::Scenario> CheckedVariant(const v1::Scenario& base, const v1::Sweep& sweep,
                                           const std::vector<double>& values,
                                           const VariantContext& context, VariantOutcome* out) {
  const auto start = std::chrono::steady_clock::now();
  absl::StatusOr<v1::Scenario> scenario = VariantScenario(base, sweep, values);
  absl::Status checked = scenario.ok() ? absl::OkStatus() : scenario.status();
  if (checked.ok() && context.check) checked = context.check(*scenario);
  if (!checked.ok()) {
    out->End(v1::FAILED, std::string(checked.message()), start);
    return std::nullopt;
  }
  return *std::move(scenario);
}

// One variant unit by unit from here (RemoteUnits on `workers`, one slot per unit), as a
// simulation job runs.
VariantOutcome RunUnitByUnit(const v1::Scenario& base, const v1::Sweep& sweep,
                             const std::vector<double>& values, const WorkerLease::Workers& workers,
                             const VariantContext& context) {
  VariantOutcome out;
  const auto start = std::chrono::steady_clock::now();
  auto finish = [&](v1::JobState status, std::string message) {
    out.End(status, std::move(message), start);
    return out;
  };
  std::optional<v1::Scenario> scenario = CheckedVariant(base, sweep, values, context, &out);
  if (!scenario) return out;
  bool rows_exceeded = false;
  absl::StatusOr<master::MasterResult> result =
      RunOnWorkers(*scenario, workers, context, &out.lost_worker, &rows_exceeded);
  if (!result.ok()) {
    if (rows_exceeded) {
      return finish(v1::FAILED, kRowsExceeded);
    }
    const bool canceled = context.cancel != nullptr && context.cancel->load();
    return finish(canceled ? v1::CANCELED : v1::FAILED, std::string(result.status().message()));
  }
  out.EndWithKpis(sweep, *result, start);
  if (context.keep_results && out.status == v1::SUCCEEDED) out.results = *std::move(result);
  return out;
}

}  // namespace

int VariantsAtOnce(const WorkerLease::Workers& workers, const VariantContext& context) {
  if (!RunsWhole(workers, context)) return 1;
  return std::max(1, workers.front()->slots() / static_cast<int>(workers.size()));
}

std::vector<VariantOutcome> RunSweepVariants(const v1::Scenario& base, const v1::Sweep& sweep,
                                             const std::vector<uint64_t>& indices,
                                             const std::vector<std::vector<double>>& values,
                                             const WorkerLease::Workers& workers,
                                             const VariantContext& context) {
  if (!RunsWhole(workers, context)) {
    std::vector<VariantOutcome> outs;
    for (const std::vector<double>& v : values) {
      outs.push_back(RunUnitByUnit(base, sweep, v, workers, context));
    }
    return outs;
  }
  std::vector<VariantOutcome> outs(values.size());
  std::vector<v1::Scenario> scenarios;
  std::vector<VariantOutcome*> sent;
  std::vector<uint64_t> sent_indices;
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::optional<v1::Scenario> s = CheckedVariant(base, sweep, values[i], context, &outs[i])) {
      scenarios.push_back(*std::move(s));
      sent.push_back(&outs[i]);
      sent_indices.push_back(indices[i]);
    }
  }
  if (scenarios.empty()) return outs;
  if (context.running_units != nullptr) context.running_units->Set(workers, scenarios.front());
  RunWhole(scenarios, sent_indices, sweep, *workers.front(), context, sent);
  if (context.running_units != nullptr) context.running_units->Clear(workers);
  return outs;
}

}  // namespace cosimo::orchestrator
