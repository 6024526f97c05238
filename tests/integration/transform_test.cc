// Connections with a factor and an offset (SSP's ssc:LinearTransformation): the input is
// factor * output + offset. Checked against the same system with the transformation folded
// into a model parameter.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <string>

#include "cosimo/common/csv.h"
#include "tests/integration/process.h"

namespace cosimo::testing {
namespace {

// The car example with `connections` and `controller` parameters spliced in, run by `cosimo
// run`; returns the results.
ResultTable RunCar(const std::string& dir, const std::string& tag, const std::string& controller,
                   const std::string& connections, const std::string& algorithm) {
  WriteFile(dir + "/" + tag + ".json", R"({"name": "car", "stop_time": 10,
    "units": [
      {"name": "controller", "builtin": {"model": "car_controller", "parameters": )" +
                                           controller + R"(}},
      {"name": "vehicle", "builtin": {"model": "car_vehicle", "parameters": {"m": 1576, "c_f": 0.5}},
       "solver": {"method": "RK4", "step": 0.001}}],
    "connections": )" + connections +
                                           R"(,
    "algorithm": )" + algorithm + R"(,
    "record": ["vehicle.v"]})");
  Process run(
      {BinDir() + "/cosimo", "run", dir + "/" + tag + ".json", "--out", dir + "/" + tag + ".csv"},
      dir + "/" + tag + ".log");
  EXPECT_EQ(run.Wait(std::chrono::seconds(120)), 0) << run.log();
  absl::StatusOr<ResultTable> table = ReadCsvFile(dir + "/" + tag + ".csv");
  EXPECT_TRUE(table.ok()) << table.status();
  return table.ok() ? *table : ResultTable();
}

TEST(ConnectionTransformTest, FactorAndOffsetActAsTheEquivalentParameters) {
  const std::string dir = TempDir("cosimo-transform");
  for (const std::string algorithm :
       {R"({"kind": "JACOBI", "step_size": 0.1})",
        R"({"kind": "NEWTON", "step_size": 0.1, "input_approximation": "FOH"})"}) {
    // F doubled on the way equals a doubled gain (exactly: doubling is exact in binary).
    const ResultTable doubled = RunCar(dir, "doubled", R"({"k": 1000, "v_d": 40})",
                                       R"([{"from": "vehicle.v", "to": "controller.v"},
                   {"from": "controller.F", "to": "vehicle.F", "factor": 2}])",
                                       algorithm);
    const ResultTable gain = RunCar(dir, "gain", R"({"k": 2000, "v_d": 40})",
                                    R"([{"from": "vehicle.v", "to": "controller.v"},
                                        {"from": "controller.F", "to": "vehicle.F"}])",
                                    algorithm);
    // Newton's iterates differ by the factor and stop at its tolerance: equal to well within
    // that; Jacobi's are exactly equal.
    const bool newton = algorithm.find("NEWTON") != std::string::npos;
    const double tolerance = newton ? 1e-6 : 1e-9;
    ASSERT_EQ(doubled.rows(), 101u) << algorithm;
    ASSERT_EQ(doubled.values.size(), gain.values.size());
    for (size_t i = 0; i < gain.values.size(); ++i) {
      if (newton) {
        EXPECT_NEAR(doubled.values[i], gain.values[i], tolerance * (1 + std::abs(gain.values[i])))
            << algorithm << " " << i;
      } else {
        EXPECT_EQ(doubled.values[i], gain.values[i]) << algorithm << " " << i;
      }
    }
    // The speed measured 5 m/s low equals a set point 5 m/s higher (to rounding).
    const ResultTable offset = RunCar(dir, "offset", R"({"k": 1000, "v_d": 40})",
                                      R"([{"from": "vehicle.v", "to": "controller.v", "offset": -5},
                                          {"from": "controller.F", "to": "vehicle.F"}])",
                                      algorithm);
    const ResultTable set_point = RunCar(dir, "set_point", R"({"k": 1000, "v_d": 45})",
                                         R"([{"from": "vehicle.v", "to": "controller.v"},
                                             {"from": "controller.F", "to": "vehicle.F"}])",
                                         algorithm);
    ASSERT_EQ(offset.values.size(), set_point.values.size());
    for (size_t i = 0; i < offset.values.size(); ++i) {
      EXPECT_NEAR(offset.values[i], set_point.values[i],
                  tolerance * (1 + std::abs(set_point.values[i])))
          << algorithm << " " << i;
    }
    EXPECT_GT(offset.values.back(), 42.0);  // it does go towards 45, not 40
  }
}

}  // namespace
}  // namespace cosimo::testing
