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

// Over the wire (scenario JSON, LoadUnit.input_transforms, worker processes); every algorithm
// and the rollback / estimate paths are checked in-process by
// tests/master/transform_test.cc.
TEST(ConnectionTransformTest, FactorAndOffsetActAsTheEquivalentParameters) {
  const std::string dir = TempDir("cosimo-transform");
  for (
      const std::string algorithm :
      {R"({"kind": "JACOBI", "step_size": 0.1})",
       R"({"kind": "NEWTON", "step_size": 0.1, "tolerance": 1e-12, "input_approximation": "FOH"})"}) {
    // F doubled on the way equals a doubled gain; the speed measured 5 m/s low equals a set
    // point 5 m/s higher: 2 k (v_d - (v - 5)) = 2k ((v_d + 5) - v), equal to rounding.
    const ResultTable transformed =
        RunCar(dir, "transformed", R"({"k": 1000, "v_d": 40})",
               R"([{"from": "vehicle.v", "to": "controller.v", "offset": -5},
                   {"from": "controller.F", "to": "vehicle.F", "factor": 2}])",
               algorithm);
    const ResultTable folded = RunCar(dir, "folded", R"({"k": 2000, "v_d": 45})",
                                      R"([{"from": "vehicle.v", "to": "controller.v"},
                                          {"from": "controller.F", "to": "vehicle.F"}])",
                                      algorithm);
    ASSERT_EQ(transformed.rows(), 101u) << algorithm;
    ASSERT_EQ(transformed.values.size(), folded.values.size());
    for (size_t i = 0; i < folded.values.size(); ++i) {
      EXPECT_NEAR(transformed.values[i], folded.values[i], 1e-9 * (1 + std::abs(folded.values[i])))
          << algorithm << " " << i;
    }
    EXPECT_GT(transformed.values.back(), 44.0) << algorithm;  // towards 45, not 40
  }
}

}  // namespace
}  // namespace cosimo::testing
