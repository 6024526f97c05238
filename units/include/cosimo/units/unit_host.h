// UnitHost runs one unit for one job with the command semantics of the worker protocol: the
// three nested loops of the COSTARICA paper's Algorithm 1 (rollback-capable units) and
// Algorithm 2 (units that cannot roll back, answered by the COSTARICA estimate).
//
// - Step(FINAL): integrate [t, t+h] for real (non-iterative schemes).
// - Step(TENTATIVE): inside an iteration on [t[N], t[N+1]]. Rollback units save a snapshot at
//   t[N] on the first tentative step and restore it before every further one; estimated units
//   linearise once at t[N] and answer with the estimate (the Van Loan exponential is computed
//   once per attempt, i.e. per step size), never moving time.
// - Commit(): accept the last tentative step. Rollback units keep their state; estimated units
//   integrate for real, once, with the last tentative inputs. Replies with the outputs.
// - Step with commit_previous: a rollback unit first accepts its last tentative step, as Commit
//   does, without a reply of its own (the orchestrator has the tentative step's reply). Fails
//   for estimated units and without a tentative step.
// - Reject(): rollback units restore t[N]; estimated units have nothing to undo.
// - Save()/Restore(): explicit snapshot commands.
// - Checkpoint(): the unit's full state as bytes (issue 18), between accepted steps only (no
//   tentative step open): the unit's serialised snapshot plus what the host keeps across steps
//   (the last recorded values estimates answer with, the counters of the report).
//   RestoreCheckpoint(bytes) on a host built from the same LoadUnit and initialised brings it
//   there; its later replies are bit for bit those of the host that took the checkpoint.
// - Connections with a factor or an offset (LoadUnit.input_transforms): Initialize, Evaluate and
//   Step take the values the orchestrator sends, the unit sees factor * value + offset (on a
//   step's polynomial: the factor on every coefficient, the offset on the constant one), and
//   the replies' sensitivities are with respect to the values sent. This is the one place the
//   transformation is applied, for every algorithm (rollback and COSTARICA estimates included:
//   they keep the unit's own inputs). A connection with a map gives the unit the entry's target
//   for the value sent, held over the step; a value without an entry fails the step.
// - algorithm.allow_non_finite reaches the unit (Unit::SetNonFiniteAllowed): a Model Exchange
//   FMU's non-finite state derivative fails its step unless it is set.
//
// Run(command) is the one command dispatcher over these calls: the master's LocalUnit
// (master/src/local_unit.cc) and the worker's CommandHandler (worker/src/command_handler.cc)
// both send their commands through it, so a new command is added here once. Not thread safe:
// one command at a time.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/units/unit.h"
#include "cosimo/v1/worker_service.pb.h"

namespace cosimo::units {

class UnitHost {
 public:
  // Builds the unit of `load` (CreateUnit with load.artifact_path()), applies load.record(), and
  // decides the iterative mode from the unit's capabilities and its rollback policy.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<UnitHost>> Create(const v1::LoadUnit& load);
  // For tests: host an already built unit.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<UnitHost>> Create(std::unique_ptr<Unit> unit,
                                                                        const v1::LoadUnit& load);
  ~UnitHost();

  const UnitDescription& description() const;
  // What the unit does under tentative steps.
  IterativeMode iterative_mode() const;

  // `hold_outputs`: the outputs that feed a discrete input (Initialize.hold_outputs, given to
  // Unit::HoldOutputs before the unit initialises).
  [[nodiscard]] absl::Status Initialize(double start_time, OutputsReply* reply,
                                        const std::vector<int>& hold_outputs = {});
  [[nodiscard]] absl::Status Evaluate(const Eigen::VectorXd& inputs, OutputsReply* reply);
  // Fills every field of reply; failures are reply->status kFailed with a message.
  void Step(const StepRequest& request, StepReply* reply);
  void Commit(StepReply* reply);
  [[nodiscard]] absl::Status Reject();
  [[nodiscard]] absl::Status Save();
  [[nodiscard]] absl::Status Restore();
  // Errors name the unit and why it cannot serialise its state.
  [[nodiscard]] absl::StatusOr<std::string> Checkpoint();
  [[nodiscard]] absl::Status RestoreCheckpoint(std::string_view bytes);
  // Ends the unit; the counters say how it took part.
  [[nodiscard]] absl::StatusOr<UnitReport> Terminate();

  // Runs `command` with the call of its kind and fills the member of `response` that the kind
  // answers with (UnitResponse's comments); the others are left as they were, so their buffers
  // are reused. Step and Commit failures are in response->step.status, the others in the
  // returned status.
  [[nodiscard]] absl::Status Run(const UnitCommand& command, UnitResponse* response);

 private:
  class Impl;
  explicit UnitHost(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosimo::units
