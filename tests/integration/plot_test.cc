// `cosimo plot` through the real command line: a results CSV with its metadata to SVG and PNG,
// and its usage errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace cosimo
