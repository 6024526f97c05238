// The orchestrator's bearer-token check (ServerOptions::token_file, tokens_file and
// worker_token_file; see cosimo/common/security.h). Every service handler but the health
// service's calls Check first; the worker stream checks at its Hello and refuses the worker with
// the reason; the HTTP server (--http) checks its requests against the clients' tokens; server
// reflection is checked by ReflectionGuard (reflection_guard.h). Clients' calls are checked
// against the clients' tokens, workers' streams against the worker token, and artifact fetches
// (which workers make) against either. With mutual TLS (--tls-client-ca), the workers' check also
// requires a verified client certificate, before the token.
//
// Each token names its holder (a Caller): the client named in --tokens-file, "default" for the
// shared --token-file's. Jobs record it as their owner; only the owner or an admin may cancel
// or delete a job (JobManager).
//
// Thread safety: immutable once the server runs (Add and RequireClientCertificate are called
// before).
#pragma once

#include <grpcpp/grpcpp.h>

#include <optional>
#include <string>
#include <vector>

#include "cosimo/common/security.h"
#include "orchestrator/src/caller.h"

namespace cosimo::orchestrator {

class TokenCheck {
 public:
  TokenCheck() = default;  // no token: every call passes
  // One token, held by the client "default", an admin.
  explicit TokenCheck(const std::string& token) { Add(kDefaultClient, token, true); }
  // Any of `tokens` passes (e.g. the client's or the worker's for fetching artifacts), each as
  // "default".
  explicit TokenCheck(const std::vector<std::string>& tokens) {
    for (const std::string& token : tokens) Add(kDefaultClient, token, true);
  }

  // Accepts `token` too, as the client `name`.
  void Add(const std::string& name, const std::string& token, bool admin) {
    entries_.push_back({"Bearer " + token, {name, admin}});
  }

  bool enabled() const { return !entries_.empty(); }

  // The holder of the token in `authorization` ("Bearer <token>"); an anonymous admin when no
  // token is required; nullopt for an unknown token. The HTTP server checks its Authorization
  // header (or its ?token= and cookie) with this.
  std::optional<Caller> Identify(grpc::string_ref authorization) const {
    if (entries_.empty()) return Caller{};
    // Every entry is compared, so that the time taken does not tell which one matched.
    const Entry* found = nullptr;
    for (const Entry& entry : entries_) {
      if (SameSecret(authorization, entry.expected) && found == nullptr) found = &entry;
    }
    if (found == nullptr) return std::nullopt;
    return found->caller;
  }

  // True if `authorization` carries one of the tokens, or none is required.
  bool AcceptsAuthorization(grpc::string_ref authorization) const {
    return Identify(authorization).has_value();
  }

  // Requires, besides the token, that the peer showed a client certificate signed by
  // --tls-client-ca (the handshake refuses one signed by anyone else).
  void RequireClientCertificate() { require_client_certificate_ = true; }

  // OK (and the caller in `*caller`, when given), or UNAUTHENTICATED saying what was wrong
  // (never echoing a token).
  grpc::Status Check(const grpc::ServerContext& context, Caller* caller = nullptr) const {
    if (require_client_certificate_ && !VerifiedClientCertificate(context)) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "this orchestrator requires a client certificate signed by its "
                          "--tls-client-ca: the connection shows none (give the worker --tls-cert "
                          "and --tls-key)");
    }
    if (entries_.empty()) {
      if (caller != nullptr) *caller = Caller{};
      return grpc::Status::OK;
    }
    const auto& metadata = context.client_metadata();
    auto it = metadata.find("authorization");
    return CheckAuthorization(it == metadata.end() ? nullptr : &it->second, caller);
  }

  // The same check on the value of an authorization header (null: the call carries none).
  grpc::Status CheckAuthorization(const grpc::string_ref* authorization, Caller* caller) const {
    if (entries_.empty()) {
      if (caller != nullptr) *caller = Caller{};
      return grpc::Status::OK;
    }
    if (authorization == nullptr) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "this orchestrator requires a token: the call carries no authorization "
                          "metadata (give --token-file, with --tls-ca)");
    }
    std::optional<Caller> who = Identify(*authorization);
    if (!who) {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                          "the call's token is not this orchestrator's (check --token-file)");
    }
    if (caller != nullptr) *caller = *std::move(who);
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

  struct Entry {
    std::string expected;  // "Bearer <token>"
    Caller caller;
  };
  std::vector<Entry> entries_;  // empty: no check
  bool require_client_certificate_ = false;
};

}  // namespace cosimo::orchestrator
