// ResolveAlgorithm: the one source of the algorithm's defaults and rules, applied by
// ValidateScenario (submit) and by the master (run). Each test pins one rule on which the two
// used to disagree, or a message that did not say what its check tested.
#include "cosimo/common/algorithm_settings.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cosimo/common/scenario.h"

namespace cosimo {
namespace {

using ::testing::HasSubstr;

v1::Scenario Scenario(const std::string& algorithm) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({
    "name": "s", "start_time": 0.0, "stop_time": 2.0,
    "units": [ { "name": "a", "builtin": { "model": "constant" } } ],
    "algorithm": )" + algorithm + "}");
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : v1::Scenario();
}

std::string Error(const std::string& algorithm) {
  const v1::Scenario s = Scenario(algorithm);
  const absl::StatusOr<AlgorithmSettings> resolved = ResolveAlgorithm(s);
  const absl::Status validated = ValidateScenario(s);
  // The service and the master give the same verdict with the same message.
  EXPECT_EQ(resolved.status(), validated);
  return std::string(validated.message());
}

TEST(AlgorithmSettingsTest, AbsentFieldsTakeTheDocumentedDefaults) {
  absl::StatusOr<AlgorithmSettings> a =
      ResolveAlgorithm(Scenario(R"({"kind": "FIXED_POINT", "step_size": 0.1})"));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->iterative);
  EXPECT_EQ(a->tolerance, 1e-6);
  EXPECT_EQ(a->max_iterations, 50);
  EXPECT_EQ(a->relaxation, 1.0);
  EXPECT_FALSE(a->adaptive);
}

// adaptive.min_step and max_step default to 1e-3 H and stop_time - start_time
// (docs/algorithms.md); the service used to require both, so the defaults never applied.
TEST(AlgorithmSettingsTest, AdaptiveStepBoundsDefaultThroughTheService) {
  const v1::Scenario s = Scenario(R"({"kind": "JACOBI", "step_size": 0.1, "adaptive": {}})");
  EXPECT_TRUE(ValidateScenario(s).ok()) << ValidateScenario(s);
  absl::StatusOr<AlgorithmSettings> a = ResolveAlgorithm(s);
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(a->adaptive);
  EXPECT_DOUBLE_EQ(a->min_step, 1e-4);
  EXPECT_DOUBLE_EQ(a->max_step, 2.0);
  EXPECT_EQ(a->error_tolerance, 1e-4);  // non-iterative default

  a = ResolveAlgorithm(
      Scenario(R"({"kind": "NEWTON", "step_size": 0.1, "adaptive": {"max_step": 0.5}})"));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_DOUBLE_EQ(a->min_step, 1e-4);
  EXPECT_EQ(a->max_step, 0.5);
  EXPECT_EQ(a->error_tolerance, 0.0);  // iterative kinds: no error estimate by default
}

TEST(AlgorithmSettingsTest, StepSizeOutsideTheResolvedBoundsIsRefused) {
  EXPECT_THAT(Error(R"({"step_size": 0.1, "adaptive": {"min_step": 0.2, "max_step": 1}})"),
              HasSubstr("algorithm.step_size (0.1) must lie within [adaptive.min_step, "
                        "adaptive.max_step] = [0.2, 1]"));
  EXPECT_THAT(Error(R"({"step_size": 0.1, "adaptive": {"max_step": 0.05}})"),
              HasSubstr("algorithm.step_size (0.1) must lie within"));
  EXPECT_THAT(Error(R"({"step_size": 0.1, "adaptive": {"min_step": 0.5, "max_step": 0.2}})"),
              HasSubstr("algorithm.adaptive.max_step (0.2) must be >= "
                        "algorithm.adaptive.min_step (0.5)"));
  EXPECT_THAT(Error(R"({"step_size": 0.1, "adaptive": {"min_step": -1}})"),
              HasSubstr("algorithm.adaptive.min_step must be > 0, or 0 for the default"));
}

// A step count that overflows, or steps below the resolution of time, are refused: stop_time
// 1e308 with H = 0.1 ran one step of 1e308 and SUCCEEDED (the count was cast to uint64).
TEST(AlgorithmSettingsTest, StepCountsThatCannotBeCountedAreRefused) {
  auto with_times = [](double start, double stop, const std::string& algorithm) {
    v1::Scenario s = Scenario(algorithm);
    s.set_start_time(start);
    s.set_stop_time(stop);
    const absl::StatusOr<AlgorithmSettings> resolved = ResolveAlgorithm(s);
    EXPECT_EQ(resolved.status(), ValidateScenario(s));
    return std::string(resolved.status().message());
  };
  EXPECT_THAT(with_times(0.0, 1e308, R"({"step_size": 0.1})"),
              HasSubstr("algorithm.step_size (0.1) makes inf steps from start_time to stop_time, "
                        "more than 2^53"));
  EXPECT_THAT(with_times(0.0, 1e17, R"({"step_size": 1})"),
              HasSubstr("algorithm.step_size (1) makes 1e+17 steps"));
  // 1e20 + 1 is 1e20: the steps would never advance time.
  EXPECT_THAT(with_times(1e20, 1e20 + 1e9, R"({"step_size": 1})"),
              HasSubstr("algorithm.step_size (1) is below the resolution of time near t=1e+20"));
  EXPECT_THAT(with_times(0.0, 1e10, R"({"step_size": 1, "adaptive": {"min_step": 1e-9}})"),
              HasSubstr("algorithm.adaptive.min_step (1e-09) makes 1e+19 steps"));
  // Long runs that can be counted still pass.
  EXPECT_EQ(with_times(0.0, 1e308, R"({"step_size": 1e300})"), "");
  EXPECT_EQ(with_times(1e6, 2e6, R"({"step_size": 1e-6})"), "");
}

// The master used to accept a relaxation above 1 with Aitken that the service refused: the
// relaxation written is in (0, 1] either way.
TEST(AlgorithmSettingsTest, RelaxationAboveOneIsRefusedWithAitkenToo) {
  for (const char* aitken : {"true", "false"}) {
    EXPECT_THAT(Error(std::string(R"({"kind": "FIXED_POINT", "step_size": 0.1, "relaxation": 1.5,
                                      "aitken": )") +
                      aitken + "}"),
                HasSubstr("algorithm.relaxation must be in (0, 1], or 0 for the default 1 "
                          "(got 1.5)"));
  }
  EXPECT_TRUE(ResolveAlgorithm(Scenario(R"({"kind": "FIXED_POINT", "step_size": 0.1,
                                            "relaxation": 1, "aitken": true})"))
                  .ok());
}

// Messages say what their checks test: 0 is the default, not an error.
TEST(AlgorithmSettingsTest, MessagesMatchTheirChecks) {
  EXPECT_THAT(Error(R"({"step_size": 0.1, "max_iterations": -1})"),
              HasSubstr("algorithm.max_iterations must be >= 1, or 0 for the default 50 (got -1)"));
  EXPECT_TRUE(ResolveAlgorithm(Scenario(R"({"step_size": 0.1, "max_iterations": 0})")).ok());
  EXPECT_THAT(
      Error(R"({"step_size": 0.1, "tolerance": -1e-3})"),
      HasSubstr("algorithm.tolerance must be > 0, or 0 for the default 1e-06 (got -0.001)"));
  EXPECT_THAT(Error(R"({"step_size": 0.1, "relaxation": -0.5})"),
              HasSubstr("algorithm.relaxation must be in (0, 1], or 0 for the default 1"));
  EXPECT_THAT(Error(R"({"step_size": 0.1, "extrapolation_degree": 6})"),
              HasSubstr("algorithm.extrapolation_degree must be in 0..5 (got 6)"));
}

TEST(AlgorithmSettingsTest, SolverMessagesMatchTheirChecks) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({
    "name": "s", "start_time": 0.0, "stop_time": 2.0,
    "units": [ { "name": "a", "builtin": { "model": "constant" },
                 "solver": { "max_iterations": -2 } } ],
    "algorithm": { "step_size": 0.1 } })");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_THAT(std::string(ValidateScenario(*s).message()),
              HasSubstr("units[0].solver.max_iterations must be >= 1, or 0 for the solver's "
                        "default (got -2)"));
}

}  // namespace
}  // namespace cosimo
