// Real cosimo-worker processes attached over loopback to this process, which serves the real
// WorkerService over the real WorkerPool (cosimo/orchestrator/worker_server.h), and runs a
// scenario on them with RunMaster over RemoteUnits: the production step path of a job
// (JobManager::RunJob without the job store and the status publication), with a per-step
// observer. Its server has the orchestrator's settings, health and reflection services, and is
// the only gRPC server of this process (the ping-pongs run in processes of their own), as in
// production: every thread blocked in gRPC takes part in its polling and so in the cost of a step.
//
// Thread safety: one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <sys/types.h>

#include "absl/status/statusor.h"
#include "cosimo/master/master.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::bench {

class WorkerCluster {
 public:
  // Starts the server on 127.0.0.1 (a free port) and `workers` one-slot cosimo-worker processes
  // labelled "single" (`worker_binary`, logs appended to `log_path`), plus `slotted_workers`
  // processes of `slots` slots labelled "slots", and waits until all have attached.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<WorkerCluster>> Start(
      int workers, const std::string& worker_binary, const std::string& log_path,
      int slotted_workers = 0, int slots = 1);
  ~WorkerCluster();

  // Loads every unit of `scenario` on an idle worker of its worker_label ("single": one unit per
  // process, "slots": packed onto the slotted workers; empty: any), runs it, terminates the units
  // and returns the workers to the pool. `commands`, when given, gets the commands (round trips)
  // sent to all units, from LoadUnit to Terminate.
  [[nodiscard]] absl::StatusOr<master::MasterResult> Run(const v1::Scenario& scenario,
                                                         master::MasterObserver* observer,
                                                         uint64_t* commands = nullptr);

  // Process ids of the workers (for CPU accounting).
  std::vector<pid_t> worker_pids() const;

  class Impl;

 private:
  explicit WorkerCluster(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosimo::bench
