// A JobCheckpoint in parts, for a message limit: a job run whole on a worker (RunJob) sends its
// checkpoints to the orchestrator, and is sent the one to resume from, in messages that gRPC
// refuses over a size (64 MiB by default on both ends); the units' states of a large model (FMU
// states of many MB) can pass it. A checkpoint bigger than a part size travels as the bytes of its
// serialization in CheckpointPart messages; the receiver joins them and parses the whole.
//
// Thread safety: CheckpointJoiner is not thread safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/v1/checkpoint.pb.h"

namespace cosimo {

// The part size when none is given (RunJob.checkpoint_part_bytes 0).
inline constexpr size_t kDefaultCheckpointPartBytes = size_t{4} << 20;

// `checkpoint` in parts of at most `part_bytes` bytes (0: kDefaultCheckpointPartBytes), the last
// one marked; at least one part.
std::vector<v1::CheckpointPart> SplitCheckpoint(const v1::JobCheckpoint& checkpoint,
                                                size_t part_bytes);

// Whether `checkpoint` goes in parts (its serialization is bigger than `part_bytes`, 0: the
// default).
bool NeedsParts(const v1::JobCheckpoint& checkpoint, size_t part_bytes);

// Joins the parts of one checkpoint as they come.
class CheckpointJoiner {
 public:
  // Takes the next part: nullopt until the last one, then the checkpoint (or why its bytes are
  // not one), and ready for the next checkpoint.
  [[nodiscard]] std::optional<absl::StatusOr<v1::JobCheckpoint>> Add(v1::CheckpointPart part);
  bool empty() const { return bytes_.empty(); }

 private:
  std::string bytes_;
};

}  // namespace cosimo
