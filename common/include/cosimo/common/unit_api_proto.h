// The one place where unit_api.h types and the worker protocol messages are converted. Used by
// the worker's gRPC adapter and the orchestrator's RemoteUnit. Stateless, thread safe.
#pragma once

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/v1/worker_service.pb.h"

namespace cosimo {

v1::ValueType ToProto(ValueType type);
ValueType FromProto(v1::ValueType type);

// Variables of type kString are listed with `others` on both sides, whatever their causality.
void ToProto(const UnitDescription& description, v1::UnitLoaded* out);
UnitDescription FromProto(const v1::UnitLoaded& loaded);

// Fills `out` reusing its storage (no allocation once sized).
void ToProto(const StepRequest& request, v1::Step* out);
void FromProto(const v1::Step& step, StepRequest* out);

void ToProto(const StepReply& reply, v1::StepDone* out);
void FromProto(const v1::StepDone& done, StepReply* out);

void ToProto(const OutputsReply& reply, v1::Outputs* out);
void FromProto(const v1::Outputs& outputs, OutputsReply* out);

v1::UnitMode ToProto(IterativeMode mode);
// UNIT_MODE_ROLLBACK or UNIT_MODE_ESTIMATE; anything else (a worker that did not say) is an error.
[[nodiscard]] absl::StatusOr<IterativeMode> IterativeModeFromProto(v1::UnitMode mode);

// The report of Terminate, in the Ack (its error left alone).
void ToProto(const UnitReport& report, v1::Ack* out);
UnitReport ReportFromProto(const v1::Ack& ack);

void ToProto(const absl::Status& status, v1::CommandError* out);
absl::Status FromProto(const v1::CommandError& error);

}  // namespace cosimo
