// The spring pendulum of the NeuralFMU paper's experiment (docs/hybrid.md): a mass on a
// spring, optionally with friction of viscous, Coulomb and Stribeck parts,
//   m s'' = -c (s - s_rest) - F_f(v),
//   F_f(v) = d v + (F_coulomb + F_stribeck exp(-|v| / v_stribeck)) tanh(v / v_eps).
// The tanh regularises the sign of v (Coulomb friction is discontinuous at v = 0) so that the
// explicit solvers integrate it. Without friction and with a displaced s_rest it is the paper's
// white box; with friction, its reference. States and outputs [s, v]; no inputs.
#include <cmath>
#include <memory>

#include "cosimo/common/status.h"
#include "units/src/models/affine_model.h"
#include "units/src/models/model_factories.h"

namespace cosimo::units {
namespace {

struct PendulumParameters {
  double m, c, s_rest, d, f_coulomb, f_stribeck, v_stribeck, v_eps, s0, v0;
};

class SpringPendulum final : public Model {
 public:
  explicit SpringPendulum(const PendulumParameters& p) : p_(p) {
    states_ = {Variable("s", Causality::kState, "m", "position"),
               Variable("v", Causality::kState, "m/s", "velocity")};
    outputs_ = {Variable("s", Causality::kOutput, "m", "position"),
                Variable("v", Causality::kOutput, "m/s", "velocity")};
  }

  const std::vector<VariableInfo>& inputs() const override { return inputs_; }
  const std::vector<VariableInfo>& outputs() const override { return outputs_; }
  const std::vector<VariableInfo>& states() const override { return states_; }
  Eigen::VectorXd InitialState() const override { return Eigen::Vector2d(p_.s0, p_.v0); }
  bool direct_feedthrough() const override { return false; }

  void Derivatives(double /*t*/, const Eigen::VectorXd& x, const Eigen::VectorXd& /*u*/,
                   Eigen::Ref<Eigen::VectorXd> dxdt) const override {
    dxdt[0] = x[1];
    dxdt[1] = (-p_.c * (x[0] - p_.s_rest) - Friction(x[1])) / p_.m;
  }
  void Outputs(double /*t*/, const Eigen::VectorXd& x, const Eigen::VectorXd& /*u*/,
               Eigen::Ref<Eigen::VectorXd> y) const override {
    y = x;
  }
  bool Jacobians(double /*t*/, const Eigen::VectorXd& x, const Eigen::VectorXd& /*u*/,
                 Eigen::MatrixXd* A, Eigen::MatrixXd* B, Eigen::MatrixXd* C,
                 Eigen::MatrixXd* D) const override {
    A->resize(2, 2);
    (*A) << 0.0, 1.0, -p_.c / p_.m, -FrictionSlope(x[1]) / p_.m;
    B->resize(2, 0);
    C->setIdentity(2, 2);
    D->resize(2, 0);
    return true;
  }

 private:
  double Friction(double v) const {
    const double level = p_.f_coulomb + p_.f_stribeck * std::exp(-std::abs(v) / p_.v_stribeck);
    return p_.d * v + level * std::tanh(v / p_.v_eps);
  }
  double FrictionSlope(double v) const {
    const double e = std::exp(-std::abs(v) / p_.v_stribeck);
    const double level = p_.f_coulomb + p_.f_stribeck * e;
    const double th = std::tanh(v / p_.v_eps);
    const double sign = v > 0.0 ? 1.0 : (v < 0.0 ? -1.0 : 0.0);
    return p_.d - p_.f_stribeck * e * sign / p_.v_stribeck * th +
           level * (1.0 - th * th) / p_.v_eps;
  }

  PendulumParameters p_;
  std::vector<VariableInfo> inputs_, outputs_, states_;
};

}  // namespace

ModelResult MakeSpringPendulum(ModelParameters& p) {
  PendulumParameters q{};
  COSIMO_ASSIGN_OR_RETURN(q.m, p.Number("m", 1.0, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(q.c, p.Number("c", 10.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q.s_rest, p.Number("s_rest", 1.0));
  COSIMO_ASSIGN_OR_RETURN(q.d, p.Number("d", 0.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q.f_coulomb, p.Number("F_coulomb", 0.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q.f_stribeck, p.Number("F_stribeck", 0.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q.v_stribeck, p.Number("v_stribeck", 0.1, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(q.v_eps, p.Number("v_eps", 0.01, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(q.s0, p.Number("s0", 0.5));
  COSIMO_ASSIGN_OR_RETURN(q.v0, p.Number("v0", 0.0));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  return std::unique_ptr<Model>(std::make_unique<SpringPendulum>(q));
}

}  // namespace cosimo::units
