// The one sequence of a run, whatever runs the units: the master over the scenario's units, then,
// after a failure, every unit still running abandoned. Loading the units and releasing them are
// the caller's, since they differ (RemoteUnits over workers, LocalUnits in this process); the
// caller may read the units between the run and their release (descriptions, counters).
//
// Callers: orchestrator/src/simulation_runner.cc (jobs), orchestrator/src/sweep_variant.cc (a
// variant unit by unit), orchestrator/src/worker_server.cc (WorkerServer::Run), and through
// RunInProcess (cosimo/master/local_unit.h) worker/src/variant_runner.cc (a variant whole on a
// worker), bench/inprocess_figures.cc and bench/sweep_figure.cc.
#pragma once

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/master/master.h"
#include "cosimo/master/unit_proxy.h"
#include "cosimo/v1/checkpoint.pb.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::master {

struct RunOptions {
  MasterObserver* observer = nullptr;  // may be null
  // A checkpoint of an earlier run of the same scenario to go on from (RunMaster's `resume`).
  const v1::JobCheckpoint* resume = nullptr;
  // RunInProcess only: how an orchestrator names the worker the units run on (LocalUnit::Create).
  std::string where = {};
};

// RunMaster over `units` (one per scenario unit, in order) when `loaded` is OK, else `loaded`
// (the first load that failed); after a failed run, UnitProxy::Abandon on every unit.
[[nodiscard]] absl::StatusOr<MasterResult> RunOverUnits(const v1::Scenario& scenario,
                                                        const std::vector<UnitProxy*>& units,
                                                        const absl::Status& loaded,
                                                        const RunOptions& options = {});

}  // namespace cosimo::master
