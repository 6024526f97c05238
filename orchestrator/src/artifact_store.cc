#include "orchestrator/src/artifact_store.h"

#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "cosimo/common/digest.h"

namespace cosimo::orchestrator {

namespace fs = std::filesystem;

ArtifactStore::ArtifactStore(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
}

std::string ArtifactStore::PathOf(const std::string& digest) const {
  return (fs::path(dir_) / (IsValidDigest(digest) ? digest.substr(7) : "invalid")).string();
}

bool ArtifactStore::Has(const std::string& digest) const {
  std::error_code ec;
  return IsValidDigest(digest) && fs::is_regular_file(PathOf(digest), ec);
}

absl::StatusOr<uint64_t> ArtifactStore::Size(const std::string& digest) const {
  if (!Has(digest)) {
    return absl::NotFoundError("artifact " + digest + " was never uploaded to this orchestrator");
  }
  std::error_code ec;
  return static_cast<uint64_t>(fs::file_size(PathOf(digest), ec));
}

std::string ArtifactStore::TemporaryPath() const {
  static std::atomic<uint64_t> counter{0};
  return (fs::path(dir_) /
          ("upload." + std::to_string(getpid()) + "." + std::to_string(++counter) + ".part"))
      .string();
}

absl::Status ArtifactStore::Commit(const std::string& temp_path, const std::string& digest) {
  std::error_code ec;
  absl::StatusOr<std::string> actual = DigestOfFile(temp_path);
  if (!actual.ok()) {
    fs::remove(temp_path, ec);
    return actual.status();
  }
  if (*actual != digest) {
    fs::remove(temp_path, ec);
    return absl::InvalidArgumentError("upload digest mismatch: the client announced " + digest +
                                      " but the data has digest " + *actual);
  }
  fs::rename(temp_path, PathOf(digest), ec);
  if (ec) return absl::InternalError("cannot store artifact " + digest + ": " + ec.message());
  return absl::OkStatus();
}

absl::Status ArtifactStore::Remove(const std::string& digest) {
  if (!IsValidDigest(digest)) {
    return absl::InvalidArgumentError("artifact digest '" + digest + "' is not sha256:<hex>");
  }
  std::error_code ec;
  std::filesystem::remove(PathOf(digest), ec);
  if (ec) return absl::InternalError("cannot remove artifact " + digest + ": " + ec.message());
  return absl::OkStatus();
}

}  // namespace cosimo::orchestrator
