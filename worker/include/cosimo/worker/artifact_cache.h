// The worker's artifact cache (FMUs and tables fetched from the orchestrator, "<hex>.bin" files
// named by their SHA-256) kept under a size limit: least recently used first, where a use is a
// fetch or a cache hit (each touches the file). Entries used in the last `min_age` are never
// removed, so that a worker sharing the folder with others (the default folder is per user,
// not per worker) does not remove what another has just resolved and is about to unpack.
//
// Thread safety: none needed (a function over the file system; concurrent callers may remove
// the same file, which is not an error).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace cosimo::worker {

// Marks `path` as used now.
void TouchCacheEntry(const std::string& path);

// Removes the least recently used entries of `dir` until its "*.bin" files take at most
// `max_bytes`, never `keep` nor entries used less than `min_age` ago. Returns the removed paths.
std::vector<std::string> EvictCacheEntries(const std::string& dir, uint64_t max_bytes,
                                           const std::string& keep,
                                           std::chrono::seconds min_age = std::chrono::minutes(10));

}  // namespace cosimo::worker
