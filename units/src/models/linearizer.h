// Jacobians of a Model at a point: the model's analytic ones where it gives them, central finite
// differences otherwise. Holds the scratch buffers, so repeated calls do not allocate once the
// output matrices have their size. Not thread safe (one per unit or solver); the Model must
// outlive it.
#pragma once

#include <Eigen/Core>

#include "units/src/models/model.h"

namespace cosimo::units {

class Linearizer {
 public:
  explicit Linearizer(const Model& model);

  bool analytic() const { return analytic_; }

  // A = dF/dx, n x n.
  void StateJacobian(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u,
                     Eigen::MatrixXd* A);
  // A = dF/dx, B = dF/du, C = dG/dx, D = dG/du.
  void Jacobians(double t, const Eigen::VectorXd& x, const Eigen::VectorXd& u, Eigen::MatrixXd* A,
                 Eigen::MatrixXd* B, Eigen::MatrixXd* C, Eigen::MatrixXd* D);

 private:
  // Relative perturbation of central differences, about cbrt(machine epsilon).
  static constexpr double kRelativeStep = 6.0e-6;

  const Model& model_;
  bool analytic_ = false;
  Eigen::VectorXd xp_, up_, fp_, fm_, yp_, ym_;
  Eigen::MatrixXd b_, c_, d_;  // scratch for StateJacobian with analytic Jacobians
};

}  // namespace cosimo::units
