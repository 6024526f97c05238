// TLS and a shared bearer token for the orchestrator's port (docs/deployment.md, "Security: TLS and
// a token": "TLS and tokens for clients and workers when configured").
//
// - The orchestrator serves TLS with --tls-cert/--tls-key (PEM files) and, with --token-file,
//   refuses every call that does not carry "authorization: Bearer <token>" (the health service
//   excepted, for load balancers and probes). A token needs TLS: sent in clear text it would
//   protect nothing.
// - Clients and workers dial TLS with --tls-ca (the PEM certificates that sign the orchestrator's
//   certificate) and send the token of --token-file with every call (gRPC's access-token call
//   credentials, which gRPC only sends over a secure channel).
// - Mutual TLS: with --tls-client-ca the orchestrator asks every peer for a client certificate and
//   verifies any it is shown against that CA; the worker stream then refuses a peer without one
//   (clients of the job service may still connect without). Workers present theirs with
//   --tls-cert/--tls-key.
//
// Without any of these, everything is plain gRPC, as for the embedded `cosimo run` on loopback.
#pragma once

#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <grpcpp/server_context.h>

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
  // This side's certificate chain and private key for mutual TLS (PEM); both or neither, and
  // they need tls_ca_file. Empty: no client certificate.
  std::string tls_cert_file;
  std::string tls_key_file;
};

// Defaults from the environment: COSIMO_TLS_CA and COSIMO_TOKEN_FILE.
ClientSecurity ClientSecurityFromEnvironment();

// Channel credentials for `security`: insecure, TLS, or TLS with the token on every call.
[[nodiscard]] absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ClientSecurity& security);

// Server credentials: insecure when both files are empty, else TLS with this certificate chain
// and private key. With `client_ca_file` (needs the pair), every peer is asked for a client
// certificate, and one it shows must be signed by these PEM certificates or the handshake fails;
// a peer may still show none (see VerifiedClientCertificate). Fails naming the flag when only one
// of the pair is given or a file is unreadable.
[[nodiscard]] absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const std::string& cert_file, const std::string& key_file,
    const std::string& client_ca_file = "");

// True if the peer of this call showed a client certificate, which the handshake verified against
// --tls-client-ca; `subject` (optional) gets its common name.
bool VerifiedClientCertificate(const grpc::ServerContext& context, std::string* subject = nullptr);

}  // namespace cosimo
