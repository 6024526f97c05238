#include "units/src/host/hosted_unit.h"

#include <utility>

namespace cosimo::units::host {

void HostedUnit::RealStep(const StepRequest& request, StepReply* reply) {
  unit_->Step(request, reply);
  ++real_integrations_;
  // Only estimates (units that cannot roll back) answer with the last recorded values.
  if (keep_recorded_ && (reply->status == StepStatus::kOk || reply->status == StepStatus::kEnded)) {
    last_recorded_ = reply->recorded;
    last_recorded_strings_ = reply->recorded_strings;
  }
}

void HostedUnit::KeepRecorded(const OutputsReply& reply) {
  last_recorded_ = reply.recorded;
  last_recorded_strings_ = reply.recorded_strings;
}

void HostedUnit::Fail(StepReply* reply, std::string message) {
  reply->status = StepStatus::kFailed;
  reply->message = std::move(message);
  reply->estimated = false;
  ClearSensitivities(reply);
}

void HostedUnit::ClearSensitivities(StepReply* reply) {
  if (reply->output_sensitivity.size() != 0) reply->output_sensitivity.resize(0, 0);
  if (reply->derivative_sensitivity.size() != 0) reply->derivative_sensitivity.resize(0, 0);
}

HostedUnit::Kept HostedUnit::kept() const {
  return Kept{last_recorded_, last_recorded_strings_, real_integrations_, estimates_,
              report_mode_,   tentative_seen_,        degraded_logged_};
}

void HostedUnit::Restore(Kept kept) {
  last_recorded_ = std::move(kept.recorded);
  last_recorded_strings_ = std::move(kept.recorded_strings);
  real_integrations_ = kept.real_integrations;
  estimates_ = kept.estimates;
  report_mode_ = kept.report_mode;
  tentative_seen_ = kept.tentative_seen;
  degraded_logged_ = kept.degraded_logged;
}

}  // namespace cosimo::units::host
