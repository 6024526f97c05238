// The solvers behind CreateSolver, one constructor function each. Private to worker/src; tests
// use them directly to measure convergence orders. Arguments are checked by CreateSolver
// (step > 0 for fixed-step methods, tolerance >= 0, ...); these functions trust them.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cosimo/v1/scenario.pb.h"
#include "units/src/models/solver_spec.h"
#include "units/src/solvers/solver.h"

namespace cosimo::units {

// Defaults used when a scenario leaves a field at 0.
inline constexpr int kDefaultMaxIterations = 50;             // implicit Euler, per substep
inline constexpr double kDefaultIterationTolerance = 1e-10;  // implicit Euler, relative
inline constexpr double kDefaultTolerance = 1e-6;  // RK45 and CVODE, relative and absolute

// x(t+h) = x(t) + h F(x(t), u(t), t), fixed substep `step` (the last one shortened).
std::unique_ptr<Solver> NewExplicitEulerSolver(double step);

// x(t+h) = x(t) + h F(x(t+h), u(t+h), t+h), solved by direct (fixed point) iteration or Newton.
std::unique_ptr<Solver> NewImplicitEulerSolver(double step, v1::Solver::Iteration iteration,
                                               int max_iterations, double tolerance,
                                               std::string unit_name);

// Classical fourth-order Runge-Kutta, fixed substep `step` (the last one shortened).
std::unique_ptr<Solver> NewRk4Solver(double step);

// Dormand-Prince 5(4) with error control; `initial_step` 0 picks one; the accepted step size
// carries over from one communication step to the next (and is part of the saved history).
std::unique_ptr<Solver> NewRk45Solver(double initial_step, double tolerance, std::string unit_name);

// The two-step scheme for second-order systems (the tutorial's Godunov scheme), states
// [positions; velocities]; started by one RK4 substep; history = previous positions.
std::unique_ptr<Solver> NewCentralDifferenceSolver(double step);

// Matrix exponential with a Van Loan block for the polynomial inputs; the model must be
// linear time invariant (affine: x' = A x + B u + f).
std::unique_ptr<Solver> NewExactSolver(const Model& model);

// SUNDIALS CVODE, BDF with Newton and a dense linear solver; `initial_step` 0 lets CVODE pick.
[[nodiscard]] absl::StatusOr<std::unique_ptr<Solver>> NewCvodeSolver(const Model& model,
                                                                     double initial_step,
                                                                     double tolerance,
                                                                     std::string unit_name);

// IsSecondOrderModel (what CENTRAL_DIFFERENCE needs): units/src/models/solver_spec.h.

}  // namespace cosimo::units
