// TLS and a shared bearer token for the orchestrator's port (DESIGN section 6: "TLS and tokens
// for clients and workers when configured").
//
// - The orchestrator serves TLS with --tls-cert/--tls-key (PEM files) and, with --token-file,
//   refuses every call that does not carry "authorization: Bearer <token>" (the health service
//   excepted, for load balancers and probes). A token needs TLS: sent in clear text it would
//   protect nothing.
// - Clients and workers dial TLS with --tls-ca (the PEM certificates that sign the orchestrator's
//   certificate) and send the token of --token-file with every call (gRPC's access-token call
//   credentials, which gRPC only sends over a secure channel).
//
// Without any of these, everything is plain gRPC, as for the embedded `cosimo run` on loopback.
#pragma once

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace cosimo {

// The contents of a PEM or token file, trailing whitespace removed. `flag` names the option in
// errors ("--tls-ca"). Fails if the file cannot be read or is empty.
[[nodiscard]] absl::StatusOr<std::string> ReadCredentialFile(const std::string& path,
                                                             const std::string& flag);

struct ClientSecurity {
  std::string tls_ca_file;  // empty: plain gRPC
  std::string token_file;   // empty: no token; needs tls_ca_file
};

// Defaults from the environment: COSIMO_TLS_CA and COSIMO_TOKEN_FILE.
ClientSecurity ClientSecurityFromEnvironment();

// Channel credentials for `security`: insecure, TLS, or TLS with the token on every call.
[[nodiscard]] absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ClientSecurity& security);

// Server credentials: insecure when both files are empty, else TLS with this certificate chain
// and private key. Fails naming the flag when only one is given or a file is unreadable.
[[nodiscard]] absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const std::string& cert_file, const std::string& key_file);

}  // namespace cosimo
