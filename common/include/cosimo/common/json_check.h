// A check of JSON text before a parser that trusts it (protobuf's JSON parser recurses once per
// nesting level and keeps every value): limits on the size and the nesting depth, the syntax,
// and numbers a double cannot hold (1e400). Every problem is an InvalidArgument error that says
// where it is (line and column). Stateless, thread safe; never throws.
#pragma once

#include <cstddef>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace cosimo {

struct JsonLimits {
  size_t max_bytes = size_t{64} << 20;  // the orchestrator accepts messages up to 64 MiB
  int max_depth = 64;                   // objects and arrays inside each other
};

// `what` names the text in errors ("scenario").
[[nodiscard]] absl::Status CheckJson(std::string_view json, absl::string_view what,
                                     const JsonLimits& limits = {});

}  // namespace cosimo
