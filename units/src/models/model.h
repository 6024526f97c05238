// A built-in model: an initial value problem with output, x' = F(x, u, t), y = G(x, u, t)
// (Boost.odeint's "system" concept). A model is immutable once built and holds no integration
// state: the state vector belongs to the unit, so a step can be redone after a rollback.
// Thread safety: const methods may be called concurrently.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "cosimo/common/unit_api.h"

namespace cosimo::units {

class Model {
 public:
  virtual ~Model() = default;

  // Inputs, outputs, and states (as VariableInfo with causality kState) in vector order.
  virtual const std::vector<VariableInfo>& inputs() const = 0;
  virtual const std::vector<VariableInfo>& outputs() const = 0;
  virtual const std::vector<VariableInfo>& states() const = 0;
  int num_states() const { return static_cast<int>(states().size()); }
  int num_inputs() const { return static_cast<int>(inputs().size()); }
  int num_outputs() const { return static_cast<int>(outputs().size()); }

  virtual Eigen::VectorXd InitialState() const = 0;

  // F: dxdt = F(x, u, t). `dxdt` is sized num_states().
  virtual void Derivatives(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                           Eigen::Ref<Eigen::VectorXd> dxdt) const = 0;
  // G: y = G(x, u, t). `y` is sized num_outputs().
  virtual void Outputs(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                       Eigen::Ref<Eigen::VectorXd> y) const = 0;

  // True when G depends on u (output reactive under the tutorial's terms).
  virtual bool direct_feedthrough() const = 0;

  // Analytic Jacobians at (t, x, u); false when the model gives none (finite differences are
  // used instead).
  virtual bool Jacobians(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                         Eigen::MatrixXd* A, Eigen::MatrixXd* B, Eigen::MatrixXd* C,
                         Eigen::MatrixXd* D) const {
    (void)t, (void)x, (void)u, (void)A, (void)B, (void)C, (void)D;
    return false;
  }

  // True for x' = A x + B u + f, y = C x + D u + g with constant matrices and offsets
  // (Jacobians give A..D; f = F(0, 0, t)); such models can be integrated exactly (EXACT).
  virtual bool linear_time_invariant() const { return false; }
};

}  // namespace cosimo::units
