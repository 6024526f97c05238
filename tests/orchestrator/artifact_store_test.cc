// The artifact store's retention: Prune removes what no job keeps and nobody used for the period
// (artifacts and abandoned uploads), and nothing else; a use (Touch) starts the period again and
// says whether the artifact is stored.
#include "orchestrator/src/artifact_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cosimo/common/digest.h"

namespace cosimo::orchestrator {
namespace {

namespace fs = std::filesystem;
using ::testing::UnorderedElementsAre;

class ArtifactStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = (fs::temp_directory_path() / ("cosimo_artifact_store_" + std::to_string(getpid())))
               .string();
    fs::remove_all(dir_);
    store_ = std::make_unique<ArtifactStore>(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Stores `content` through an upload's path; returns its digest.
  std::string Store(const std::string& content) {
    const std::string temp = store_->TemporaryPath();
    std::ofstream(temp) << content;
    const absl::StatusOr<std::string> digest = DigestOfFile(temp);
    EXPECT_TRUE(digest.ok()) << digest.status();
    EXPECT_TRUE(store_->Commit(temp, *digest).ok());
    return *digest;
  }

  // Makes a file look last used `hours` ago.
  static void Age(const std::string& path, int hours) {
    fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(hours));
  }

  std::string dir_;
  std::unique_ptr<ArtifactStore> store_;
};

TEST_F(ArtifactStoreTest, PruneRemovesOnlyOldArtifactsThatNothingKeeps) {
  const std::string old_orphan = Store("orphan");
  const std::string old_kept = Store("named by a job");
  const std::string recent = Store("uploaded an hour ago");
  const std::string touched = Store("asked about just now");
  Age(store_->PathOf(old_orphan), 48);
  Age(store_->PathOf(old_kept), 48);
  Age(store_->PathOf(recent), 1);
  Age(store_->PathOf(touched), 48);
  EXPECT_TRUE(store_->Touch(touched));
  // An upload abandoned two days ago, one in progress, and a file that is not the store's.
  const std::string abandoned = store_->TemporaryPath();
  std::ofstream(abandoned) << "half";
  Age(abandoned, 48);
  const std::string in_progress = store_->TemporaryPath();
  std::ofstream(in_progress) << "half";
  const std::string foreign = dir_ + "/notes.txt";
  std::ofstream(foreign) << "not an artifact";
  Age(foreign, 48);

  const std::vector<std::string> removed = store_->Prune({old_kept}, std::chrono::hours(24));

  EXPECT_THAT(removed, UnorderedElementsAre(old_orphan, fs::path(abandoned).filename().string()));
  EXPECT_FALSE(store_->Has(old_orphan));
  EXPECT_FALSE(fs::exists(abandoned));
  EXPECT_TRUE(store_->Has(old_kept));
  EXPECT_TRUE(store_->Has(recent));
  EXPECT_TRUE(store_->Has(touched));
  EXPECT_TRUE(fs::exists(in_progress));
  EXPECT_TRUE(fs::exists(foreign));
  // A second pass finds nothing more; a shorter period takes the hour-old one.
  EXPECT_TRUE(store_->Prune({old_kept}, std::chrono::hours(24)).empty());
  EXPECT_THAT(store_->Prune({old_kept}, std::chrono::minutes(30)), UnorderedElementsAre(recent));
}

TEST_F(ArtifactStoreTest, TouchSaysWhetherTheArtifactIsStored) {
  EXPECT_FALSE(store_->Touch("sha256:" + std::string(64, 'a')));
  EXPECT_FALSE(store_->Touch("not a digest"));
  EXPECT_FALSE(store_->Has("sha256:" + std::string(64, 'a')));
  EXPECT_TRUE(store_->Prune({}, std::chrono::seconds(0)).empty());
}

}  // namespace
}  // namespace cosimo::orchestrator
