// The estimate policy (Algorithm 2) for units that cannot roll back: a linearisation at t[N]
// answers tentative steps with the COSTARICA estimate (the Van Loan exponential once per
// attempt, i.e. per step size), never moving time; commit integrates for real, once, with the
// last tentative inputs. See tentative_policy.h.
#include <spdlog/spdlog.h>

#include <limits>

#include "absl/strings/str_cat.h"
#include "units/src/costarica/costarica.h"
#include "units/src/host/tentative_policy.h"

namespace cosimo::units::host {
namespace {

class EstimatePolicy final : public TentativePolicy {
 public:
  using TentativePolicy::TentativePolicy;

  IterativeMode mode() const override { return IterativeMode::kEstimate; }

  void Final(const StepRequest& request, StepReply* reply) override {
    ClearTentative();
    host_->RealStep(request, reply);
    reply->estimated = false;
    Invalidate();
  }

  void Tentative(const StepRequest& request, StepReply* reply) override {
    if (lin_time_ != request.time && !Linearize(request, reply)) return;
    estimator_.Estimate(request.inputs, request.step);
    reply->status = StepStatus::kOk;
    reply->message.clear();
    reply->end_time = request.time + request.step;
    reply->outputs = estimator_.outputs();
    reply->derivatives = estimator_.output_derivatives();
    reply->recorded = host_->last_recorded();
    reply->recorded_strings = host_->last_recorded_strings();
    reply->integers.clear();  // the estimated doubles stand
    reply->estimated = true;
    if (request.sensitivities) {
      estimator_.AffineOutputs(request.step, request.inputs.order(), &reply->output_sensitivity,
                               &y0_, &reply->derivative_sensitivity, &d0_);
    } else {
      HostedUnit::ClearSensitivities(reply);
    }
    host_->CountEstimate();
    last_request_.time = request.time;
    last_request_.step = request.step;
    last_request_.mode = StepMode::kFinal;
    last_request_.inputs.coefficients = request.inputs.coefficients;
    have_tentative_ = true;
  }

  bool CommitCarried(StepReply* reply) override {
    HostedUnit::Fail(reply, absl::StrCat("unit '", host_->name(),
                                         "' is estimated (cannot roll back): its commit "
                                         "integrates for real and needs a Commit command, not "
                                         "a step with commit_previous"));
    return false;
  }

  void Commit(StepReply* reply) override {
    have_tentative_ = false;
    // The single real integration, with the converged inputs.
    host_->RealStep(last_request_, reply);
    HostedUnit::ClearSensitivities(reply);
    reply->estimated = false;
    Invalidate();
  }

  absl::Status Reject() override {
    have_tentative_ = false;  // time never moved
    return absl::OkStatus();
  }

  void Invalidate() override { lin_time_ = std::numeric_limits<double>::quiet_NaN(); }

 private:
  // The linearisation at t[N] (the unit's current time) the estimates start from.
  bool Linearize(const StepRequest& request, StepReply* reply) {
    HostedUnit& h = *host_;
    if (h.unit().time() != request.time) {
      HostedUnit::Fail(reply,
                       absl::StrCat("unit '", h.name(),
                                    "' (estimated, cannot roll back): tentative step "
                                    "from t=",
                                    request.time, " but the unit is at t=", h.unit().time()));
      return false;
    }
    u_lin_ = request.inputs.coefficients.col(0);
    absl::StatusOr<Linearization> lin = h.unit().Linearize(u_lin_);
    if (!lin.ok()) {
      HostedUnit::Fail(reply, absl::StrCat("unit '", h.name(),
                                           "' cannot roll back and COSTARICA needs its "
                                           "Jacobians at t=",
                                           request.time, ": ", lin.status().message()));
      return false;
    }
    const UnitDescription& d = h.unit().description();
    const Eigen::Index n = lin->x.size();
    const auto m = static_cast<Eigen::Index>(d.inputs.size());
    const auto p = static_cast<Eigen::Index>(d.outputs.size());
    const bool sizes_ok = lin->A.rows() == n && lin->A.cols() == n && lin->B.rows() == n &&
                          lin->B.cols() == m && lin->C.rows() == p && lin->C.cols() == n &&
                          lin->D.rows() == p && lin->D.cols() == m && lin->y.size() == p &&
                          (lin->xdot.size() == 0 || lin->xdot.size() == n);
    if (!sizes_ok) {
      HostedUnit::Fail(
          reply, absl::StrCat("unit '", h.name(), "': linearisation has inconsistent sizes (n=", n,
                              ", m=", m, ", p=", p, ")"));
      return false;
    }
    estimator_.Prepare(*lin, u_lin_);
    if (estimator_.degraded()) {
      h.set_report_mode(UnitMode::kEstimateDegraded);
      if (!h.degraded_logged()) {
        spdlog::warn(
            "unit '{}': state derivatives not exposed; COSTARICA runs degraded "
            "(state control part f_C = 0)",
            h.name());
        h.set_degraded_logged();
      }
    }
    lin_time_ = request.time;
    return true;
  }

  costarica::Estimator estimator_;
  double lin_time_ = std::numeric_limits<double>::quiet_NaN();
  StepRequest last_request_;  // the last tentative step's, which a commit integrates
  Eigen::VectorXd u_lin_, y0_, d0_;
};

}  // namespace

std::unique_ptr<TentativePolicy> NewEstimatePolicy(HostedUnit* host) {
  return std::make_unique<EstimatePolicy>(host);
}

}  // namespace cosimo::units::host
