// FMI 3 Co-Simulation in event mode: fmi3_bouncing_ball_events (hasEventMode) returns early from
// fmi3DoStep at its events and leaves them to the importer. The unit handles each in Event
// Mode and completes the communication step in substeps; the results are compared with the
// analytic trajectory of the ball.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

using testing::Load;
using testing::SetNumber;
using testing::Spec;
using testing::StepOnce;

constexpr double kG = 9.81;  // m/s2, the FMU's default g

TEST(Fmi3EventModeTest, ATimeEventInsideAStepIsHandledAndTheStepCompleted) {
  // Falling from h = 1 m at rest; at t_kick = 0.25 s (inside the step [0.2, 0.3]) v gains
  // dv_kick = 5 m/s. Without the event the ball would not come back above 0.41 m.
  const double t_kick = 0.25, dv = 5.0;
  v1::Unit spec = Spec("ball", "fmi3_bouncing_ball_events");
  SetNumber(&spec, "t_kick", t_kick);
  SetNumber(&spec, "dv_kick", dv);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->SetRecorded({"kicked"}).ok());
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  const double h_kick = 1.0 - 0.5 * kG * t_kick * t_kick, v_kick = -kG * t_kick + dv;
  for (int n = 1; n <= 6; ++n) {
    const StepReply reply = StepOnce(*unit, 0.1, Eigen::MatrixXd(0, 1));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    const double t = reply.end_time;
    EXPECT_NEAR(t, 0.1 * n, 1e-12);  // the master's step, not the early return's
    const double tau = t - t_kick;
    const double h =
        t < t_kick ? 1.0 - 0.5 * kG * t * t : h_kick + v_kick * tau - 0.5 * kG * tau * tau;
    const double v = t < t_kick ? -kG * t : v_kick - kG * tau;
    EXPECT_NEAR(reply.outputs[0], h, 1e-9) << "t=" << t;
    EXPECT_NEAR(reply.outputs[1], v, 1e-9) << "t=" << t;
    ASSERT_EQ(reply.recorded.size(), 1u);
    EXPECT_EQ(reply.recorded[0], t > t_kick ? 1.0 : 0.0) << "t=" << t;
  }
}

TEST(Fmi3EventModeTest, AStateEventBouncesTheBall) {
  // No kick: the ball reaches h = 0 at sqrt(2 / g) = 0.4515 s and leaves with e = 0.7 times
  // its speed. The FMU locates the crossing at the end of an internal step of 0.1 ms, so the
  // trajectory after the bounce is within about v * 1e-4 of the analytic one.
  auto unit = Load(Spec("ball", "fmi3_bouncing_ball_events"));
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  const double t_bounce = std::sqrt(2.0 / kG), v_up = 0.7 * kG * t_bounce;
  StepReply reply;
  for (int n = 1; n <= 8; ++n) {
    reply = StepOnce(*unit, 0.125, Eigen::MatrixXd(0, 1));
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  }
  const double tau = 1.0 - t_bounce;
  EXPECT_NEAR(reply.end_time, 1.0, 1e-12);
  EXPECT_NEAR(reply.outputs[0], v_up * tau - 0.5 * kG * tau * tau, 2e-3);
  EXPECT_NEAR(reply.outputs[1], v_up - kG * tau, 2e-3);
  EXPECT_EQ(reply.outputs[3], 1);                 // bounces
  EXPECT_NEAR(reply.outputs[2], t_bounce, 2e-4);  // t_last_bounce
}

TEST(Fmi3EventModeTest, RollsBackAcrossAnEvent) {
  v1::Unit spec = Spec("ball", "fmi3_bouncing_ball_events");
  SetNumber(&spec, "t_kick", 0.25);
  SetNumber(&spec, "dv_kick", 5.0);
  auto unit = Load(spec);
  ASSERT_NE(unit, nullptr);
  ASSERT_TRUE(unit->Initialize(0.0, 1.0).ok());
  ASSERT_EQ(StepOnce(*unit, 0.2, Eigen::MatrixXd(0, 1)).status, StepStatus::kOk);
  auto snapshot = unit->Save();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  const StepReply first = StepOnce(*unit, 0.1, Eigen::MatrixXd(0, 1));
  ASSERT_EQ(first.status, StepStatus::kOk) << first.message;
  ASSERT_TRUE(unit->Restore(**snapshot).ok());
  const StepReply again = StepOnce(*unit, 0.1, Eigen::MatrixXd(0, 1));
  ASSERT_EQ(again.status, StepStatus::kOk) << again.message;
  EXPECT_EQ(again.outputs[0], first.outputs[0]);
  EXPECT_EQ(again.outputs[1], first.outputs[1]);
}

}  // namespace
}  // namespace cosimo::units::fmu
