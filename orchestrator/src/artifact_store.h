// Artifacts (FMUs, tables) on the orchestrator's disk, addressed by SHA-256 digest:
// <dir>/<hex>. Writes go to a temporary file that is renamed once its digest is verified, so a
// stored artifact is always complete. A stored file's modification time is its last use (upload,
// Touch), which Prune measures retention from; Touch and Prune's removals exclude each other, so
// an artifact Touch found stays for a whole retention period. Thread safe.
#pragma once

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace cosimo::orchestrator {

class ArtifactStore {
 public:
  explicit ArtifactStore(std::string dir);

  bool Has(const std::string& digest) const;
  // Size in bytes, or NotFound naming the digest.
  [[nodiscard]] absl::StatusOr<uint64_t> Size(const std::string& digest) const;
  std::string PathOf(const std::string& digest) const;
  // Bytes on disk in the store's folder: stored artifacts and uploads in progress.
  uint64_t TotalBytes() const;
  // A new temporary path in the store's folder for an upload in progress.
  std::string TemporaryPath() const;
  // Moves a completed upload at `temp_path` into place after checking its digest.
  [[nodiscard]] absl::Status Commit(const std::string& temp_path, const std::string& digest);
  // Removes a stored artifact (an open Fetch keeps reading it); nothing stored is not an error.
  [[nodiscard]] absl::Status Remove(const std::string& digest);
  // Marks a stored artifact as used now; false if it is not stored.
  bool Touch(const std::string& digest);
  // Removes the stored artifacts that are not in `keep` and were last used longer than
  // `older_than` ago, and the partial files of uploads abandoned that long ago. Other files in
  // the folder are left alone. Returns what it removed: digests, and partial files by name.
  std::vector<std::string> Prune(const std::set<std::string>& keep,
                                 std::chrono::seconds older_than);

 private:
  std::string dir_;
  // Touch against Prune's check-and-remove of one file (it guards files, not members).
  absl::Mutex use_mutex_;
};

}  // namespace cosimo::orchestrator
