// SlotHandler: the units of a worker with several slots. A batch for 4 units stepped on 4
// threads answers what 4 separate CommandHandlers answer, bit for bit and in the batch's order;
// plain commands reach the unit of their slot; a slot out of range or named twice in one batch is
// an error reply of the command's kind, and the other commands of the batch still run.
#include "cosimo/worker/slot_handler.h"

#include <gtest/gtest.h>

#include <vector>

#include "cosimo/common/scenario.h"

namespace cosimo::worker {
namespace {

// Unit k: x' = -(k+1) x + u, y = x, x0 = k + 1 (exact solver).
v1::OrchestratorMessage LoadCommand(int k) {
  const std::string a = std::to_string(-(k + 1));
  const std::string x0 = std::to_string(k + 1);
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(
      R"({"start_time": 0, "stop_time": 10, "units": [{"name": "p)" + std::to_string(k) +
      R"(", "builtin": {"model": "linear_state_space", "parameters": {"A": [)" + a +
      R"(], "B": [1], "C": [1], "D": [0], "x0": [)" + x0 +
      R"(]}}}], "algorithm": {"step_size": 0.1}})");
  EXPECT_TRUE(s.ok()) << s.status();
  v1::OrchestratorMessage command;
  command.set_slot(static_cast<uint32_t>(k));
  v1::LoadUnit* load = command.mutable_load_unit();
  *load->mutable_unit() = s->units(0);
  load->set_stop_time(10);
  return command;
}

v1::OrchestratorMessage StepCommand(int k, double t, double u) {
  v1::OrchestratorMessage command;
  command.set_slot(static_cast<uint32_t>(k));
  v1::Step* step = command.mutable_step();
  step->set_time(t);
  step->set_step(0.1);
  step->set_order(1);
  step->add_coefficients(u);
  return command;
}

absl::StatusOr<std::string> NoArtifacts(const std::string& digest) {
  return absl::NotFoundError("no artifact " + digest);
}

v1::OrchestratorMessage Batch(uint64_t seq, const std::vector<v1::OrchestratorMessage>& commands) {
  v1::OrchestratorMessage batch;
  batch.set_seq(seq);
  for (const auto& c : commands) *batch.mutable_batch()->add_commands() = c;
  return batch;
}

TEST(SlotHandlerTest, ABatchOnFourThreadsAnswersWhatFourHandlersAnswerInOrder) {
  constexpr int kUnits = 4;
  SlotHandler slots(kUnits, kUnits, NoArtifacts);
  EXPECT_EQ(slots.threads(), kUnits);
  std::vector<std::unique_ptr<CommandHandler>> alone;
  for (int k = 0; k < kUnits; ++k) alone.push_back(std::make_unique<CommandHandler>(NoArtifacts));

  // Loads in reverse slot order: replies follow the batch, not the slots.
  std::vector<v1::OrchestratorMessage> loads;
  for (int k = kUnits - 1; k >= 0; --k) loads.push_back(LoadCommand(k));
  v1::WorkerMessage reply;
  slots.Handle(Batch(7, loads), &reply);
  EXPECT_EQ(reply.seq(), 7u);
  ASSERT_EQ(reply.batch().replies_size(), kUnits);
  for (int i = 0; i < kUnits; ++i) {
    EXPECT_FALSE(reply.batch().replies(i).unit_loaded().has_error());
    EXPECT_EQ(reply.batch().replies(i).unit_loaded().variables(0).name(), "u0");
  }
  v1::WorkerMessage alone_reply;
  for (int k = 0; k < kUnits; ++k) alone[k]->Handle(LoadCommand(k), &alone_reply);

  for (int n = 0; n < 50; ++n) {
    std::vector<v1::OrchestratorMessage> steps;
    for (int k = 0; k < kUnits; ++k) steps.push_back(StepCommand(k, 0.1 * n, 0.5 * k + n));
    slots.Handle(Batch(8 + n, steps), &reply);
    ASSERT_EQ(reply.batch().replies_size(), kUnits);
    for (int k = 0; k < kUnits; ++k) {
      alone[k]->Handle(steps[k], &alone_reply);
      ASSERT_EQ(reply.batch().replies(k).step_done().SerializeAsString(),
                alone_reply.step_done().SerializeAsString())
          << "unit " << k << " step " << n;
    }
  }
  // A plain command reaches its slot's unit only.
  v1::OrchestratorMessage plain = StepCommand(2, 5.0, 1.0);
  plain.set_seq(99);
  slots.Handle(plain, &reply);
  EXPECT_EQ(reply.seq(), 99u);
  alone[2]->Handle(plain, &alone_reply);
  EXPECT_EQ(reply.step_done().SerializeAsString(), alone_reply.step_done().SerializeAsString());
  EXPECT_EQ(slots.DropUnits().size(), static_cast<size_t>(kUnits));
}

TEST(SlotHandlerTest, SlotsOutOfRangeOrTwiceInABatchAreErrorsOfTheCommandsKind) {
  SlotHandler slots(2, 2, NoArtifacts);
  v1::WorkerMessage reply;
  slots.Handle(LoadCommand(2), &reply);
  EXPECT_EQ(reply.unit_loaded().error().message(),
            "worker: slot 2 is out of range (this worker has 2 slots)");
  slots.Handle(Batch(3, {LoadCommand(0), LoadCommand(0), StepCommand(5, 0, 0), LoadCommand(1)}),
               &reply);
  ASSERT_EQ(reply.batch().replies_size(), 4);
  EXPECT_FALSE(reply.batch().replies(0).unit_loaded().has_error());
  EXPECT_EQ(reply.batch().replies(1).unit_loaded().error().message(),
            "worker: slot 0 has more than one command in one batch");
  EXPECT_EQ(reply.batch().replies(2).step_done().status(), v1::StepDone::FAILED);
  EXPECT_EQ(reply.batch().replies(2).step_done().error().message(),
            "worker: slot 5 is out of range (this worker has 2 slots)");
  EXPECT_FALSE(reply.batch().replies(3).unit_loaded().has_error());
  // A batch inside a batch is not a command.
  slots.Handle(Batch(4, {Batch(5, {StepCommand(0, 0, 0)})}), &reply);
  ASSERT_EQ(reply.batch().replies_size(), 1);
  EXPECT_EQ(reply.batch().replies(0).ack().error().message(), "worker: unexpected command");
}

}  // namespace
}  // namespace cosimo::worker
