// Small helpers shared by the solver implementations. Private to units/src/solvers.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "cosimo/units/abandon.h"
#include "units/src/models/model.h"
#include "units/src/models/solver_spec.h"
#include "units/src/solvers/solver.h"

namespace cosimo::units {

// Number of substeps of size `step` that cover `h`, the last one possibly shorter. A remainder
// below 1e-9 of the ratio (rounding), and at most 1e-3 of a substep, does not make an extra
// substep. Empty when the count is not an int (more than 2^31 - 1 substeps, or not finite): a
// cast would wrap it to a wrong count.
inline std::optional<int> CountSubsteps(double h, double step) {
  const double ratio = h / step;
  const double n = std::ceil(ratio - std::min(1e-9 * ratio, 1e-3));
  if (!(n <= static_cast<double>(std::numeric_limits<int>::max()))) return std::nullopt;
  return n < 1.0 ? 1 : static_cast<int>(n);
}

// The outcome when CountSubsteps is empty: the step fails and says why.
SolverOutcome TooManySubsteps(const std::string& solver, double h, double step);

// True every 4096th substep when the worker was told to abandon its command (cosimo/worker/
// abandon.h); the solver then returns Abandoned.
inline bool CheckAbandon(int substep) { return (substep & 4095) == 4095 && AbandonRequested(); }
SolverOutcome Abandoned(const std::string& solver, double t);

// Start offset of substep i of n covering [0, h] with nominal size `step`.
inline double SubstepStart(int i, double step) { return i * step; }
inline double SubstepEnd(int i, int n, double h, double step) {
  return i + 1 == n ? h : (i + 1) * step;
}

inline bool AllFinite(const Eigen::VectorXd& v) { return v.allFinite(); }

// FormatNumber ("%.9g" of a double, for messages): units/src/models/solver_spec.h.

// Resizes `v` to `size` when needed (so steady-state calls do not allocate).
inline void EnsureSize(Eigen::VectorXd& v, Eigen::Index size) {
  if (v.size() != size) v.resize(size);
}

}  // namespace cosimo::units
