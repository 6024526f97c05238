#include "cosimo/common/checkpoint_parts.h"

#include <algorithm>
#include <utility>

namespace cosimo {
namespace {

size_t PartBytes(size_t part_bytes) {
  return part_bytes > 0 ? part_bytes : kDefaultCheckpointPartBytes;
}

}  // namespace

bool NeedsParts(const v1::JobCheckpoint& checkpoint, size_t part_bytes) {
  return checkpoint.ByteSizeLong() > PartBytes(part_bytes);
}

std::vector<v1::CheckpointPart> SplitCheckpoint(const v1::JobCheckpoint& checkpoint,
                                                size_t part_bytes) {
  const size_t size = PartBytes(part_bytes);
  const std::string bytes = checkpoint.SerializeAsString();
  std::vector<v1::CheckpointPart> parts;
  size_t at = 0;
  do {
    const size_t n = std::min(size, bytes.size() - at);
    v1::CheckpointPart& part = parts.emplace_back();
    part.set_data(bytes.substr(at, n));
    at += n;
  } while (at < bytes.size());
  parts.back().set_last(true);
  return parts;
}

std::optional<absl::StatusOr<v1::JobCheckpoint>> CheckpointJoiner::Add(v1::CheckpointPart part) {
  bytes_.append(part.data());
  if (!part.last()) return std::nullopt;
  v1::JobCheckpoint checkpoint;
  const bool parsed = checkpoint.ParseFromString(bytes_);
  const size_t size = bytes_.size();
  bytes_.clear();
  bytes_.shrink_to_fit();
  if (!parsed) {
    return absl::StatusOr<v1::JobCheckpoint>(absl::DataLossError(
        "a checkpoint sent in parts (" + std::to_string(size) + " bytes) does not parse"));
  }
  return absl::StatusOr<v1::JobCheckpoint>(std::move(checkpoint));
}

}  // namespace cosimo
