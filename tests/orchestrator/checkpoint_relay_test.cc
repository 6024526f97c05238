#include "orchestrator/src/checkpoint_relay.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cosimo::orchestrator {
namespace {

// What JobObserver does with a store: a checkpoint whose rows continue the stored ones is
// appended (unless the store fails it), any other is refused; Checkpointed() says what is held.
class StoreObserver final : public master::MasterObserver {
 public:
  void OnProgress(const master::Progress&) override {}
  bool Canceled() override { return false; }
  void OnCheckpoint(const v1::JobCheckpoint& c) override {
    ++offered;
    if (fail_next) {
      fail_next = false;
      return;
    }
    if (c.rows_from() != mark_.rows || c.strings_from() != mark_.strings) return;
    values.insert(values.end(), c.values().begin(), c.values().end());
    strings.insert(strings.end(), c.strings().begin(), c.strings().end());
    mark_.rows = c.rows_from() + static_cast<uint64_t>(c.values_size() / c.columns_size());
    mark_.strings = c.strings_from() + static_cast<uint64_t>(c.strings_size());
  }
  master::CheckpointMark Checkpointed() override { return mark_; }

  bool fail_next = false;
  int offered = 0;
  std::vector<double> values;
  std::vector<std::string> strings;

 private:
  master::CheckpointMark mark_;
};

// The worker's checkpoint after row `end` (one "time" and one STRING column), its rows from row
// `from` on: what it sends believing every checkpoint before was stored.
v1::JobCheckpoint WorkerCheckpoint(uint64_t from, uint64_t end) {
  v1::JobCheckpoint c;
  c.add_columns("time");
  c.add_columns("u.mode");
  c.set_rows_from(from);
  c.set_strings_from(from);
  for (uint64_t row = from; row < end; ++row) {
    c.add_values(static_cast<double>(row));
    c.add_values(0.0);
    c.add_strings("row " + std::to_string(row));
  }
  return c;
}

TEST(CheckpointRelayTest, ACheckpointTheStoreFailedGoesInFrontOfTheNextOne) {
  StoreObserver store;
  CheckpointRelay relay(store);
  relay.Pass(WorkerCheckpoint(0, 2));
  store.fail_next = true;  // e.g. a full disk
  relay.Pass(WorkerCheckpoint(2, 5));
  EXPECT_EQ(store.Checkpointed().rows, 2u);
  relay.Pass(WorkerCheckpoint(5, 6));  // the worker counts rows 2-4 as stored
  EXPECT_EQ(store.offered, 3);
  EXPECT_EQ(store.Checkpointed().rows, 6u);
  EXPECT_EQ(store.Checkpointed().strings, 6u);
  const std::vector<double> every_row = {0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0};
  EXPECT_EQ(store.values, every_row);
  ASSERT_EQ(store.strings.size(), 6u);
  EXPECT_EQ(store.strings[2], "row 2");
  EXPECT_EQ(store.strings[5], "row 5");
}

TEST(CheckpointRelayTest, TwoFailedCheckpointsInARowAreBothCarried) {
  StoreObserver store;
  CheckpointRelay relay(store);
  store.fail_next = true;
  relay.Pass(WorkerCheckpoint(0, 3));
  store.fail_next = true;
  relay.Pass(WorkerCheckpoint(3, 4));
  relay.Pass(WorkerCheckpoint(4, 7));
  EXPECT_EQ(store.Checkpointed().rows, 7u);
  EXPECT_EQ(store.values.size(), 14u);
  EXPECT_EQ(store.values[6], 3.0);
}

TEST(CheckpointRelayTest, StoredCheckpointsPassUnchanged) {
  StoreObserver store;
  CheckpointRelay relay(store);
  relay.Pass(WorkerCheckpoint(0, 2));
  relay.Pass(WorkerCheckpoint(2, 4));
  EXPECT_EQ(store.Checkpointed().rows, 4u);
  EXPECT_EQ(store.values, (std::vector<double>{0, 0, 1, 0, 2, 0, 3, 0}));
}

}  // namespace
}  // namespace cosimo::orchestrator
