// The iteration both strong-coupling algorithms share: on the coupling unknowns z at t[N+1]
// (the connected inputs' values, and with HERMITE their derivatives), predicted from the
// histories, repeat a round of tentative steps g(z) until the residual r = g(z) - z is within
// algorithm.tolerance (then the error estimate decides), diverges, a unit rejects, or
// max_iterations is reached. The update of z is the subclass's: fixed point (fixed_point.cc)
// or Newton (newton.cc).
#pragma once

#include <Eigen/Core>

#include "master/src/algorithm.h"

namespace cosimo::master {

class IterativeAlgorithm : public Algorithm {
 public:
  explicit IterativeAlgorithm(CoupledUnits& units);
  [[nodiscard]] absl::Status DoStep(double t, double h, Attempt* attempt) final;

 protected:
  // Called at the start of every attempt.
  virtual void BeginAttempt() = 0;
  // Whether the next round asks the units for their sensitivities.
  virtual bool WantSensitivities() const { return false; }
  // Updates z_ from r_ = g_ - z_ after round m (scaled residual `residual`, the previous one
  // `last_residual`). Further rounds a unit rejects set *rejection.
  [[nodiscard]] virtual absl::Status Update(double t, double h, int m, double residual,
                                            double last_residual, Rejection* rejection) = 0;

  CoupledUnits& units_;
  const double tolerance_;
  Eigen::VectorXd z_;  // the unknowns of this iteration
  Eigen::VectorXd g_;  // the coupled outputs g(z_) of its round
  Eigen::VectorXd r_;  // g_ - z_

 private:
  Eigen::VectorXd z_pred_;  // the predictor, also the start of the iteration
};

}  // namespace cosimo::master
