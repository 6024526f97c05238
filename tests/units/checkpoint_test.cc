// Checkpoints (issue 18): a host's state taken as bytes after some steps and loaded into a fresh
// host built from the same LoadUnit gives, step after step, the replies of the host that went
// on, bit for bit: built-in units under every solver (the multistep and adaptive ones carry a
// history), a unit in COSTARICA estimate mode, FMI 2 and FMI 3 Co-Simulation and Model
// Exchange FMUs. A unit that cannot serialise names itself and the capability it lacks.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cosimo/common/scenario.h"
#include "cosimo/units/unit_host.h"

namespace cosimo::units {
namespace {

v1::LoadUnit BuiltinLoad(const std::string& model, v1::Solver::Method method, double step,
                         v1::Unit::RollbackPolicy rollback = v1::Unit::AUTO) {
  v1::LoadUnit load;
  v1::Unit* unit = load.mutable_unit();
  unit->set_name("plant");
  unit->mutable_builtin()->set_model(model);
  unit->mutable_solver()->set_method(method);
  unit->mutable_solver()->set_step(step);
  unit->set_rollback(rollback);
  load.set_start_time(0.0);
  load.set_stop_time(10.0);
  return load;
}

v1::LoadUnit FmuLoad(const std::string& fmu, bool model_exchange = false) {
  v1::LoadUnit load;
  v1::Unit* unit = load.mutable_unit();
  unit->set_name("fmu");
  const std::string path = std::string(COSIMO_BINARY_DIR) + "/fmus/" + fmu + ".fmu";
  unit->mutable_fmu()->set_path(path);
  // A solver picks Model Exchange where the FMU offers both kinds.
  if (model_exchange) unit->mutable_solver()->set_method(v1::Solver::RK45);
  load.set_artifact_path(path);
  load.set_start_time(0.0);
  load.set_stop_time(10.0);
  return load;
}

std::unique_ptr<UnitHost> Started(const v1::LoadUnit& load) {
  absl::StatusOr<std::unique_ptr<UnitHost>> host = UnitHost::Create(load);
  EXPECT_TRUE(host.ok()) << host.status();
  if (!host.ok()) return nullptr;
  OutputsReply out;
  absl::Status s = (*host)->Initialize(0.0, &out);
  EXPECT_TRUE(s.ok()) << s;
  return *std::move(host);
}

// Inputs varying from step to step (so a restored input history would show), one per input.
StepRequest Request(const UnitHost& host, int n, double h, StepMode mode) {
  StepRequest request;
  request.time = 0.0;  // summed as a master sums its steps: n * h may differ in the last bit
  for (int k = 0; k < n; ++k) request.time += h;
  request.step = h;
  request.mode = mode;
  const auto m = static_cast<Eigen::Index>(host.description().inputs.size());
  request.inputs.coefficients.resize(m, 2);
  for (Eigen::Index i = 0; i < m; ++i) {
    request.inputs.coefficients(i, 0) = std::sin(0.7 * n + static_cast<double>(i));
    request.inputs.coefficients(i, 1) = 0.3 * std::cos(0.4 * n);
  }
  return request;
}

// Accepted steps n = first .. last - 1: FINAL steps, or (iterative) two tentative attempts and a
// commit, as an iterative master would ask.
std::vector<StepReply> Run(UnitHost& host, int first, int last, double h, bool iterative) {
  std::vector<StepReply> replies;
  for (int n = first; n < last; ++n) {
    StepReply reply;
    if (iterative) {
      StepRequest request = Request(host, n, h, StepMode::kTentative);
      host.Step(request, &reply);
      request.inputs.coefficients *= 1.01;
      host.Step(request, &reply);
      EXPECT_EQ(reply.status, StepStatus::kOk) << reply.message;
      host.Commit(&reply);
    } else {
      host.Step(Request(host, n, h, StepMode::kFinal), &reply);
    }
    EXPECT_EQ(reply.status, StepStatus::kOk) << reply.message;
    replies.push_back(reply);
  }
  return replies;
}

// Bitwise: == on doubles is what "bit for bit" asks of finite values.
void ExpectSameReplies(const std::vector<StepReply>& a, const std::vector<StepReply>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].end_time, b[k].end_time) << "step " << k;
    ASSERT_EQ(a[k].outputs.size(), b[k].outputs.size());
    for (Eigen::Index i = 0; i < a[k].outputs.size(); ++i) {
      EXPECT_EQ(a[k].outputs[i], b[k].outputs[i]) << "step " << k << " output " << i;
    }
    EXPECT_EQ(a[k].derivatives.size(), b[k].derivatives.size());
    for (Eigen::Index i = 0; i < std::min(a[k].derivatives.size(), b[k].derivatives.size()); ++i) {
      EXPECT_EQ(a[k].derivatives[i], b[k].derivatives[i]) << "step " << k << " derivative " << i;
    }
    EXPECT_EQ(a[k].recorded, b[k].recorded) << "step " << k;
    EXPECT_EQ(a[k].estimated, b[k].estimated) << "step " << k;
  }
}

// Steps 0..5, checkpoint, steps 5..12 on the original and on a fresh host from the checkpoint.
void ExpectResumesBitForBit(const v1::LoadUnit& load, double h, bool iterative = false,
                            const std::vector<std::string>& record = {}) {
  v1::LoadUnit with_record = load;
  for (const std::string& name : record) with_record.add_record(name);
  std::unique_ptr<UnitHost> original = Started(with_record);
  ASSERT_NE(original, nullptr);
  Run(*original, 0, 5, h, iterative);
  absl::StatusOr<std::string> bytes = original->Checkpoint();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  const std::vector<StepReply> expected = Run(*original, 5, 12, h, iterative);

  std::unique_ptr<UnitHost> resumed = Started(with_record);
  ASSERT_NE(resumed, nullptr);
  absl::Status s = resumed->RestoreCheckpoint(*bytes);
  ASSERT_TRUE(s.ok()) << s;
  ExpectSameReplies(expected, Run(*resumed, 5, 12, h, iterative));

  absl::StatusOr<UnitReport> a = original->Terminate();
  absl::StatusOr<UnitReport> b = resumed->Terminate();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->mode, b->mode);
  EXPECT_EQ(a->real_integrations, b->real_integrations);
  EXPECT_EQ(a->estimates, b->estimates);
}

class BuiltinCheckpointTest : public ::testing::TestWithParam<v1::Solver::Method> {};

TEST_P(BuiltinCheckpointTest, ResumesBitForBit) {
  ExpectResumesBitForBit(BuiltinLoad("mass_spring_damper", GetParam(), 0.013), 0.1, false,
                         {"x", "der(v)"});
}

TEST_P(BuiltinCheckpointTest, ResumesBitForBitUnderRollback) {
  ExpectResumesBitForBit(BuiltinLoad("mass_spring_damper", GetParam(), 0.013), 0.1, true);
}

INSTANTIATE_TEST_SUITE_P(Solvers, BuiltinCheckpointTest,
                         ::testing::Values(v1::Solver::EXPLICIT_EULER, v1::Solver::IMPLICIT_EULER,
                                           v1::Solver::RK4, v1::Solver::RK45,
                                           v1::Solver::CENTRAL_DIFFERENCE, v1::Solver::CVODE),
                         [](const auto& info) { return v1::Solver::Method_Name(info.param); });

TEST(CheckpointTest, ExactSolverResumesBitForBit) {
  v1::LoadUnit load = BuiltinLoad("linear_state_space", v1::Solver::EXACT, 0.0);
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(R"({"stop_time": 1,
    "units": [{"name": "plant", "builtin": {"model": "linear_state_space", "parameters":
      {"A": [0, 1, -4, -0.2], "B": [0, 1], "C": [1, 0], "D": [0], "x0": [1, 0]}}}],
    "algorithm": {"step_size": 0.1}})");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  *load.mutable_unit()->mutable_builtin() = scenario->units(0).builtin();
  ExpectResumesBitForBit(load, 0.1);
}

// COSTARICA (Algorithm 2): the host answers tentative steps with estimates and keeps the last
// real step's recorded values for them; both travel in the checkpoint.
TEST(CheckpointTest, EstimatedUnitResumesBitForBit) {
  v1::LoadUnit load = BuiltinLoad("mass_spring_damper", v1::Solver::RK45, 0.01, v1::Unit::FORBID);
  ExpectResumesBitForBit(load, 0.1, /*iterative=*/true, {"x"});
}

TEST(CheckpointTest, Fmi2CoSimulationResumesBitForBit) {
  ExpectResumesBitForBit(FmuLoad("fmi2_msd"), 0.1);
  ExpectResumesBitForBit(FmuLoad("fmi2_msd"), 0.1, /*iterative=*/true);
}

TEST(CheckpointTest, Fmi3CoSimulationResumesBitForBit) {
  ExpectResumesBitForBit(FmuLoad("fmi3_msd"), 0.1);
}

TEST(CheckpointTest, ModelExchangeResumesBitForBit) {
  ExpectResumesBitForBit(FmuLoad("fmi2_msd_me", /*model_exchange=*/true), 0.1);
  ExpectResumesBitForBit(FmuLoad("fmi3_msd", /*model_exchange=*/true), 0.1);
}

TEST(CheckpointTest, UnitThatCannotSerialiseNamesItselfAndTheCapability) {
  std::unique_ptr<UnitHost> host = Started(FmuLoad("fmi2_msd_nostate"));
  ASSERT_NE(host, nullptr);
  absl::StatusOr<std::string> bytes = host->Checkpoint();
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("unit 'fmu'"), std::string::npos) << bytes.status();
  EXPECT_NE(bytes.status().message().find("canGetAndSetFMUstate"), std::string::npos)
      << bytes.status();
}

TEST(CheckpointTest, RefusesBytesOfAnotherUnitAndAnOpenTentativeStep) {
  std::unique_ptr<UnitHost> table = Started(FmuLoad("fmi2_msd"));
  std::unique_ptr<UnitHost> plant =
      Started(BuiltinLoad("mass_spring_damper", v1::Solver::RK4, 0.01));
  ASSERT_NE(table, nullptr);
  ASSERT_NE(plant, nullptr);
  absl::StatusOr<std::string> bytes = table->Checkpoint();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::Status s = plant->RestoreCheckpoint(*bytes);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("unit 'plant'"), std::string::npos) << s;
  EXPECT_FALSE(plant->RestoreCheckpoint("garbage").ok());

  StepReply reply;
  plant->Step(Request(*plant, 0, 0.1, StepMode::kTentative), &reply);
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_EQ(plant->Checkpoint().status().code(), absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace cosimo::units
