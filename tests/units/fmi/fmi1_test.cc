// FMI 1.0 FMU units (fmi1_instance.cc behind the Co-Simulation and Model Exchange units) against
// the analytic damped oscillator: fmi1_msd_cs and fmi1_msd_me, their aliases and negated aliases,
// what a unit without FMU state reports, and the errors of a failing FMI 1.0 call.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

using ::testing::HasSubstr;
using testing::Load;
using testing::Oscillator;
using testing::SetNumber;
using testing::Spec;
using testing::StepOnce;
using testing::UseSolver;

Eigen::MatrixXd Zoh(double f) { return Eigen::MatrixXd::Constant(1, 1, f); }

struct Kind {
  const char* fmu;
  bool me;
};

class Fmi1UnitTest : public ::testing::TestWithParam<Kind> {
 protected:
  v1::Unit UnitSpec() const {
    v1::Unit spec = Spec("msd", GetParam().fmu);
    if (GetParam().me) UseSolver(&spec, v1::Solver::RK4, 1e-3);
    return spec;
  }
};

TEST_P(Fmi1UnitTest, MatchesTheDampedOscillatorWithAForce) {
  auto unit = Load(UnitSpec());
  ASSERT_NE(unit, nullptr);
  const UnitDescription& d = unit->description();
  ASSERT_EQ(d.inputs.size(), 1u);
  EXPECT_EQ(d.inputs[0].name, "F");
  ASSERT_EQ(d.outputs.size(), 4u);  // x, v, steps, position
  EXPECT_EQ(d.outputs[0].name, "x");
  EXPECT_EQ(d.outputs[0].unit, "m");  // from its declaredType
  EXPECT_EQ(d.outputs[3].name, "position");
  // No FMU state in FMI 1.0: the unit cannot roll back (COSTARICA in iterative schemes), and
  // <DirectDependency/> says no output depends on F directly.
  EXPECT_FALSE(d.capabilities.can_rollback);
  EXPECT_FALSE(d.capabilities.output_reactive);
  EXPECT_EQ(d.capabilities.max_output_derivative_order, 0);
  auto save = unit->Save();
  ASSERT_FALSE(save.ok());
  if (!GetParam().me) {
    EXPECT_THAT(save.status().message(), HasSubstr("FMI 1.0 has no FMU state"));
  }

  ASSERT_TRUE(unit->SetRecorded({"neg_x", "neg_v", "undamped", "der(v)"}).ok());
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  const Oscillator osc;
  const double force = 0.5, h = 0.05;
  const double tolerance = GetParam().me ? 1e-7 : 1e-9;
  for (int n = 1; n <= 100; ++n) {
    const StepReply reply = StepOnce(*unit, h, Zoh(force));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    double x, v;
    osc.Solve(1.0, 0.0, force, 0.0, reply.end_time, &x, &v);
    EXPECT_NEAR(reply.end_time, n * h, 1e-12);
    EXPECT_NEAR(reply.outputs[0], x, tolerance) << "t=" << reply.end_time;
    EXPECT_NEAR(reply.outputs[1], v, tolerance) << "t=" << reply.end_time;
    EXPECT_EQ(reply.outputs[3], reply.outputs[0]);  // position: an alias of x
    ASSERT_EQ(reply.recorded.size(), 4u);
    EXPECT_EQ(reply.recorded[0], -reply.outputs[0]);  // neg_x
    EXPECT_EQ(reply.recorded[1], -reply.outputs[1]);  // neg_v
    EXPECT_EQ(reply.recorded[2], 0.0);                // undamped: not damping (true)
    EXPECT_NEAR(reply.recorded[3], force - x - 0.2 * v, 10 * tolerance);  // der(v)
  }
  EXPECT_TRUE(unit->Terminate().ok());
}

// Setting a negated alias sets its variable to the negation: undamped = true is damping = false,
// neg_x = -2 is x(0) = 2.
TEST_P(Fmi1UnitTest, NegatedAliasesAreSetNegated) {
  v1::Unit spec = UnitSpec();
  (*spec.mutable_parameters())["undamped"].set_bool_value(true);
  SetNumber(&spec, "neg_x", -2.0);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  const double h = 0.1;
  for (int n = 1; n <= 50; ++n) {
    const StepReply reply = StepOnce(*unit, h, Zoh(0.0));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    EXPECT_NEAR(reply.outputs[0], 2.0 * std::cos(reply.end_time), 1e-7) << reply.end_time;
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, Fmi1UnitTest,
                         ::testing::Values(Kind{"fmi1_msd_cs", false}, Kind{"fmi1_msd_me", true}),
                         [](const auto& info) { return info.param.me ? "ME" : "CS"; });

// (A failing FMI 1.0 call: fmu_errors_test.cc.) Checkpoints need an FMU state, which FMI 1.0
// does not have: restoring one is refused naming why.
TEST(Fmi1UnitErrorsTest, CheckpointsAreRefused) {
  auto unit = Load(Spec("msd", "fmi1_msd_cs"));
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 10.0).ok());
  auto snapshot = unit->Deserialize("");
  ASSERT_FALSE(snapshot.ok());
  EXPECT_THAT(snapshot.status().message(),
              HasSubstr("unit 'msd': cannot be checkpointed: FMI 1.0 has no FMU state"));
}

// FMI 1.0 functions are exported as <modelIdentifier>_fmi<Name>: fmi1_msd_cs's binary under the
// modelIdentifier "renamed" (binaries/linux64/renamed.so) exports none of renamed_fmiGetReal...,
// and the error names them, prefix included.
TEST(Fmi1UnitErrorsTest, FunctionsAreResolvedByTheirPrefixedNames) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("fmi1_renamed_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "binaries" / "linux64");
  const fs::path built = fs::path(COSIMO_BINARY_DIR) / "tests" / "fmus" / "fmi1_msd_cs";
  fs::copy_file(built / "binaries" / "fmi1_msd_cs.so", dir / "binaries" / "linux64" / "renamed.so");
  std::stringstream xml;
  xml << std::ifstream(built / "modelDescription.xml").rdbuf();
  std::string text = xml.str();
  const std::string identifier = "modelIdentifier=\"fmi1_msd_cs\"";
  ASSERT_NE(text.find(identifier), std::string::npos);
  text.replace(text.find(identifier), identifier.size(), "modelIdentifier=\"renamed\"");
  std::ofstream(dir / "modelDescription.xml") << text;
  const std::string zip = "cd " + dir.string() +
                          " && zip -q -r renamed.fmu modelDescription.xml binaries > zip.log 2>&1";
  ASSERT_EQ(std::system(zip.c_str()), 0);
  v1::Unit spec;
  spec.set_name("renamed");
  auto unit = CreateFmuUnit(spec, (dir / "renamed.fmu").string());
  ASSERT_FALSE(unit.ok());
  EXPECT_THAT(unit.status().message(),
              HasSubstr("unit 'renamed': binaries/linux64/renamed.so does not export "
                        "renamed_fmiGetReal, renamed_fmiGetInteger"));
  EXPECT_THAT(unit.status().message(), HasSubstr("renamed_fmiDoStep"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cosimo::units::fmu
