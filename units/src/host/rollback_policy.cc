// The rollback policy (Algorithm 1): a snapshot at t[N], taken on the first tentative step from
// t[N] and restored before every further one; sensitivities on request from a linearisation at
// t[N]. See tentative_policy.h.
#include <spdlog/spdlog.h>

#include "absl/strings/str_cat.h"
#include "units/src/costarica/costarica.h"
#include "units/src/host/tentative_policy.h"

namespace cosimo::units::host {
namespace {

class RollbackPolicy final : public TentativePolicy {
 public:
  using TentativePolicy::TentativePolicy;

  IterativeMode mode() const override { return IterativeMode::kRollback; }

  void Final(const StepRequest& request, StepReply* reply) override {
    HostedUnit& h = *host_;
    if (h.dirty && h.snapshot && h.snapshot_time == request.time) {
      if (absl::Status s = h.unit().Restore(*h.snapshot); !s.ok()) {
        HostedUnit::Fail(
            reply, absl::StrCat("unit '", h.name(), "': restore before final step: ", s.message()));
        return;
      }
    }
    ClearTentative();
    h.RealStep(request, reply);
    reply->estimated = false;
  }

  void Tentative(const StepRequest& request, StepReply* reply) override {
    if (!AtSnapshot(request, reply)) return;
    if (request.sensitivities) Sensitivities(request, reply);
    // The unit's Step fills every field but the sensitivities; keep them in the reply.
    sensitivity_y_.swap(reply->output_sensitivity);
    sensitivity_d_.swap(reply->derivative_sensitivity);
    host_->RealStep(request, reply);
    reply->output_sensitivity.swap(sensitivity_y_);
    reply->derivative_sensitivity.swap(sensitivity_d_);
    if (!request.sensitivities) HostedUnit::ClearSensitivities(reply);
    reply->estimated = false;
    host_->dirty = true;
    have_tentative_ = true;
    last_reply_ = *reply;
  }

  bool CommitCarried(StepReply* reply) override {
    if (!have_tentative_) {
      HostedUnit::Fail(reply, absl::StrCat("unit '", host_->name(),
                                           "': step with commit_previous but no tentative step "
                                           "to commit"));
      return false;
    }
    ClearTentative();
    return true;
  }

  void Commit(StepReply* reply) override {
    *reply = last_reply_;
    HostedUnit::ClearSensitivities(reply);
    ClearTentative();
  }

  absl::Status Reject() override {
    HostedUnit& h = *host_;
    have_tentative_ = false;
    if (h.dirty && h.snapshot) {
      if (absl::Status s = h.unit().Restore(*h.snapshot); !s.ok()) {
        return absl::InternalError(
            absl::StrCat("unit '", h.name(), "': restore on reject: ", s.message()));
      }
    }
    h.dirty = false;
    return absl::OkStatus();
  }

  void Invalidate() override {}

 private:
  // The unit at t[N]: a fresh snapshot there, or the snapshot restored.
  bool AtSnapshot(const StepRequest& request, StepReply* reply) {
    HostedUnit& h = *host_;
    if (!h.snapshot || h.snapshot_time != request.time) {
      if (h.unit().time() != request.time) {
        HostedUnit::Fail(reply,
                         absl::StrCat("unit '", h.name(), "': tentative step from t=", request.time,
                                      " but the unit is at t=", h.unit().time()));
        return false;
      }
      absl::StatusOr<std::unique_ptr<UnitSnapshot>> saved = h.unit().Save();
      if (!saved.ok()) {
        HostedUnit::Fail(reply, absl::StrCat("unit '", h.name(), "': save at t=", request.time,
                                             ": ", saved.status().message()));
        return false;
      }
      h.snapshot = *std::move(saved);
      h.snapshot_time = request.time;
      h.dirty = false;
    } else if (h.dirty) {
      if (absl::Status s = h.unit().Restore(*h.snapshot); !s.ok()) {
        HostedUnit::Fail(reply, absl::StrCat("unit '", h.name(), "': restore to t=", request.time,
                                             ": ", s.message()));
        return false;
      }
      h.dirty = false;
    }
    return true;
  }

  // At t[N] (fresh snapshot or just restored): linearise there; a unit without Jacobians
  // leaves the sensitivities empty and the master falls back.
  void Sensitivities(const StepRequest& request, StepReply* reply) {
    HostedUnit::ClearSensitivities(reply);
    Unit& unit = host_->unit();
    if (!unit.description().capabilities.provides_jacobians) return;
    u_lin_ = request.inputs.coefficients.col(0);
    absl::StatusOr<Linearization> lin = unit.Linearize(u_lin_);
    if (!lin.ok()) {
      spdlog::warn("unit '{}': no sensitivities at t={}: {}", host_->name(), request.time,
                   std::string(lin.status().message()));
      return;
    }
    const auto m = static_cast<Eigen::Index>(unit.description().inputs.size());
    if (lin->B.cols() != m || lin->D.cols() != m || lin->A.rows() != lin->x.size()) return;
    estimator_.Prepare(*lin, u_lin_);
    estimator_.AffineOutputs(request.step, request.inputs.order(), &reply->output_sensitivity, &y0_,
                             &reply->derivative_sensitivity, &d0_);
  }

  StepReply last_reply_;  // the last tentative step's, which a commit answers with
  costarica::Estimator estimator_;
  Eigen::VectorXd u_lin_, y0_, d0_;
  Eigen::MatrixXd sensitivity_y_, sensitivity_d_;  // held across the unit's Step
};

}  // namespace

std::unique_ptr<TentativePolicy> NewRollbackPolicy(HostedUnit* host) {
  return std::make_unique<RollbackPolicy>(host);
}

}  // namespace cosimo::units::host
