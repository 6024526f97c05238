// FMI 3 triggered input clocks of a Model Exchange unit (issue 43): fmi3_clock_receiver (no
// continuous state) with a solver, so in Model Exchange, its inputs trigger and u (clocked by
// trigger) connected. A step whose inputs give trigger 1 starts with the tick (docs/fmi.md,
// "Clocks"): received counts it, t_received is the step's start, u_seen the u given there. A
// step with trigger 0 changes nothing and sets no u (the FMU fails a set of u while trigger is
// not active, so an importer that sets it anyway fails the step).
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/units/fmi/fmi_test_util.h"

namespace cosimo::units::fmu {
namespace {

using testing::Load;
using testing::Spec;
using testing::StepOnce;
using testing::UseSolver;

int Position(const std::vector<VariableInfo>& variables, const std::string& name) {
  for (size_t k = 0; k < variables.size(); ++k) {
    if (variables[k].name == name) return static_cast<int>(k);
  }
  ADD_FAILURE() << "no variable '" << name << "'";
  return 0;
}

class MeClockReceiver {
 public:
  MeClockReceiver() {
    v1::Unit spec = Spec("b", "fmi3_clock_receiver");
    UseSolver(&spec, v1::Solver::RK4, 0.01);  // both kinds offered: a solver selects ME
    unit_ = Load(spec);
    if (unit_ == nullptr) return;
    const UnitDescription& d = unit_->description();
    trigger_ = Position(d.inputs, "trigger");
    u_ = Position(d.inputs, "u");
    received_ = Position(d.outputs, "received");
    t_received_ = Position(d.outputs, "t_received");
    u_seen_ = Position(d.outputs, "u_seen");
  }

  Unit* unit() { return unit_.get(); }

  // A step of h with trigger `tick` and u `u` held over it; expects success.
  StepReply Step(double h, bool tick, int u) {
    Eigen::MatrixXd inputs = Eigen::MatrixXd::Zero(2, 1);
    inputs(trigger_, 0) = tick ? 1.0 : 0.0;
    inputs(u_, 0) = u;
    const StepReply reply = StepOnce(*unit_, h, inputs);
    EXPECT_EQ(reply.status, StepStatus::kOk) << reply.message;
    return reply;
  }

  // Checks received, t_received and u_seen in `reply`.
  void Expect(const StepReply& reply, int received, double t_received, int u_seen) const {
    ASSERT_EQ(reply.outputs.size(), 3);
    EXPECT_EQ(reply.outputs[received_], received) << "t=" << reply.end_time;
    EXPECT_EQ(reply.outputs[t_received_], t_received) << "t=" << reply.end_time;
    EXPECT_EQ(reply.outputs[u_seen_], u_seen) << "t=" << reply.end_time;
  }

 private:
  std::unique_ptr<Unit> unit_;
  int trigger_ = 0, u_ = 0, received_ = 0, t_received_ = 0, u_seen_ = 0;
};

TEST(Fmi3ClockInputsTest, ATriggeredInputClockTicksAtTheStartOfAModelExchangeStep) {
  MeClockReceiver b;
  ASSERT_NE(b.unit(), nullptr);
  ASSERT_TRUE(b.unit()->Initialize(0.0, 1.0).ok());
  b.Expect(b.Step(0.25, false, 7), 0, -1.0, 0);  // [0, 0.25]: no tick, u not set
  b.Expect(b.Step(0.25, true, 7), 1, 0.25, 7);   // [0.25, 0.5]: the tick at 0.25
  b.Expect(b.Step(0.25, false, 9), 1, 0.25, 7);  // no tick: u_seen keeps the tick's u
  b.Expect(b.Step(0.25, true, 3), 2, 0.75, 3);
}

// A step redone from its snapshot (the FMU state and the clocks' schedule) ticks once, and a
// snapshot serialised and read back (a checkpoint) does the same.
TEST(Fmi3ClockInputsTest, AStepRedoneFromItsSnapshotTicksOnce) {
  MeClockReceiver b;
  ASSERT_NE(b.unit(), nullptr);
  ASSERT_TRUE(b.unit()->Initialize(0.0, 1.0).ok());
  b.Expect(b.Step(0.1, true, 4), 1, 0.0, 4);
  auto snapshot = b.unit()->Save();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status();
  b.Expect(b.Step(0.1, true, 5), 2, 0.1, 5);
  ASSERT_TRUE(b.unit()->Restore(**snapshot).ok());
  b.Expect(b.Step(0.1, true, 6), 2, 0.1, 6);  // 2, not 3: the first try is undone
  ASSERT_TRUE(b.unit()->Restore(**snapshot).ok());
  b.Expect(b.Step(0.1, false, 6), 1, 0.0, 4);  // and without the tick, nothing new

  absl::StatusOr<std::string> bytes = b.unit()->Serialize(**snapshot);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto read = b.unit()->Deserialize(*bytes);
  ASSERT_TRUE(read.ok()) << read.status();
  ASSERT_TRUE(b.unit()->Restore(**read).ok());
  EXPECT_EQ(b.unit()->time(), 0.1);
  b.Expect(b.Step(0.1, true, 8), 2, 0.1, 8);
}

}  // namespace
}  // namespace cosimo::units::fmu
