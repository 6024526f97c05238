// HybridModel: a wrapped model (built-in, or a Model Exchange FMU's equations) between two dense
// networks, the NeuralFMU structure of docs/hybrid.md (the paper's Figure 1):
//
//   x' = bottom(F(top(x), u, t))        y = G(x, u, t)
//
// The top network maps the hybrid's state to the state the wrapped model sees, the bottom one
// corrects the model's derivative; outputs are the wrapped model's output equations at the
// hybrid's own state, so recorded outputs and states are the trajectory the solver integrates.
// Jacobians follow by the chain rule from the networks' and the wrapped model's (analytic,
// directional derivatives of an FMU, or central differences), and so do the forward
// sensitivities to the network parameters that training integrates.
//
// The wrapped model must outlive this one (or be owned by it). Unlike the built-in models, a
// HybridModel is not thread safe: the networks keep scratch, and an FMU's equations set the FMU.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <memory>
#include <vector>

#include "units/src/hybrid/dense_net.h"
#include "units/src/models/model.h"

namespace cosimo::units {

class HybridModel final : public Model {
 public:
  // A, B, C, D of the wrapped model at (t, x, u); false when they could not be computed.
  using InnerJacobians = std::function<bool(
      double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u, Eigen::MatrixXd* A,
      Eigen::MatrixXd* B, Eigen::MatrixXd* C, Eigen::MatrixXd* D)>;

  // `owned` may be null (then `inner` belongs to someone else) or own `inner`.
  HybridModel(const Model* inner, std::unique_ptr<Model> owned, DenseNet top, DenseNet bottom,
              InnerJacobians jacobians);

  const std::vector<VariableInfo>& inputs() const override { return inner_->inputs(); }
  const std::vector<VariableInfo>& outputs() const override { return inner_->outputs(); }
  const std::vector<VariableInfo>& states() const override { return inner_->states(); }
  Eigen::VectorXd InitialState() const override { return inner_->InitialState(); }
  bool direct_feedthrough() const override { return inner_->direct_feedthrough(); }

  void Derivatives(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                   Eigen::Ref<Eigen::VectorXd> dxdt) const override;
  void Outputs(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
               Eigen::Ref<Eigen::VectorXd> y) const override;
  // By the chain rule: A = J_bottom A_inner(top(x)) J_top, B = J_bottom B_inner(top(x)),
  // C = C_inner(x), D = D_inner(x).
  bool Jacobians(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u, Eigen::MatrixXd* A,
                 Eigen::MatrixXd* B, Eigen::MatrixXd* C, Eigen::MatrixXd* D) const override;

  // Whether the wrapped model may be evaluated yet (an FMU only after its unit's Initialize).
  // Until then Jacobians() answers zeros without calling it; the other methods must not be
  // called.
  void set_evaluable(bool evaluable) { evaluable_ = evaluable; }

  const Model& inner() const { return *inner_; }
  DenseNet& top() { return top_; }
  DenseNet& bottom() { return bottom_; }
  const DenseNet& top() const { return top_; }
  const DenseNet& bottom() const { return bottom_; }

  // Training: the parameters of both networks, top's first.
  int num_parameters() const { return top_.num_parameters() + bottom_.num_parameters(); }
  Eigen::VectorXd Parameters() const;
  void SetParameters(const Eigen::Ref<const Eigen::VectorXd>& p);

  // x' and the forward sensitivity equations dS/dt = dF/dx S + dF/dp for S = dx/dp
  // (states x parameters), at (t, x, u). False when the wrapped model's Jacobian failed.
  bool Sensitivities(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                     const Eigen::Ref<const Eigen::MatrixXd>& S, Eigen::Ref<Eigen::VectorXd> dxdt,
                     Eigen::Ref<Eigen::MatrixXd> dS) const;

 private:
  const Model* inner_;
  std::unique_ptr<Model> owned_;
  DenseNet top_, bottom_;
  InnerJacobians jacobians_;
  bool evaluable_ = true;
  // Scratch.
  mutable Eigen::VectorXd a_, f_;
  mutable Eigen::MatrixXd jt_, jb_, pt_, pb_, ai_, bi_, ci_, di_, m_;
};

}  // namespace cosimo::units
