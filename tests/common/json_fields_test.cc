// Scenario JSON errors name the field path and the valid choices, all at once (not protobuf's
// "Cannot find field" or `invalid value "JACOBY" for type type.googleapis.com/...`).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cosimo/common/scenario.h"

namespace cosimo {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(ScenarioJsonTest, ErrorsNameTheFieldPathAndTheChoicesAllAtOnce) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({
    "stop_time": 1,
    "units": [
      {"name": "a", "builtin": {"model": "car_controller", "parameters": {"k": 1}}},
      {"name": "b", "builtin": {"modle": "car_vehicle"}, "solver": {"method": "RK5"}}
    ],
    "algorithm": {"kind": "JACOBY", "stepSize": "0.1", "input_approximation": 7},
    "record": "a.F",
    "name": 3
  })");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string message(s.status().message());
  EXPECT_THAT(message, HasSubstr("6 errors"));
  EXPECT_THAT(message, HasSubstr("units[1].builtin.modle: no such field (fields: model, "));
  EXPECT_THAT(message, HasSubstr("units[1].solver.method: 'RK5' is not one of "));
  EXPECT_THAT(message, HasSubstr("RK4"));
  EXPECT_THAT(message,
              HasSubstr("algorithm.kind: 'JACOBY' is not one of JACOBI, GAUSS_SEIDEL, FIXED_POINT, "
                        "NEWTON"));
  EXPECT_THAT(message, HasSubstr("algorithm.input_approximation: a number is not one of "
                                 "INPUT_APPROXIMATION_UNSPECIFIED, ZOH"));
  EXPECT_THAT(message, HasSubstr("record: expected a list, got the string \"a.F\""));
  EXPECT_THAT(message, HasSubstr("name: expected a string, got a number"));
  // Not protobuf's wording; the JSON name (stepSize) and a number as a string are accepted.
  EXPECT_THAT(message, Not(HasSubstr("type.googleapis.com")));
  EXPECT_THAT(message, Not(HasSubstr("stepSize")));
  EXPECT_THAT(message, Not(HasSubstr("units[0]")));  // any JSON value is a parameter value
}

TEST(ScenarioJsonTest, AValidScenarioStillParses) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({"stop_time": 2, "start_time": 0,
    "units": [{"name": "a", "builtin": {"model": "m", "parameters": {"v": [1, 2], "s": "x"}}}],
    "algorithm": {"kind": "NEWTON", "step_size": 0.1}, "record": ["a.y"]})");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->algorithm().kind(), v1::Algorithm::NEWTON);
  EXPECT_EQ(s->units(0).builtin().parameters().at("v").list_value().values_size(), 2);
}

}  // namespace
}  // namespace cosimo
