// SHA-256 digests of artifacts, written "sha256:<64 hex digits>". Stateless, thread safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace cosimo {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void Update(const void* data, size_t size);
  // "sha256:<hex>"; the object may not be updated afterwards.
  std::string Finish();

 private:
  void* ctx_;  // EVP_MD_CTX
};

std::string DigestOf(std::string_view data);
[[nodiscard]] absl::StatusOr<std::string> DigestOfFile(const std::string& path);

// The bytes of a buffer that reads a file of `size` bytes in chunks of at most 1 MiB: the file's
// size when smaller (at least 1). A zeroed megabyte for a 12 kB FMU is 256 fresh pages, each a
// page fault (about 40 us each on a virtual machine: 10 ms of a `cosimo run`'s start-up).
size_t FileChunkBytes(uint64_t size);
// True for "sha256:" followed by 64 lowercase hex digits.
bool IsValidDigest(std::string_view digest);

}  // namespace cosimo
