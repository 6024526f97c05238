#include "cosimo/fmi/fmu_archive.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace cosimo::fmi {
namespace {

// A test FMU of this build (tests/fmus).
std::string FmuPath(const std::string& name) {
  return std::string(COSIMO_BINARY_DIR) + "/fmus/" + name + ".fmu";
}

TEST(FmuArchiveTest, SafeEntryNames) {
  EXPECT_TRUE(IsSafeEntryName("modelDescription.xml"));
  EXPECT_TRUE(IsSafeEntryName("binaries/linux64/a.so"));
  EXPECT_TRUE(IsSafeEntryName("resources/..data/x"));
  EXPECT_FALSE(IsSafeEntryName("../evil"));
  EXPECT_FALSE(IsSafeEntryName("resources/../../evil"));
  EXPECT_FALSE(IsSafeEntryName("resources/.."));
  EXPECT_FALSE(IsSafeEntryName("/tmp/evil"));
  EXPECT_FALSE(IsSafeEntryName("..\\evil"));
  EXPECT_FALSE(IsSafeEntryName("C:/evil"));
  EXPECT_FALSE(IsSafeEntryName(""));
}

TEST(FmuArchiveTest, UnpacksAndRemovesTheFolder) {
  std::string dir;
  {
    auto unpacked = UnpackFmu(FmuPath("fmi2_msd"));
    ASSERT_TRUE(unpacked.ok()) << unpacked.status();
    dir = (*unpacked)->dir();
    EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/modelDescription.xml"));
    EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/binaries/linux64/fmi2_msd.so"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_FALSE(std::filesystem::exists(dir + ".lock"));
}

// A worker killed while it held an unpacked FMU (a crashing FMU) left cosimo-fmu-* in TMPDIR for
// good. Folders whose lock file nobody holds, older than the minimum age, are removed; those in
// use (locked) or just made stay.
TEST(FmuArchiveTest, RemovesWhatDeadProcessesLeft) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("cosimo_unpacks_" + std::to_string(getpid()));
  fs::remove_all(root);
  auto make = [&](const std::string& name, bool old) {
    fs::create_directories(root / name / "binaries");
    std::ofstream(root / name / "binaries" / "x.so") << "x";
    const fs::path lock = root / (name + ".lock");
    std::ofstream(lock).close();
    if (old) fs::last_write_time(lock, fs::file_time_type::clock::now() - std::chrono::hours(2));
    return lock;
  };
  make("cosimo-fmu-dead01", true);
  const fs::path held = make("cosimo-fmu-alive1", true);
  make("cosimo-fmu-new001", false);
  fs::create_directories(root / "cosimo-fmu-nolock");
  const int fd = open(held.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);

  EXPECT_EQ(RemoveAbandonedUnpacks(root.string()), 1);
  EXPECT_FALSE(fs::exists(root / "cosimo-fmu-dead01"));
  EXPECT_FALSE(fs::exists(root / "cosimo-fmu-dead01.lock"));
  EXPECT_TRUE(fs::exists(root / "cosimo-fmu-alive1" / "binaries" / "x.so"));
  EXPECT_TRUE(fs::exists(root / "cosimo-fmu-new001"));
  EXPECT_TRUE(fs::exists(root / "cosimo-fmu-nolock"));
  close(fd);  // its owner is gone now
  EXPECT_EQ(RemoveAbandonedUnpacks(root.string()), 1);
  EXPECT_FALSE(fs::exists(root / "cosimo-fmu-alive1"));
  fs::remove_all(root);
}

// An FMU unpacked now is locked: the clean-up leaves it alone even at age zero.
TEST(FmuArchiveTest, AnFmuInUseIsNotRemoved) {
  auto unpacked = UnpackFmu(FmuPath("fmi2_msd"));
  ASSERT_TRUE(unpacked.ok()) << unpacked.status();
  const std::string dir = (*unpacked)->dir();
  ASSERT_TRUE(std::filesystem::exists(dir + ".lock"));
  (void)RemoveAbandonedUnpacks(std::filesystem::path(dir).parent_path().string(),
                               std::chrono::seconds(0));
  EXPECT_TRUE(std::filesystem::is_regular_file(dir + "/modelDescription.xml"));
}

// Unpacks under a private TMPDIR and checks that nothing lands next to the extraction folder.
class FmuArchiveRefusalTest : public ::testing::TestWithParam<std::pair<const char*, const char*>> {
};

TEST_P(FmuArchiveRefusalTest, RefusesEntriesThatEscape) {
  const std::string tmp = ::testing::TempDir() + "/cosimo_archive_" + GetParam().first;
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp + "/sub");
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  setenv("TMPDIR", (tmp + "/sub").c_str(), 1);
  auto unpacked = UnpackFmu(FmuPath(GetParam().first));
  if (saved.empty()) {
    unsetenv("TMPDIR");
  } else {
    setenv("TMPDIR", saved.c_str(), 1);
  }
  ASSERT_FALSE(unpacked.ok());
  EXPECT_EQ(unpacked.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unpacked.status().message().find(GetParam().second), std::string::npos)
      << unpacked.status();
  EXPECT_NE(unpacked.status().message().find(GetParam().first), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(tmp + "/evil"));
  EXPECT_FALSE(std::filesystem::exists(tmp + "/sub/evil"));
  // Nothing was extracted at all: the checks run before the first write.
  EXPECT_TRUE(std::filesystem::is_empty(tmp + "/sub"));
  std::filesystem::remove_all(tmp);
}

INSTANTIATE_TEST_SUITE_P(
    FmuMalicious, FmuArchiveRefusalTest,
    ::testing::Values(std::make_pair("fmi2_evil", "entry '../evil' would be written outside"),
                      std::make_pair("fmi2_absolute",
                                     "entry '/tmp/cosimo-evil' would be written outside"),
                      std::make_pair("fmi2_link", "is a symbolic link")));

TEST(FmuArchiveTest, RefusesAbsurdSizes) {
  UnpackLimits limits;
  limits.max_total_bytes = 1000;  // the msd FMU unpacks to tens of kB
  auto unpacked = UnpackFmu(FmuPath("fmi2_msd"), limits);
  ASSERT_FALSE(unpacked.ok());
  EXPECT_NE(unpacked.status().message().find("exceeds the limit of 1000 bytes"), std::string::npos)
      << unpacked.status();
  limits = UnpackLimits();
  limits.max_entries = 1;
  EXPECT_FALSE(UnpackFmu(FmuPath("fmi2_msd"), limits).ok());
}

TEST(FmuArchiveTest, NotAZipFile) {
  auto unpacked = UnpackFmu(std::string(COSIMO_SOURCE_DIR) + "/tests/fmus/msd.c");
  ASSERT_FALSE(unpacked.ok());
  EXPECT_NE(unpacked.status().message().find("cannot open as a zip archive"), std::string::npos);
  EXPECT_FALSE(UnpackFmu("/nonexistent.fmu").ok());
}

}  // namespace
}  // namespace cosimo::fmi
