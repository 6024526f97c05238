// UnitHost: the FINAL path, Algorithm 1 (rollback) and Algorithm 2 (COSTARICA) command
// semantics, on the built-in linear_state_space unit (x' = -x + u, y = x, exact solver) and a
// small fake unit for the capabilities the built-ins always have.
#include "cosimo/units/unit_host.h"

#include <gtest/gtest.h>

#include <cmath>

#include "cosimo/common/scenario.h"

namespace cosimo::units {
namespace {

v1::LoadUnit Load(const std::string& rollback) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({"start_time": 0, "stop_time": 10,
    "units": [{"name": "p", "builtin": {"model": "linear_state_space", "parameters":
      {"A": [-1], "B": [1], "C": [1], "D": [0], "x0": [1]}}, "rollback": ")" +
                                                     rollback + R"("}],
    "algorithm": {"step_size": 0.1}})");
  EXPECT_TRUE(s.ok()) << s.status();
  v1::LoadUnit load;
  *load.mutable_unit() = s->units(0);
  load.set_start_time(0);
  load.set_stop_time(10);
  return load;
}

StepRequest Request(double t, double h, StepMode mode, double u0, double u1 = 0.0) {
  StepRequest r;
  r.time = t;
  r.step = h;
  r.mode = mode;
  r.inputs.coefficients.resize(1, 2);
  r.inputs.coefficients << u0, u1;
  return r;
}

// x' = -x + u0 + u1 s, x(0) = x0: x(h) = x0 e^{-h} + u0 (1 - e^{-h}) + u1 (h - 1 + e^{-h}).
double Exact(double x0, double h, double u0, double u1) {
  const double e = std::exp(-h);
  return x0 * e + u0 * (1 - e) + u1 * (h - 1 + e);
}

std::unique_ptr<UnitHost> Host(const std::string& rollback) {
  absl::StatusOr<std::unique_ptr<UnitHost>> host = UnitHost::Create(Load(rollback));
  EXPECT_TRUE(host.ok()) << host.status();
  OutputsReply out;
  EXPECT_TRUE((*host)->Initialize(0.0, &out).ok());
  EXPECT_EQ(out.outputs[0], 1.0);
  return *std::move(host);
}

TEST(UnitHostTest, FinalStepsIntegrateAndReportDirect) {
  std::unique_ptr<UnitHost> host = Host("AUTO");
  EXPECT_EQ(host->iterative_mode(), IterativeMode::kRollback);
  StepReply reply;
  host->Step(Request(0.0, 0.5, StepMode::kFinal, 2.0), &reply);
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_NEAR(reply.outputs[0], Exact(1.0, 0.5, 2.0, 0.0), 1e-13);
  EXPECT_FALSE(reply.estimated);
  host->Step(Request(0.5, 0.5, StepMode::kFinal, 2.0), &reply);
  absl::StatusOr<UnitReport> report = host->Terminate();
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->mode, UnitMode::kDirect);
  EXPECT_EQ(report->real_integrations, 2u);
  EXPECT_EQ(report->estimates, 0u);
}

TEST(UnitHostTest, RollbackRestoresBeforeEveryTentativeStepAndOnReject) {
  std::unique_ptr<UnitHost> host = Host("AUTO");
  StepReply reply;
  for (double u : {5.0, -3.0, 2.0}) {  // each from the snapshot at t = 0
    host->Step(Request(0.0, 0.5, StepMode::kTentative, u), &reply);
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    EXPECT_NEAR(reply.outputs[0], Exact(1.0, 0.5, u, 0.0), 1e-13);
  }
  ASSERT_TRUE(host->Reject().ok());
  // A new attempt with another step size, again from t = 0.
  host->Step(Request(0.0, 0.25, StepMode::kTentative, 1.0, 4.0), &reply);
  EXPECT_NEAR(reply.outputs[0], Exact(1.0, 0.25, 1.0, 4.0), 1e-13);
  StepReply committed;
  host->Commit(&committed);
  ASSERT_EQ(committed.status, StepStatus::kOk) << committed.message;
  EXPECT_EQ(committed.outputs[0], reply.outputs[0]);
  // The next macro step starts from the committed state.
  host->Step(Request(0.25, 0.25, StepMode::kTentative, 0.0), &reply);
  EXPECT_NEAR(reply.outputs[0], Exact(Exact(1.0, 0.25, 1.0, 4.0), 0.25, 0.0, 0.0), 1e-13);
  host->Commit(&committed);
  absl::StatusOr<UnitReport> report = host->Terminate();
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->mode, UnitMode::kRollback);
  EXPECT_EQ(report->real_integrations, 5u);
  EXPECT_EQ(report->estimates, 0u);
}

TEST(UnitHostTest, CommitPreviousAcceptsTheLastTentativeStepBeforeStepping) {
  std::unique_ptr<UnitHost> host = Host("AUTO");
  StepReply reply;
  host->Step(Request(0.0, 0.5, StepMode::kTentative, 5.0), &reply);
  host->Step(Request(0.0, 0.5, StepMode::kTentative, 2.0), &reply);  // the accepted one
  const double x1 = Exact(1.0, 0.5, 2.0, 0.0);
  ASSERT_NEAR(reply.outputs[0], x1, 1e-13);
  StepRequest next = Request(0.5, 0.5, StepMode::kTentative, -1.0);
  next.commit_previous = true;
  host->Step(next, &reply);
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_NEAR(reply.outputs[0], Exact(x1, 0.5, -1.0, 0.0), 1e-13);
  // The snapshot is now at t = 0.5: a reject and a retry start from the committed state.
  ASSERT_TRUE(host->Reject().ok());
  host->Step(Request(0.5, 0.25, StepMode::kTentative, 3.0), &reply);
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_NEAR(reply.outputs[0], Exact(x1, 0.25, 3.0, 0.0), 1e-13);
  // A final step may carry it too.
  StepRequest final_step = Request(0.75, 0.25, StepMode::kFinal, 0.0);
  final_step.commit_previous = true;
  host->Step(final_step, &reply);
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  EXPECT_NEAR(reply.outputs[0], Exact(Exact(x1, 0.25, 3.0, 0.0), 0.25, 0.0, 0.0), 1e-13);
  absl::StatusOr<UnitReport> report = host->Terminate();
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->real_integrations, 5u);
}

TEST(UnitHostTest, CommitPreviousFailsWithoutATentativeStepOrOnAnEstimatedUnit) {
  std::unique_ptr<UnitHost> rollback = Host("AUTO");
  StepRequest r = Request(0.0, 0.5, StepMode::kTentative, 1.0);
  r.commit_previous = true;
  StepReply reply;
  rollback->Step(r, &reply);
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  EXPECT_NE(reply.message.find("no tentative step to commit"), std::string::npos) << reply.message;
  // Nor after a final step, which leaves nothing tentative.
  rollback->Step(Request(0.0, 0.5, StepMode::kFinal, 1.0), &reply);
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  r.time = 0.5;
  rollback->Step(r, &reply);
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  EXPECT_NE(reply.message.find("no tentative step to commit"), std::string::npos) << reply.message;

  std::unique_ptr<UnitHost> estimated = Host("FORBID");
  estimated->Step(Request(0.0, 0.5, StepMode::kTentative, 1.0), &reply);
  ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
  r.time = 0.5;
  estimated->Step(r, &reply);
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  EXPECT_NE(reply.message.find("'p' is estimated"), std::string::npos) << reply.message;
  EXPECT_NE(reply.message.find("Commit"), std::string::npos) << reply.message;
  // Nothing was integrated for it: the Commit still does the one real integration.
  StepReply committed;
  estimated->Commit(&committed);
  ASSERT_EQ(committed.status, StepStatus::kOk) << committed.message;
  EXPECT_NEAR(committed.outputs[0], Exact(1.0, 0.5, 1.0, 0.0), 1e-13);
}

TEST(UnitHostTest, ForbidEstimatesTentativeStepsAndIntegratesOnceOnCommit) {
  std::unique_ptr<UnitHost> host = Host("FORBID");
  EXPECT_EQ(host->iterative_mode(), IterativeMode::kEstimate);
  StepReply reply;
  for (double u : {5.0, -3.0, 2.0}) {
    host->Step(Request(0.0, 0.5, StepMode::kTentative, u, 1.0), &reply);
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    EXPECT_TRUE(reply.estimated);
    // Exact for a linear unit with polynomial inputs.
    EXPECT_NEAR(reply.outputs[0], Exact(1.0, 0.5, u, 1.0), 1e-13);
    // dy/dt = x' = -x + u(h).
    EXPECT_NEAR(reply.derivatives[0], -reply.outputs[0] + u + 0.5, 1e-12);
  }
  ASSERT_TRUE(host->Reject().ok());  // nothing to undo: time never moved
  host->Step(Request(0.0, 0.5, StepMode::kTentative, 2.0, 1.0), &reply);
  StepReply committed;
  host->Commit(&committed);
  ASSERT_EQ(committed.status, StepStatus::kOk) << committed.message;
  EXPECT_FALSE(committed.estimated);
  EXPECT_NEAR(committed.outputs[0], Exact(1.0, 0.5, 2.0, 1.0), 1e-13);
  absl::StatusOr<UnitReport> report = host->Terminate();
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->mode, UnitMode::kEstimate);
  EXPECT_EQ(report->real_integrations, 1u);
  EXPECT_EQ(report->estimates, 4u);
}

TEST(UnitHostTest, BadStepRequestFails) {
  std::unique_ptr<UnitHost> host = Host("AUTO");
  StepRequest r = Request(0.0, 0.5, StepMode::kFinal, 1.0);
  r.inputs.coefficients.resize(2, 1);
  StepReply reply;
  host->Step(r, &reply);
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  EXPECT_NE(reply.message.find("'p'"), std::string::npos) << reply.message;
  host->Commit(&reply);
  EXPECT_EQ(reply.status, StepStatus::kFailed);  // commit without a tentative step
}

// A unit without rollback, with configurable Jacobians and state derivatives.
class PlainUnit final : public Unit {
 public:
  PlainUnit(bool jacobians, bool xdot) : jacobians_(jacobians), xdot_(xdot) {
    description_.inputs = {{"u", Causality::kInput, "", ""}};
    description_.outputs = {{"y", Causality::kOutput, "", ""}};
    description_.capabilities.provides_jacobians = jacobians;
    description_.capabilities.provides_state_derivatives = xdot;
  }
  const UnitDescription& description() const override { return description_; }
  double time() const override { return t_; }
  absl::Status SetRecorded(const std::vector<std::string>&) override { return absl::OkStatus(); }
  absl::Status Initialize(double t, double) override {
    t_ = t;
    return absl::OkStatus();
  }
  absl::Status Evaluate(const Eigen::VectorXd&, OutputsReply* r) override {
    r->outputs = Eigen::VectorXd::Constant(1, x_);
    return absl::OkStatus();
  }
  // x' = 1 (a clock): x(t + h) = x + h.
  void Step(const StepRequest& r, StepReply* reply) override {
    x_ += r.step;
    t_ += r.step;
    reply->status = StepStatus::kOk;
    reply->end_time = t_;
    reply->outputs = Eigen::VectorXd::Constant(1, x_);
  }
  absl::StatusOr<Linearization> Linearize(const Eigen::VectorXd&) override {
    if (!jacobians_) return absl::UnimplementedError("this unit provides no Jacobians");
    Linearization lin;
    lin.x = Eigen::VectorXd::Constant(1, x_);
    if (xdot_) lin.xdot = Eigen::VectorXd::Ones(1);
    lin.y = lin.x;
    lin.A = Eigen::MatrixXd::Zero(1, 1);
    lin.B = Eigen::MatrixXd::Zero(1, 1);
    lin.C = Eigen::MatrixXd::Ones(1, 1);
    lin.D = Eigen::MatrixXd::Zero(1, 1);
    return lin;
  }

 private:
  bool jacobians_, xdot_;
  UnitDescription description_;
  double t_ = 0.0, x_ = 0.0;
};

std::unique_ptr<UnitHost> PlainHost(bool jacobians, bool xdot) {
  v1::LoadUnit load;
  load.mutable_unit()->set_name("plain");
  absl::StatusOr<std::unique_ptr<UnitHost>> host =
      UnitHost::Create(std::make_unique<PlainUnit>(jacobians, xdot), load);
  EXPECT_TRUE(host.ok()) << host.status();
  OutputsReply out;
  EXPECT_TRUE((*host)->Initialize(0.0, &out).ok());
  return *std::move(host);
}

TEST(UnitHostTest, DegradedEstimateWithoutStateDerivatives) {
  for (bool xdot : {true, false}) {
    std::unique_ptr<UnitHost> host = PlainHost(true, xdot);
    EXPECT_EQ(host->iterative_mode(), IterativeMode::kEstimate);
    StepReply reply;
    host->Step(Request(0.0, 0.5, StepMode::kTentative, 0.0), &reply);
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    // With xdot the control part f_C = 1 gives the clock exactly; degraded, the estimate
    // keeps x constant.
    EXPECT_NEAR(reply.outputs[0], xdot ? 0.5 : 0.0, 1e-15);
    host->Commit(&reply);
    EXPECT_NEAR(reply.outputs[0], 0.5, 1e-15);
    absl::StatusOr<UnitReport> report = host->Terminate();
    ASSERT_TRUE(report.ok());
    EXPECT_EQ(report->mode, xdot ? UnitMode::kEstimate : UnitMode::kEstimateDegraded);
  }
}

TEST(UnitHostTest, EstimateWithoutJacobiansFailsClearly) {
  std::unique_ptr<UnitHost> host = PlainHost(false, false);
  StepReply reply;
  host->Step(Request(0.0, 0.5, StepMode::kTentative, 0.0), &reply);
  EXPECT_EQ(reply.status, StepStatus::kFailed);
  EXPECT_NE(reply.message.find("'plain'"), std::string::npos) << reply.message;
  EXPECT_NE(reply.message.find("Jacobians"), std::string::npos) << reply.message;
  EXPECT_NE(reply.message.find("t=0"), std::string::npos) << reply.message;
}

}  // namespace
}  // namespace cosimo::units
