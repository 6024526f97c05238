#include "cosimo/common/security.h"

#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

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
    if (!security.token_file.empty()) {
      return absl::InvalidArgumentError(
          "--token-file needs --tls-ca: the token is only sent over TLS (gRPC does not send call "
          "credentials in clear text)");
    }
    return grpc::InsecureChannelCredentials();
  }
  absl::StatusOr<std::string> roots = ReadCredentialFile(security.tls_ca_file, "--tls-ca");
  if (!roots.ok()) return roots.status();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = *roots + "\n";
  std::shared_ptr<grpc::ChannelCredentials> tls = grpc::SslCredentials(options);
  if (security.token_file.empty()) return tls;
  absl::StatusOr<std::string> token = ReadCredentialFile(security.token_file, "--token-file");
  if (!token.ok()) return token.status();
  return grpc::CompositeChannelCredentials(tls, grpc::AccessTokenCredentials(*token));
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> MakeServerCredentials(
    const std::string& cert_file, const std::string& key_file) {
  if (cert_file.empty() && key_file.empty()) return grpc::InsecureServerCredentials();
  if (cert_file.empty() || key_file.empty()) {
    return absl::InvalidArgumentError(
        "--tls-cert and --tls-key go together: give the certificate chain and its private key");
  }
  absl::StatusOr<std::string> cert = ReadCredentialFile(cert_file, "--tls-cert");
  if (!cert.ok()) return cert.status();
  absl::StatusOr<std::string> key = ReadCredentialFile(key_file, "--tls-key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions options;
  options.pem_key_cert_pairs.push_back({*key + "\n", *cert + "\n"});
  return grpc::SslServerCredentials(options);
}

}  // namespace cosimo
