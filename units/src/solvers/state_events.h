// Locating a state event inside an integration chunk, for any unit whose solver integrates a
// model with event indicators (the Model Exchange FMU unit): the indicators' sign change, and
// the bisection that re-integrates from the chunk's start to within the event tolerance.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <vector>

#include "absl/status/status.h"

namespace cosimo::units {

// Whether an event indicator changed sign from `a` to `b` (one of them 0 counts on the side
// it left).
bool Crossed(const std::vector<double>& a, const std::vector<double>& b);

// Integrates from the chunk's start to `t` (restoring the solver's history first) and reads
// the indicators there: x and z at t. `*stopped` when the solver refused (a failed or rejected
// step: the caller's status and message say why); an error ends the location.
using IntegrateTo = std::function<absl::Status(double t, Eigen::VectorXd* x, std::vector<double>* z,
                                               bool* stopped)>;

// The crossing in [lo, *hi] of indicators that were `z_lo` at lo and crossed by *hi (where the
// state is *x_hi and the indicators *z_hi): bisection to within 1e-10 relative (1e-12
// absolute) of the time. On return *hi is the bracket's end after the crossing with its state
// and indicators, unless `*stopped`.
[[nodiscard]] absl::Status LocateStateEvent(const IntegrateTo& integrate_to,
                                            const std::vector<double>& z_lo, double lo, double* hi,
                                            Eigen::VectorXd* x_hi, std::vector<double>* z_hi,
                                            bool* stopped);

}  // namespace cosimo::units
