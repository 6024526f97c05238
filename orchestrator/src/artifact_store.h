// Artifacts (FMUs, tables) on the orchestrator's disk, addressed by SHA-256 digest:
// <dir>/<hex>. Writes go to a temporary file that is renamed once its digest is verified, so a
// stored artifact is always complete. Thread safe.
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace cosimo::orchestrator {

class ArtifactStore {
 public:
  explicit ArtifactStore(std::string dir);

  bool Has(const std::string& digest) const;
  // Size in bytes, or NotFound naming the digest.
  [[nodiscard]] absl::StatusOr<uint64_t> Size(const std::string& digest) const;
  std::string PathOf(const std::string& digest) const;
  // A new temporary path in the store's folder for an upload in progress.
  std::string TemporaryPath() const;
  // Moves a completed upload at `temp_path` into place after checking its digest.
  [[nodiscard]] absl::Status Commit(const std::string& temp_path, const std::string& digest);
  // Removes a stored artifact (an open Fetch keeps reading it); nothing stored is not an error.
  [[nodiscard]] absl::Status Remove(const std::string& digest);

 private:
  std::string dir_;
};

}  // namespace cosimo::orchestrator
