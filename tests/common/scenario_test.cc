#include "cosimo/common/scenario.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cosimo {
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

absl::Status Validate(const std::string& json) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(json);
  if (!s.ok()) return s.status();
  return ValidateScenario(*s);
}

// The example scenario of docs/scenario.md parses with every field mapped.
TEST(ScenarioTest, ParsesTheDesignExample) {
  v1::Scenario s = Parse(kValid);
  EXPECT_EQ(s.name(), "car");
  EXPECT_EQ(s.stop_time(), 10.0);
  ASSERT_EQ(s.units_size(), 2);
  EXPECT_EQ(s.units(0).builtin().model(), "linear_state_space");
  EXPECT_EQ(s.units(0).rollback(), v1::Unit::AUTO);
  EXPECT_EQ(s.units(1).fmu().path(), "controller.fmu");
  EXPECT_EQ(s.units(1).parameters().at("gain").number_value(), 2.0);
  EXPECT_EQ(s.algorithm().kind(), v1::Algorithm::JACOBI);
  EXPECT_EQ(s.algorithm().input_approximation(), v1::ZOH);
  EXPECT_EQ(s.algorithm().step_size(), 0.01);
  ASSERT_EQ(s.record_size(), 2);
  EXPECT_TRUE(ValidateScenario(s).ok()) << ValidateScenario(s);

  Parameters p(s.units(0));
  EXPECT_THAT(*p.Vector("A"), ::testing::ElementsAre(0, 1, -1, -1));
  EXPECT_EQ(*p.Number("missing", 7.0), 7.0);
  EXPECT_FALSE(p.Number("A", 0).ok());
  EXPECT_THAT(std::string(p.RequiredNumber("k").status().message()),
              HasSubstr("unit 'plant': parameter 'k' is required"));
}

TEST(ScenarioTest, MalformedJsonNamesLineAndColumn) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson("{\n  \"name\": \"x\",\n  \"units\": [ }\n");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("line 3"));
}

TEST(ScenarioTest, UnknownFieldIsNamed) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({"name": "x", "stop_tme": 3})");
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("stop_tme"));
}

TEST(ScenarioTest, StopTimeMustExceedStartTime) {
  std::string json = kValid;
  json.replace(json.find("\"stop_time\": 10.0"), 17, "\"stop_time\": 0.0");
  absl::Status s = Validate(json);
  EXPECT_THAT(std::string(s.message()), HasSubstr("stop_time (0) must be greater than start_time"));
}

TEST(ScenarioTest, NonPositiveStepIsRefused) {
  std::string json = kValid;
  json.replace(json.find("\"step_size\": 0.01"), 17, "\"step_size\": -1");
  EXPECT_THAT(std::string(Validate(json).message()),
              HasSubstr("algorithm.step_size must be > 0 (got -1)"));
  json = kValid;
  json.replace(json.find("\"step_size\": 0.01"), 17, "\"step_size\": 0");
  EXPECT_THAT(std::string(Validate(json).message()), HasSubstr("algorithm.step_size must be > 0"));
}

TEST(ScenarioTest, NegativeSolverStepIsRefused) {
  std::string json = kValid;
  json.replace(json.find("\"rollback\": \"AUTO\""), 18,
               "\"solver\": {\"method\": \"RK4\", \"step\": -0.1}");
  EXPECT_THAT(std::string(Validate(json).message()),
              HasSubstr("units[0].solver.step must be > 0 (got -0.1)"));
}

TEST(ScenarioTest, ConnectionToUnknownUnitIsNamed) {
  std::string json = kValid;
  json.replace(json.find("\"from\": \"plant.y0\""), 18, "\"from\": \"plnt.y0\"");
  EXPECT_THAT(std::string(Validate(json).message()),
              HasSubstr("connections[0].from: unknown unit 'plnt' (units: plant, ctrl)"));
}

TEST(ScenarioTest, InputConnectedTwiceIsRefused) {
  std::string json = kValid;
  json.replace(json.find("{ \"from\": \"ctrl.y\""), 0,
               "{ \"from\": \"plant.y1\", \"to\": \"plant.u0\" }, ");
  EXPECT_THAT(std::string(Validate(json).message()),
              HasSubstr("input 'plant.u0' is already connected by connections[1]"));
}

TEST(ScenarioTest, ConnectionFactorAndOffsetMustBeFinite) {
  std::string json = kValid;
  json.replace(json.find("\"to\": \"ctrl.u\""), 14, "\"to\": \"ctrl.u\", \"factor\": 2");
  EXPECT_TRUE(Validate(json).ok()) << Validate(json);
  json.replace(json.find("\"factor\": 2"), 11, "\"factor\": \"Infinity\"");
  EXPECT_THAT(std::string(Validate(json).message()),
              HasSubstr("connections[0].factor must be a finite number, got inf"));
  json = kValid;
  json.replace(json.find("\"to\": \"ctrl.u\""), 14, "\"to\": \"ctrl.u\", \"offset\": \"NaN\"");
  EXPECT_THAT(std::string(Validate(json).message()),
              HasSubstr("connections[0].offset must be a finite number, got nan"));
}

TEST(ScenarioTest, MalformedVariableReference) {
  std::string json = kValid;
  json.replace(json.find("\"to\": \"ctrl.u\""), 14, "\"to\": \"ctrl\"");
  EXPECT_THAT(std::string(Validate(json).message()),
              HasSubstr("connections[0].to: 'ctrl' is not of the form <unit>.<variable>"));
}

TEST(ScenarioTest, DuplicateUnitNamesAndMissingModel) {
  std::string json = kValid;
  json.replace(json.find("\"name\": \"ctrl\""), 14, "\"name\": \"plant\"");
  EXPECT_THAT(std::string(Validate(json).message()), HasSubstr("unit 'plant' is defined twice"));
  EXPECT_THAT(std::string(Validate(R"({"stop_time": 1, "units": [{"name": "a"}],
                                     "algorithm": {"step_size": 0.1}})")
                              .message()),
              HasSubstr("needs one of builtin, fmu, table or hybrid"));
}

// Names are bounded (a 50 MB job name made every `cosimo list` fail), and the refusal does not
// echo the name.
TEST(ScenarioTest, OverlongNamesAreRefused) {
  v1::Scenario s = Parse(kValid);
  s.set_name(std::string(kMaxNameBytes, 'n'));
  EXPECT_TRUE(ValidateScenario(s).ok()) << ValidateScenario(s);
  s.set_name(std::string(50 << 20, 'n'));
  absl::Status status = ValidateScenario(s);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "name is 52428800 bytes; at most 256");
  s = Parse(kValid);
  s.mutable_units(1)->set_name(std::string(kMaxNameBytes + 1, 'u'));
  EXPECT_EQ(ValidateScenario(s).message(), "units[1].name is 257 bytes; at most 256");
}

TEST(ScenarioTest, ApproximationFallsBackToAlgorithmThenZoh) {
  v1::Scenario s = Parse(kValid);
  EXPECT_EQ(EffectiveApproximation(s, 0), v1::ZOH);
  s.mutable_units(1)->set_input_approximation(v1::HERMITE);
  EXPECT_EQ(EffectiveApproximation(s, 1), v1::HERMITE);
  s.mutable_algorithm()->clear_input_approximation();
  EXPECT_EQ(EffectiveApproximation(s, 0), v1::ZOH);
}

}  // namespace
}  // namespace cosimo
