// The coupling and recording plans (cosimo/master/coupling.h) over loaded units' descriptions.
#include "cosimo/master/coupling.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosimo/common/scenario.h"

namespace cosimo::master {
namespace {

using ::testing::HasSubstr;

constexpr char kValid[] = R"({
  "name": "car",
  "start_time": 0.0,
  "stop_time": 10.0,
  "units": [
    { "name": "plant",
      "builtin": { "model": "linear_state_space",
                   "parameters": { "A": [0, 1, -1, -1], "B": [0, 1], "C": [1, 0, 0, 1],
                                   "D": [0, 0], "x0": [1, 0] } },
      "rollback": "AUTO" },
    { "name": "ctrl", "fmu": { "path": "controller.fmu" }, "parameters": { "gain": 2.0 } }
  ],
  "connections": [ { "from": "plant.y0", "to": "ctrl.u" }, { "from": "ctrl.y", "to": "plant.u0" } ],
  "algorithm": { "kind": "JACOBI", "step_size": 0.01, "input_approximation": "ZOH" },
  "record": [ "plant.y0", "plant.y1" ]
})";

v1::Scenario Parse(const std::string& json) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(json);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : v1::Scenario();
}

UnitDescription Describe(std::vector<std::string> inputs, std::vector<std::string> outputs) {
  UnitDescription d;
  for (auto& n : inputs) d.inputs.push_back({n, Causality::kInput, "", "", ValueType::kReal});
  for (auto& n : outputs) d.outputs.push_back({n, Causality::kOutput, "", "", ValueType::kReal});
  d.others.push_back({"x0", Causality::kState, "", "", ValueType::kReal});
  return d;
}

TEST(CouplingTest, ResolvesConnectionsToIndices) {
  v1::Scenario s = Parse(kValid);
  absl::StatusOr<Coupling> c =
      ResolveCoupling(s, {Describe({"u0"}, {"y0", "y1"}), Describe({"u"}, {"y"})});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->inputs[1][0].unit, 0);  // ctrl.u <- plant.y0
  EXPECT_EQ(c->inputs[1][0].output, 0);
  EXPECT_EQ(c->inputs[0][0].unit, 1);  // plant.u0 <- ctrl.y
  EXPECT_EQ(c->inputs[0][0].output, 0);
}

TEST(CouplingTest, UnknownVariableListsTheUnitsVariables) {
  v1::Scenario s = Parse(kValid);
  absl::StatusOr<Coupling> c =
      ResolveCoupling(s, {Describe({"u0"}, {"y1"}), Describe({"u"}, {"y"})});
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(std::string(c.status().message()),
              HasSubstr("connections[0].from: unit 'plant' has no output 'y0' (outputs: y1)"));
  c = ResolveCoupling(s, {Describe({"u0"}, {"y0", "y1"}), Describe({"in"}, {"y"})});
  EXPECT_THAT(std::string(c.status().message()),
              HasSubstr("unit 'ctrl' has no input 'u' (inputs: in)"));
}

TEST(RecordingTest, PlansColumnsInRecordOrder) {
  v1::Scenario s = Parse(kValid);
  s.add_record("plant.x0");
  const std::vector<UnitDescription> d = {Describe({"u0"}, {"y0", "y1"}), Describe({"u"}, {"y"})};
  absl::StatusOr<RecordPlan> plan = PlanRecording(s, d);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->columns.size(), 4u);
  EXPECT_EQ(plan->columns[0].name, "time");
  EXPECT_EQ(plan->columns[2].name, "plant.y1");
  EXPECT_EQ(plan->columns[2].output, 1);
  EXPECT_EQ(plan->columns[3].recorded, 2);  // third name of RecordedNames(plant)
  EXPECT_THAT(RecordedNames(s, 0), ::testing::ElementsAre("y0", "y1", "x0"));

  s.add_record("plant.nope");
  EXPECT_THAT(std::string(PlanRecording(s, d).status().message()),
              HasSubstr("record[3]: unit 'plant' has no variable 'nope'"));

  s.clear_record();
  plan = PlanRecording(s, d);
  ASSERT_TRUE(plan.ok());
  ASSERT_EQ(plan->columns.size(), 4u);  // time + every output
  EXPECT_EQ(plan->columns[3].name, "ctrl.y");
}

TEST(RecordingTest, StringColumnsIndexTheRecordedStringsInRecordOrder) {
  v1::Scenario s = Parse(kValid);
  UnitDescription plant = Describe({"u0"}, {"y0", "y1"});
  plant.outputs[1].type = ValueType::kBoolean;
  plant.others.push_back({"label", Causality::kParameter, "", "", ValueType::kString});
  plant.others.push_back({"mode", Causality::kLocal, "", "", ValueType::kString});
  plant.others.push_back({"n", Causality::kLocal, "", "", ValueType::kInteger});
  s.clear_record();
  for (const char* r : {"plant.mode", "plant.x0", "plant.y1", "plant.label", "plant.n"}) {
    s.add_record(r);
  }
  absl::StatusOr<RecordPlan> plan = PlanRecording(s, {plant, Describe({"u"}, {"y"})});
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->columns.size(), 6u);
  // RecordedNames(plant) = mode, x0, y1, label, n: strings mode (0), label (1); numbers x0 (0),
  // y1 (1), n (2).
  EXPECT_EQ(plan->columns[1].type, ValueType::kString);
  EXPECT_EQ(plan->columns[1].recorded, 0);
  EXPECT_EQ(plan->columns[2].type, ValueType::kReal);
  EXPECT_EQ(plan->columns[2].recorded, 0);
  EXPECT_EQ(plan->columns[3].type, ValueType::kBoolean);
  EXPECT_EQ(plan->columns[3].output, 1);
  EXPECT_EQ(plan->columns[4].type, ValueType::kString);
  EXPECT_EQ(plan->columns[4].recorded, 1);
  EXPECT_EQ(plan->columns[5].type, ValueType::kInteger);
  EXPECT_EQ(plan->columns[5].recorded, 2);
  EXPECT_EQ(plan->columns[5].integer, 0);  // no integer output, the first integer recorded
}

TEST(RecordingTest, IntegerColumnsIndexTheExactIntegersOutputsFirst) {
  v1::Scenario s = Parse(kValid);
  UnitDescription plant = Describe({"u0"}, {"y0", "y1"});
  plant.outputs[1].type = ValueType::kInteger;
  plant.others.push_back({"n", Causality::kLocal, "", "", ValueType::kInteger});
  plant.others.push_back({"k", Causality::kLocal, "", "", ValueType::kInteger});
  s.clear_record();
  for (const char* r : {"plant.k", "plant.y0", "plant.n", "plant.y1"}) s.add_record(r);
  absl::StatusOr<RecordPlan> plan = PlanRecording(s, {plant, Describe({"u"}, {"y"})});
  ASSERT_TRUE(plan.ok()) << plan.status();
  // StepReply::integers: the integer outputs (y1), then the integer recorded names in record
  // order (k, n; y1 is recorded too but read as an output).
  EXPECT_EQ(plan->columns[1].integer, 1);   // k
  EXPECT_EQ(plan->columns[2].integer, -1);  // y0, real
  EXPECT_EQ(plan->columns[3].integer, 2);   // n
  EXPECT_EQ(plan->columns[4].integer, 0);   // y1, the first integer output
  s.clear_record();                         // every output
  plan = PlanRecording(s, {plant, Describe({"u"}, {"y"})});
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->columns[2].integer, 0);  // plant.y1
  EXPECT_EQ(plan->columns[3].integer, -1);
}

TEST(CouplingTest, StringVariablesCannotBeConnected) {
  v1::Scenario s = Parse(kValid);
  UnitDescription plant = Describe({"u0"}, {"y0", "y1"});
  plant.others.push_back({"label", Causality::kOutput, "", "", ValueType::kString});
  s.mutable_connections(0)->set_from("plant.label");
  absl::StatusOr<Coupling> c = ResolveCoupling(s, {plant, Describe({"u"}, {"y"})});
  EXPECT_THAT(std::string(c.status().message()),
              HasSubstr("'plant.label' is a String variable: it can be recorded but not "
                        "connected"));
}
}  // namespace
}  // namespace cosimo::master
