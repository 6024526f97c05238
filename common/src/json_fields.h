// The JSON of a protobuf message checked against the message's descriptor before protobuf's JSON
// parser sees it, so that errors name the field path and the valid choices
// ("units[1].builtin.modle: no such field (fields: model, parameters)", "algorithm.kind:
// 'JACOBY' is not one of JACOBI, GAUSS_SEIDEL, ...") instead of protobuf's wording, and name
// every problem at once. Private to cosimo_common. Stateless.
#pragma once

#include <google/protobuf/descriptor.h>
#include <google/protobuf/message.h>

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace cosimo {

// Unknown fields (by proto or JSON name), enum values that are not names or numbers of the enum,
// and values of the wrong JSON type. google.protobuf.Value / Struct / ListValue take any JSON.
std::vector<std::string> JsonFieldErrors(const nlohmann::json& json,
                                         const google::protobuf::Descriptor& descriptor);

// OK without problems; else InvalidArgument: the one problem, or "N problems:" and one per line.
absl::Status ProblemsStatus(const std::vector<std::string>& problems);

// `json` into `out` (unknown fields refused): CheckJson's errors (line and column, `what` naming
// the document: "sweep"), then JsonFieldErrors' (all at once), then protobuf's.
absl::Status ParseJsonMessage(std::string_view json, const std::string& what,
                              google::protobuf::Message* out);

}  // namespace cosimo
