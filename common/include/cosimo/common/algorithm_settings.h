// The scenario's times and algorithm section with every default applied and every rule checked:
// the one source of both. ValidateScenario uses it when a job is submitted, and the master
// (orchestrator MasterConfig, which adds what depends on the loaded units) when it runs, so a
// scenario the service accepts is one the master runs and a default written here is the one
// that applies. Stateless and thread safe.
#pragma once

#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"

namespace cosimo {

// Defaults of the fields where the scenario's 0 (absent) means "the default".
inline constexpr double kDefaultCouplingTolerance = 1e-6;  // algorithm.tolerance
inline constexpr int kDefaultMaxIterations = 50;           // algorithm.max_iterations
inline constexpr double kDefaultRelaxation = 1.0;          // algorithm.relaxation
inline constexpr double kDefaultMinStepFraction = 1e-3;    // adaptive.min_step / step_size
// adaptive.tolerance of non-iterative kinds (iterative kinds: none, they grow H while the
// iteration converges easily).
inline constexpr double kDefaultErrorTolerance = 1e-4;
inline constexpr int kMaxExtrapolationDegree = 5;  // algorithm / unit extrapolation_degree

struct AlgorithmSettings {
  v1::Algorithm::Kind kind = v1::Algorithm::JACOBI;
  bool iterative = false;                    // FIXED_POINT or NEWTON
  double start_time = 0.0, stop_time = 0.0;  // s
  double step_size = 0.0;                    // s; H, the first H when adaptive
  double tolerance = kDefaultCouplingTolerance;
  int max_iterations = kDefaultMaxIterations;
  double relaxation = kDefaultRelaxation;  // in (0, 1]
  bool aitken = false;
  bool linear_coupling = false;  // as written; MasterConfig decides whether it applies
  int extrapolation_degree = 0;
  v1::Algorithm::NewtonJacobian newton_jacobian = v1::Algorithm::AUTO;  // as written
  // algorithm.adaptive given (MasterConfig turns it off when a unit cannot vary its step).
  bool adaptive = false;
  double min_step = 0.0, max_step = 0.0;  // s; resolved, min_step <= step_size <= max_step
  double error_tolerance = 0.0;           // adaptive.tolerance resolved; 0: no error estimate
  int checkpoint_every = 0;       // accepted steps between checkpoints; 0: by wall time only
  bool allow_non_finite = false;  // false: a NaN or infinite output fails the run
};

// Errors name the field ("algorithm.adaptive.min_step ...") and the value written.
[[nodiscard]] absl::StatusOr<AlgorithmSettings> ResolveAlgorithm(const v1::Scenario& scenario);

// The rows a run records (the start and one per accepted step) as far as known beforehand: with a
// fixed step, ceil((stop - start) / H) + 1; adaptive, 64; at most 10^7. For reserving a table's
// memory once rather than growing it (every fresh page a page fault).
size_t ExpectedRows(const AlgorithmSettings& algorithm);

}  // namespace cosimo
