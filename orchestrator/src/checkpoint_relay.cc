#include "orchestrator/src/checkpoint_relay.h"

#include <utility>

namespace cosimo::orchestrator {
namespace {

// The row and the text just after `checkpoint`'s.
master::CheckpointMark EndOf(const v1::JobCheckpoint& checkpoint) {
  const auto columns = static_cast<uint64_t>(checkpoint.columns_size());
  master::CheckpointMark end;
  end.rows = checkpoint.rows_from() +
             (columns == 0 ? 0 : static_cast<uint64_t>(checkpoint.values_size()) / columns);
  end.strings = checkpoint.strings_from() + static_cast<uint64_t>(checkpoint.strings_size());
  return end;
}

}  // namespace

void CheckpointRelay::Pass(v1::JobCheckpoint checkpoint) {
  const master::CheckpointMark stored = observer_.Checkpointed();
  const master::CheckpointMark pending_end = EndOf(pending_);
  if (has_pending_ && pending_.rows_from() == stored.rows &&
      pending_.strings_from() == stored.strings && checkpoint.rows_from() == pending_end.rows &&
      checkpoint.strings_from() == pending_end.strings) {
    v1::JobCheckpoint rows = std::move(pending_);
    rows.mutable_values()->Add(checkpoint.values().begin(), checkpoint.values().end());
    for (std::string& text : *checkpoint.mutable_strings()) rows.add_strings(std::move(text));
    checkpoint.mutable_values()->Swap(rows.mutable_values());
    checkpoint.mutable_strings()->Swap(rows.mutable_strings());
    checkpoint.set_rows_from(stored.rows);
    checkpoint.set_strings_from(stored.strings);
  }
  observer_.OnCheckpoint(checkpoint);
  const master::CheckpointMark after = observer_.Checkpointed();
  const master::CheckpointMark end = EndOf(checkpoint);
  pending_.Clear();
  has_pending_ = after.rows != end.rows || after.strings != end.strings;
  if (!has_pending_) return;
  // Not stored: its rows go in front of the next checkpoint's.
  *pending_.mutable_columns() = checkpoint.columns();
  pending_.mutable_values()->Swap(checkpoint.mutable_values());
  pending_.mutable_strings()->Swap(checkpoint.mutable_strings());
  pending_.set_rows_from(checkpoint.rows_from());
  pending_.set_strings_from(checkpoint.strings_from());
}

}  // namespace cosimo::orchestrator
