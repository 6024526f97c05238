// A model with constant coefficients, affine in its states and inputs:
//   x' = A x + B u + f,   y = C x + D u + g.
// Every built-in model of the tutorial is of this form (the car's set point and the controller's
// reference speed are the constant terms f and g), so one class with named variables serves them
// all; each factory in builtin_models.cc / mechanical_models.cc fills the matrices from its
// physical parameters. Jacobians are analytic (A, B, C, D) and the model is linear time
// invariant in the sense of Model::linear_time_invariant (the EXACT solver handles f).
// Immutable once built; thread safe.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "units/src/models/model.h"

namespace cosimo::units {

struct AffineModelSpec {
  std::vector<VariableInfo> inputs;   // m
  std::vector<VariableInfo> outputs;  // p
  std::vector<VariableInfo> states;   // n
  Eigen::MatrixXd A;                  // n x n
  Eigen::MatrixXd B;                  // n x m
  Eigen::MatrixXd C;                  // p x n
  Eigen::MatrixXd D;                  // p x m
  Eigen::VectorXd f;                  // n (empty: zero)
  Eigen::VectorXd g;                  // p (empty: zero)
  Eigen::VectorXd x0;                 // n (empty: zero)
};

class AffineModel final : public Model {
 public:
  // The sizes of `spec` must agree (checked by the factories; asserted here).
  explicit AffineModel(AffineModelSpec spec);

  const std::vector<VariableInfo>& inputs() const override { return spec_.inputs; }
  const std::vector<VariableInfo>& outputs() const override { return spec_.outputs; }
  const std::vector<VariableInfo>& states() const override { return spec_.states; }
  Eigen::VectorXd InitialState() const override { return spec_.x0; }

  void Derivatives(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                   Eigen::Ref<Eigen::VectorXd> dxdt) const override;
  void Outputs(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
               Eigen::Ref<Eigen::VectorXd> y) const override;
  bool direct_feedthrough() const override { return direct_feedthrough_; }
  bool Jacobians(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u, Eigen::MatrixXd* A,
                 Eigen::MatrixXd* B, Eigen::MatrixXd* C, Eigen::MatrixXd* D) const override;
  bool linear_time_invariant() const override { return true; }

  const AffineModelSpec& spec() const { return spec_; }

 private:
  AffineModelSpec spec_;
  bool direct_feedthrough_ = false;
};

// A VariableInfo in one line.
VariableInfo Variable(std::string name, Causality causality, std::string unit = "",
                      std::string description = "");

}  // namespace cosimo::units
