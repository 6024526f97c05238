// A UnitProxy for a unit that runs in a worker process, over the worker's Attach stream. Send
// writes one command message; Await waits for its reply (WorkerConnection::WaitReply: the waiting
// thread reads it from the socket itself when it leads the loop). Messages are reused, so the
// step path does not allocate once warmed up.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/orchestrator/unit_proxy.h"
#include "cosimo/v1/worker_service.pb.h"
#include "orchestrator/src/metrics.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {

class RemoteUnit final : public UnitProxy {
 public:
  // Sends LoadUnit without waiting; FinishLoad waits for UnitLoaded. Split so that a job loads
  // all its units in parallel.
  // `wait`: how long each command may take, and the job's cancel flag, which ends the wait for
  // any command but Terminate (the clean-up after a cancel).
  static std::unique_ptr<RemoteUnit> StartLoad(std::shared_ptr<WorkerConnection> worker,
                                               const v1::LoadUnit& load,
                                               const WorkerConnection::WaitOptions& wait = {});
  [[nodiscard]] absl::Status FinishLoad();

  const std::string& name() const override { return name_; }
  const UnitDescription& description() const override { return description_; }
  const std::string& iterative_mode() const override { return mode_; }
  std::string location() const override;
  void Send(const UnitCommand& command) override;
  [[nodiscard]] absl::Status Await(UnitResponse* response) override;

  WorkerConnection& worker() { return *worker_; }
  // Commands written to the worker so far (LoadUnit included): one round trip each.
  uint64_t commands_sent() const { return seq_; }
  // From now on every command's round trip (Send to its reply in Await, the unit's work
  // included), s, goes into `round_trips` (may be null: none).
  void set_round_trips(std::shared_ptr<Histogram> round_trips) {
    round_trips_ = std::move(round_trips);
  }

 private:
  RemoteUnit(std::shared_ptr<WorkerConnection> worker, std::string name)
      : worker_(std::move(worker)), name_(std::move(name)) {}
  [[nodiscard]] absl::Status Context(const absl::Status& status) const;

  // The wait for the pending command.
  WorkerConnection::WaitOptions WaitFor() const;

  std::shared_ptr<WorkerConnection> worker_;
  WorkerConnection::WaitOptions wait_;
  std::string name_;
  UnitDescription description_;
  std::string mode_;
  uint64_t seq_ = 0;
  UnitCommand::Kind pending_kind_ = UnitCommand::Kind::kStep;
  bool write_failed_ = false;
  std::shared_ptr<Histogram> round_trips_;
  std::chrono::steady_clock::time_point sent_;
  v1::OrchestratorMessage command_;
  v1::WorkerMessage reply_;
};

}  // namespace cosimo::orchestrator
