// Failures of FMU units: an FMU returning fmiXError, one that crashes, archives that must be
// refused, a binary that needs a library the machine lacks, calls out of order; and the FMU's
// logger reaching spdlog under the unit's name.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <csignal>
#include <sstream>

#include "spdlog/sinks/ostream_sink.h"
#include "spdlog/spdlog.h"
#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

using ::testing::HasSubstr;
using testing::Load;
using testing::SetNumber;
using testing::Spec;
using testing::StepOnce;

Eigen::MatrixXd NoForce() { return Eigen::MatrixXd::Zero(1, 1); }

// Captures spdlog output while alive (FMU instances clone the default logger when loaded).
class CapturedLog {
 public:
  CapturedLog() : previous_(spdlog::default_logger()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(stream_);
    sink->set_pattern("[%n] [%l] %v");
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
  }
  ~CapturedLog() { spdlog::set_default_logger(previous_); }
  std::string text() const { return stream_.str(); }

 private:
  std::shared_ptr<spdlog::logger> previous_;
  std::ostringstream stream_;
};

class FmuErrorStepTest : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(FmuErrorStepTest, DoStepErrorFailsTheStepNamingTheFunction) {
  const auto [fmu, function] = GetParam();
  CapturedLog log;
  auto unit = Load(Spec("err", fmu));
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  StepReply reply;
  int n = 0;
  for (; n < 10; ++n) {
    reply = StepOnce(*unit, 0.1, NoForce());
    if (reply.status != StepStatus::kOk) break;
  }
  EXPECT_EQ(n, 5);  // the steps up to t = 0.5 succeed, the one from 0.5 reaches fail_time
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  const std::string error = std::string("unit 'err': ") + function;
  EXPECT_THAT(reply.message, HasSubstr(error)) << reply.message;
  EXPECT_THAT(reply.message, HasSubstr("at t=0.5: msd: the step from t=0.5 reaches fail_time=0.5"));
  EXPECT_NEAR(reply.end_time, 0.5, 1e-12);
  // The FMU is not called again (only freed).
  const StepReply after = StepOnce(*unit, 0.1, NoForce());
  EXPECT_EQ(after.status, StepStatus::kFailed);
  EXPECT_THAT(after.message, HasSubstr("the FMU failed before"));
  EXPECT_TRUE(unit->Terminate().ok());
  // The FMU's own log line went to spdlog under the unit's name.
  EXPECT_THAT(log.text(), HasSubstr("[err] [error] [logStatusError] msd: the step from t=0.5"));
}

INSTANTIATE_TEST_SUITE_P(
    FmuVersions, FmuErrorStepTest,
    ::testing::Values(std::make_pair("fmi1_error", "fmiDoStep returned fmiError"),
                      std::make_pair("fmi2_error", "fmi2DoStep returned fmi2Error"),
                      std::make_pair("fmi3_error", "fmi3DoStep returned fmi3Error")));

TEST(FmuErrorsTest, FailTimeIsAParameter) {
  v1::Unit spec = Spec("err", "fmi2_error");
  SetNumber(&spec, "fail_time", 0.15);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  EXPECT_EQ(StepOnce(*unit, 0.1, NoForce()).status, StepStatus::kOk);
  const StepReply reply = StepOnce(*unit, 0.1, NoForce());
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  EXPECT_THAT(reply.message, HasSubstr("fmi2DoStep returned fmi2Error at t=0.1"));
}

void RunCrashingFmu() {
  auto unit = CreateFmuUnit(Spec("crash", "fmi2_crash"), testing::FmuPath("fmi2_crash"));
  if (!unit.ok() || !(*unit)->Initialize(0.0, 1.0).ok()) std::exit(3);
  for (int n = 0; n < 10; ++n) StepOnce(**unit, 0.1, NoForce());
  std::exit(0);
}

TEST(FmuErrorsDeathTest, CrashingFmuKillsItsProcess) {
  // The worker process dies with the FMU; the orchestrator's side is tested in integration.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(RunCrashingFmu(), ::testing::KilledBySignal(SIGSEGV), "");
}

TEST(FmuErrorsTest, MaliciousArchiveIsRefused) {
  for (const char* fmu : {"fmi2_evil", "fmi2_absolute", "fmi2_link"}) {
    auto unit = CreateFmuUnit(Spec("bad", fmu), testing::FmuPath(fmu));
    ASSERT_FALSE(unit.ok()) << fmu;
    EXPECT_THAT(std::string(unit.status().message()),
                HasSubstr(std::string("unit 'bad': FMU archive '") + testing::FmuPath(fmu)));
  }
  auto evil = CreateFmuUnit(Spec("bad", "fmi2_evil"), testing::FmuPath("fmi2_evil"));
  EXPECT_THAT(std::string(evil.status().message()), HasSubstr("entry '../evil'"));
}

TEST(FmuErrorsTest, MissingSharedLibraryIsNamed) {
  auto unit = CreateFmuUnit(Spec("dep", "fmi2_missing_dep"), testing::FmuPath("fmi2_missing_dep"));
  ASSERT_FALSE(unit.ok());
  EXPECT_THAT(std::string(unit.status().message()), HasSubstr("unit 'dep': cannot load"));
  EXPECT_THAT(std::string(unit.status().message()),
              HasSubstr("libcosimo_missing_dependency.so: cannot open shared object file"));
}

TEST(FmuErrorsTest, MissingArchive) {
  auto unit = CreateFmuUnit(Spec("gone", "nonexistent"), testing::FmuPath("nonexistent"));
  ASSERT_FALSE(unit.ok());
  EXPECT_THAT(std::string(unit.status().message()), HasSubstr("unit 'gone': FMU archive"));
}

TEST(FmuErrorsTest, CallsOutOfOrderAreRefusedByTheUnit) {
  auto unit = Load(Spec("msd", "fmi2_msd"));
  ASSERT_NE(unit, nullptr);
  StepReply reply = StepOnce(*unit, 0.1, NoForce());
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  EXPECT_THAT(reply.message, HasSubstr("not initialised"));
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  StepRequest request;
  request.time = 0.3;  // the unit is at 0
  request.step = 0.1;
  request.inputs.coefficients = NoForce();
  unit->Step(request, &reply);
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  EXPECT_THAT(reply.message, HasSubstr("step requested at t=0.3 but the unit is at t=0"));
  request.time = 0.0;
  request.inputs.coefficients = Eigen::MatrixXd::Zero(2, 1);
  unit->Step(request, &reply);
  EXPECT_THAT(reply.message, HasSubstr("step inputs have 2 rows for 1 inputs"));
}

}  // namespace
}  // namespace cosimo::units::fmu
