#include "units/src/solvers/state_events.h"

#include <algorithm>
#include <cmath>

namespace cosimo::units {

bool Crossed(const std::vector<double>& a, const std::vector<double>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if ((a[i] > 0.0 && b[i] <= 0.0) || (a[i] < 0.0 && b[i] >= 0.0)) return true;
  }
  return false;
}

absl::Status LocateStateEvent(const IntegrateTo& integrate_to, const std::vector<double>& z_lo,
                              double lo, double* hi, Eigen::VectorXd* x_hi,
                              std::vector<double>* z_hi, bool* stopped) {
  *stopped = false;
  Eigen::VectorXd x_m;
  std::vector<double> z_m;
  const double tolerance = std::max(1e-12, 1e-10 * std::max(1.0, std::abs(*hi)));
  while (*hi - lo > tolerance) {
    const double t_m = 0.5 * (lo + *hi);
    if (absl::Status s = integrate_to(t_m, &x_m, &z_m, stopped); !s.ok() || *stopped) return s;
    if (Crossed(z_lo, z_m)) {
      *hi = t_m;
      *x_hi = x_m;
      *z_hi = z_m;
    } else {
      lo = t_m;
    }
  }
  return absl::OkStatus();
}

}  // namespace cosimo::units
