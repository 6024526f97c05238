// The table source unit: interpolation (linear, hold), slopes, rollback, and CSV errors that name
// the file, line and column.
#include "units/src/table_unit.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "units/src/models/builtin_models.h"

namespace cosimo::units {
namespace {

constexpr const char* kTable =
    "time, force, \"speed\"\n"
    "# a comment\n"
    "0, 0, 10\n"
    "1, 2, 10\n"
    "2, 2, 20\r\n"
    "\n";

std::unique_ptr<Unit> Make(const std::string& text, TableInterpolation interpolation) {
  absl::StatusOr<std::unique_ptr<Unit>> unit =
      CreateTableUnitFromText("table", "test.csv", text, interpolation);
  EXPECT_TRUE(unit.ok()) << unit.status();
  EXPECT_TRUE((*unit)->Initialize(0.0, 3.0).ok());
  return std::move(*unit);
}

StepReply DoStep(Unit& unit, double h) {
  StepRequest request;
  request.time = unit.time();
  request.step = h;
  StepReply reply;
  unit.Step(request, &reply);
  return reply;
}

TEST(TableUnitTest, LinearInterpolation) {
  const auto unit = Make(kTable, TableInterpolation::kLinear);
  ASSERT_EQ(unit->description().outputs.size(), 2u);
  EXPECT_EQ(unit->description().outputs[0].name, "force");
  EXPECT_EQ(unit->description().outputs[1].name, "speed");
  EXPECT_TRUE(unit->description().inputs.empty());
  StepReply reply = DoStep(*unit, 0.25);
  EXPECT_DOUBLE_EQ(reply.outputs[0], 0.5);
  EXPECT_DOUBLE_EQ(reply.outputs[1], 10.0);
  EXPECT_DOUBLE_EQ(reply.derivatives[0], 2.0);
  reply = DoStep(*unit, 1.25);  // t = 1.5
  EXPECT_DOUBLE_EQ(reply.outputs[0], 2.0);
  EXPECT_DOUBLE_EQ(reply.outputs[1], 15.0);
  EXPECT_DOUBLE_EQ(reply.derivatives[1], 10.0);
  reply = DoStep(*unit, 1.0);  // t = 2.5: after the last row, held
  EXPECT_DOUBLE_EQ(reply.outputs[1], 20.0);
  EXPECT_DOUBLE_EQ(reply.derivatives[1], 0.0);
}

TEST(TableUnitTest, HoldAndRollback) {
  const auto unit = Make(kTable, TableInterpolation::kHold);
  ASSERT_TRUE(unit->SetRecorded({"speed"}).ok());
  EXPECT_FALSE(unit->SetRecorded({"torque"}).ok());
  StepReply reply = DoStep(*unit, 0.9);
  EXPECT_DOUBLE_EQ(reply.outputs[0], 0.0);
  absl::StatusOr<std::unique_ptr<UnitSnapshot>> snapshot = unit->Save();
  ASSERT_TRUE(snapshot.ok());
  // 0.9 + 0.1 reaches the sample at 1 up to rounding: the sample counts.
  reply = DoStep(*unit, 0.1);
  EXPECT_DOUBLE_EQ(reply.outputs[0], 2.0);
  ASSERT_TRUE(unit->Restore(**snapshot).ok());
  EXPECT_DOUBLE_EQ(unit->time(), 0.9);
  reply = DoStep(*unit, 1.2);  // t = 2.1
  EXPECT_DOUBLE_EQ(reply.outputs[1], 20.0);
  ASSERT_EQ(reply.recorded.size(), 1u);
  EXPECT_DOUBLE_EQ(reply.recorded[0], 20.0);
}

TEST(TableUnitTest, CsvErrorsNameLineAndColumn) {
  auto error = [](const std::string& text) {
    absl::StatusOr<std::unique_ptr<Unit>> unit =
        CreateTableUnitFromText("table", "in.csv", text, TableInterpolation::kLinear);
    EXPECT_FALSE(unit.ok());
    return unit.ok() ? std::string() : std::string(unit.status().message());
  };
  std::string e = error("time,a\n0,1\n1,x\n");
  EXPECT_NE(e.find("line 3 column 2 ('a'): 'x'"), std::string::npos) << e;
  EXPECT_NE(e.find("unit 'table': table 'in.csv'"), std::string::npos) << e;
  e = error("time,a\n0,1,2\n");
  EXPECT_NE(e.find("line 2: 3 fields, the header has 2"), std::string::npos) << e;
  e = error("time,a\n1,1\n0,2\n");
  EXPECT_NE(e.find("before the previous row"), std::string::npos) << e;
  e = error("time\n0\n");
  EXPECT_NE(e.find("at least one output column"), std::string::npos) << e;
  e = error("time,a\n");
  EXPECT_NE(e.find("no data rows"), std::string::npos) << e;
  e = error("time,a,a\n0,1,2\n");
  EXPECT_NE(e.find("appears twice"), std::string::npos) << e;
}

TEST(TableUnitTest, FromFileWithInterpolationParameter) {
  const std::string path = std::string(COSIMO_BINARY_DIR) + "/table_unit_test.csv";
  {
    std::ofstream out(path);
    out << kTable;
  }
  v1::Unit spec;
  spec.set_name("drive");
  spec.mutable_table()->set_path(path);
  (*spec.mutable_parameters())["interpolation"].set_string_value("hold");
  absl::StatusOr<std::unique_ptr<Unit>> unit = CreateTableUnit(spec, path);
  ASSERT_TRUE(unit.ok()) << unit.status();
  ASSERT_TRUE((*unit)->Initialize(0, 3).ok());
  EXPECT_DOUBLE_EQ(DoStep(**unit, 0.5).outputs[0], 0.0);  // held, not 1.0

  (*spec.mutable_parameters())["interpolation"].set_string_value("cubic");
  unit = CreateTableUnit(spec, path);
  ASSERT_FALSE(unit.ok());
  EXPECT_NE(unit.status().message().find("'interpolation'"), std::string::npos);
  spec.clear_parameters();
  unit = CreateTableUnit(spec, path + ".missing");
  ASSERT_FALSE(unit.ok());
  EXPECT_NE(unit.status().message().find("cannot open table"), std::string::npos);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace cosimo::units
