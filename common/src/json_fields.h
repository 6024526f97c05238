// The JSON of a protobuf message checked against the message's descriptor before protobuf's JSON
// parser sees it, so that errors name the field path and the valid choices
// ("units[1].builtin.modle: no such field (fields: model, parameters)", "algorithm.kind:
// 'JACOBY' is not one of JACOBI, GAUSS_SEIDEL, ...") instead of protobuf's wording, and name
// every problem at once. Private to cosimo_common. Stateless.
#pragma once

#include <google/protobuf/descriptor.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace cosimo {

// Unknown fields (by proto or JSON name), enum values that are not names or numbers of the enum,
// and values of the wrong JSON type. google.protobuf.Value / Struct / ListValue take any JSON.
std::vector<std::string> JsonFieldErrors(const nlohmann::json& json,
                                         const google::protobuf::Descriptor& descriptor);

}  // namespace cosimo
