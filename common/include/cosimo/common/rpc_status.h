// The one place where absl::Status and grpc::Status are converted, for the RPC layer (the
// orchestrator's services, the worker's and the command line's clients): the domain code
// (master, models, scenario) returns absl::Status and includes no gRPC header. Stateless.
#pragma once

#include <grpcpp/support/status.h>

#include "absl/status/status.h"

namespace cosimo {

// Maps absl codes to gRPC codes one to one (the numbering is the same by design; this function
// is the explicit map so that a change on either side is caught here).
grpc::Status ToGrpcStatus(const absl::Status& status);
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace cosimo
