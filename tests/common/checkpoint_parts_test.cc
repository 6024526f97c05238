// A JobCheckpoint in parts (cosimo/common/checkpoint_parts.h): split at a part size, joined back
// to the same message; a small one is one part; bytes that are not a checkpoint are an error.
#include "cosimo/common/checkpoint_parts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cosimo {
namespace {

using ::testing::HasSubstr;

// A checkpoint of `units` units, each with a state of `state_bytes` bytes.
v1::JobCheckpoint Checkpoint(int units, size_t state_bytes) {
  v1::JobCheckpoint checkpoint;
  checkpoint.set_time(1.25);
  checkpoint.set_steps_accepted(125);
  for (int u = 0; u < units; ++u) {
    v1::UnitCheckpoint* unit = checkpoint.add_units();
    std::string state(state_bytes, '\0');
    for (size_t i = 0; i < state.size(); ++i) state[i] = static_cast<char>((i * 31 + u) % 251);
    unit->set_state(state);
  }
  return checkpoint;
}

TEST(CheckpointPartsTest, ABigCheckpointSplitsIntoPartsOfTheSizeAndJoinsBackToTheSameMessage) {
  const v1::JobCheckpoint checkpoint = Checkpoint(3, 5000);
  const size_t bytes = checkpoint.ByteSizeLong();
  ASSERT_TRUE(NeedsParts(checkpoint, 1024));
  const std::vector<v1::CheckpointPart> parts = SplitCheckpoint(checkpoint, 1024);
  ASSERT_EQ(parts.size(), (bytes + 1023) / 1024);
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    EXPECT_EQ(parts[i].data().size(), 1024u);
    EXPECT_FALSE(parts[i].last());
  }
  EXPECT_TRUE(parts.back().last());
  CheckpointJoiner joiner;
  for (size_t i = 0; i + 1 < parts.size(); ++i) EXPECT_FALSE(joiner.Add(parts[i]).has_value());
  std::optional<absl::StatusOr<v1::JobCheckpoint>> joined = joiner.Add(parts.back());
  ASSERT_TRUE(joined.has_value());
  ASSERT_TRUE(joined->ok()) << joined->status();
  EXPECT_EQ((*joined)->SerializeAsString(), checkpoint.SerializeAsString());
  EXPECT_TRUE(joiner.empty());  // ready for the next checkpoint
  // ... which joins on its own.
  const v1::JobCheckpoint second = Checkpoint(1, 3000);
  for (const v1::CheckpointPart& part : SplitCheckpoint(second, 1024)) {
    if (std::optional<absl::StatusOr<v1::JobCheckpoint>> again = joiner.Add(part)) {
      ASSERT_TRUE(again->ok());
      EXPECT_EQ((*again)->SerializeAsString(), second.SerializeAsString());
    }
  }
}

TEST(CheckpointPartsTest, ACheckpointWithinThePartSizeIsOnePartAndTheDefaultIsFourMiB) {
  const v1::JobCheckpoint small = Checkpoint(2, 100);
  EXPECT_FALSE(NeedsParts(small, 1024));
  const std::vector<v1::CheckpointPart> parts = SplitCheckpoint(small, 1024);
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_TRUE(parts[0].last());
  const v1::JobCheckpoint big = Checkpoint(1, (size_t{4} << 20) + 10);
  EXPECT_TRUE(NeedsParts(big, 0));
  EXPECT_FALSE(NeedsParts(Checkpoint(1, (size_t{4} << 20) - 100), 0));
  EXPECT_EQ(SplitCheckpoint(big, 0).size(), 2u);
}

TEST(CheckpointPartsTest, PartsThatAreNotACheckpointAreADataLossNamingTheirSize) {
  CheckpointJoiner joiner;
  v1::CheckpointPart part;
  part.set_data(std::string("\xff\xff\xff", 3));
  part.set_last(true);
  std::optional<absl::StatusOr<v1::JobCheckpoint>> joined = joiner.Add(part);
  ASSERT_TRUE(joined.has_value());
  ASSERT_FALSE(joined->ok());
  EXPECT_EQ(joined->status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(joined->status().message(), HasSubstr("3 bytes"));
}

}  // namespace
}  // namespace cosimo
