// A worker server without jobs: the real WorkerService over the real WorkerPool on a port of its
// own, with the orchestrator server's settings, health and reflection services, and a way to run
// one scenario at a time on the attached workers with RunMaster over RemoteUnits. That is the
// production step path of a job (JobManager::RunJob) without the job store, the queue and the
// status publication: what the benchmarks measure (bench/cluster.h starts its worker processes
// against it). Workers attach as they would to cosimo-orchestrator.
//
// Thread safety: one thread calls Run at a time; attached() from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/master/master.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::orchestrator {

class WorkerServer {
 public:
  // Listens on `listen` (HOST:PORT; port 0 picks a free one, see address()).
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<WorkerServer>> Start(
      const std::string& listen = "127.0.0.1:0");
  // Closes the workers' streams (a worker started with --once exits) and stops the server.
  ~WorkerServer();

  // HOST:PORT the workers dial.
  const std::string& address() const;
  // Workers attached now.
  int attached() const;

  // Loads every unit of `scenario` on an idle worker of its worker_label (a worker with slots may
  // take several; empty label: any worker), runs it, terminates the units and returns the
  // workers to the pool. `commands`, when given, gets the commands (round trips) sent to all
  // units, from LoadUnit to Terminate. RESOURCE_EXHAUSTED when too few workers are idle.
  [[nodiscard]] absl::StatusOr<master::MasterResult> Run(const v1::Scenario& scenario,
                                                         master::MasterObserver* observer,
                                                         uint64_t* commands = nullptr);

  class Impl;

 private:
  explicit WorkerServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosimo::orchestrator
