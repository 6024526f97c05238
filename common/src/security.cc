#include "cosimo/common/security.h"

#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace cosimo {

absl::StatusOr<std::string> ReadCredentialFile(const std::string& path, const std::string& flag) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(flag, ": cannot read '", path, "'"));
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' ||
                           text.back() == '\t')) {
    text.pop_back();
  }
  if (text.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": '", path, "' is empty"));
  }
  return text;
}

namespace {

// Reads a PEM file and checks it holds a `what` block ("CERTIFICATE", "PRIVATE KEY"), so that a
// wrong file is named here rather than by a failed TLS handshake.
absl::StatusOr<std::string> ReadPem(const std::string& path, const std::string& flag,
                                    const std::string& what) {
  absl::StatusOr<std::string> text = ReadCredentialFile(path, flag);
  if (!text.ok()) return text.status();
  if (text->find("-----BEGIN ") == std::string::npos ||
      text->find(what + "-----") == std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(flag, ": '", path, "' holds no PEM ", what,
                                                   " (-----BEGIN ... ", what, "-----)"));
  }
  return *text + "\n";
}

// The PEM certificate chain and private key of --tls-cert/--tls-key, which go together.
absl::StatusOr<std::pair<std::string, std::string>> ReadKeyPair(const std::string& cert_file,
                                                                const std::string& key_file) {
  if (cert_file.empty() || key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert and --tls-key go together: give the certificate chain and its private key");
  }
  absl::StatusOr<std::string> cert = ReadPem(cert_file, "--tls-cert", "CERTIFICATE");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadPem(key_file, "--tls-key", "PRIVATE KEY");
  if (!key.ok()) return key.status();
  return std::make_pair(*std::move(cert), *std::move(key));
}

}  // namespace

ClientSecurity ClientSecurityFromEnvironment() {
  ClientSecurity security;
  if (const char* ca = std::getenv("COSIMO_TLS_CA"); ca != nullptr) security.tls_ca_file = ca;
  if (const char* token = std::getenv("COSIMO_TOKEN_FILE"); token != nullptr) {
    security.token_file = token;
  }
  return security;
}

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> MakeChannelCredentials(
    const ClientSecurity& security) {
  if (security.tls_ca_file.empty()) {
    if (!security.tls_cert_file.empty() || !security.tls_key_file.empty()) {
      return absl::InvalidArgumentError(
          "--tls-cert and --tls-key need --tls-ca: a client certificate is only shown over TLS");
    }
    if (!security.token_file.empty()) {
      return absl::InvalidArgumentError(
          "--token-file needs --tls-ca: the token is only sent over TLS (gRPC does not send call "
          "credentials in clear text)");
    }
    return grpc::InsecureChannelCredentials();
  }
  absl::StatusOr<std::string> roots = ReadPem(security.tls_ca_file, "--tls-ca", "CERTIFICATE");
  if (!roots.ok()) return roots.status();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = *roots;
  if (!security.tls_cert_file.empty() || !security.tls_key_file.empty()) {
    absl::StatusOr<std::pair<std::string, std::string>> pair =
        ReadKeyPair(security.tls_cert_file, security.tls_key_file);
    if (!pair.ok()) return pair.status();
    options.pem_cert_chain = pair->first;
    options.pem_private_key = pair->second;
  }
  std::shared_ptr<grpc::ChannelCredentials> tls = grpc::SslCredentials(options);
  if (security.token_file.empty()) return tls;
  absl::StatusOr<std::string> token = ReadCredentialFile(security.token_file, "--token-file");
  if (!token.ok()) return token.status();
  return grpc::CompositeChannelCredentials(tls, grpc::AccessTokenCredentials(*token));
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const std::string& cert_file, const std::string& key_file, const std::string& client_ca_file) {
  if (cert_file.empty() && key_file.empty()) {
    if (!client_ca_file.empty()) {
      return absl::InvalidArgumentError(
          "--tls-client-ca needs --tls-cert and --tls-key: client certificates are only checked "
          "over TLS");
    }
    return grpc::InsecureServerCredentials();
  }
  absl::StatusOr<std::pair<std::string, std::string>> pair = ReadKeyPair(cert_file, key_file);
  if (!pair.ok()) return pair.status();
  // Verifies a certificate the peer shows, but lets a peer show none: clients of the job service
  // share the port with workers, and the worker stream refuses a peer without one.
  grpc::SslServerCredentialsOptions options(client_ca_file.empty()
                                                ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                                : GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY);
  if (!client_ca_file.empty()) {
    absl::StatusOr<std::string> roots = ReadPem(client_ca_file, "--tls-client-ca", "CERTIFICATE");
    if (!roots.ok()) return roots.status();
    options.pem_root_certs = *roots;
  }
  options.pem_key_cert_pairs.push_back({pair->second, pair->first});
  return grpc::SslServerCredentials(options);
}

bool VerifiedClientCertificate(const grpc::ServerContext& context, std::string* subject) {
  const std::shared_ptr<const grpc::AuthContext> auth = context.auth_context();
  if (auth == nullptr) return false;
  // Only set when the peer showed a certificate, which the handshake then verified (a peer whose
  // certificate fails verification never gets this far).
  if (auth->FindPropertyValues(GRPC_X509_PEM_CERT_PROPERTY_NAME).empty()) return false;
  if (subject != nullptr) {
    const std::vector<grpc::string_ref> cn = auth->FindPropertyValues(GRPC_X509_CN_PROPERTY_NAME);
    subject->assign(cn.empty() ? "" : std::string(cn.front().data(), cn.front().size()));
  }
  return true;
}

}  // namespace cosimo
