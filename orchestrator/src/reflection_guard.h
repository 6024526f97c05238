// Server reflection asks for a client's token when the orchestrator has tokens: it describes the
// whole API, which is nobody's business but the clients'. gRPC's reflection service (registered
// by its builder plugin) has no hook of its own, so this AuthMetadataProcessor, which gRPC runs
// on every call of a secure port before the call reaches a service, refuses a reflection call
// whose authorization metadata is not a client's token, with TokenCheck's UNAUTHENTICATED
// message. Every other call passes here: the services check their own (and the health service
// stays open for probes). Tokens need TLS, and gRPC runs such processors on TLS ports only.
#pragma once

#include <grpcpp/grpcpp.h>
#include <grpcpp/security/auth_metadata_processor.h>

#include <string>

#include "orchestrator/src/token_check.h"

namespace cosimo::orchestrator {

class ReflectionGuard final : public grpc::AuthMetadataProcessor {
 public:
  // `auth`: the clients' tokens; it outlives the server.
  explicit ReflectionGuard(const TokenCheck* auth) : auth_(auth) {}

  // Cheap (no I/O): run on gRPC's own thread.
  bool IsBlocking() const override { return false; }

  grpc::Status Process(const InputMetadata& metadata, grpc::AuthContext* /*context*/,
                       OutputMetadata* /*consumed*/, OutputMetadata* /*response*/) override {
    auto path = metadata.find(":path");
    if (path == metadata.end() || !IsReflection(path->second)) return grpc::Status::OK;
    auto authorization = metadata.find("authorization");
    return auth_->CheckAuthorization(
        authorization == metadata.end() ? nullptr : &authorization->second, nullptr);
  }

  // Both versions of the reflection service ("/grpc.reflection.v1alpha.ServerReflection/...").
  static bool IsReflection(grpc::string_ref path) {
    const std::string p(path.data(), path.size());
    return p.rfind("/grpc.reflection.", 0) == 0;
  }

 private:
  const TokenCheck* const auth_;
};

}  // namespace cosimo::orchestrator
