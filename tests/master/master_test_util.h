// Helpers for the master algorithm tests: run a scenario in-process (one LocalUnit per unit,
// loaded as a worker would load it), read result columns, and a configurable fake unit hosted
// by a real UnitHost behind the UnitProxy interface.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/common/scenario.h"
#include "cosimo/master/local_unit.h"
#include "cosimo/master/master.h"
#include "cosimo/units/unit_host.h"

namespace cosimo::master::testing {

inline v1::LoadUnit LoadFor(const v1::Scenario& scenario, int u) {
  return LoadUnitFor(scenario, u, "test");
}

struct LocalJob {
  std::vector<std::unique_ptr<UnitProxy>> owned;
  std::vector<UnitProxy*> units;
  void Add(std::unique_ptr<UnitProxy> unit) {
    units.push_back(unit.get());
    owned.push_back(std::move(unit));
  }
};

inline absl::StatusOr<MasterResult> RunScenario(const v1::Scenario& scenario) {
  LocalJob job;
  for (int u = 0; u < scenario.units_size(); ++u) {
    absl::StatusOr<std::unique_ptr<LocalUnit>> unit = LocalUnit::Create(LoadFor(scenario, u));
    if (!unit.ok()) return unit.status();
    job.Add(*std::move(unit));
  }
  return RunMaster(scenario, job.units, nullptr);
}

inline absl::StatusOr<MasterResult> RunJson(const std::string& json) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(json);
  if (!scenario.ok()) return scenario.status();
  return RunScenario(*scenario);
}

inline v1::Scenario Parse(const std::string& json) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(json);
  EXPECT_TRUE(scenario.ok()) << scenario.status();
  return scenario.ok() ? *scenario : v1::Scenario();
}

inline size_t Rows(const MasterResult& r) { return r.values.size() / r.columns.size(); }

inline int ColumnIndex(const MasterResult& r, const std::string& name) {
  for (size_t c = 0; c < r.columns.size(); ++c) {
    if (r.columns[c] == name) return static_cast<int>(c);
  }
  ADD_FAILURE() << "no column " << name;
  return 0;
}

inline double At(const MasterResult& r, size_t row, const std::string& name) {
  return r.values[row * r.columns.size() + ColumnIndex(r, name)];
}

inline const UnitSummary* Summary(const MasterResult& r, const std::string& unit) {
  for (const UnitSummary& s : r.units) {
    if (s.name == unit) return &s;
  }
  ADD_FAILURE() << "no unit summary " << unit;
  return nullptr;
}

// A UnitProxy over a UnitHost (what LocalUnit does), for hosts built around a fake unit.
class HostProxy final : public UnitProxy {
 public:
  HostProxy(std::string name, std::unique_ptr<units::UnitHost> host)
      : name_(std::move(name)), host_(std::move(host)) {}
  const std::string& name() const override { return name_; }
  const UnitDescription& description() const override { return host_->description(); }
  IterativeMode iterative_mode() const override { return host_->iterative_mode(); }
  UnitLocation location() const override { return {"test", ""}; }
  void Send(const UnitCommand& c) override {
    ++sent_[static_cast<size_t>(c.kind)];
    if (c.kind == UnitCommand::Kind::kStep && c.step.commit_previous) ++carried_commits_;
    status_ = absl::OkStatus();
    switch (c.kind) {
      case UnitCommand::Kind::kInitialize:
        status_ = host_->Initialize(c.time, &pending_.outputs);
        break;
      case UnitCommand::Kind::kEvaluate:
        status_ = host_->Evaluate(c.inputs, &pending_.outputs);
        break;
      case UnitCommand::Kind::kStep:
        host_->Step(c.step, &pending_.step);
        break;
      case UnitCommand::Kind::kSave:
        status_ = host_->Save();
        break;
      case UnitCommand::Kind::kRestore:
        status_ = host_->Restore();
        break;
      case UnitCommand::Kind::kCommit:
        host_->Commit(&pending_.step);
        break;
      case UnitCommand::Kind::kReject:
        status_ = host_->Reject();
        break;
      case UnitCommand::Kind::kCheckpoint: {
        absl::StatusOr<std::string> state = host_->Checkpoint();
        if (state.ok()) pending_.checkpoint = *state;
        status_ = state.status();
        break;
      }
      case UnitCommand::Kind::kRestoreCheckpoint:
        status_ = host_->RestoreCheckpoint(c.state);
        break;
      case UnitCommand::Kind::kTerminate: {
        absl::StatusOr<UnitReport> r = host_->Terminate();
        if (r.ok()) pending_.report = *r;
        status_ = r.status();
        break;
      }
    }
  }
  absl::Status Await(UnitResponse* response) override {
    std::swap(*response, pending_);
    return status_;
  }

  // Commands sent, by kind, and the steps among them that carried a commit.
  int Sent(UnitCommand::Kind kind) const { return sent_[static_cast<size_t>(kind)]; }
  int carried_commits() const { return carried_commits_; }

 private:
  std::string name_;
  std::unique_ptr<units::UnitHost> host_;
  UnitResponse pending_;
  absl::Status status_;
  std::array<int, 10> sent_{};
  int carried_commits_ = 0;
};

// A scalar unit x' = a x + b u + q x^3, y = c x + d u, integrated with fine RK4 on each step,
// with configurable capabilities (its Jacobians are exact at the linearisation point). Counts its
// steps.
class FakeUnit final : public units::Unit {
 public:
  struct Config {
    double a = -1.0, b = 1.0, c = 1.0, d = 0.0, x0 = 0.0;
    double q = 0.0;  // cubic term: nonlinear when non-zero
    bool has_input = true;
    double reject_above = std::numeric_limits<double>::infinity();  // steps longer are rejected
    Capabilities capabilities;
  };
  explicit FakeUnit(const Config& config) : config_(config) {
    if (config.has_input) description_.inputs = {{"u", Causality::kInput, "", ""}};
    description_.outputs = {{"y", Causality::kOutput, "", ""}};
    description_.others = {{"x", Causality::kState, "", ""}};
    description_.capabilities = config.capabilities;
    description_.capabilities.output_reactive = config.d != 0.0;
  }
  const UnitDescription& description() const override { return description_; }
  double time() const override { return t_; }
  absl::Status SetRecorded(const std::vector<std::string>& names) override {
    recorded_ = names.size();
    return absl::OkStatus();
  }
  absl::Status Initialize(double start, double) override {
    t_ = start;
    x_ = config_.x0;
    return absl::OkStatus();
  }
  absl::Status Evaluate(const Eigen::VectorXd& u, OutputsReply* reply) override {
    const double uu = u.size() > 0 ? u[0] : 0.0;
    reply->outputs = Eigen::VectorXd::Constant(1, config_.c * x_ + config_.d * uu);
    reply->derivatives = Eigen::VectorXd::Constant(1, config_.c * Rate(x_, uu));
    reply->recorded.assign(recorded_, x_);
    return absl::OkStatus();
  }
  void Step(const StepRequest& r, StepReply* reply) override {
    ++steps;
    if (r.step > config_.reject_above) {
      reply->status = StepStatus::kRejected;
      reply->message = "step longer than reject_above";
      return;
    }
    auto input = [&](double s) {
      if (!config_.has_input) return 0.0;
      double v = 0.0, p = 1.0;
      for (int k = 0; k < r.inputs.order(); ++k, p *= s) v += r.inputs.coefficients(0, k) * p;
      return v;
    };
    auto f = [&](double s, double x) { return Rate(x, input(s)); };
    const int n = 200;
    const double h = r.step / n;
    double x = x_;
    for (int i = 0; i < n; ++i) {
      const double s = i * h;
      const double k1 = f(s, x), k2 = f(s + h / 2, x + h / 2 * k1);
      const double k3 = f(s + h / 2, x + h / 2 * k2), k4 = f(s + h, x + h * k3);
      x += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    }
    x_ = x;
    t_ = r.time + r.step;
    const double u_end = input(r.step);
    reply->status = StepStatus::kOk;
    reply->message.clear();
    reply->end_time = t_;
    reply->outputs = Eigen::VectorXd::Constant(1, config_.c * x_ + config_.d * u_end);
    reply->derivatives = Eigen::VectorXd::Constant(1, config_.c * Rate(x_, u_end));
    reply->recorded.assign(recorded_, x_);
  }
  struct Snapshot : units::UnitSnapshot {
    double t, x;
  };
  absl::StatusOr<std::unique_ptr<units::UnitSnapshot>> Save() override {
    if (!description_.capabilities.can_rollback) return absl::UnimplementedError("no rollback");
    auto s = std::make_unique<Snapshot>();
    s->t = t_;
    s->x = x_;
    return std::unique_ptr<units::UnitSnapshot>(std::move(s));
  }
  absl::Status Restore(const units::UnitSnapshot& snapshot) override {
    const auto& s = static_cast<const Snapshot&>(snapshot);
    t_ = s.t;
    x_ = s.x;
    return absl::OkStatus();
  }
  absl::StatusOr<units::Linearization> Linearize(const Eigen::VectorXd& u) override {
    if (!description_.capabilities.provides_jacobians) {
      return absl::UnimplementedError("this unit provides no Jacobians");
    }
    units::Linearization lin;
    const double uu = u.size() > 0 ? u[0] : 0.0;
    const int m = config_.has_input ? 1 : 0;
    lin.x = Eigen::VectorXd::Constant(1, x_);
    if (description_.capabilities.provides_state_derivatives) {
      lin.xdot = Eigen::VectorXd::Constant(1, Rate(x_, uu));
    }
    lin.y = Eigen::VectorXd::Constant(1, config_.c * x_ + config_.d * uu);
    lin.A = Eigen::MatrixXd::Constant(1, 1, config_.a + 3.0 * config_.q * x_ * x_);
    lin.B = Eigen::MatrixXd::Constant(1, m, config_.b);
    lin.C = Eigen::MatrixXd::Constant(1, 1, config_.c);
    lin.D = Eigen::MatrixXd::Constant(1, m, config_.d);
    return lin;
  }

  int steps = 0;

 private:
  double Rate(double x, double u) const {
    return config_.a * x + config_.b * u + config_.q * x * x * x;
  }

  Config config_;
  UnitDescription description_;
  double t_ = 0.0, x_ = 0.0;
  size_t recorded_ = 0;
};

inline std::unique_ptr<UnitProxy> FakeProxy(const v1::Scenario& scenario, int u,
                                            const FakeUnit::Config& config,
                                            FakeUnit** raw = nullptr, HostProxy** proxy = nullptr) {
  auto unit = std::make_unique<FakeUnit>(config);
  if (raw != nullptr) *raw = unit.get();
  absl::StatusOr<std::unique_ptr<units::UnitHost>> host =
      units::UnitHost::Create(std::move(unit), LoadFor(scenario, u));
  EXPECT_TRUE(host.ok()) << host.status();
  auto hosted = std::make_unique<HostProxy>(scenario.units(u).name(), *std::move(host));
  if (proxy != nullptr) *proxy = hosted.get();
  return hosted;
}

}  // namespace cosimo::master::testing
