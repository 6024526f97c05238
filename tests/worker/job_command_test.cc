// A simulation job run whole on a worker (RunJob, cosimo/worker/job_command.h) streams its rows
// as they are recorded (issue 40): JobRows chunks of about RunJob.result_chunk_bytes, contiguous
// from row 0, interleaved with progress and before every checkpoint (which counts them and
// carries none), the worker's table never holding more than about a chunk (a bound that keeping
// every row would pass by far), and together they are the table of the same scenario run here
// with every row kept; a run resumed from one of its checkpoints sends the rows after it only.
#include "cosimo/worker/job_command.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "cosimo/common/csv.h"
#include "cosimo/common/results_proto.h"
#include "cosimo/common/scenario.h"
#include "cosimo/master/local_unit.h"

namespace cosimo::worker {
namespace {

constexpr size_t kChunkBytes = 4096;

// The car example, 200,000 macro steps, a checkpoint every 50,000.
v1::Scenario LongCar() {
  absl::StatusOr<v1::Scenario> car =
      LoadScenarioFile(std::string(COSIMO_SOURCE_DIR) + "/examples/car.json");
  EXPECT_TRUE(car.ok()) << car.status();
  v1::Scenario s = car.ok() ? *car : v1::Scenario();
  s.mutable_algorithm()->set_step_size(0.001);
  s.mutable_units(1)->mutable_solver()->set_step(0.001);
  s.mutable_algorithm()->set_checkpoint_every(50'000);
  s.set_stop_time(200.0);
  return s;
}

v1::RunJob Command(const v1::Scenario& scenario) {
  v1::RunJob command;
  command.set_job_id("job-test");
  *command.mutable_scenario() = scenario;
  for (int i = 0; i < scenario.units_size(); ++i) {
    *command.add_loads() = LoadUnitFor(scenario, i, "job-test");
  }
  command.set_progress_interval_ms(1);
  command.set_result_chunk_bytes(kChunkBytes);
  return command;
}

absl::StatusOr<std::string> NoFetch(const std::string& digest) {
  return absl::NotFoundError("no artifact " + digest + " in this test");
}

std::string Csv(const ResultTable& table) {
  std::ostringstream out;
  WriteCsv(out, table);
  return out.str();
}

// What a run sent, in order: one letter a message (p progress, r rows, c checkpoint, d done),
// the rows as they came, the checkpoints and JobDone.
struct Sent {
  std::string kinds;
  ResultTable rows;
  uint64_t next_row = 0;
  uint64_t largest_chunk = 0;
  std::vector<v1::JobCheckpoint> checkpoints;
  v1::JobDone done;
  bool contiguous = true;
};

Sent RunHere(const v1::RunJob& command, uint64_t first_row = 0) {
  Sent sent;
  sent.next_row = first_row;
  const bool written = RunJobCommand(command, NoFetch, [&](v1::WorkerMessage* m) {
    switch (m->body_case()) {
      case v1::WorkerMessage::kJobProgress:
        sent.kinds += 'p';
        break;
      case v1::WorkerMessage::kJobRows:
        sent.kinds += 'r';
        sent.contiguous &= m->job_rows().first_row() == sent.next_row;
        sent.next_row += m->job_rows().row_count();
        sent.largest_chunk = std::max(sent.largest_chunk, m->job_rows().row_count());
        AppendRows(m->job_rows().rows(), &sent.rows);
        break;
      case v1::WorkerMessage::kJobCheckpoint:
        sent.kinds += 'c';
        EXPECT_EQ(m->job_checkpoint().rows_streamed(), sent.next_row) << "every row before it";
        EXPECT_EQ(m->job_checkpoint().values_size(), 0) << "no rows in it";
        sent.checkpoints.push_back(m->job_checkpoint());
        break;
      case v1::WorkerMessage::kJobDone:
        sent.kinds += 'd';
        sent.done = m->job_done();
        break;
      default:
        ADD_FAILURE() << "unexpected message " << m->body_case();
    }
    return true;
  });
  EXPECT_TRUE(written);
  return sent;
}

TEST(JobCommandTest, RowsStreamInBoundedChunksWhileTheRunGoes) {
  const v1::Scenario scenario = LongCar();
  const v1::RunJob command = Command(scenario);
  absl::StatusOr<master::MasterResult> kept = master::RunInProcess(
      scenario, std::vector<v1::LoadUnit>(command.loads().begin(), command.loads().end()));
  ASSERT_TRUE(kept.ok()) << kept.status();
  ASSERT_EQ(kept->rows(), 200'001u);

  Sent sent = RunHere(command);
  ASSERT_FALSE(sent.done.has_error()) << sent.done.error().message();
  ASSERT_EQ(sent.kinds.back(), 'd');
  // Rows went out as the run went: between progress messages, the first long before the end.
  const size_t first_rows = sent.kinds.find('r');
  ASSERT_NE(first_rows, std::string::npos);
  EXPECT_LT(first_rows, sent.kinds.rfind('p'));
  EXPECT_NE(sent.kinds.find("rp"), std::string::npos);
  EXPECT_EQ(sent.checkpoints.size(), 3u);
  EXPECT_TRUE(sent.contiguous);
  EXPECT_EQ(sent.next_row, 200'001u);

  // 3 columns of 8 bytes: a chunk is 4096 / 24 + 1 rows at most, and so is the table's memory.
  const uint64_t bound = kChunkBytes / (8 * kept->columns.size()) + 1;
  EXPECT_LE(sent.largest_chunk, bound);
  EXPECT_GT(sent.done.rows_held_max(), 0u);
  EXPECT_LE(sent.done.rows_held_max(), bound);
  EXPECT_GE(kept->rows_held_max, 200'001u) << "the bound is not met by accident";

  sent.rows.columns.assign(sent.done.columns().begin(), sent.done.columns().end());
  sent.rows.types = kept->types;
  EXPECT_EQ(Csv(sent.rows), Csv(*kept));
}

TEST(JobCommandTest, AResumedRunSendsTheRowsAfterItsCheckpoint) {
  const v1::Scenario scenario = LongCar();
  Sent full = RunHere(Command(scenario));
  ASSERT_EQ(full.checkpoints.size(), 3u);
  const v1::JobCheckpoint& checkpoint = full.checkpoints[1];
  ASSERT_EQ(checkpoint.rows_streamed(), 100'001u);
  v1::RunJob command = Command(scenario);
  *command.mutable_resume() = checkpoint;
  Sent resumed = RunHere(command, checkpoint.rows_streamed());
  ASSERT_FALSE(resumed.done.has_error()) << resumed.done.error().message();
  EXPECT_TRUE(resumed.contiguous) << "from the checkpoint's row on";
  EXPECT_EQ(resumed.next_row, 200'001u);
  const auto width = static_cast<size_t>(full.done.columns_size());
  ASSERT_EQ(resumed.rows.values.size(), 100'000 * width);
  EXPECT_TRUE(std::equal(resumed.rows.values.begin(), resumed.rows.values.end(),
                         full.rows.values.begin() + static_cast<std::ptrdiff_t>(100'001 * width)));
}

}  // namespace
}  // namespace cosimo::worker
