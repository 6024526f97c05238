// What a hosted unit does under the commands of an iteration (cosimo/units/unit_host.h): the
// tentative-step policy. Two implementations:
// - rollback (COSTARICA paper, Algorithm 1, rollback_policy.cc): a snapshot at t[N] on the
//   first tentative step, restored before every further one; commit keeps the state;
// - estimate (Algorithm 2, estimate_policy.cc): for units that cannot roll back, a
//   linearisation at t[N] answers tentative steps with the COSTARICA estimate without moving
//   time; commit integrates for real, once, with the last tentative inputs.
// The host checks each request and calls one policy method per command. Private to the worker;
// not thread safe (one command at a time).
#pragma once

#include <memory>

#include "absl/status/status.h"
#include "cosimo/common/unit_api.h"
#include "units/src/host/hosted_unit.h"

namespace cosimo::units::host {

class TentativePolicy {
 public:
  explicit TentativePolicy(HostedUnit* host) : host_(host) {}
  virtual ~TentativePolicy() = default;
  TentativePolicy(const TentativePolicy&) = delete;
  TentativePolicy& operator=(const TentativePolicy&) = delete;

  virtual IterativeMode mode() const = 0;
  // A final step from request.time (a non-iterative scheme's, or one after an iteration): the
  // unit integrates for real from its accepted state.
  virtual void Final(const StepRequest& request, StepReply* reply) = 0;
  // A tentative step inside an iteration on [t[N], t[N+1]].
  virtual void Tentative(const StepRequest& request, StepReply* reply) = 0;
  // Step.commit_previous: accepts the last tentative step without a reply of its own; false
  // (the reply failed, saying why) when this policy or the state does not allow it.
  virtual bool CommitCarried(StepReply* reply) = 0;
  // Commit: accepts the last tentative step (have_tentative()); the reply has the outputs.
  virtual void Commit(StepReply* reply) = 0;
  // Reject: back to t[N].
  virtual absl::Status Reject() = 0;
  // The unit's state or inputs at t[N] changed (Evaluate, Restore, a checkpoint): what was
  // derived from them there is stale.
  virtual void Invalidate() = 0;

  bool have_tentative() const { return have_tentative_; }
  // Nothing tentative any more: the state is the unit's own (accepted, or a final step's).
  void ClearTentative() {
    have_tentative_ = false;
    host_->ClearTentativeSnapshot();
  }

 protected:
  HostedUnit* host_;
  bool have_tentative_ = false;
};

std::unique_ptr<TentativePolicy> NewRollbackPolicy(HostedUnit* host);
std::unique_ptr<TentativePolicy> NewEstimatePolicy(HostedUnit* host);

}  // namespace cosimo::units::host
