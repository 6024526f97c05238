// The orchestrator's bearer-token check (ServerOptions::token_file; see
// cosimo/common/security.h). Every service handler but the health service's calls Check first;
// the worker stream checks at its Hello and refuses the worker with the reason.
//
// Thread safety: immutable after construction.
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>

namespace cosimo::orchestrator {

class TokenCheck {
 public:
  TokenCheck() = default;  // no token: every call passes
  explicit TokenCheck(std::string token) : expected_("Bearer " + std::move(token)) {}

  bool enabled() const { return !expected_.empty(); }

  // OK, or UNAUTHENTICATED saying what was wrong (never echoing a token).
  grpc::Status Check(const grpc::ServerContext& context) const {
    if (expected_.empty()) return grpc::Status::OK;
    const auto& metadata = context.client_metadata();
    auto it = metadata.find("authorization");
    if (it == metadata.end()) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "this orchestrator requires a token: the call carries no authorization "
                          "metadata (give --token-file, with --tls-ca)");
    }
    if (!SameSecret(it->second, expected_)) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "the call's token is not this orchestrator's (check --token-file)");
    }
    return grpc::Status::OK;
  }

 private:
  // Compares in time that depends on the lengths only.
  static bool SameSecret(grpc::string_ref given, const std::string& expected) {
    if (given.size() != expected.size()) return false;
    unsigned char diff = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      diff |= static_cast<unsigned char>(given.data()[i] ^ expected[i]);
    }
    return diff == 0;
  }

  std::string expected_;  // "Bearer <token>"; empty: no check
};

}  // namespace cosimo::orchestrator
