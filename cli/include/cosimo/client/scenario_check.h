// What `cosimo run` and `cosimo submit` check before anything runs, beyond ValidateScenario: the
// units against the built-in catalogue (model and parameters), the FMUs' model descriptions
// (parameters, a binary for this platform) and the tables' headers; then every recorded
// variable and both ends of every connection against the variables those units have. Every
// problem at once, each naming the scenario field.
//
// Thread safety: none needed (a function).
#pragma once

#include "absl/status/status.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo::client {

// OK, or InvalidArgument listing every problem ("3 problems:" then one line each).
[[nodiscard]] absl::Status CheckUnitsAndVariables(const v1::Scenario& scenario);

}  // namespace cosimo::client
