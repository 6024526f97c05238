// Small helpers shared by the solver implementations. Private to worker/src/solvers.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <string>

#include "worker/src/models/model.h"

namespace cosimo::worker {

// Number of substeps of size `step` that cover `h`, the last one possibly shorter. A remainder
// below 1e-9 of a substep (rounding) does not make an extra substep.
inline int CountSubsteps(double h, double step) {
  const double ratio = h / step;
  const double n = std::ceil(ratio - 1e-9 * ratio);
  return n < 1.0 ? 1 : static_cast<int>(n);
}

// Start offset of substep i of n covering [0, h] with nominal size `step`.
inline double SubstepStart(int i, double step) { return i * step; }
inline double SubstepEnd(int i, int n, double h, double step) {
  return i + 1 == n ? h : (i + 1) * step;
}

inline bool AllFinite(const Eigen::VectorXd& v) { return v.allFinite(); }

// "%.9g" of a double, for messages.
std::string FormatNumber(double value);

// Resizes `v` to `size` when needed (so steady-state calls do not allocate).
inline void EnsureSize(Eigen::VectorXd& v, Eigen::Index size) {
  if (v.size() != size) v.resize(size);
}

}  // namespace cosimo::worker
