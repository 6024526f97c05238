// The orchestrator's bearer-token check (ServerOptions::token_file and worker_token_file; see
// cosimo/common/security.h). Every service handler but the health service's calls Check first;
// the worker stream checks at its Hello and refuses the worker with the reason; the HTTP server
// (--http) checks its requests against the client token. Clients' calls
// are checked against the client token, workers' streams against the worker token, and artifact
// fetches (which workers make) against either. With mutual TLS (--tls-client-ca), the workers'
// check also requires a verified client certificate, before the token.
//
// Thread safety: immutable once the server runs (RequireClientCertificate is called before).
#pragma once

#include <grpcpp/grpcpp.h>

#include <string>
#include <vector>

#include "cosimo/common/security.h"

namespace cosimo::orchestrator {

class TokenCheck {
 public:
  TokenCheck() = default;  // no token: every call passes
  explicit TokenCheck(const std::string& token) : TokenCheck(std::vector<std::string>{token}) {}
  // Any of `tokens` passes (e.g. the client's or the worker's for fetching artifacts).
  explicit TokenCheck(const std::vector<std::string>& tokens) {
    for (const std::string& token : tokens) expected_.push_back("Bearer " + token);
  }

  bool enabled() const { return !expected_.empty(); }

  // True if `authorization` ("Bearer <token>") carries one of the tokens, or none is required.
  // The HTTP server checks its Authorization header (or its ?token= and cookie) with this.
  bool AcceptsAuthorization(grpc::string_ref authorization) const {
    if (expected_.empty()) return true;
    bool known = false;
    for (const std::string& expected : expected_) known |= SameSecret(authorization, expected);
    return known;
  }

  // Requires, besides the token, that the peer showed a client certificate signed by
  // --tls-client-ca (the handshake refuses one signed by anyone else).
  void RequireClientCertificate() { require_client_certificate_ = true; }

  // OK, or UNAUTHENTICATED saying what was wrong (never echoing a token).
  grpc::Status Check(const grpc::ServerContext& context) const {
    if (require_client_certificate_ && !VerifiedClientCertificate(context)) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "this orchestrator requires a client certificate signed by its "
                          "--tls-client-ca: the connection shows none (give the worker --tls-cert "
                          "and --tls-key)");
    }
    if (expected_.empty()) return grpc::Status::OK;
    const auto& metadata = context.client_metadata();
    auto it = metadata.find("authorization");
    if (it == metadata.end()) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "this orchestrator requires a token: the call carries no authorization "
                          "metadata (give --token-file, with --tls-ca)");
    }
    if (!AcceptsAuthorization(it->second)) {
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

  std::vector<std::string> expected_;  // "Bearer <token>" each; empty: no check
  bool require_client_certificate_ = false;
};

}  // namespace cosimo::orchestrator
