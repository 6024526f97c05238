// Built-in model factories and CreateSolver: bad input is reported clearly (unknown model with
// the known ones, missing or wrong-size parameters, unknown parameters, unknown solver, step
// <= 0), and the split models agree with the monolithic ones.
#include "units/src/models/builtin_models.h"

#include <gtest/gtest.h>

#include "cosimo/common/scenario.h"
#include "tests/units/solvers/test_systems.h"
#include "units/src/solvers/solver.h"

namespace cosimo::units {
namespace {

using testing::BuiltinSpec;
using testing::SetList;
using testing::SetNumber;

std::string ErrorOf(const v1::Unit& spec) {
  absl::StatusOr<std::unique_ptr<Unit>> unit = CreateBuiltinUnit(spec);
  EXPECT_FALSE(unit.ok());
  return unit.ok() ? "" : std::string(unit.status().message());
}

#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST(BuiltinModelsTest, EveryListedModelBuildsWithDefaults) {
  const std::vector<std::string> names = BuiltinModelNamesList();
  EXPECT_GE(names.size(), 13u);
  for (const std::string& name : names) {
    v1::Unit spec = BuiltinSpec("u", name);
    if (name == "linear_state_space") SetList(&spec, "A", {-1});
    absl::StatusOr<std::unique_ptr<Unit>> unit = CreateBuiltinUnit(spec);
    EXPECT_TRUE(unit.ok()) << name << ": " << unit.status();
  }
}

TEST(BuiltinModelsTest, UnknownModelListsTheKnownOnes) {
  const std::string error = ErrorOf(BuiltinSpec("plant", "spaceship"));
  EXPECT_CONTAINS(error, "unit 'plant'");
  EXPECT_CONTAINS(error, "'spaceship'");
  EXPECT_CONTAINS(error, "car_controller");
  EXPECT_CONTAINS(error, "linear_state_space");
}

TEST(BuiltinModelsTest, MissingParameter) {
  const std::string error = ErrorOf(BuiltinSpec("plant", "linear_state_space"));
  EXPECT_CONTAINS(error, "unit 'plant'");
  EXPECT_CONTAINS(error, "'A' is required");
}

TEST(BuiltinModelsTest, WrongSizeMatrices) {
  {
    v1::Unit spec = BuiltinSpec("plant", "linear_state_space");
    SetList(&spec, "A", {0, 1, -1});
    EXPECT_CONTAINS(ErrorOf(spec), "'A' has 3 values; it must be square");
  }
  {
    v1::Unit spec = BuiltinSpec("plant", "linear_state_space");
    SetList(&spec, "A", {0, 1, -1, -1});
    SetList(&spec, "B", {0, 1, 2});
    EXPECT_CONTAINS(ErrorOf(spec), "'B' has 3 values");
  }
  {
    v1::Unit spec = BuiltinSpec("plant", "linear_state_space");
    SetList(&spec, "A", {0, 1, -1, -1});
    SetList(&spec, "C", {1, 0, 0});
    EXPECT_CONTAINS(ErrorOf(spec), "'C' has 3 values");
  }
  {
    v1::Unit spec = BuiltinSpec("plant", "linear_state_space");
    SetList(&spec, "A", {0, 1, -1, -1});
    SetList(&spec, "B", {0, 1});
    SetList(&spec, "C", {1, 0, 0, 1});
    SetList(&spec, "D", {0, 0, 0});
    EXPECT_CONTAINS(ErrorOf(spec), "'D' has 3 values; with 2 outputs and 1 inputs it needs 2");
  }
  {
    v1::Unit spec = BuiltinSpec("plant", "linear_state_space");
    SetList(&spec, "A", {0, 1, -1, -1});
    SetList(&spec, "x0", {1, 0, 0});
    EXPECT_CONTAINS(ErrorOf(spec), "'x0' has 3 values; A has 2 states");
  }
}

TEST(BuiltinModelsTest, StateSpaceDimensionsAreInferred) {
  v1::Unit spec = BuiltinSpec("plant", "linear_state_space");
  SetList(&spec, "A", {0, 1, -1, -1});
  SetList(&spec, "B", {0, 0, 1, 1});  // 2 inputs
  SetList(&spec, "C", {1, 0});        // 1 output
  absl::StatusOr<std::unique_ptr<Unit>> unit = CreateBuiltinUnit(spec);
  ASSERT_TRUE(unit.ok()) << unit.status();
  EXPECT_EQ((*unit)->description().inputs.size(), 2u);
  EXPECT_EQ((*unit)->description().outputs.size(), 1u);
  EXPECT_FALSE((*unit)->description().capabilities.output_reactive);
}

TEST(BuiltinModelsTest, UnknownAndInvalidParameters) {
  v1::Unit spec = BuiltinSpec("car", "car");
  SetNumber(&spec, "mass", 1000);
  std::string error = ErrorOf(spec);
  EXPECT_CONTAINS(error, "unknown parameter 'mass'");
  EXPECT_CONTAINS(error, "v_d");
  v1::Unit negative = BuiltinSpec("car", "car_vehicle");
  SetNumber(&negative, "m", -1);
  EXPECT_CONTAINS(ErrorOf(negative), "'m' must be > 0");
  v1::Unit text = BuiltinSpec("car", "car");
  (*text.mutable_builtin()->mutable_parameters())["k"].set_string_value("fast");
  EXPECT_CONTAINS(ErrorOf(text), "'k' must be a number");
}

TEST(BuiltinModelsTest, SolverErrors) {
  {
    v1::Unit spec = BuiltinSpec("car", "car");
    spec.mutable_solver()->set_method(static_cast<v1::Solver::Method>(42));
    const std::string error = ErrorOf(spec);
    EXPECT_CONTAINS(error, "unit 'car'");
    EXPECT_CONTAINS(error, "solver.method 42");
    EXPECT_CONTAINS(error, "RK45");
  }
  for (double step : {0.0, -0.1}) {
    const std::string error = ErrorOf(BuiltinSpec("car", "car", v1::Solver::RK4, step));
    EXPECT_CONTAINS(error, "unit 'car'");
    EXPECT_CONTAINS(error, "solver.step must be > 0 for RK4");
  }
  EXPECT_CONTAINS(ErrorOf(BuiltinSpec("car", "car", v1::Solver::RK45, -1.0)),
                  "solver.step must be > 0");
  // RK45 and CVODE pick their own initial step when step is 0.
  EXPECT_TRUE(CreateBuiltinUnit(BuiltinSpec("car", "car", v1::Solver::RK45, 0.0)).ok());
  EXPECT_TRUE(CreateBuiltinUnit(BuiltinSpec("car", "car", v1::Solver::CVODE, 0.0)).ok());
  // The two-step scheme needs [positions; velocities].
  EXPECT_CONTAINS(ErrorOf(BuiltinSpec("car", "car", v1::Solver::CENTRAL_DIFFERENCE, 0.1)),
                  "CENTRAL_DIFFERENCE needs a second-order model");
  EXPECT_TRUE(
      CreateBuiltinUnit(BuiltinSpec("p", "passenger", v1::Solver::CENTRAL_DIFFERENCE, 1e-3)).ok());
  // EXACT needs a linear time-invariant model.
  testing::PendulumModel pendulum;
  v1::Solver exact;
  exact.set_method(v1::Solver::EXACT);
  absl::StatusOr<std::unique_ptr<Solver>> solver = CreateSolver(exact, pendulum, "pendulum");
  ASSERT_FALSE(solver.ok());
  EXPECT_CONTAINS(solver.status().message(), "EXACT needs a linear time-invariant model");
  v1::Solver tolerance;
  tolerance.set_method(v1::Solver::RK45);
  tolerance.set_tolerance(-1);
  EXPECT_FALSE(CreateSolver(tolerance, pendulum, "pendulum").ok());
}

// The split models' Jacobians assemble into the monolithic one: closing the loop u = y of the
// parts gives the monolithic A.
TEST(BuiltinModelsTest, DualMassSplitAssemblesToTheMonolithicModel) {
  auto linearize = [](const std::string& model, int inputs) {
    absl::StatusOr<std::unique_ptr<Unit>> unit = CreateBuiltinUnit(BuiltinSpec("u", model));
    EXPECT_TRUE(unit.ok());
    EXPECT_TRUE((*unit)->Initialize(0, 1).ok());
    absl::StatusOr<Linearization> lin = (*unit)->Linearize(Eigen::VectorXd::Zero(inputs));
    EXPECT_TRUE(lin.ok());
    return *lin;
  };
  const Linearization whole = linearize("dual_mass_oscillator", 0);
  const Linearization one = linearize("dual_mass_oscillator_1", 1);  // u = F_c; y = x1, v1
  const Linearization two = linearize("dual_mass_oscillator_2", 2);  // u = x1, v1; y = x2, v2, F_c
  // States [x1, v1, x2, v2] of the parts; F_c = C2(2,:) [x2 v2] + D2(2,:) [x1 v1].
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(4, 4);
  a.topLeftCorner(2, 2) = one.A + one.B * two.D.row(2) * one.C;
  a.block(0, 2, 2, 2) = one.B * two.C.row(2);
  a.block(2, 0, 2, 2) = two.B * one.C;
  a.bottomRightCorner(2, 2) = two.A;
  // Monolithic states are [x1, x2, v1, v2]: permute.
  Eigen::PermutationMatrix<4> perm;
  perm.indices() << 0, 2, 1, 3;  // part index -> whole index
  const Eigen::MatrixXd whole_in_part_order = perm.transpose() * whole.A * perm;
  EXPECT_LT((a - whole_in_part_order).norm(), 1e-12) << a << "\n\n" << whole_in_part_order;
}

}  // namespace
}  // namespace cosimo::units

namespace cosimo::units {
namespace {

// The built-in units of the shipped examples load (names and parameters as the examples use).
TEST(BuiltinModelsTest, ExampleScenariosLoad) {
  for (const char* name : {"car.json", "oscillator.json"}) {
    const std::string path = std::string(COSIMO_SOURCE_DIR) + "/examples/" + name;
    absl::StatusOr<v1::Scenario> scenario = LoadScenarioFile(path);
    ASSERT_TRUE(scenario.ok()) << scenario.status();
    for (const v1::Unit& unit : scenario->units()) {
      if (!unit.has_builtin()) continue;
      absl::StatusOr<std::unique_ptr<Unit>> built = CreateBuiltinUnit(unit);
      EXPECT_TRUE(built.ok()) << name << ": " << built.status();
    }
  }
}

}  // namespace
}  // namespace cosimo::units
