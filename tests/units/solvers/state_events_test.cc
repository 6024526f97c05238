// State-event location (units/src/solvers/state_events.h): the bisection brackets a known
// crossing time to its tolerance, and stops when the integration does.
#include "units/src/solvers/state_events.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cosimo::units {
namespace {

// z(t) = cos(t), an exact "integration": the first crossing after 1 is pi / 2.
absl::Status Cosine(double t, Eigen::VectorXd* x, std::vector<double>* z, bool* stopped) {
  *x = Eigen::VectorXd::Constant(1, std::cos(t));
  *z = {std::cos(t)};
  *stopped = false;
  return absl::OkStatus();
}

TEST(StateEventsTest, CrossedSeesASignChangeAndLeavingZero) {
  EXPECT_TRUE(Crossed({1.0}, {-1.0}));
  EXPECT_TRUE(Crossed({-1.0}, {0.0}));
  EXPECT_FALSE(Crossed({0.0}, {1.0}));
  EXPECT_FALSE(Crossed({1.0, -2.0}, {0.5, -1.0}));
}

TEST(StateEventsTest, BisectionBracketsTheCrossingToItsTolerance) {
  double hi = 2.0;
  Eigen::VectorXd x_hi = Eigen::VectorXd::Constant(1, std::cos(2.0));
  std::vector<double> z_hi = {std::cos(2.0)};
  bool stopped = true;
  ASSERT_TRUE(LocateStateEvent(Cosine, {std::cos(1.0)}, 1.0, &hi, &x_hi, &z_hi, &stopped).ok());
  EXPECT_FALSE(stopped);
  const double crossing = M_PI / 2;
  EXPECT_GE(hi, crossing);                // the end after the crossing
  EXPECT_LE(hi - crossing, 2.1e-10 * 2);  // within the tolerance (1e-10 relative of 2)
  EXPECT_LE(z_hi[0], 0.0);
  EXPECT_DOUBLE_EQ(x_hi[0], std::cos(hi));
}

TEST(StateEventsTest, AStoppedIntegrationEndsTheLocation) {
  int calls = 0;
  const IntegrateTo refuse = [&](double, Eigen::VectorXd*, std::vector<double>*, bool* stopped) {
    ++calls;
    *stopped = true;
    return absl::OkStatus();
  };
  double hi = 2.0;
  Eigen::VectorXd x_hi(1);
  std::vector<double> z_hi = {-1.0};
  bool stopped = false;
  ASSERT_TRUE(LocateStateEvent(refuse, {1.0}, 1.0, &hi, &x_hi, &z_hi, &stopped).ok());
  EXPECT_TRUE(stopped);
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace cosimo::units
