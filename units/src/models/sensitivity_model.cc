// The model with forward sensitivities (sensitivity_model.h).
#include "units/src/models/sensitivity_model.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sensitivities.h"
#include "cosimo/common/sweep.h"
#include "units/src/models/affine_model.h"
#include "units/src/models/linearizer.h"

namespace cosimo::units {
namespace {

// About cbrt(machine epsilon), as the Linearizer's central differences.
constexpr double kRelativeStep = 6.0e-6;

std::vector<VariableInfo> WithSensitivityNames(const std::vector<VariableInfo>& variables,
                                               const std::vector<std::string>& parameters,
                                               Causality causality) {
  std::vector<VariableInfo> out = variables;
  for (const std::string& p : parameters) {
    for (const VariableInfo& v : variables) {
      out.push_back(VariableInfo{SensitivityName(v.name, p), causality, "",
                                 "sensitivity of " + v.name + " to " + p, ValueType::kReal});
    }
  }
  return out;
}

class SensitivityModel final : public Model {
 public:
  SensitivityModel(std::unique_ptr<Model> base, const std::vector<std::string>& names,
                   std::vector<ParameterEffect> effects)
      : base_(std::move(base)), effects_(std::move(effects)), linearizer_(*base_) {
    inputs_ = WithSensitivityNames(base_->inputs(), names, Causality::kInput);
    outputs_ = WithSensitivityNames(base_->outputs(), names, Causality::kOutput);
    states_ = WithSensitivityNames(base_->states(), names, Causality::kState);
    const Eigen::Index n = base_->num_states(), m = base_->num_inputs();
    x_.resize(n);
    u_.resize(m);
    fp_.resize(n);
    fm_.resize(n);
    yp_.resize(base_->num_outputs());
    ym_.resize(base_->num_outputs());
    us_.resize(m, p());
    if (base_->linear_time_invariant()) BuildConstantJacobians();
  }

  const std::vector<VariableInfo>& inputs() const override { return inputs_; }
  const std::vector<VariableInfo>& outputs() const override { return outputs_; }
  const std::vector<VariableInfo>& states() const override { return states_; }
  bool direct_feedthrough() const override { return base_->direct_feedthrough(); }
  bool linear_time_invariant() const override { return base_->linear_time_invariant(); }

  Eigen::VectorXd InitialState() const override {
    const Eigen::Index n = base_->num_states();
    Eigen::VectorXd X = Eigen::VectorXd::Zero(n * (1 + p()));
    X.head(n) = base_->InitialState();
    for (Eigen::Index j = 0; j < p(); ++j) {
      const ParameterEffect& e = effects_[static_cast<size_t>(j)];
      if (!e.moves()) continue;
      const Eigen::VectorXd plus = (e.plus ? *e.plus : *base_).InitialState();
      const Eigen::VectorXd minus = (e.minus ? *e.minus : *base_).InitialState();
      X.segment(n * (1 + j), n) = (plus - minus) / (e.plus_step + e.minus_step);
    }
    return X;
  }

  void Derivatives(double t, const Eigen::VectorXd& X, const Eigen::VectorXd& U,
                   Eigen::Ref<Eigen::VectorXd> dX) const override {
    Prepare(t, X, U);
    WithSensitivities(&Model::Derivatives, a_, b_, t, X, dX, fp_, fm_);
  }

  void Outputs(double t, const Eigen::VectorXd& X, const Eigen::VectorXd& U,
               Eigen::Ref<Eigen::VectorXd> Y) const override {
    Prepare(t, X, U);
    WithSensitivities(&Model::Outputs, c_, d_, t, X, Y, yp_, ym_);
  }

  // A linear time-invariant model's whole as an AffineModel: its constant Jacobians, and the
  // constant terms and initial state read off this model. It integrates without the per-call
  // Jacobians and perturbed models here.
  std::unique_ptr<Model> AsAffine() const {
    const Eigen::VectorXd X0 = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(states_.size()));
    const Eigen::VectorXd U0 = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(inputs_.size()));
    Eigen::VectorXd f(X0.size()), g(static_cast<Eigen::Index>(outputs_.size()));
    Derivatives(0.0, X0, U0, f);
    Outputs(0.0, X0, U0, g);
    return std::make_unique<AffineModel>(AffineModelSpec{
        inputs_, outputs_, states_, A_, B_, C_, D_, std::move(f), std::move(g), InitialState()});
  }

  bool Jacobians(double, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::MatrixXd* A,
                 Eigen::MatrixXd* B, Eigen::MatrixXd* C, Eigen::MatrixXd* D) const override {
    if (!base_->linear_time_invariant()) return false;  // they would need second derivatives
    *A = A_;
    *B = B_;
    *C = C_;
    *D = D_;
    return true;
  }

 private:
  Eigen::Index p() const { return static_cast<Eigen::Index>(effects_.size()); }

  // F or G of a model.
  using Function = void (Model::*)(double, const Eigen::VectorXd&, const Eigen::VectorXd&,
                                   Eigen::Ref<Eigen::VectorXd>) const;

  // `out` = [f; f_x S_1 + f_u U_1 + df/dP_1; ...] for f = F (f_x = A, f_u = B) or G (C, D), at
  // the point Prepare set; `plus` and `minus` are scratch of f's size.
  void WithSensitivities(Function f, const Eigen::MatrixXd& f_x, const Eigen::MatrixXd& f_u,
                         double t, const Eigen::VectorXd& X, Eigen::Ref<Eigen::VectorXd> out,
                         Eigen::VectorXd& plus, Eigen::VectorXd& minus) const {
    const Eigen::Index n = base_->num_states(), size = f_x.rows();
    (base_.get()->*f)(t, x_, u_, out.head(size));
    Eigen::Map<const Eigen::MatrixXd> S(X.data() + n, n, p());
    for (Eigen::Index j = 0; j < p(); ++j) {
      auto d = out.segment(size * (1 + j), size);
      d.noalias() = f_x * S.col(j);
      d.noalias() += f_u * us_.col(j);
      const ParameterEffect& e = effects_[static_cast<size_t>(j)];
      if (!e.moves()) continue;
      ((e.plus ? e.plus.get() : base_.get())->*f)(t, x_, u_, plus);
      ((e.minus ? e.minus.get() : base_.get())->*f)(t, x_, u_, minus);
      d += (plus - minus) / (e.plus_step + e.minus_step);
    }
  }

  // x_, u_, us_ (the inputs' sensitivities, a held input's set) and the model's Jacobians at
  // (t, X, U).
  void Prepare(double t, const Eigen::VectorXd& X, const Eigen::VectorXd& U) const {
    const Eigen::Index n = base_->num_states(), m = base_->num_inputs();
    x_ = X.head(n);
    u_ = U.head(m);
    us_ = Eigen::Map<const Eigen::MatrixXd>(U.data() + m, m, p());
    for (Eigen::Index j = 0; j < p(); ++j) {
      const ParameterEffect& e = effects_[static_cast<size_t>(j)];
      if (e.held_input >= 0) us_(e.held_input, j) = 1.0;
    }
    linearizer_.Jacobians(t, x_, u_, &a_, &b_, &c_, &d_);
  }

  // The constant Jacobians of the whole when the model is linear time-invariant: the blocks of
  // S_j' = A S_j + B U_j + dA/dP_j x + dB/dP_j u + df/dP_j, and of Y_j alike. The rows of a held
  // input's sensitivities are not read (Prepare sets them): their columns are zero.
  void BuildConstantJacobians() {
    const Eigen::Index n = base_->num_states(), m = base_->num_inputs(), q = base_->num_outputs(),
                       k = 1 + p();
    const Eigen::VectorXd x0 = Eigen::VectorXd::Zero(n), u0 = Eigen::VectorXd::Zero(m);
    Eigen::MatrixXd a, b, c, d;
    linearizer_.Jacobians(0.0, x0, u0, &a, &b, &c, &d);
    A_ = Eigen::MatrixXd::Zero(n * k, n * k);
    B_ = Eigen::MatrixXd::Zero(n * k, m * k);
    C_ = Eigen::MatrixXd::Zero(q * k, n * k);
    D_ = Eigen::MatrixXd::Zero(q * k, m * k);
    for (Eigen::Index i = 0; i < k; ++i) {
      A_.block(n * i, n * i, n, n) = a;
      B_.block(n * i, m * i, n, m) = b;
      C_.block(q * i, n * i, q, n) = c;
      D_.block(q * i, m * i, q, m) = d;
    }
    for (Eigen::Index j = 0; j < p(); ++j) {
      const ParameterEffect& e = effects_[static_cast<size_t>(j)];
      if (e.held_input >= 0) {
        B_.col(m * (1 + j) + e.held_input).setZero();
        D_.col(m * (1 + j) + e.held_input).setZero();
      }
      if (!e.moves()) continue;
      Eigen::MatrixXd ap, bp, cp, dp, am, bm, cm, dm;
      Linearizer plus(e.plus ? *e.plus : *base_), minus(e.minus ? *e.minus : *base_);
      plus.Jacobians(0.0, x0, u0, &ap, &bp, &cp, &dp);
      minus.Jacobians(0.0, x0, u0, &am, &bm, &cm, &dm);
      const double h = e.plus_step + e.minus_step;
      A_.block(n * (1 + j), 0, n, n) = (ap - am) / h;
      B_.block(n * (1 + j), 0, n, m) = (bp - bm) / h;
      C_.block(q * (1 + j), 0, q, n) = (cp - cm) / h;
      D_.block(q * (1 + j), 0, q, m) = (dp - dm) / h;
    }
  }

  std::unique_ptr<Model> base_;
  std::vector<ParameterEffect> effects_;
  std::vector<VariableInfo> inputs_, outputs_, states_;
  Eigen::MatrixXd A_, B_, C_, D_;  // linear time-invariant models only
  mutable Linearizer linearizer_;
  mutable Eigen::VectorXd x_, u_, fp_, fm_, yp_, ym_;
  mutable Eigen::MatrixXd us_, a_, b_, c_, d_;
};

// How parameter `key` of the unit `spec` moves its model: the model built with it perturbed.
absl::StatusOr<ParameterEffect> OwnEffect(const v1::Unit& spec, const std::string& key,
                                          const BuiltinModel& built, PlainModelMaker make) {
  ParameterEffect effect;
  const std::vector<VariableInfo>& inputs = built.model->inputs();
  for (const auto& [index, value] : built.held_inputs) {
    if (inputs[static_cast<size_t>(index)].name == key) {
      effect.held_input = index;
      return effect;
    }
  }
  const std::string what = "unit '" + spec.name() + "': sensitivities: parameter '" + key + "'";
  absl::StatusOr<double> value = Parameters(spec).RequiredNumber(key);
  if (!value.ok()) {
    return absl::InvalidArgumentError(
        what + " is not given a number: " + std::string(value.status().message()));
  }
  const double h = SensitivityStep(*value);
  auto perturbed = [&](double v) -> std::unique_ptr<Model> {
    v1::Unit copy = spec;
    copy.clear_sensitivities();
    SetUnitParameter(&copy, key, v);
    absl::StatusOr<BuiltinModel> model = make(copy);
    return model.ok() ? std::move(model->model) : nullptr;
  };
  effect.plus = perturbed(*value + h);
  effect.minus = perturbed(*value - h);
  if (!effect.moves()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the model cannot be built with it ", h, " above or below ", *value));
  }
  effect.plus_step = effect.plus ? h : 0.0;
  effect.minus_step = effect.minus ? h : 0.0;
  return effect;
}

}  // namespace

double SensitivityStep(double value) { return kRelativeStep * std::max(std::abs(value), 1.0); }

std::unique_ptr<Model> MakeSensitivityModel(std::unique_ptr<Model> base,
                                            const std::vector<std::string>& names,
                                            std::vector<ParameterEffect> effects) {
  const bool lti = base->linear_time_invariant();
  auto model = std::make_unique<SensitivityModel>(std::move(base), names, std::move(effects));
  if (lti) return model->AsAffine();
  return model;
}

absl::Status CheckSensitivitySolver(const v1::Unit& spec) {
  if (spec.solver().method() != v1::Solver::CENTRAL_DIFFERENCE) return absl::OkStatus();
  return absl::InvalidArgumentError(
      "unit '" + spec.name() +
      "': sensitivities: solver.method CENTRAL_DIFFERENCE cannot integrate them (the states "
      "are no longer [positions; velocities]); use RK4 or another method");
}

absl::StatusOr<BuiltinModel> WithSensitivities(const v1::Unit& spec, BuiltinModel built,
                                               PlainModelMaker make) {
  if (absl::Status s = CheckSensitivitySolver(spec); !s.ok()) return s;
  const std::string own = spec.name() + ".";
  std::vector<std::string> names;
  std::vector<ParameterEffect> effects;
  for (const std::string& p : spec.sensitivities()) {
    names.push_back(p);
    if (!p.starts_with(own)) {
      effects.emplace_back();  // another unit's: it comes in through the inputs
      continue;
    }
    absl::StatusOr<ParameterEffect> effect = OwnEffect(spec, p.substr(own.size()), built, make);
    if (!effect.ok()) return effect.status();
    effects.push_back(*std::move(effect));
  }
  built.model = MakeSensitivityModel(std::move(built.model), names, std::move(effects));
  return built;
}

}  // namespace cosimo::units
