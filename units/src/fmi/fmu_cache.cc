#include "units/src/fmi/fmu_cache.h"

#include <sys/stat.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace cosimo::units::fmu {
namespace {

// Path, size, modification time and inode: a file rewritten in place (an FMU exported again
// under the same name) is a new key. Empty when the file cannot be read (UnpackFmu says why).
std::string FileKey(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "";
  return absl::StrCat(path, "|", st.st_size, "|", st.st_mtim.tv_sec, ".", st.st_mtim.tv_nsec, "|",
                      st.st_ino);
}

}  // namespace

void CachedFmu::Pin(const std::string& path) {
  if (pins.count(path) != 0) return;
  absl::StatusOr<std::unique_ptr<SharedLibrary>> library = SharedLibrary::Open(path);
  if (library.ok()) pins.emplace(path, *std::move(library));
}

FmuCache& FmuCache::Global() {
  static FmuCache cache;
  return cache;
}

absl::StatusOr<std::shared_ptr<CachedFmu>> FmuCache::Take(const std::string& fmu_path) {
  const std::string key = FileKey(fmu_path);
  std::unique_ptr<CachedFmu> entry;
  if (!key.empty()) {
    absl::MutexLock lock(&idle_->mutex);
    std::list<std::unique_ptr<CachedFmu>>& entries = idle_->entries;
    for (auto it = entries.begin(); it != entries.end(); ++it) {
      if ((*it)->key == key) {
        entry = std::move(*it);
        entries.erase(it);
        break;
      }
    }
  }
  if (entry != nullptr) {
    entry->reused = true;
  } else {
    entry = std::make_unique<CachedFmu>();
    entry->key = key;
    absl::StatusOr<std::unique_ptr<fmi::UnpackedFmu>> folder = fmi::UnpackFmu(fmu_path);
    if (!folder.ok()) return folder.status();
    entry->folder = *std::move(folder);
    absl::StatusOr<fmi::ModelDescription> md =
        fmi::ParseModelDescriptionFile(entry->folder->dir() + "/modelDescription.xml");
    if (!md.ok()) {
      return absl::Status(md.status().code(), absl::StrCat(fmu_path, ": ", md.status().message()));
    }
    entry->md = *std::move(md);
  }
  return std::shared_ptr<CachedFmu>(
      entry.release(), [idle = std::weak_ptr<Idle>(idle_)](CachedFmu* e) { GiveBack(idle, e); });
}

void FmuCache::GiveBack(const std::weak_ptr<Idle>& weak, CachedFmu* entry) {
  std::unique_ptr<CachedFmu> owned(entry);
  const std::shared_ptr<Idle> idle = weak.lock();
  if (idle == nullptr || owned->key.empty()) return;
  std::list<std::unique_ptr<CachedFmu>> dropped;  // destroyed outside the lock
  absl::MutexLock lock(&idle->mutex);
  if (idle->max == 0) return;
  idle->entries.push_front(std::move(owned));
  while (idle->entries.size() > idle->max) {
    dropped.push_back(std::move(idle->entries.back()));
    idle->entries.pop_back();
  }
}

void FmuCache::set_max_idle(size_t max_idle) {
  std::list<std::unique_ptr<CachedFmu>> dropped;
  absl::MutexLock lock(&idle_->mutex);
  idle_->max = max_idle;
  while (idle_->entries.size() > idle_->max) {
    dropped.push_back(std::move(idle_->entries.back()));
    idle_->entries.pop_back();
  }
}

size_t FmuCache::max_idle() const {
  absl::MutexLock lock(&idle_->mutex);
  return idle_->max;
}

size_t FmuCache::idle() const {
  absl::MutexLock lock(&idle_->mutex);
  return idle_->entries.size();
}

}  // namespace cosimo::units::fmu
