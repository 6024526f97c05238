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
// Thread safety: Add and RequireClientCertificate are called before the server runs; then the
// checks and Replace (cosimo-orchestrator re-reading its token files on SIGHUP) may run
// concurrently: a check sees the tokens before or after a Replace, never a mix.
#pragma once

#include <grpcpp/grpcpp.h>

#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
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

  TokenCheck(const TokenCheck& other) : entries_(other.Snapshot()) {
    require_client_certificate_ = other.require_client_certificate_;
  }
  TokenCheck& operator=(const TokenCheck& other) {
    if (this != &other) {
      Replace(other);
      require_client_certificate_ = other.require_client_certificate_;
    }
    return *this;
  }

  // Accepts `token` too, as the client `name`.
  void Add(const std::string& name, const std::string& token, bool admin) {
    absl::MutexLock lock(&mutex_);
    auto entries = std::make_shared<std::vector<Entry>>(*entries_);
    entries->push_back({"Bearer " + token, {name, admin}});
    entries_ = std::move(entries);
  }

  // From now on accepts the tokens of `other` instead (not its client-certificate requirement,
  // which stays as it is). Calls already checked are not affected.
  void Replace(const TokenCheck& other) {
    std::shared_ptr<const std::vector<Entry>> entries = other.Snapshot();
    absl::MutexLock lock(&mutex_);
    entries_ = std::move(entries);
  }

  bool enabled() const { return !Snapshot()->empty(); }
  size_t size() const { return Snapshot()->size(); }

  // The holder of the token in `authorization` ("Bearer <token>"); an anonymous admin when no
  // token is required; nullopt for an unknown token. The HTTP server checks its Authorization
  // header (or its ?token= and cookie) with this.
  std::optional<Caller> Identify(grpc::string_ref given) const {
    const std::shared_ptr<const std::vector<Entry>> entries = Snapshot();
    if (entries->empty()) return Caller{};
    const std::string authorization = Canonical(given);
    // Every entry is compared, so that the time taken does not tell which one matched.
    const Entry* found = nullptr;
    for (const Entry& entry : *entries) {
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
    if (!enabled()) {
      if (caller != nullptr) *caller = Caller{};
      return grpc::Status::OK;
    }
    const auto& metadata = context.client_metadata();
    auto it = metadata.find("authorization");
    return CheckAuthorization(it == metadata.end() ? nullptr : &it->second, caller);
  }

  // The same check on the value of an authorization header (null: the call carries none).
  grpc::Status CheckAuthorization(const grpc::string_ref* authorization, Caller* caller) const {
    if (!enabled()) {
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
  // "Bearer <token>" for an authorization whose scheme is "Bearer" in any case, followed by one
  // or more spaces (RFC 9110 section 11.1: "It uses a case-insensitive token to identify the
  // authentication scheme"; section 11.4: 1*SP before the credentials); anything else as given.
  static std::string Canonical(grpc::string_ref given) {
    constexpr std::string_view kScheme = "bearer";
    std::string value(given.data(), given.size());
    if (value.size() <= kScheme.size() || value[kScheme.size()] != ' ') return value;
    for (size_t i = 0; i < kScheme.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(value[i])) != kScheme[i]) return value;
    }
    const size_t token = value.find_first_not_of(' ', kScheme.size());
    return token == std::string::npos ? value : "Bearer " + value.substr(token);
  }

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
  std::shared_ptr<const std::vector<Entry>> Snapshot() const {
    absl::MutexLock lock(&mutex_);
    return entries_;
  }

  mutable absl::Mutex mutex_;
  // Never null; empty: no check. Replaced whole, never changed in place.
  std::shared_ptr<const std::vector<Entry>> entries_ ABSL_GUARDED_BY(mutex_) =
      std::make_shared<const std::vector<Entry>>();
  bool require_client_certificate_ = false;
};

}  // namespace cosimo::orchestrator
