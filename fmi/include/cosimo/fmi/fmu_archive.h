// Unpacking an .fmu (a zip archive) into a private temporary folder.
//
// Every entry is checked before anything is written: names that are absolute, contain a ".."
// component or a backslash, symbolic links and other non-regular entries are refused, and so
// are archives whose total unpacked size or entry count exceeds the limits (checked against the
// bytes actually inflated, not only the sizes the archive declares). The folder is removed when
// the UnpackedFmu is destroyed. Thread safety: none needed (values).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/fmi/archive_names.h"

namespace cosimo::fmi {

struct UnpackLimits {
  uint64_t max_total_bytes = uint64_t{4} << 30;  // 4 GiB unpacked, all entries together
  uint64_t max_entries = 100000;
};

// A folder holding the unpacked archive; removes it on destruction. Not copyable.
class UnpackedFmu {
 public:
  // `lock_fd`: the locked <dir>.lock file (closed and removed with the folder), or -1.
  explicit UnpackedFmu(std::string dir, int lock_fd = -1)
      : dir_(std::move(dir)), lock_fd_(lock_fd) {}
  ~UnpackedFmu();
  UnpackedFmu(const UnpackedFmu&) = delete;
  UnpackedFmu& operator=(const UnpackedFmu&) = delete;

  // Absolute path of the extraction folder (no trailing slash).
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  int lock_fd_;
};

// Removes the unpacked folders under `root` whose process is gone (their .lock file is not
// locked) and that are older than `min_age`; returns how many. UnpackFmu runs it once per
// process on $TMPDIR, so a worker killed by a crashing FMU leaves nothing for long.
int RemoveAbandonedUnpacks(const std::string& root,
                           std::chrono::seconds min_age = std::chrono::seconds(60));

// RemoveAbandonedUnpacks on $TMPDIR (or /tmp), once per process: the first UnpackFmu calls it;
// a worker calls it while it waits for its orchestrator's address, so that the scan of a busy
// temporary folder (thousands of entries) is not on the way of its first job.
void RemoveAbandonedUnpacksOnce();

// Unpacks `fmu_path` under $TMPDIR (or /tmp) into cosimo-fmu-XXXXXX, locked through
// cosimo-fmu-XXXXXX.lock while in use. Errors name the file and the offending entry.
[[nodiscard]] absl::StatusOr<std::unique_ptr<UnpackedFmu>> UnpackFmu(
    const std::string& fmu_path, const UnpackLimits& limits = UnpackLimits());

// The FMU's shared library for `platform` (FMI 2: "linux64", FMI 3: "x86_64-linux") under
// binaries/, or an error for unit `unit_name` that names the platforms the FMU has binaries for
// (not the worker's temporary folder).
[[nodiscard]] absl::StatusOr<std::string> BinaryPath(const UnpackedFmu& unpacked,
                                                     const std::string& platform,
                                                     const std::string& model_identifier,
                                                     const std::string& unit_name);

using cosimo::IsSafeEntryName;  // cosimo/fmi/archive_names.h

}  // namespace cosimo::fmi
