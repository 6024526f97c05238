#include "cosimo/fmi/fmu_archive.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/fmi/zip_archive.h"

namespace cosimo::fmi {
namespace {

std::string TempRoot() {
  const char* tmp = std::getenv("TMPDIR");
  return tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
}

// A folder <root>/cosimo-fmu-XXXXXX and, beside it, cosimo-fmu-XXXXXX.lock, created first and
// locked (flock) for as long as the folder is in use: a process that dies (an FMU that crashes
// the worker) releases the lock, and RemoveAbandonedUnpacks removes what it left.
absl::StatusOr<std::pair<std::string, int>> MakeTempDir() {
  const std::string pattern = TempRoot() + "/cosimo-fmu-XXXXXX.lock";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const int fd = mkstemps(buffer.data(), 5);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create a file like ", pattern));
  const std::string lock_path(buffer.data());
  const std::string dir = lock_path.substr(0, lock_path.size() - 5);
  if (flock(fd, LOCK_EX | LOCK_NB) != 0 || mkdir(dir.c_str(), 0700) != 0) {
    close(fd);
    unlink(lock_path.c_str());
    return absl::InternalError(absl::StrCat("cannot create the folder ", dir));
  }
  fcntl(fd, F_SETFD, FD_CLOEXEC);
  return std::make_pair(dir, fd);
}

}  // namespace

UnpackedFmu::~UnpackedFmu() {
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
  if (lock_fd_ >= 0) {
    unlink((dir_ + ".lock").c_str());
    close(lock_fd_);
  }
}

int RemoveAbandonedUnpacks(const std::string& root, std::chrono::seconds min_age) {
  namespace fs = std::filesystem;
  int removed = 0;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.rfind("cosimo-fmu-", 0) != 0 || name.size() < 5 ||
        name.compare(name.size() - 5, 5, ".lock") != 0) {
      continue;
    }
    std::error_code time_ec;
    const auto modified = fs::last_write_time(it->path(), time_ec);
    if (time_ec || now - modified < min_age) continue;  // maybe just created, not locked yet
    const int fd = open(it->path().c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) continue;
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {  // its owner is gone
      const std::string lock_path = it->path().string();
      std::error_code ignored;
      fs::remove_all(lock_path.substr(0, lock_path.size() - 5), ignored);
      unlink(lock_path.c_str());
      ++removed;
    }
    close(fd);
  }
  return removed;
}

void RemoveAbandonedUnpacksOnce() {
  static std::once_flag cleaned;
  std::call_once(cleaned, [] { (void)RemoveAbandonedUnpacks(TempRoot()); });
}

namespace {

// Every entry's name (inside the folder), kind (files and folders only) and declared size,
// before anything is written.
absl::Status CheckEntries(zip_t* archive, zip_int64_t count, const std::string& where,
                          const UnpackLimits& limits) {
  uint64_t declared_total = 0;
  for (zip_int64_t i = 0; i < count; ++i) {
    zip_stat_t stat;
    if (zip_stat_index(archive, i, 0, &stat) != 0 || (stat.valid & ZIP_STAT_NAME) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": cannot read entry ", i, ": ", zip_strerror(archive)));
    }
    const std::string name = stat.name;
    if (!IsSafeEntryName(name)) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": entry '", name, "' would be written outside the extraction folder"));
    }
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(archive, i, 0, &opsys, &attributes) == 0 &&
        opsys == ZIP_OPSYS_UNIX) {
      const mode_t mode = static_cast<mode_t>(attributes >> 16);
      const mode_t type = mode & S_IFMT;
      if (type != 0 && type != S_IFREG && type != S_IFDIR) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": entry '", name, "' is ",
                         S_ISLNK(mode) ? "a symbolic link" : "not a regular file", " (refused)"));
      }
    }
    if ((stat.valid & ZIP_STAT_SIZE) != 0) declared_total += stat.size;
    if (declared_total > limits.max_total_bytes) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": unpacked size exceeds the limit of ",
                                                     limits.max_total_bytes, " bytes"));
    }
  }

  return absl::OkStatus();
}

// The entries under `root`, counting the bytes actually inflated against the limit.
absl::Status WriteEntries(zip_t* archive, zip_int64_t count, const std::string& where,
                          const UnpackLimits& limits, const std::filesystem::path& root) {
  uint64_t written_total = 0;
  std::vector<char> buffer(1 << 16);
  for (zip_int64_t i = 0; i < count; ++i) {
    const std::string name = zip_get_name(archive, i, 0);
    const std::filesystem::path target = root / name;
    std::error_code ec;
    if (name.back() == '/') {
      std::filesystem::create_directories(target, ec);
      if (ec) {
        return absl::InternalError(
            absl::StrCat(where, ": cannot create folder '", name, "': ", ec.message()));
      }
      continue;
    }
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat(where, ": cannot create the folder of '", name, "': ", ec.message()));
    }
    ZipEntry file(zip_fopen_index(archive, i, 0));
    if (file == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": cannot read entry '", name, "': ", zip_strerror(archive)));
    }
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    if (!out) {
      return absl::InternalError(absl::StrCat(where, ": cannot write '", target.string(), "'"));
    }
    while (true) {
      const zip_int64_t n = zip_fread(file.get(), buffer.data(), buffer.size());
      if (n < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": corrupt entry '", name, "': ", zip_file_strerror(file.get())));
      }
      if (n == 0) break;
      written_total += static_cast<uint64_t>(n);
      if (written_total > limits.max_total_bytes) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": unpacked size exceeds the limit of ", limits.max_total_bytes, " bytes"));
      }
      out.write(buffer.data(), n);
    }
    if (!out) {
      return absl::InternalError(absl::StrCat(where, ": cannot write '", target.string(), "'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<UnpackedFmu>> UnpackFmu(const std::string& fmu_path,
                                                       const UnpackLimits& limits) {
  const std::string where = absl::StrCat("FMU archive '", fmu_path, "'");
  int error_code = 0;
  ZipArchive archive(zip_open(fmu_path.c_str(), ZIP_RDONLY, &error_code));
  if (archive == nullptr && error_code == ZIP_ER_NOENT) {
    return absl::NotFoundError(absl::StrCat(where, ": file not found"));
  }
  if (archive == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": cannot open as a zip archive: ", ZipErrorText(error_code)));
  }
  const zip_int64_t count = zip_get_num_entries(archive.get(), 0);
  if (count < 0 || static_cast<uint64_t>(count) > limits.max_entries) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", count, " entries (limit ", limits.max_entries, ")"));
  }

  // Check every entry before writing anything.
  if (absl::Status s = CheckEntries(archive.get(), count, where, limits); !s.ok()) return s;

  // Once per process: what workers that died (a crashing FMU) left behind.
  RemoveAbandonedUnpacksOnce();
  auto dir_or = MakeTempDir();
  if (!dir_or.ok()) return dir_or.status();
  auto unpacked = std::make_unique<UnpackedFmu>(dir_or->first, dir_or->second);
  const std::filesystem::path root(unpacked->dir());

  if (absl::Status s = WriteEntries(archive.get(), count, where, limits, root); !s.ok()) return s;
  return unpacked;
}

absl::StatusOr<std::string> BinaryPath(const UnpackedFmu& unpacked, const std::string& platform,
                                       const std::string& model_identifier,
                                       const std::string& unit_name) {
  namespace fs = std::filesystem;
  const fs::path binaries = fs::path(unpacked.dir()) / "binaries";
  const fs::path path = binaries / platform / (model_identifier + ".so");
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return path.string();
  std::vector<std::string> platforms;
  for (const auto& entry : fs::directory_iterator(binaries, ec)) {
    if (entry.is_directory(ec) && !fs::is_empty(entry.path(), ec)) {
      platforms.push_back(entry.path().filename().string());
    }
  }
  std::sort(platforms.begin(), platforms.end());
  std::string has;
  for (const std::string& p : platforms) absl::StrAppend(&has, has.empty() ? "" : ", ", p);
  return absl::FailedPreconditionError(
      absl::StrCat("unit '", unit_name, "': the FMU has no binary for this platform (binaries/",
                   platform, "/", model_identifier, ".so); ",
                   platforms.empty() ? "it has no binaries at all (a source-only FMU?)"
                                     : absl::StrCat("it has binaries for: ", has)));
}

}  // namespace cosimo::fmi
