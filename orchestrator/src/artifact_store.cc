#include "orchestrator/src/artifact_store.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string_view>

#include "cosimo/common/digest.h"

namespace cosimo::orchestrator {

namespace fs = std::filesystem;

namespace {

// Uploads in progress are "upload.<pid>.<n>.part" in the store's folder.
constexpr std::string_view kUploadPrefix = "upload.";
constexpr std::string_view kUploadSuffix = ".part";

bool IsUploadName(std::string_view name) {
  return name.size() > kUploadPrefix.size() + kUploadSuffix.size() &&
         name.substr(0, kUploadPrefix.size()) == kUploadPrefix &&
         name.substr(name.size() - kUploadSuffix.size()) == kUploadSuffix;
}

}  // namespace

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

uint64_t ArtifactStore::TotalBytes() const {
  uint64_t total = 0;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir_, ec)) {
    std::error_code size_ec;
    const uintmax_t size = entry.is_regular_file(size_ec) ? entry.file_size(size_ec) : 0;
    if (!size_ec) total += size;
  }
  return total;
}

std::string ArtifactStore::TemporaryPath() const {
  static std::atomic<uint64_t> counter{0};
  return (fs::path(dir_) / (std::string(kUploadPrefix) + std::to_string(getpid()) + "." +
                            std::to_string(++counter) + std::string(kUploadSuffix)))
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

bool ArtifactStore::Touch(const std::string& digest) {
  if (!IsValidDigest(digest)) return false;
  absl::MutexLock lock(&use_mutex_);
  const std::string path = PathOf(digest);
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
  if (!ec) return true;
  // Not stored, or stored but not this process's to touch (another owner): then retention counts
  // from its upload, and it is still there to use.
  return fs::is_regular_file(path, ec);
}

std::vector<std::string> ArtifactStore::Prune(const std::set<std::string>& keep,
                                              std::chrono::seconds older_than) {
  const fs::file_time_type cutoff = fs::file_time_type::clock::now() - older_than;
  std::vector<std::string> removed;
  std::error_code ec;
  for (fs::directory_iterator it(dir_, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& entry = *it;
    const std::string name = entry.path().filename().string();
    std::string what;  // what the file is, when it is the store's own
    if (IsValidDigest("sha256:" + name)) {
      what = "sha256:" + name;
      if (keep.count(what) != 0) continue;
    } else if (IsUploadName(name)) {
      what = name;
    } else {
      continue;
    }
    absl::MutexLock lock(&use_mutex_);  // not touched between the check and removal
    std::error_code entry_ec;
    const bool regular = fs::is_regular_file(entry.path(), entry_ec);
    const fs::file_time_type used = fs::last_write_time(entry.path(), entry_ec);
    if (!regular || entry_ec || used >= cutoff) continue;
    if (fs::remove(entry.path(), entry_ec)) {
      removed.push_back(what);
    } else if (entry_ec) {
      spdlog::warn("cannot remove {} from the artifact store: {}", what, entry_ec.message());
    }
  }
  if (ec) spdlog::warn("cannot list the artifact store '{}': {}", dir_, ec.message());
  return removed;
}

}  // namespace cosimo::orchestrator
