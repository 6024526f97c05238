// Shared helpers of the model and solver tests: scenario unit specs in code, input polynomials,
// and small test models (a nonlinear one without analytic Jacobians, a generic linear one).
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/common/unit_api.h"
#include "cosimo/v1/scenario.pb.h"
#include "units/src/models/affine_model.h"
#include "units/src/models/model.h"

namespace cosimo::units::testing {

inline void SetNumber(v1::Unit* unit, const std::string& name, double value) {
  (*unit->mutable_builtin()->mutable_parameters())[name].set_number_value(value);
}

inline void SetList(v1::Unit* unit, const std::string& name, std::initializer_list<double> values) {
  google::protobuf::Value& v = (*unit->mutable_builtin()->mutable_parameters())[name];
  google::protobuf::ListValue* list = v.mutable_list_value();
  list->clear_values();
  for (double x : values) list->add_values()->set_number_value(x);
}

inline v1::Unit BuiltinSpec(const std::string& name, const std::string& model,
                            v1::Solver::Method method = v1::Solver::METHOD_UNSPECIFIED,
                            double step = 0.0) {
  v1::Unit unit;
  unit.set_name(name);
  unit.mutable_builtin()->set_model(model);
  unit.mutable_solver()->set_method(method);
  unit.mutable_solver()->set_step(step);
  return unit;
}

// u(t0 + s) = sum_k coefficients(i, k) s^k, from rows of coefficients.
inline InputPolynomials Polynomials(std::initializer_list<std::initializer_list<double>> rows) {
  InputPolynomials p;
  Eigen::Index cols = 0;
  for (const auto& row : rows)
    cols = std::max<Eigen::Index>(cols, static_cast<Eigen::Index>(row.size()));
  p.coefficients = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows.size()), cols);
  Eigen::Index i = 0;
  for (const auto& row : rows) {
    Eigen::Index k = 0;
    for (double c : row) p.coefficients(i, k++) = c;
    ++i;
  }
  return p;
}

inline InputPolynomials NoInputs() {
  InputPolynomials p;
  p.coefficients.resize(0, 1);
  return p;
}

// x' = A x + B u with given matrices, as an AffineModel with generic names.
inline std::unique_ptr<Model> LinearModel(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b,
                                          const Eigen::VectorXd& x0) {
  AffineModelSpec spec;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    spec.states.push_back(Variable(absl::StrCat("x", i), Causality::kState));
    spec.outputs.push_back(Variable(absl::StrCat("y", i), Causality::kOutput));
  }
  for (Eigen::Index j = 0; j < b.cols(); ++j) {
    spec.inputs.push_back(Variable(absl::StrCat("u", j), Causality::kInput));
  }
  spec.A = a;
  spec.B = b;
  spec.C = Eigen::MatrixXd::Identity(a.rows(), a.rows());
  spec.x0 = x0;
  return std::make_unique<AffineModel>(std::move(spec));
}

// Undamped/damped oscillator x'' = -w^2 x - 2 z w x' + u as [x; v], as a linear model.
inline std::unique_ptr<Model> Oscillator(double omega, double zeta, const Eigen::Vector2d& x0) {
  Eigen::MatrixXd a(2, 2), b(2, 1);
  a << 0, 1, -omega * omega, -2 * zeta * omega;
  b << 0, 1;
  return LinearModel(a, b, x0);
}

// A model without analytic Jacobians: the pendulum with damping and a torque input,
//   q' = w, w' = -sin(q) - 0.1 w + u; outputs q and w*u (so that D != 0).
class PendulumModel final : public Model {
 public:
  PendulumModel() {
    states_ = {Variable("q", Causality::kState), Variable("w", Causality::kState)};
    inputs_ = {Variable("u", Causality::kInput)};
    outputs_ = {Variable("q", Causality::kOutput), Variable("p", Causality::kOutput)};
  }
  const std::vector<VariableInfo>& inputs() const override { return inputs_; }
  const std::vector<VariableInfo>& outputs() const override { return outputs_; }
  const std::vector<VariableInfo>& states() const override { return states_; }
  Eigen::VectorXd InitialState() const override { return Eigen::Vector2d(1.0, 0.0); }
  void Derivatives(double /*t*/, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                   Eigen::Ref<Eigen::VectorXd> dxdt) const override {
    dxdt[0] = x[1];
    dxdt[1] = -std::sin(x[0]) - 0.1 * x[1] + u[0];
  }
  void Outputs(double /*t*/, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
               Eigen::Ref<Eigen::VectorXd> y) const override {
    y[0] = x[0];
    y[1] = x[1] * u[0];
  }
  bool direct_feedthrough() const override { return true; }

 private:
  std::vector<VariableInfo> states_, inputs_, outputs_;
};

// x' = x^2, x(0) = 1: blows up at t = 1 (solution 1 / (1 - t)).
class BlowUpModel final : public Model {
 public:
  BlowUpModel() {
    states_ = {Variable("x", Causality::kState)};
    outputs_ = {Variable("x", Causality::kOutput)};
  }
  const std::vector<VariableInfo>& inputs() const override { return inputs_; }
  const std::vector<VariableInfo>& outputs() const override { return outputs_; }
  const std::vector<VariableInfo>& states() const override { return states_; }
  Eigen::VectorXd InitialState() const override { return Eigen::VectorXd::Constant(1, 1.0); }
  void Derivatives(double /*t*/, const Eigen::VectorXd& x, const Eigen::VectorXd& /*u*/,
                   Eigen::Ref<Eigen::VectorXd> dxdt) const override {
    dxdt[0] = x[0] * x[0];
  }
  void Outputs(double /*t*/, const Eigen::VectorXd& x, const Eigen::VectorXd& /*u*/,
               Eigen::Ref<Eigen::VectorXd> y) const override {
    y[0] = x[0];
  }
  bool direct_feedthrough() const override { return false; }

 private:
  std::vector<VariableInfo> states_, inputs_, outputs_;
};

}  // namespace cosimo::units::testing
