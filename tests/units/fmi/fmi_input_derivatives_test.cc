// FMI 2 Co-Simulation input derivatives beyond the first order: the probe FMU (x' = u, with
// canInterpolateInputs and maxOutputDerivativeOrder 2) integrates a quadratic input given as a
// polynomial on each step. With the second derivative set it follows the input exactly (RK4 is
// Simpson's rule for x' = u(t), exact for quadratics); cut after the first order it does not.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

using testing::Load;
using testing::Spec;
using testing::StepOnce;

// u(t) = 1 + 2 t + 3 t^2 and its integral from 0 (x(0) = 0).
double U(double t) { return 1.0 + 2.0 * t + 3.0 * t * t; }
double X(double t) { return t + t * t + t * t * t; }

// The Taylor polynomial of u at t in s = t' - t, cut after s^(columns - 1).
Eigen::MatrixXd InputAt(double t, int columns) {
  Eigen::MatrixXd poly(1, columns);
  const double coefficients[3] = {U(t), 2.0 + 6.0 * t, 3.0};
  for (int k = 0; k < columns; ++k) poly(0, k) = coefficients[k];
  return poly;
}

// Steps [0, 1] with h = 0.1; returns the largest error of x against the analytic integral.
double LargestError(Unit& unit, int columns) {
  double worst = 0.0;
  for (int n = 0; n < 10; ++n) {
    const StepReply reply = StepOnce(unit, 0.1, InputAt(unit.time(), columns));
    EXPECT_EQ(reply.status, StepStatus::kOk) << reply.message;
    worst = std::max(worst, std::abs(reply.outputs[0] - X(reply.end_time)));
  }
  return worst;
}

TEST(FmiInputDerivativesTest, TheOrderFollowsMaxOutputDerivativeOrder) {
  auto fmi2 = Load(Spec("p", "fmi2_probe"));
  ASSERT_NE(fmi2, nullptr);
  EXPECT_EQ(fmi2->description().capabilities.max_input_order, 2);
  auto msd = Load(Spec("m", "fmi2_msd"));  // maxOutputDerivativeOrder 1
  ASSERT_NE(msd, nullptr);
  EXPECT_EQ(msd->description().capabilities.max_input_order, 1);
  auto fmi3 = Load(Spec("p", "fmi3_probe"));  // FMI 3 has no input derivatives
  ASSERT_NE(fmi3, nullptr);
  EXPECT_EQ(fmi3->description().capabilities.max_input_order, 0);
}

TEST(FmiInputDerivativesTest, SecondOrderFollowsAQuadraticInputExactly) {
  auto unit = Load(Spec("p", "fmi2_probe"));
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  EXPECT_LT(LargestError(*unit, 3), 1e-12);
}

TEST(FmiInputDerivativesTest, FirstOrderAloneMissesTheQuadraticTerm) {
  // The same input cut after s: each step misses the integral of 3 s^2, h^3 = 1e-3, so x is
  // 1e-2 short at t = 1. This is what the second derivative above is for.
  auto unit = Load(Spec("p", "fmi2_probe"));
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  EXPECT_NEAR(LargestError(*unit, 2), 10 * std::pow(0.1, 3), 1e-12);
}

TEST(FmiInputDerivativesTest, AHoldAfterAQuadraticClearsTheSecondDerivative) {
  auto unit = Load(Spec("p", "fmi2_probe"));
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  auto snapshot = unit->Save();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  const StepReply quadratic = StepOnce(*unit, 0.5, InputAt(0.0, 3));
  ASSERT_EQ(quadratic.status, StepStatus::kOk) << quadratic.message;
  EXPECT_NEAR(quadratic.outputs[0], X(0.5), 1e-12);
  const StepReply hold = StepOnce(*unit, 0.5, Eigen::MatrixXd::Constant(1, 1, 2.0));
  ASSERT_EQ(hold.status, StepStatus::kOk) << hold.message;
  EXPECT_NEAR(hold.outputs[0], X(0.5) + 2.0 * 0.5, 1e-12);
  // From a state saved before any derivative was set, a hold is a hold too.
  ASSERT_TRUE(unit->Restore(**snapshot).ok());
  const StepReply again = StepOnce(*unit, 0.5, Eigen::MatrixXd::Constant(1, 1, 2.0));
  EXPECT_NEAR(again.outputs[0], 2.0 * 0.5, 1e-12);
}

}  // namespace
}  // namespace cosimo::units::fmu
