// UnitHost with a connection transformation on its input (LoadUnit.input_transforms): the unit
// sees factor * value + offset, and its sensitivities go back with respect to the value sent.
// On the built-in linear_state_space unit x' = -x + u, y = x (exact solver).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>

#include "cosimo/common/scenario.h"
#include "cosimo/units/unit_host.h"

namespace cosimo::units {
namespace {

v1::LoadUnit Load() {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({"start_time": 0, "stop_time": 10,
    "units": [{"name": "p", "builtin": {"model": "linear_state_space", "parameters":
      {"A": [-1], "B": [1], "C": [1], "D": [0], "x0": [1]}}}],
    "algorithm": {"step_size": 0.1}})");
  EXPECT_TRUE(s.ok()) << s.status();
  v1::LoadUnit load;
  *load.mutable_unit() = s->units(0);
  load.set_start_time(0);
  load.set_stop_time(10);
  return load;
}

std::unique_ptr<UnitHost> Host(const v1::LoadUnit& load) {
  absl::StatusOr<std::unique_ptr<UnitHost>> host = UnitHost::Create(load);
  EXPECT_TRUE(host.ok()) << host.status();
  OutputsReply out;
  EXPECT_TRUE((*host)->Initialize(0.0, &out).ok());
  return *std::move(host);
}

StepRequest Request(StepMode mode, double u0, double u1) {
  StepRequest r;
  r.time = 0.0;
  r.step = 0.5;
  r.mode = mode;
  r.sensitivities = mode == StepMode::kTentative;
  r.inputs.coefficients.resize(1, 2);
  r.inputs.coefficients << u0, u1;
  return r;
}

// x' = -x + u0 + u1 s, x(0) = x0: x(h) = x0 e^{-h} + u0 (1 - e^{-h}) + u1 (h - 1 + e^{-h}).
double Exact(double x0, double h, double u0, double u1) {
  const double e = std::exp(-h);
  return x0 * e + u0 * (1 - e) + u1 * (h - 1 + e);
}

TEST(UnitHostTransformTest, InputIsFactorTimesValuePlusOffsetAndSensitivitiesScale) {
  const v1::LoadUnit plain = Load();
  std::unique_ptr<UnitHost> reference = Host(plain);
  v1::LoadUnit load = plain;
  v1::InputTransform* t = load.add_input_transforms();
  t->set_input(reference->description().inputs.at(0).name);
  t->set_factor(3.0);
  t->set_offset(1.0);

  // The offset on the value, the factor on the value and its slope.
  std::unique_ptr<UnitHost> host = Host(load);
  StepReply reply;
  host->Step(Request(StepMode::kFinal, 2.0, 0.5), &reply);
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_NEAR(reply.outputs[0], Exact(1.0, 0.5, 3 * 2.0 + 1, 3 * 0.5), 1e-13);

  // A tentative step: the outputs of the unit fed 7 + 1.5 s, its sensitivities times 3.
  host = Host(load);
  StepReply expected;
  reference->Step(Request(StepMode::kTentative, 7.0, 1.5), &expected);
  host->Step(Request(StepMode::kTentative, 2.0, 0.5), &reply);
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  ASSERT_EQ(expected.status, StepStatus::kOk) << expected.message;
  EXPECT_NEAR(reply.outputs[0], expected.outputs[0], 1e-13);
  ASSERT_EQ(expected.output_sensitivity.cols(), 2);
  ASSERT_EQ(reply.output_sensitivity.cols(), 2);
  for (Eigen::Index k = 0; k < 2; ++k) {
    EXPECT_NEAR(reply.output_sensitivity(0, k), 3 * expected.output_sensitivity(0, k), 1e-13);
    EXPECT_NE(expected.output_sensitivity(0, k), 0.0);
  }
}

// A map (Connection.map, SSP's mapping transformations): the unit sees the target of the value
// sent, held over the step (the slope dropped), its sensitivity zero; a value without an entry
// fails the step and Evaluate naming the connection and the value.
TEST(UnitHostTransformTest, MappedInputIsTheTargetOfTheValueSentAndAnUnmappedValueFails) {
  v1::LoadUnit load = Load();
  std::unique_ptr<UnitHost> reference = Host(load);
  v1::InputTransform* t = load.add_input_transforms();
  t->set_input(reference->description().inputs.at(0).name);
  t->set_factor(1.0);
  t->set_from("src.y");
  for (const auto& [source, target] : {std::pair{2.0, 5.0}, std::pair{3.0, -1.0}}) {
    v1::MapEntry* e = t->add_map();
    e->set_source(source);
    e->set_target(target);
  }
  std::unique_ptr<UnitHost> host = Host(load);
  StepReply reply;
  host->Step(Request(StepMode::kFinal, 2.0, 0.5), &reply);
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_NEAR(reply.outputs[0], Exact(1.0, 0.5, 5.0, 0.0), 1e-13);

  host = Host(load);
  host->Step(Request(StepMode::kTentative, 3.0, 0.0), &reply);
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_NEAR(reply.outputs[0], Exact(1.0, 0.5, -1.0, 0.0), 1e-13);
  ASSERT_EQ(reply.output_sensitivity.cols(), 2);
  EXPECT_EQ(reply.output_sensitivity(0, 0), 0.0);

  host = Host(load);
  host->Step(Request(StepMode::kFinal, 4.0, 0.0), &reply);
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  const std::string input = reference->description().inputs.at(0).name;
  EXPECT_NE(reply.message.find("the connection 'src.y' -> 'p." + input +
                               "' sends 4, which its map has no entry for (sources: 2, 3)"),
            std::string::npos)
      << reply.message;
  OutputsReply out;
  absl::Status s = host->Evaluate(Eigen::VectorXd::Constant(1, 7.0), &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("sends 7"), std::string::npos) << s;
}

TEST(UnitHostTransformTest, TransformOfAnUnknownInputIsRefused) {
  v1::LoadUnit load = Load();
  v1::InputTransform* t = load.add_input_transforms();
  t->set_input("nope");
  t->set_factor(2.0);
  absl::StatusOr<std::unique_ptr<UnitHost>> host = UnitHost::Create(load);
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.status().message().find("'nope', which is not an input of the unit"),
            std::string::npos)
      << host.status();
}

}  // namespace
}  // namespace cosimo::units
