// Unpacked FMUs kept between the units made from one file (a sweep's variants one after the
// other, a job after a job): the folder, its parsed model description and its binary stay
// loaded, so the next unit of that FMU instantiates again at once instead of unpacking,
// parsing and dlopen-ing anew (issue 32). A unit takes an entry for itself alone: two units of
// one FMU at once get two folders (two copies of the binary, so that an FMU that can be
// instantiated only once per process still runs twice), and the entry comes back when the
// unit's last reference to it goes. Up to max_idle() entries wait, the least recently used
// dropped first; an entry is only reused for the same file (path, size, modification time and
// inode unchanged).
//
// Thread safety: thread safe.
#pragma once

#include <cstddef>
#include <list>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/common/shared_library.h"
#include "cosimo/fmi/fmu_archive.h"
#include "cosimo/fmi/model_description.h"

namespace cosimo::units::fmu {

// One unpacked FMU.
struct CachedFmu {
  std::string key;  // the file's identity (FmuCache::Take)
  std::unique_ptr<fmi::UnpackedFmu> folder;
  fmi::ModelDescription md;
  // Keeps the binaries the units loaded from `folder` loaded between units, by path (dlopen
  // counts references: the next unit's dlopen of the same path finds it loaded).
  std::map<std::string, std::unique_ptr<SharedLibrary>> pins;
  bool reused = false;  // taken from the idle entries (not unpacked for this unit)

  // Keeps the binary at `path` loaded from now on (the first unit that loads it calls this).
  void Pin(const std::string& path);
};

class FmuCache {
 public:
  static constexpr size_t kDefaultMaxIdle = 8;
  // The worker's (one per process).
  static FmuCache& Global();

  // An entry of `fmu_path` for one unit: an idle one of the same file, else the FMU unpacked and
  // its model description read now (errors name the file and what was wrong). It comes back to
  // the idle entries when the last copy of the returned pointer goes.
  [[nodiscard]] absl::StatusOr<std::shared_ptr<CachedFmu>> Take(const std::string& fmu_path);

  // 0: no entry is kept (every unit unpacks its FMU again). Drops the idle entries past it.
  void set_max_idle(size_t max_idle);
  size_t max_idle() const;
  size_t idle() const;  // entries waiting (tests)

 private:
  // The idle entries, which the entries given out go back to. They hold it weakly: one that
  // outlives the cache (a unit still loaded as the process exits) is simply destroyed.
  struct Idle {
    absl::Mutex mutex;
    std::list<std::unique_ptr<CachedFmu>> entries ABSL_GUARDED_BY(mutex);  // most recent first
    size_t max ABSL_GUARDED_BY(mutex) = kDefaultMaxIdle;
  };
  static void GiveBack(const std::weak_ptr<Idle>& idle, CachedFmu* entry);

  const std::shared_ptr<Idle> idle_ = std::make_shared<Idle>();
};

}  // namespace cosimo::units::fmu
