#include "cosimo/common/digest.h"

#include <openssl/evp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

namespace cosimo {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr);
}

Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void Sha256::Update(const void* data, size_t size) {
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data, size);
}

std::string Sha256::Finish() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), md, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "sha256:";
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[md[i] >> 4]);
    out.push_back(kHex[md[i] & 15]);
  }
  return out;
}

std::string DigestOf(std::string_view data) {
  Sha256 sha;
  sha.Update(data.data(), data.size());
  return sha.Finish();
}

absl::StatusOr<std::string> DigestOfFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read '" + path + "'");
  Sha256 sha;
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  std::vector<char> buffer(FileChunkBytes(ec ? uint64_t{1} << 20 : size));
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    if (in.gcount() > 0) sha.Update(buffer.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return absl::DataLossError("error while reading '" + path + "'");
  return sha.Finish();
}

size_t FileChunkBytes(uint64_t size) {
  return static_cast<size_t>(std::clamp<uint64_t>(size, 1, uint64_t{1} << 20));
}

bool IsValidDigest(std::string_view digest) {
  if (digest.size() != 7 + 64 || digest.substr(0, 7) != "sha256:") return false;
  for (char c : digest.substr(7)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace cosimo
