// Connections with a factor and an offset under every master algorithm, with the vehicle rolling
// back or estimated by COSTARICA: the car whose force is doubled on the way and whose measured
// speed is 5 m/s low must run as the car with a doubled gain and a set point 5 m/s higher
// (F = k (v_d - v) gives 2 F = 2k (v_d - v) and k (v_d - (v - 5)) = k ((v_d + 5) - v)). A
// transformation applied twice, or not at all, on any path (evaluate, step, commit of an
// estimate) gives another speed; sensitivities not scaled back give Newton more iterations.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "tests/master/master_test_util.h"

namespace cosimo::master {
namespace {

using testing::RunJson;
using testing::Summary;

std::string Car(const std::string& algorithm, const std::string& rollback, double k, double v_d,
                const std::string& transform_v, const std::string& transform_f) {
  return absl::StrCat(R"({"name": "car", "stop_time": 3,
    "units": [
      {"name": "controller", "builtin": {"model": "car_controller",
                                         "parameters": {"k": )",
                      k, R"(, "v_d": )", v_d, R"(}}},
      {"name": "vehicle", "builtin": {"model": "car_vehicle", "parameters": {"m": 1576, "c_f": 0.5}},
       "solver": {"method": "RK4", "step": 0.001}, "rollback": ")",
                      rollback, R"("}],
    "connections": [{"from": "vehicle.v", "to": "controller.v")",
                      transform_v, R"(},
                    {"from": "controller.F", "to": "vehicle.F")",
                      transform_f, R"(}],
    "algorithm": )",
                      algorithm, R"(,
    "record": ["vehicle.v", "controller.F", "vehicle.F"]})");
}

// (the algorithm's JSON, the vehicle's rollback policy)
class TransformTest : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};

TEST_P(TransformTest, FactorAndOffsetActAsTheEquivalentParameters) {
  const auto [algorithm, rollback] = GetParam();
  absl::StatusOr<MasterResult> transformed =
      RunJson(Car(algorithm, rollback, 1000, 40, R"(, "offset": -5)", R"(, "factor": 2)"));
  ASSERT_TRUE(transformed.ok()) << transformed.status();
  absl::StatusOr<MasterResult> folded = RunJson(Car(algorithm, rollback, 2000, 45, "", ""));
  ASSERT_TRUE(folded.ok()) << folded.status();

  // Columns: time, vehicle.v, controller.F, vehicle.F (the input as the vehicle sees it, the
  // same in both runs; the controller's output is half of it in the first).
  ASSERT_EQ(transformed->columns.size(), 4u);
  ASSERT_EQ(transformed->values.size(), folded->values.size());
  ASSERT_EQ(transformed->values.size(), 4u * 31);
  for (size_t i = 0; i < folded->values.size(); i += 4) {
    const double t = folded->values[i];
    EXPECT_NEAR(transformed->values[i + 1], folded->values[i + 1], 1e-9 * 45) << "v, t=" << t;
    EXPECT_NEAR(2 * transformed->values[i + 2], folded->values[i + 2], 1e-9 * 2000 * 45)
        << "controller.F, t=" << t;
    EXPECT_NEAR(transformed->values[i + 3], folded->values[i + 3], 1e-9 * 2000 * 45)
        << "vehicle.F, t=" << t;
  }
  EXPECT_GT(transformed->values[transformed->values.size() - 3], 40.0);  // towards 45 m/s

  // The iterations see the same coupled problem.
  EXPECT_NEAR(transformed->iterations_mean, folded->iterations_mean, 0.05);
  const UnitSummary* vehicle = Summary(*transformed, "vehicle");
  ASSERT_NE(vehicle, nullptr);
  if (std::string(algorithm).find("JACOBI") == std::string::npos &&
      std::string(algorithm).find("GAUSS_SEIDEL") == std::string::npos) {
    EXPECT_EQ(vehicle->report.mode,
              std::string(rollback) == "FORBID" ? UnitMode::kEstimate : UnitMode::kRollback);
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryAlgorithm, TransformTest,
    ::testing::Values(
        std::make_tuple(R"({"kind": "JACOBI", "step_size": 0.1})", "AUTO"),
        std::make_tuple(R"({"kind": "GAUSS_SEIDEL", "step_size": 0.1})", "AUTO"),
        std::make_tuple(R"({"kind": "FIXED_POINT", "step_size": 0.1, "tolerance": 1e-12})", "AUTO"),
        std::make_tuple(R"({"kind": "FIXED_POINT", "step_size": 0.1, "tolerance": 1e-12})",
                        "FORBID"),
        std::make_tuple(R"({"kind": "NEWTON", "step_size": 0.1, "tolerance": 1e-12,
                            "newton_jacobian": "FINITE_DIFFERENCES"})",
                        "AUTO"),
        std::make_tuple(R"({"kind": "NEWTON", "step_size": 0.1, "tolerance": 1e-12,
                            "newton_jacobian": "DIRECTIONAL"})",
                        "AUTO"),
        std::make_tuple(R"({"kind": "NEWTON", "step_size": 0.1, "tolerance": 1e-12,
                            "newton_jacobian": "DIRECTIONAL"})",
                        "FORBID"),
        std::make_tuple(R"({"kind": "NEWTON", "step_size": 0.1, "tolerance": 1e-12,
                            "newton_jacobian": "JFNK"})",
                        "FORBID"),
        std::make_tuple(R"({"kind": "NEWTON", "step_size": 0.1, "tolerance": 1e-12,
                            "input_approximation": "HERMITE"})",
                        "FORBID")));

}  // namespace
}  // namespace cosimo::master
