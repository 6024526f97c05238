// Status helpers shared by every component.
//
// Errors that cross a component boundary or an RPC are absl::Status / absl::StatusOr<T>. This
// header holds the macros used to propagate them and Annotate; it includes no gRPC header (the
// conversion to and from grpc::Status is the RPC layer's, rpc_status.h). Thread safety:
// stateless.
#pragma once

#include <fmt/format.h>

#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cosimo {

// Prefixes the message of a non-OK status with `context` ("unit 'ctrl': ..."); OK passes.
absl::Status Annotate(const absl::Status& status, std::string_view context);

}  // namespace cosimo

// Debian's absl::string_view is its own type (not std::string_view); let fmt/spdlog print it
// (e.g. status.message()).
template <>
struct fmt::formatter<absl::string_view> : fmt::formatter<fmt::string_view> {
  template <typename Context>
  auto format(absl::string_view s, Context& ctx) const {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};

#define COSIMO_STATUS_CONCAT_INNER_(a, b) a##b
#define COSIMO_STATUS_CONCAT_(a, b) COSIMO_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` (an absl::Status) is not OK.
#define COSIMO_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    const absl::Status cosimo_status_ = (expr);      \
    if (!cosimo_status_.ok()) return cosimo_status_; \
  } while (false)

// `lhs = value of expr` where expr is an absl::StatusOr<T>; returns its status if not OK.
#define COSIMO_ASSIGN_OR_RETURN(lhs, expr) \
  COSIMO_ASSIGN_OR_RETURN_IMPL_(COSIMO_STATUS_CONCAT_(cosimo_statusor_, __LINE__), lhs, expr)
#define COSIMO_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return std::move(tmp).status();      \
  lhs = std::move(tmp).value()
