// The FMU cache (units/src/fmi/fmu_cache.h): a unit made after another of the same FMU file
// reuses its unpacked folder and gives the same results (the FMU instantiated again on the binary
// kept loaded); two units at once get two folders; a file rewritten in place is unpacked again;
// a cache of size 0 keeps nothing.
#include "units/src/fmi/fmu_cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

namespace fs = std::filesystem;
using testing::FmuPath;

// x(t) of the FMU's free oscillation (F = 0), one value per step of 0.1 s up to 3 s.
std::vector<double> FreeOscillation(const std::string& fmu) {
  std::unique_ptr<Unit> unit = testing::Load(testing::Spec("msd", fmu));
  if (unit == nullptr) return {};
  EXPECT_TRUE(unit->Initialize(0.0, 3.0).ok());
  std::vector<double> x;
  for (int i = 0; i < 30; ++i) {
    const StepReply reply = testing::StepOnce(*unit, 0.1, Eigen::MatrixXd::Constant(1, 1, 0.0));
    EXPECT_EQ(reply.status, StepStatus::kOk) << reply.message;
    x.push_back(reply.outputs[0]);
  }
  return x;
}

class FmuCacheTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { FmuCache::Global().set_max_idle(FmuCache::kDefaultMaxIdle); }
  void TearDown() override { FmuCache::Global().set_max_idle(FmuCache::kDefaultMaxIdle); }
};

TEST_P(FmuCacheTest, ASecondUnitReusesTheFolderAndGivesTheSameResults) {
  const std::string path = FmuPath(GetParam());
  std::string dir;
  {
    absl::StatusOr<std::shared_ptr<CachedFmu>> first = FmuCache::Global().Take(path);
    ASSERT_TRUE(first.ok()) << first.status();
    dir = (*first)->folder->dir();
  }
  absl::StatusOr<std::shared_ptr<CachedFmu>> again = FmuCache::Global().Take(path);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE((*again)->reused);
  EXPECT_EQ((*again)->folder->dir(), dir);
  {
    // Held by one unit: another at the same time gets a folder of its own.
    absl::StatusOr<std::shared_ptr<CachedFmu>> beside = FmuCache::Global().Take(path);
    ASSERT_TRUE(beside.ok()) << beside.status();
    EXPECT_FALSE((*beside)->reused);
    EXPECT_NE((*beside)->folder->dir(), dir);
  }
  again->reset();
  // Units one after the other (the second on the folder and binary the first left): the same
  // trajectory, and that of the damped oscillator.
  const std::vector<double> first = FreeOscillation(GetParam());
  const std::vector<double> second = FreeOscillation(GetParam());
  ASSERT_EQ(first.size(), 30u);
  EXPECT_EQ(first, second);
  testing::Oscillator oscillator;
  double x = 0, v = 0;
  oscillator.Solve(1.0, 0.0, 0.0, 0.0, 3.0, &x, &v);
  EXPECT_NEAR(second.back(), x, 1e-9);
}

TEST_P(FmuCacheTest, AFileRewrittenInPlaceIsUnpackedAgain) {
  const fs::path copy = fs::path(::testing::TempDir()) / ("rewritten_" + GetParam() + ".fmu");
  fs::copy_file(FmuPath(GetParam()), copy, fs::copy_options::overwrite_existing);
  ASSERT_TRUE(FmuCache::Global().Take(copy.string()).ok());
  // Another modification time (and content: a different archive comment would do; the time is
  // enough for the key).
  fs::last_write_time(copy, fs::last_write_time(copy) + std::chrono::seconds(5));
  absl::StatusOr<std::shared_ptr<CachedFmu>> again = FmuCache::Global().Take(copy.string());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FALSE((*again)->reused);
  again->reset();
  fs::remove(copy);
}

TEST_P(FmuCacheTest, SizeZeroKeepsNothing) {
  FmuCache::Global().set_max_idle(0);
  EXPECT_EQ(FmuCache::Global().idle(), 0u);
  std::string dir;
  {
    absl::StatusOr<std::shared_ptr<CachedFmu>> entry = FmuCache::Global().Take(FmuPath(GetParam()));
    ASSERT_TRUE(entry.ok()) << entry.status();
    dir = (*entry)->folder->dir();
    EXPECT_TRUE(fs::exists(dir));
  }
  EXPECT_EQ(FmuCache::Global().idle(), 0u);
  EXPECT_FALSE(fs::exists(dir));  // removed with its entry
}

TEST(FmuCacheErrorsTest, AMissingFileIsNamed) {
  absl::StatusOr<std::shared_ptr<CachedFmu>> entry =
      FmuCache::Global().Take("/nonexistent/model.fmu");
  ASSERT_FALSE(entry.ok());
  EXPECT_NE(entry.status().message().find("/nonexistent/model.fmu"), std::string::npos)
      << entry.status();
}

INSTANTIATE_TEST_SUITE_P(FmiVersions, FmuCacheTest, ::testing::Values("fmi2_msd", "fmi3_msd"));

}  // namespace
}  // namespace cosimo::units::fmu
