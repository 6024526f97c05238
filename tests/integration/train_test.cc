// `cosimo train` (cli/src/train.h): exit code 0 and a weights file the scenario can load; exit
// code 2 with a message naming the column, the field or the unit for bad input.
#include "cli/src/train.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cosimo/common/scenario.h"
#include "cosimo/units/pendulum_experiment.h"
#include "units/src/hybrid/hybrid_unit.h"

namespace cosimo::client {
namespace {

namespace fs = std::filesystem;

class TrainCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("cosimo_train_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
    const v1::Scenario scenario = units::experiment::PendulumScenario(0.5, 0.0, 1.0, "RK4", 4, 1);
    Write("scenario.json", ScenarioToJson(scenario));
    Write("data.csv", units::experiment::PendulumReferenceCsv(0.5, 0.0, 1.0));
    command_.scenario_path = Path("scenario.json");
    command_.data_path = Path("data.csv");
    command_.unit = "pendulum";
    command_.epochs = 3;
    command_.learning_rate = 1e-2;
    command_.out = Path("w.json");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  void Write(const std::string& name, const std::string& text) {
    std::ofstream(Path(name)) << text;
  }
  // RunTrain's exit code; its stderr in `stderr_`.
  int Run() {
    ::testing::internal::CaptureStderr();
    const int code = RunTrain(command_);
    stderr_ = ::testing::internal::GetCapturedStderr();
    return code;
  }

  fs::path dir_;
  TrainCommand command_;
  std::string stderr_;
};

TEST_F(TrainCommandTest, WritesWeightsTheScenarioLoads) {
  ASSERT_EQ(Run(), 0) << stderr_;
  EXPECT_NE(stderr_.find("epoch 3/3  loss"), std::string::npos) << stderr_;
  EXPECT_NE(stderr_.find("weights written to " + Path("w.json")), std::string::npos) << stderr_;
  v1::Scenario scenario = units::experiment::PendulumScenario(0.5, 0.0, 1.0, "RK4", 4, 1);
  scenario.mutable_units(0)->mutable_hybrid()->mutable_weights()->set_path(Path("w.json"));
  absl::StatusOr<std::unique_ptr<units::HybridUnit>> unit =
      units::HybridUnit::Create(scenario.units(0));
  ASSERT_TRUE(unit.ok()) << unit.status();
  // Trained: the last layers are not zero any more.
  EXPECT_GT((*unit)->model().bottom().layers().back().weight.norm(), 0.0);
}

TEST_F(TrainCommandTest, DataWithoutTheRecordedColumnIsExitCode2) {
  Write("data.csv", "time,pendulum.s\n0,0.5\n0.5,0.7\n");
  EXPECT_EQ(Run(), 2);
  EXPECT_NE(stderr_.find("no column 'pendulum.v'"), std::string::npos) << stderr_;
}

TEST_F(TrainCommandTest, NanRowIsExitCode2NamingTheColumn) {
  Write("data.csv", "time,pendulum.s,pendulum.v\n0,0.5,0\n0.5,0.7,NaN\n");
  EXPECT_EQ(Run(), 2);
  EXPECT_NE(stderr_.find("column 3 ('pendulum.v'): 'NaN' is not a finite number"),
            std::string::npos)
      << stderr_;
}

TEST_F(TrainCommandTest, WeightsOfTheWrongShapeAreExitCode2) {
  v1::Scenario scenario = units::experiment::PendulumScenario(0.5, 0.0, 1.0, "RK4", 4, 1);
  Write("bad.json", R"({"top": [{"rows": 3, "cols": 2}, {"rows": 2, "cols": 3}], "bottom": []})");
  scenario.mutable_units(0)->mutable_hybrid()->mutable_weights()->set_path(Path("bad.json"));
  Write("scenario.json", ScenarioToJson(scenario));
  EXPECT_EQ(Run(), 2);
  EXPECT_NE(stderr_.find("hybrid.weights: weights file: top[0] is 3 x 2, the scenario's network "
                         "needs 2 x 2"),
            std::string::npos)
      << stderr_;
}

TEST_F(TrainCommandTest, UnknownUnitIsExitCode2) {
  command_.unit = "nope";
  EXPECT_EQ(Run(), 2);
  EXPECT_NE(stderr_.find("--unit: the scenario has no unit 'nope'"), std::string::npos) << stderr_;
}

}  // namespace
}  // namespace cosimo::client
