// The worker's artifact cache limit: least recently used entries go first, never the one just
// stored nor entries used recently, and only "*.bin" files count.
#include "cosimo/worker/artifact_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace cosimo::worker {
namespace {

namespace fs = std::filesystem;

class ArtifactCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cosimo_cache_test_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A file of `bytes` last used `hours_ago`.
  std::string Entry(const std::string& name, size_t bytes, int hours_ago) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << std::string(bytes, 'x');
    fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(hours_ago));
    return path.string();
  }

  fs::path dir_;
};

TEST_F(ArtifactCacheTest, LeastRecentlyUsedGoFirstUntilUnderTheLimit) {
  const std::string oldest = Entry("a.bin", 100, 5);
  const std::string older = Entry("b.bin", 100, 4);
  const std::string newer = Entry("c.bin", 100, 3);
  const std::string partial = Entry("d.bin.part.7", 1000, 9);  // an upload in progress
  const std::string just_stored = Entry("e.bin", 100, 6);
  // 400 bytes of entries, limit 250: the two oldest go, but not the one just stored.
  const std::vector<std::string> removed = EvictCacheEntries(dir_.string(), 250, just_stored);
  EXPECT_EQ(removed, (std::vector<std::string>{oldest, older}));
  EXPECT_TRUE(fs::exists(newer));
  EXPECT_TRUE(fs::exists(just_stored));
  EXPECT_TRUE(fs::exists(partial));
  EXPECT_TRUE(EvictCacheEntries(dir_.string(), 250, just_stored).empty());  // now within
}

TEST_F(ArtifactCacheTest, RecentlyUsedEntriesStayEvenOverTheLimit) {
  const std::string old_entry = Entry("a.bin", 100, 2);
  const std::string recent = Entry("b.bin", 100, 0);
  TouchCacheEntry(old_entry);  // a cache hit makes it recent too
  EXPECT_TRUE(EvictCacheEntries(dir_.string(), 10, "").empty());
  EXPECT_TRUE(fs::exists(old_entry));
  EXPECT_TRUE(fs::exists(recent));
  // With no minimum age, both go.
  EXPECT_EQ(EvictCacheEntries(dir_.string(), 10, "", std::chrono::seconds(0)).size(), 2u);
}

}  // namespace
}  // namespace cosimo::worker
