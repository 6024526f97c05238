// CommandHandler: the worker protocol's commands on a built-in unit (x' = -x + u, y = x, exact),
// the replies they get, and the errors of commands that come without a unit or with an artifact
// that cannot be fetched.
#include "cosimo/worker/command_handler.h"

#include <gtest/gtest.h>

#include <cmath>

#include "cosimo/common/scenario.h"

namespace cosimo::worker {
namespace {

v1::OrchestratorMessage LoadCommand() {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({"start_time": 0, "stop_time": 10,
    "units": [{"name": "p", "builtin": {"model": "linear_state_space", "parameters":
      {"A": [-1], "B": [1], "C": [1], "D": [0], "x0": [1]}}}], "algorithm": {"step_size": 0.1}})");
  EXPECT_TRUE(s.ok()) << s.status();
  v1::OrchestratorMessage command;
  command.set_seq(1);
  v1::LoadUnit* load = command.mutable_load_unit();
  *load->mutable_unit() = s->units(0);
  load->set_stop_time(10);
  return command;
}

absl::StatusOr<std::string> NoArtifacts(const std::string& digest) {
  return absl::NotFoundError("no artifact " + digest);
}

TEST(CommandHandlerTest, LoadInitializeStepCommitTerminate) {
  CommandHandler handler(NoArtifacts);
  v1::WorkerMessage reply;
  handler.Handle(LoadCommand(), &reply);
  ASSERT_TRUE(reply.has_unit_loaded());
  EXPECT_FALSE(reply.unit_loaded().has_error()) << reply.unit_loaded().error().message();
  EXPECT_EQ(reply.seq(), 1u);
  EXPECT_EQ(reply.unit_loaded().iterative_mode(), v1::UNIT_MODE_ROLLBACK);

  v1::OrchestratorMessage command;
  command.set_seq(2);
  command.mutable_initialize()->set_time(0);
  handler.Handle(command, &reply);
  ASSERT_TRUE(reply.has_outputs());
  ASSERT_EQ(reply.outputs().values_size(), 1);
  EXPECT_EQ(reply.outputs().values(0), 1.0);

  command.set_seq(3);
  v1::Step* step = command.mutable_step();
  step->set_time(0);
  step->set_step(0.5);
  step->set_order(1);
  step->add_coefficients(2.0);
  handler.Handle(command, &reply);
  ASSERT_TRUE(reply.has_step_done());
  EXPECT_EQ(reply.seq(), 3u);
  ASSERT_EQ(reply.step_done().values_size(), 1);
  // x(h) = x0 e^-h + u (1 - e^-h)
  EXPECT_NEAR(reply.step_done().values(0), std::exp(-0.5) + 2.0 * (1 - std::exp(-0.5)), 1e-13);

  command.set_seq(4);
  command.mutable_terminate();
  handler.Handle(command, &reply);
  ASSERT_TRUE(reply.has_ack());
  EXPECT_FALSE(reply.ack().has_error());
  EXPECT_EQ(reply.ack().real_integrations(), 1u);
  EXPECT_EQ(handler.DropUnit(), "");  // Terminate dropped it
}

TEST(CommandHandlerTest, CommandsWithoutAUnitAndAnArtifactThatCannotBeFetched) {
  CommandHandler handler(NoArtifacts);
  v1::WorkerMessage reply;
  v1::OrchestratorMessage command;
  command.mutable_step()->set_step(0.1);
  handler.Handle(command, &reply);
  EXPECT_EQ(reply.step_done().error().message(), "worker: no unit loaded");
  command.mutable_save();
  handler.Handle(command, &reply);
  EXPECT_EQ(reply.ack().error().message(), "worker: no unit loaded");
  command.Clear();
  handler.Handle(command, &reply);
  EXPECT_EQ(reply.ack().error().message(), "worker: unexpected command");

  command = LoadCommand();
  v1::Unit* unit = command.mutable_load_unit()->mutable_unit();
  unit->set_name("tbl");
  unit->mutable_table()->set_digest("sha256:ab");
  handler.Handle(command, &reply);
  ASSERT_TRUE(reply.unit_loaded().has_error());
  EXPECT_NE(reply.unit_loaded().error().message().find("unit 'tbl'"), std::string::npos);
  EXPECT_NE(reply.unit_loaded().error().message().find("no artifact sha256:ab"), std::string::npos);
}

TEST(CommandHandlerTest, DropUnitTerminatesTheLoadedUnit) {
  CommandHandler handler(NoArtifacts);
  v1::WorkerMessage reply;
  handler.Handle(LoadCommand(), &reply);
  EXPECT_EQ(handler.DropUnit(), "p");
  EXPECT_EQ(handler.DropUnit(), "");
}

}  // namespace
}  // namespace cosimo::worker
