#include "cosimo/worker/artifact_cache.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace cosimo::worker {

namespace fs = std::filesystem;

void TouchCacheEntry(const std::string& path) {
  std::error_code ec;
  fs::last_write_time(path, fs::file_time_type::clock::now(), ec);
}

std::vector<std::string> EvictCacheEntries(const std::string& dir, uint64_t max_bytes,
                                           const std::string& keep, std::chrono::seconds min_age) {
  struct Entry {
    fs::path path;
    uint64_t bytes;
    fs::file_time_type used;
  };
  std::vector<Entry> entries;
  uint64_t total = 0;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() != ".bin" || !e.is_regular_file(ec)) continue;
    const uint64_t bytes = e.file_size(ec);
    if (ec) continue;
    const fs::file_time_type used = e.last_write_time(ec);
    if (ec) continue;
    entries.push_back({e.path(), bytes, used});
    total += bytes;
  }
  std::vector<std::string> removed;
  if (total <= max_bytes) return removed;
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  const fs::file_time_type recent = fs::file_time_type::clock::now() - min_age;
  const fs::path kept = fs::path(keep).lexically_normal();
  for (const Entry& e : entries) {
    if (total <= max_bytes) break;
    if (e.used >= recent || e.path.lexically_normal() == kept) continue;
    if (fs::remove(e.path, ec) && !ec) {
      total -= e.bytes;
      removed.push_back(e.path.string());
    }
  }
  return removed;
}

}  // namespace cosimo::worker
