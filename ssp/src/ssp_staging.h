// Where the files an SSP import extracts go before the import is accepted (private to the
// import): a temporary folder beside the destination, created on the first file, whose files
// Commit moves into the destination once the whole system is accepted. Until then nothing is
// written outside it, so a refused import leaves nothing behind (issue 41: a crafted `source`
// emptied a user's file before the archive was refused).
//
// Call order: FileFor for every entry (its name already checked by IsSafeEntryName), then
// Commit at most once; the destructor removes the temporary folder, and the destination's
// parent folders it created for it where they are still empty (nothing was committed).
//
// Thread safety: one thread at a time.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace cosimo::ssp {

class Staging {
 public:
  explicit Staging(std::filesystem::path destination);
  ~Staging();
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  // The file in the temporary folder that entry `name` (a safe relative entry name) is written
  // to, its folder created; `*fresh` false when it was already asked for (and written).
  [[nodiscard]] absl::StatusOr<std::filesystem::path> FileFor(const std::string& name, bool* fresh);
  // Where entry `name` is once committed: under the destination.
  std::filesystem::path FinalPath(const std::string& name) const;
  // Moves every staged file into the destination (the temporary folder renamed into place when
  // the destination does not exist yet). Refuses a destination folder on the way that is a
  // symbolic link.
  [[nodiscard]] absl::Status Commit();

 private:
  absl::Status CreateTemporary();

  std::filesystem::path destination_;           // absolute, normalised
  std::filesystem::path temporary_;             // empty until the first file
  std::vector<std::filesystem::path> created_;  // the destination's parents made, outer first
  std::map<std::string, std::filesystem::path> files_;  // entry name -> staged file
};

}  // namespace cosimo::ssp
