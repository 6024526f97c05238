// The benchmark scenarios, built in code so that the sizes follow the command line.
//
// - Trivial unit: linear_state_space x' = -x + u, y = x (1 state, 1 input, 1 output), explicit
//   Euler with one substep per communication step: the cheapest unit that still integrates, so
//   that a macro step measures the orchestration and the transport.
// - Ring: n trivial units, unit i's input from unit i-1's output (Jacobi).
// - Fixed-point pair: two output-reactive units in an algebraic loop (y_a = x + 0.5 u_a,
//   y_b = 0.5 u_b), fixed-point iteration with rollback.
// - Ten-state unit: linear_state_space with a stable tridiagonal A (10 x 10), input into the first
//   state, output of the last, RK4 with 100 substeps per communication step (COSTARICA figure).
#pragma once

#include "cosimo/v1/scenario.pb.h"

namespace cosimo::bench {

inline constexpr double kMacroStep = 1e-3;  // s, communication step of every scenario

v1::Unit TrivialUnit(const std::string& name, double x0);
// `substeps` RK4 substeps per kMacroStep-sized communication step of `macro_step`.
v1::Unit TenStateUnit(const std::string& name, double macro_step, int substeps);

v1::Scenario RingScenario(int units, int steps);
v1::Scenario FixedPointScenario(int steps, double tolerance);
// The ten-state unit (never rolled back: COSTARICA) in a loop with a feedthrough unit
// y = -0.5 u, fixed point, `steps` steps of `macro_step`.
v1::Scenario EstimatedLoopScenario(int steps, double macro_step);

}  // namespace cosimo::bench
