#include "units/src/model_unit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "cosimo/common/status.h"
#include "units/src/models/builtin_models.h"
#include "units/src/solvers/solver.h"

namespace cosimo::units {
namespace {

// Names the writer of a serialised snapshot; a new layout gets a new tag.
constexpr char kSnapshotTag[] = "cosimo.ModelUnit.1";

struct ModelUnitSnapshot final : UnitSnapshot {
  double time = 0.0;
  Eigen::VectorXd x, u, u_dot;
  std::shared_ptr<const void> history;
  bool initialized = false;
};

std::string Num(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  return buffer;
}

}  // namespace

ModelUnit::ModelUnit(std::string name, std::unique_ptr<Model> model, std::unique_ptr<Solver> solver)
    : name_(std::move(name)),
      model_(std::move(model)),
      solver_(std::move(solver)),
      linearizer_(*model_) {
  description_ = DescribeModel(*model_);
  Capabilities& caps = description_.capabilities;
  caps.can_rollback = true;
  caps.provides_jacobians = true;
  caps.provides_state_derivatives = true;
  caps.can_vary_step = true;
  caps.input_reactive = false;
  caps.output_reactive = model_->direct_feedthrough();
  caps.max_output_derivative_order = 1;

  const int n = model_->num_states();
  const int m = model_->num_inputs();
  const int p = model_->num_outputs();
  lti_ = model_->linear_time_invariant();
  analytic_ = linearizer_.analytic();
  x_ = Eigen::VectorXd::Zero(n);
  u_ = Eigen::VectorXd::Zero(m);
  u_dot_ = Eigen::VectorXd::Zero(m);
  x_work_.resize(n);
  xdot_.resize(n);
  x_probe_.resize(n);
  u_probe_.resize(m);
  y_probe_.resize(p);
  if (lti_) linearizer_.Jacobians(0.0, x_, u_, &a_, &b_, &c_, &d_);
}

absl::Status ModelUnit::SetRecorded(const std::vector<std::string>& names) {
  std::vector<Recorded> recorded;
  for (const std::string& name : names) {
    auto find = [&](const std::vector<VariableInfo>& list, const std::string& wanted) {
      for (size_t i = 0; i < list.size(); ++i) {
        if (list[i].name == wanted) return static_cast<int>(i);
      }
      return -1;
    };
    int index = find(model_->outputs(), name);
    if (index >= 0) {
      recorded.push_back({Source::kOutput, index});
      continue;
    }
    index = find(model_->inputs(), name);
    if (index >= 0) {
      recorded.push_back({Source::kInput, index});
      continue;
    }
    index = find(model_->states(), name);
    if (index >= 0) {
      recorded.push_back({Source::kState, index});
      continue;
    }
    if (name.size() > 5 && name.rfind("der(", 0) == 0 && name.back() == ')') {
      index = find(model_->states(), name.substr(4, name.size() - 5));
      if (index >= 0) {
        recorded.push_back({Source::kDerivative, index});
        continue;
      }
    }
    std::string known;
    for (const auto* list : {&model_->outputs(), &model_->inputs(), &model_->states()}) {
      for (const VariableInfo& v : *list) known += (known.empty() ? "" : ", ") + v.name;
    }
    return absl::NotFoundError("unit '" + name_ + "': no variable '" + name +
                               "' to record (known: " + known + ", and der(<state>))");
  }
  recorded_ = std::move(recorded);
  return absl::OkStatus();
}

absl::Status ModelUnit::Initialize(double start_time, double /*stop_time*/) {
  const Eigen::VectorXd x0 = model_->InitialState();
  if (x0.size() != model_->num_states()) {
    return absl::InternalError("unit '" + name_ + "': the model's initial state has " +
                               std::to_string(x0.size()) + " values for " +
                               std::to_string(model_->num_states()) + " states");
  }
  time_ = start_time;
  x_ = x0;
  u_.setZero();
  u_dot_.setZero();
  solver_->Reset();
  initialized_ = true;
  return absl::OkStatus();
}

absl::Status ModelUnit::CheckInputs(const Eigen::VectorXd& inputs) const {
  if (!initialized_) {
    return absl::FailedPreconditionError("unit '" + name_ + "': not initialized");
  }
  if (inputs.size() != model_->num_inputs()) {
    return absl::InvalidArgumentError("unit '" + name_ + "': " + std::to_string(inputs.size()) +
                                      " inputs given, the unit has " +
                                      std::to_string(model_->num_inputs()));
  }
  return absl::OkStatus();
}

void ModelUnit::ComputeReply(Eigen::VectorXd* outputs, Eigen::VectorXd* derivatives,
                             std::vector<double>* recorded) {
  const int p = model_->num_outputs();
  outputs->resize(p);
  derivatives->resize(p);
  model_->Outputs(time_, x_, u_, *outputs);
  model_->Derivatives(time_, x_, u_, xdot_);
  if (lti_) {
    derivatives->noalias() = c_ * xdot_;
    derivatives->noalias() += d_ * u_dot_;
  } else if (analytic_) {
    linearizer_.Jacobians(time_, x_, u_, &a_, &b_, &c_, &d_);
    derivatives->noalias() = c_ * xdot_;
    derivatives->noalias() += d_ * u_dot_;
  } else {
    // Directional difference along (1, x', u') in (t, x, u).
    const double e = 1e-7 * std::max(1.0, std::abs(time_));
    x_probe_ = x_ + e * xdot_;
    u_probe_ = u_ + e * u_dot_;
    model_->Outputs(time_ + e, x_probe_, u_probe_, y_probe_);
    *derivatives = (y_probe_ - *outputs) / e;
  }
  recorded->resize(recorded_.size());
  for (size_t i = 0; i < recorded_.size(); ++i) {
    const Recorded& r = recorded_[i];
    double value = 0.0;
    switch (r.source) {
      case Source::kOutput:
        value = (*outputs)[r.index];
        break;
      case Source::kInput:
        value = u_[r.index];
        break;
      case Source::kState:
        value = x_[r.index];
        break;
      case Source::kDerivative:
        value = xdot_[r.index];
        break;
    }
    (*recorded)[i] = value;
  }
}

absl::Status ModelUnit::SetConnectedInputs(const std::vector<bool>& connected) {
  for (const auto& [index, value] : held_) {
    if (static_cast<size_t>(index) < connected.size() && connected[static_cast<size_t>(index)]) {
      const std::string& input = model_->inputs()[static_cast<size_t>(index)].name;
      return absl::InvalidArgumentError("unit '" + name_ + "': parameters." + input +
                                        " gives a value to input '" + input +
                                        "', which a connection feeds: remove one of the two");
    }
  }
  return absl::OkStatus();
}

const Eigen::VectorXd& ModelUnit::WithHeld(const Eigen::VectorXd& inputs) {
  if (held_.empty()) return inputs;
  held_values_ = inputs;
  for (const auto& [index, value] : held_) held_values_[index] = value;
  return held_values_;
}

const InputPolynomials& ModelUnit::WithHeld(const InputPolynomials& inputs) {
  if (held_.empty() || inputs.coefficients.cols() == 0) return inputs;
  held_polynomials_.coefficients = inputs.coefficients;
  for (const auto& [index, value] : held_) {
    held_polynomials_.coefficients.row(index).setZero();
    held_polynomials_.coefficients(index, 0) = value;
  }
  return held_polynomials_;
}

absl::Status ModelUnit::Evaluate(const Eigen::VectorXd& sent, OutputsReply* reply) {
  const absl::Status status = CheckInputs(sent);
  if (!status.ok()) return status;
  const Eigen::VectorXd& inputs = WithHeld(sent);
  u_ = inputs;
  u_dot_.setZero();
  ComputeReply(&reply->outputs, &reply->derivatives, &reply->recorded);
  return absl::OkStatus();
}

void ModelUnit::Step(const StepRequest& request, StepReply* reply) {
  reply->status = StepStatus::kOk;
  reply->message.clear();
  reply->estimated = false;
  reply->end_time = time_;
  auto fail = [&](const std::string& message) {
    reply->status = StepStatus::kFailed;
    reply->message = "unit '" + name_ + "': " + message;
    ComputeReply(&reply->outputs, &reply->derivatives, &reply->recorded);
  };
  if (!initialized_) {
    reply->status = StepStatus::kFailed;
    reply->message = "unit '" + name_ + "': step before Initialize";
    return;
  }
  if (std::abs(request.time - time_) > 1e-9 * std::max(1.0, std::abs(time_))) {
    fail("step requested from t=" + Num(request.time) + " but the unit is at t=" + Num(time_));
    return;
  }
  if (!(request.step > 0.0) || !std::isfinite(request.step)) {
    fail("step size must be > 0 (got " + Num(request.step) + ")");
    return;
  }
  const int m = model_->num_inputs();
  if (m > 0 && request.inputs.coefficients.rows() != m) {
    fail("step carries " + std::to_string(request.inputs.coefficients.rows()) +
         " input polynomials, the unit has " + std::to_string(m) + " inputs");
    return;
  }
  x_work_ = x_;
  const InputPolynomials& inputs = WithHeld(request.inputs);
  const SolverOutcome outcome =
      solver_->Integrate(*model_, inputs, request.time, request.step, x_work_);
  if (outcome.status != StepStatus::kOk) {
    reply->status = outcome.status;
    reply->message = outcome.message.rfind("unit '", 0) == 0
                         ? outcome.message
                         : "unit '" + name_ + "': " + outcome.message;
    ComputeReply(&reply->outputs, &reply->derivatives, &reply->recorded);
    return;
  }
  x_ = x_work_;
  time_ = request.time + request.step;
  if (m > 0) {
    inputs.Value(request.step, u_);
    inputs.Derivative(request.step, u_dot_);
  }
  reply->end_time = time_;
  ComputeReply(&reply->outputs, &reply->derivatives, &reply->recorded);
}

absl::StatusOr<std::unique_ptr<UnitSnapshot>> ModelUnit::Save() {
  auto snapshot = std::make_unique<ModelUnitSnapshot>();
  snapshot->time = time_;
  snapshot->x = x_;
  snapshot->u = u_;
  snapshot->u_dot = u_dot_;
  snapshot->history = solver_->SaveHistory();
  snapshot->initialized = initialized_;
  return std::unique_ptr<UnitSnapshot>(std::move(snapshot));
}

absl::Status ModelUnit::Restore(const UnitSnapshot& snapshot) {
  const auto* saved = dynamic_cast<const ModelUnitSnapshot*>(&snapshot);
  if (saved == nullptr || saved->x.size() != x_.size() || saved->u.size() != u_.size()) {
    return absl::InvalidArgumentError("unit '" + name_ + "': the snapshot is not one of this unit");
  }
  time_ = saved->time;
  x_ = saved->x;
  u_ = saved->u;
  u_dot_ = saved->u_dot;
  initialized_ = saved->initialized;
  solver_->RestoreHistory(saved->history);
  return absl::OkStatus();
}

absl::StatusOr<std::string> ModelUnit::Serialize(const UnitSnapshot& snapshot) {
  const auto* saved = dynamic_cast<const ModelUnitSnapshot*>(&snapshot);
  if (saved == nullptr) {
    return absl::InvalidArgumentError("unit '" + name_ + "': the snapshot is not one of this unit");
  }
  StateWriter out;
  out.Tag(kSnapshotTag);
  out.Double(saved->time);
  out.Vector(saved->x);
  out.Vector(saved->u);
  out.Vector(saved->u_dot);
  out.Bool(saved->initialized);
  solver_->WriteHistory(saved->history, &out);
  return out.Take();
}

absl::StatusOr<std::unique_ptr<UnitSnapshot>> ModelUnit::Deserialize(std::string_view bytes) {
  StateReader in(bytes);
  in.ExpectTag(kSnapshotTag);
  auto snapshot = std::make_unique<ModelUnitSnapshot>();
  snapshot->time = in.Double();
  snapshot->x = in.Vector();
  snapshot->u = in.Vector();
  snapshot->u_dot = in.Vector();
  snapshot->initialized = in.Bool();
  snapshot->history = solver_->ReadHistory(&in);
  if (absl::Status s =
          in.Finish("unit '" + name_ + "': checkpoint of the " + solver_->name() + " model unit");
      !s.ok()) {
    return s;
  }
  if (snapshot->x.size() != x_.size() || snapshot->u.size() != u_.size()) {
    return absl::InvalidArgumentError(
        "unit '" + name_ + "': the checkpoint has " + std::to_string(snapshot->x.size()) +
        " states and " + std::to_string(snapshot->u.size()) + " inputs, the unit " +
        std::to_string(x_.size()) + " and " + std::to_string(u_.size()));
  }
  return std::unique_ptr<UnitSnapshot>(std::move(snapshot));
}

absl::StatusOr<Linearization> ModelUnit::Linearize(const Eigen::VectorXd& sent) {
  const absl::Status status = CheckInputs(sent);
  if (!status.ok()) return status;
  const Eigen::VectorXd& inputs = WithHeld(sent);
  Linearization lin;
  lin.x = x_;
  lin.xdot.resize(model_->num_states());
  model_->Derivatives(time_, x_, inputs, lin.xdot);
  lin.y.resize(model_->num_outputs());
  model_->Outputs(time_, x_, inputs, lin.y);
  linearizer_.Jacobians(time_, x_, inputs, &lin.A, &lin.B, &lin.C, &lin.D);
  return lin;
}

absl::StatusOr<std::unique_ptr<Unit>> CreateBuiltinUnit(const v1::Unit& spec) {
  COSIMO_ASSIGN_OR_RETURN(BuiltinModel built, MakeBuiltinModel(spec));
  COSIMO_ASSIGN_OR_RETURN(std::unique_ptr<Solver> solver,
                          CreateSolver(spec.solver(), *built.model, spec.name()));
  auto unit = std::make_unique<ModelUnit>(spec.name(), std::move(built.model), std::move(solver));
  unit->HoldInputs(built.held_inputs);
  return std::unique_ptr<Unit>(std::move(unit));
}

}  // namespace cosimo::units
