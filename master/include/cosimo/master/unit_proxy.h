// The unit as the orchestrator's master algorithms see it. RemoteUnit (a worker over its gRPC
// Attach stream) and LocalUnit (a UnitHost in this process) implement it, so every algorithm is
// tested in-process and runs unchanged over the network.
//
// Commands are split into Send and Await so that a master can fan a step out to every unit
// before waiting for any reply (Jacobi: one round trip per macro step, not one per unit). At most
// one command is in flight per unit: every Send is followed by exactly one Await before the next
// Send. A proxy is used by one thread at a time (the job's master thread).
//
// Call order: (loaded on creation) Initialize, then any of Evaluate / Step / Save / Restore /
// Commit / Reject / Checkpoint / RestoreCheckpoint, then Terminate. Step replies and Commit replies
// are StepReply; Initialize and Evaluate replies are OutputsReply; the others only succeed or fail.
#pragma once

#include <Eigen/Core>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/unit_api.h"

namespace cosimo::master {

// Where a unit runs: the worker's id and host name ({"local", ""} in this process).
struct UnitLocation {
  std::string worker;
  std::string host;
};

class UnitProxy {
 public:
  virtual ~UnitProxy() = default;

  // The scenario's unit name.
  virtual const std::string& name() const = 0;
  // Variables and capabilities, as reported when the unit was loaded.
  virtual const UnitDescription& description() const = 0;
  // What the unit does under tentative steps: roll back, or the COSTARICA estimate.
  virtual IterativeMode iterative_mode() const = 0;
  // Where the unit runs, for reports.
  virtual UnitLocation location() const = 0;

  // Starts a command. Errors surface in the matching Await. A proxy may hold the command back to
  // send it with other units' commands in one message (RemoteUnits on one worker) until Flush or
  // its Await.
  virtual void Send(const UnitCommand& command) = 0;
  // Sends what Send held back. A fan-out calls it once every unit of its round got its command,
  // before awaiting any. Default: nothing is held.
  virtual void Flush() {}
  // Waits for the reply to the last Send. A worker lost while waiting is an error naming the
  // unit and the worker.
  [[nodiscard]] virtual absl::Status Await(UnitResponse* response) = 0;

  // After a failed run (RunOverUnits): ends the unit where it still runs so that what it holds
  // there (a worker's slot) is free again; nothing when it cannot answer any more. Default:
  // nothing (a unit of this process ends with its proxy).
  virtual void Abandon() {}

  // Send + Await.
  [[nodiscard]] absl::Status Call(const UnitCommand& command, UnitResponse* response) {
    Send(command);
    return Await(response);
  }
};

}  // namespace cosimo::master
