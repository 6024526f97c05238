// StepControl's time events (issue 46, item 2): a step that would pass a unit's event time ends
// on it; the fixed grid goes on from the next grid point; an event within 1e-9 H of a grid point
// replaces it; a unit's sample_times are events only where one of its outputs feeds a discrete
// input.
#include "master/src/step_control.h"

#include <gtest/gtest.h>

#include <vector>

namespace cosimo::master {
namespace {

// A table (unit 0) feeding unit 1's input, fixed H = 0.1 over [0, 1].
MasterConfig TwoUnits(bool discrete_input) {
  MasterConfig config;
  config.algorithm.start_time = 0.0;
  config.algorithm.stop_time = 1.0;
  config.algorithm.step_size = 0.1;
  config.descriptions.resize(2);
  VariableInfo output;
  output.name = "u";
  output.causality = Causality::kOutput;
  config.descriptions[0].outputs.push_back(output);
  config.descriptions[0].event_times = {0.25, 0.3 + 1e-12, 0.95, 1.0, 1.5};
  config.descriptions[0].sample_times = {0.0, 0.42, 1.0};
  VariableInfo input;
  input.name = "u";
  input.causality = Causality::kInput;
  input.discrete = discrete_input;
  config.descriptions[1].inputs.push_back(input);
  config.coupling.inputs = {{}, {Coupling::Source{0, 0}}};
  return config;
}

std::vector<double> Times(const MasterConfig& config) {
  StepControl control(config);
  std::vector<double> times;
  double t = config.algorithm.start_time;
  for (uint64_t n = 0; t < config.algorithm.stop_time && n < 100; ++n) {
    t = control.NextTime(t, n);
    times.push_back(t);
  }
  return times;
}

TEST(StepControlTest, FixedStepsEndOnTheEventsAndKeepTheirGrid) {
  const std::vector<double> times = Times(TwoUnits(false));
  // 0.3 + 1e-12 is within 1e-9 H of the grid point 0.3: it replaces it. 1.0 is stop_time, 1.5
  // beyond it; sample_times are no events here (the input is continuous).
  const std::vector<double> expected = {0.1, 0.2, 0.25, 0.3 + 1e-12, 0.4,  0.5,
                                        0.6, 0.7, 0.8,  0.9,         0.95, 1.0};
  ASSERT_EQ(times.size(), expected.size());
  for (size_t k = 0; k < times.size(); ++k) EXPECT_NEAR(times[k], expected[k], 1e-15) << k;
  EXPECT_EQ(times[2], 0.25);
  EXPECT_EQ(times[10], 0.95);
}

TEST(StepControlTest, SamplesAreEventsWhereADiscreteInputHoldsThem) {
  const std::vector<double> times = Times(TwoUnits(true));
  ASSERT_GE(times.size(), 6u);
  EXPECT_NEAR(times[4], 0.4, 1e-15);
  EXPECT_EQ(times[5], 0.42);
  EXPECT_NEAR(times[6], 0.5, 1e-15);
}

TEST(StepControlTest, AdaptiveStepsEndOnTheEvents) {
  MasterConfig config = TwoUnits(false);
  config.algorithm.adaptive = true;
  config.algorithm.min_step = 1e-4;
  config.algorithm.max_step = 1.0;
  StepControl control(config);
  EXPECT_NEAR(control.NextTime(0.0, 0), 0.1, 1e-15);
  EXPECT_EQ(control.NextTime(0.2, 2), 0.25);
  // A step cut short by an event keeps the planned H for the next one.
  control.AfterAcceptance(0.05, Attempt{});
  EXPECT_NEAR(control.NextTime(0.4, 3), 0.5, 1e-15);
}

}  // namespace
}  // namespace cosimo::master
