// `cosimo plot` through the real command line: a results CSV with its metadata to SVG and PNG,
// a sweep table's scatter plot (--x, --y), a fit's folder (its measured.csv against its best.csv),
// and their usage errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/integration/process.h"

namespace cosimo {
namespace {

using testing::BinDir;
using ::testing::HasSubstr;
using testing::Process;

// Big-endian 32-bit integer at `offset` of `bytes`.
uint32_t BigEndian(const std::string& bytes, size_t offset) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[offset + i]);
  return v;
}

class PlotCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir("cosimo-plot");
    csv_ = dir_ + "/r.csv";
    std::string text = "time,car.v,car.on,ctl.F\n";
    for (int i = 0; i <= 40; ++i) {
      text += std::to_string(i * 0.25) + "," + std::to_string(i * 0.5) + "," +
              (i % 2 ? "true" : "false") + "," + std::to_string(100 - i) + "\n";
    }
    testing::WriteFile(csv_, text);
    testing::WriteFile(csv_ + ".meta.json",
                       R"({"algorithm": "JACOBI", "variables": [{"name": "car.v", "unit": "m/s"},
                           {"name": "ctl.F", "unit": "N"}]})");
  }

  int Plot(std::vector<std::string> args, const std::string& log) {
    args.insert(args.begin(), {BinDir() + "/cosimo", "plot"});
    Process p(args, dir_ + "/" + log);
    const int code = p.Wait(std::chrono::seconds(30));
    log_ = p.log();
    return code;
  }

  std::string dir_, csv_, log_;
};

TEST_F(PlotCommandTest, SvgWithOnePanelPerUnitAndTheUnitsOfTheMetadata) {
  ASSERT_EQ(Plot({csv_, "--out", dir_ + "/p.svg"}, "svg.log"), 0) << log_;
  EXPECT_THAT(log_, HasSubstr("plot written to " + dir_ + "/p.svg"));
  const std::string svg = testing::ReadFile(dir_ + "/p.svg");
  EXPECT_THAT(svg, HasSubstr("<svg xmlns=\"http://www.w3.org/2000/svg\""));
  for (const char* s : {"data-variable=\"car.v\"", "data-variable=\"car.on\"",
                        "data-variable=\"ctl.F\"", ">[N]<", "car.v [m/s]", ">r.csv<"}) {
    EXPECT_THAT(svg, HasSubstr(s));
  }
}

TEST_F(PlotCommandTest, PngOfTheChosenVariables) {
  ASSERT_EQ(
      Plot({csv_, "--vars", "car.v,ctl.F", "--width", "800", "--out", dir_ + "/p.png"}, "png.log"),
      0)
      << log_;
  const std::string png = testing::ReadFile(dir_ + "/p.png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(BigEndian(png, 16), 800u);  // width
  EXPECT_GT(BigEndian(png, 20), 400u);  // two panels
}

TEST_F(PlotCommandTest, UsageErrorsExitTwoNamingWhatWasWrong) {
  EXPECT_EQ(Plot({csv_, "--vars", "car.x", "--out", dir_ + "/p.svg"}, "e1.log"), 2);
  EXPECT_THAT(log_, HasSubstr("no column 'car.x'"));
  EXPECT_EQ(Plot({csv_, "--out", dir_ + "/p.pdf"}, "e2.log"), 2);
  EXPECT_THAT(log_, HasSubstr("must end in .svg or .png"));
  testing::WriteFile(dir_ + "/ragged.csv", "time,a.x\n0,1\n1\n");
  EXPECT_EQ(Plot({dir_ + "/ragged.csv"}, "e3.log"), 2);
  EXPECT_THAT(log_, HasSubstr("line 3"));
  EXPECT_EQ(Plot({dir_ + "/missing.csv"}, "e4.log"), 1);
  EXPECT_THAT(log_, HasSubstr("cannot open"));
}

// A sweep table as `cosimo sweep` writes it: variants 4 and 5 failed.
constexpr char kSweepTable[] =
    "index,vehicle.m,controller.k,final(vehicle.v),status,wall_time_s,message\n"
    "0,1000,500,39.78,SUCCEEDED,0.07,\n"
    "1,1000,1000,39.97,SUCCEEDED,0.07,\n"
    "2,1500,500,39.68,SUCCEEDED,0.07,\n"
    "3,1500,1000,39.91,SUCCEEDED,0.07,\n"
    "4,-5,500,nan,FAILED,0.01,\"unit 'vehicle': parameter 'm' must be > 0, got -5\"\n"
    "5,-5,1000,nan,FAILED,0.01,\"unit 'vehicle': parameter 'm' must be > 0, got -5\"\n";

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(PlotCommandTest, ScatterOfASweepTableLeavesTheFailedVariantsOut) {
  testing::WriteFile(dir_ + "/sweep.csv", kSweepTable);
  ASSERT_EQ(Plot({dir_ + "/sweep.csv", "--x", "vehicle.m", "--y", "final(vehicle.v)", "--out",
                  dir_ + "/s.svg"},
                 "scatter.log"),
            0)
      << log_;
  const std::string svg = testing::ReadFile(dir_ + "/s.svg");
  EXPECT_EQ(Count(svg, "<circle class=\"point\""), 4u) << svg;
  for (const char* s :
       {">vehicle.m<", ">final(vehicle.v)<", ">2 failed variants not shown<", ">sweep.csv<",
        "<title>variant 3: vehicle.m = 1500, final(vehicle.v) = "
        "39.91</title>"}) {
    EXPECT_THAT(svg, HasSubstr(s));
  }
  ASSERT_EQ(Plot({dir_ + "/sweep.csv", "--x", "controller.k", "--y", "vehicle.m", "--width", "600",
                  "--title", "design", "--out", dir_ + "/s.png"},
                 "scatter-png.log"),
            0)
      << log_;
  const std::string png = testing::ReadFile(dir_ + "/s.png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(0, 8), "\x89PNG\r\n\x1a\n");
  EXPECT_EQ(BigEndian(png, 16), 600u);  // width
  EXPECT_EQ(BigEndian(png, 20), 400u);  // 2/3 as high
}

TEST_F(PlotCommandTest, ScatterUsageErrorsExitTwoNamingWhatWasWrong) {
  testing::WriteFile(dir_ + "/sweep.csv", kSweepTable);
  const std::string table = dir_ + "/sweep.csv";
  EXPECT_EQ(Plot({table, "--x", "vehicle.m", "--out", dir_ + "/s.svg"}, "e1.log"), 2);
  EXPECT_THAT(log_, HasSubstr("--x and --y go together"));
  EXPECT_THAT(log_, HasSubstr("--x is given alone"));
  EXPECT_EQ(Plot({table, "--y", "vehicle.m", "--out", dir_ + "/s.svg"}, "e2.log"), 2);
  EXPECT_THAT(log_, HasSubstr("--y is given alone"));
  EXPECT_EQ(Plot({table, "--x", "vehicle.mass", "--y", "final(vehicle.v)"}, "e3.log"), 2);
  EXPECT_THAT(log_, HasSubstr("no column 'vehicle.mass' in the table (numeric columns: index, "
                              "vehicle.m, controller.k, final(vehicle.v), wall_time_s)"));
  EXPECT_EQ(Plot({table, "--x", "vehicle.m", "--y", "message"}, "e4.log"), 2);
  EXPECT_THAT(log_, HasSubstr("column 'message' holds strings, not numbers"));
  EXPECT_EQ(Plot({table, "--x", "vehicle.m", "--y", "index", "--vars", "a"}, "e5.log"), 2);
  EXPECT_THAT(log_, HasSubstr("--vars and --one-panel are for time plots"));
  // A sweep table without --x and --y: the time plot's error says what to give.
  EXPECT_EQ(Plot({table, "--out", dir_ + "/t.svg"}, "e6.log"), 2);
  EXPECT_THAT(log_, HasSubstr("--x PARAM --y KPI draws a scatter plot"));
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/s.svg"));
}

// A fit's folder as `cosimo fit` writes it (here by hand): best.csv and measured.csv.
TEST_F(PlotCommandTest, AFitsFolderIsItsMeasuredDataAgainstItsBestRun) {
  const std::string fit = dir_ + "/fit";
  std::filesystem::create_directories(fit);
  testing::WriteFile(fit + "/best.csv", "time,vehicle.v,controller.F\n0,0,40\n1,2,30\n2,3,20\n");
  testing::WriteFile(fit + "/measured.csv",
                     "column,variable,time,measured,simulated,residual\n"
                     "speed,vehicle.v,0.5,1.1,1,-0.1\n"
                     "speed,vehicle.v,1.5,2.4,2.5,0.1\n"
                     "force,controller.F,1,31,30,-1\n");
  ASSERT_EQ(Plot({fit, "--out", dir_ + "/fit.svg"}, "f1.log"), 0) << log_;
  const std::string svg = testing::ReadFile(dir_ + "/fit.svg");
  EXPECT_EQ(Count(svg, "<title>speed at "), 2u) << svg;
  EXPECT_EQ(Count(svg, "<title>force at "), 1u);
  EXPECT_EQ(Count(svg, "class=\"series\" data-variable=\"vehicle.v\""), 1u);
  EXPECT_EQ(Count(svg, "class=\"series\" data-variable=\"controller.F\""), 1u);
  // The default title names the folder.
  EXPECT_THAT(svg, HasSubstr(">fit: measured against the best run<"));
  // Its measured.csv names the fit as well; a PNG.
  ASSERT_EQ(Plot({fit + "/measured.csv", "--out", dir_ + "/fit.png"}, "f2.log"), 0) << log_;
  const std::string png = testing::ReadFile(dir_ + "/fit.png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(png.substr(1, 3), "PNG");
  EXPECT_EQ(BigEndian(png, 16), 960u);
}

TEST_F(PlotCommandTest, AFolderOrMeasuredCsvThatIsNotAFitsIsNamed) {
  EXPECT_EQ(Plot({dir_, "--out", dir_ + "/p.svg"}, "n1.log"), 2);
  EXPECT_THAT(log_,
              HasSubstr("'" + dir_ + "' is a folder but not a fit's: it has no measured.csv"));
  const std::string fit = dir_ + "/fit";
  std::filesystem::create_directories(fit);
  testing::WriteFile(fit + "/measured.csv", "time,vehicle.v\n0,1\n");
  EXPECT_EQ(Plot({fit, "--out", dir_ + "/p.svg"}, "n2.log"), 2);
  EXPECT_THAT(log_,
              HasSubstr(fit + "/measured.csv: not a fit's measured data: no column 'column'"));
  testing::WriteFile(fit + "/measured.csv",
                     "column,variable,time,measured,simulated,residual\nspeed,vehicle.v,1,2,2,0\n");
  EXPECT_EQ(Plot({fit, "--out", dir_ + "/p.svg"}, "n3.log"), 2);
  EXPECT_THAT(log_, HasSubstr("a fit's plot needs the best run's results beside its measured.csv"));
  EXPECT_THAT(log_, HasSubstr("best.csv"));
  testing::WriteFile(fit + "/best.csv", "time,vehicle.x\n0,0\n1,1\n");
  EXPECT_EQ(Plot({fit, "--out", dir_ + "/p.svg"}, "n4.log"), 2);
  EXPECT_THAT(log_, HasSubstr("the best run's results have no numeric column 'vehicle.v' "
                              "(measured column 'speed')"));
  EXPECT_EQ(Plot({fit, "--vars", "vehicle.x", "--out", dir_ + "/p.svg"}, "n5.log"), 2);
  EXPECT_THAT(log_, HasSubstr("are not for a fit's plot"));
}

}  // namespace
}  // namespace cosimo
