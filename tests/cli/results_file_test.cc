#include "cosimo/client/results_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cosimo/common/csv.h"

namespace cosimo::client {
namespace {

namespace fs = std::filesystem;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A table of `rows` rows of a real, an integer, a Boolean and a string column, the kinds of
// cell WriteCsv writes each in its own way.
JobResults Table(size_t rows) {
  JobResults t;
  t.columns = {"time", "u.x", "u.n", "u.on", "u.s"};
  t.types = {ValueType::kReal, ValueType::kReal, ValueType::kInteger, ValueType::kBoolean,
             ValueType::kString};
  for (size_t r = 0; r < rows; ++r) {
    const double time = 0.001 * static_cast<double>(r);
    t.values.insert(t.values.end(), {time, std::sin(time) / 3.0, -static_cast<double>(r),
                                     static_cast<double>(r % 2), std::nan("")});
    t.integers.push_back(static_cast<uint64_t>(-static_cast<int64_t>(r)));
    t.strings.push_back(r % 3 == 0 ? "a, \"quoted\" text" : "plain");
  }
  t.metadata.set_algorithm("JACOBI");
  return t;
}

// The first `rows` rows of `table`, as a running job's rows read so far.
JobResults Prefix(const JobResults& table, size_t rows) {
  JobResults t = table;
  t.KeepRows(rows);
  return t;
}

class ResultsFileWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() /
        ("results-file-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // What WriteResultFiles writes for `table`: the reference bytes.
  std::pair<std::string, std::string> Reference(const JobResults& table) {
    const fs::path csv = dir_ / "reference.csv", meta = dir_ / "reference.csv.meta.json";
    EXPECT_TRUE(WriteResultFiles(table, csv.string(), meta.string()).ok());
    return {ReadFile(csv), ReadFile(meta)};
  }

  fs::path dir_;
};

TEST_F(ResultsFileWriterTest, RowsWrittenAsTheyComeMakeTheBytesOfTheWholeTable) {
  const JobResults all = Table(1000);
  const auto [csv, meta] = Reference(all);
  const fs::path out = dir_ / "run.csv";
  {
    ResultsFileWriter writer(out.string());
    for (size_t rows : {0, 1, 1, 17, 400, 999}) writer.Update(Prefix(all, rows));
    EXPECT_TRUE(fs::exists(out.string() + ".part"));
    EXPECT_FALSE(fs::exists(out));  // not before Finish
    ASSERT_TRUE(writer.Finish(all, (dir_ / "run.csv.meta.json").string()).ok());
  }
  EXPECT_EQ(ReadFile(out), csv);
  EXPECT_EQ(ReadFile(dir_ / "run.csv.meta.json"), meta);
  EXPECT_FALSE(fs::exists(out.string() + ".part"));
}

TEST_F(ResultsFileWriterTest, ATableThatShrinksOrChangesColumnsStartsTheFileAnew) {
  const JobResults all = Table(300);
  const fs::path out = dir_ / "run.csv";
  ResultsFileWriter writer(out.string());
  writer.Update(Prefix(all, 200));
  writer.Update(Prefix(all, 50));  // rows taken back (fewer than written)
  JobResults other = Table(10);
  other.columns[1] = "v.y";
  writer.Update(other);  // other columns
  writer.Update(Prefix(all, 120));
  ASSERT_TRUE(writer.Finish(all, "").ok());
  EXPECT_EQ(ReadFile(out), Reference(all).first);
}

TEST_F(ResultsFileWriterTest, ARunThatDoesNotFinishLeavesTheEarlierFileAsItWas) {
  const fs::path out = dir_ / "run.csv";
  std::ofstream(out) << "earlier results\n";
  {
    ResultsFileWriter writer(out.string());
    writer.Update(Table(100));
  }  // the run failed: no Finish
  EXPECT_EQ(ReadFile(out), "earlier results\n");
  EXPECT_FALSE(fs::exists(out.string() + ".part"));
}

TEST_F(ResultsFileWriterTest, NoRowsWrittenWhileItRanStillWritesTheWholeTable) {
  const JobResults all = Table(5);
  const fs::path out = dir_ / "run.csv";
  ResultsFileWriter writer(out.string());
  ASSERT_TRUE(writer.Finish(all, "").ok());
  EXPECT_EQ(ReadFile(out), Reference(all).first);

  JobResults empty;  // a job that recorded nothing: the CSV is WriteCsv's
  ResultsFileWriter none((dir_ / "none.csv").string());
  ASSERT_TRUE(none.Finish(empty, "").ok());
  EXPECT_EQ(ReadFile(dir_ / "none.csv"), Reference(empty).first);
}

TEST_F(ResultsFileWriterTest, AFolderThatCannotBeWrittenIsNamedInTheError) {
  const fs::path out = dir_ / "missing-folder" / "run.csv";
  ResultsFileWriter writer(out.string());
  writer.Update(Table(10));
  const absl::Status s = writer.Finish(Table(10), "");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(out.string()), std::string::npos) << s.message();
}

}  // namespace
}  // namespace cosimo::client
