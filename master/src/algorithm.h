// The master algorithms behind one interface, in the spirit of libcosim's `algorithm`: built
// (set up, buffers sized) for the units of one run, then asked for one attempt of a macro step
// at a time. The run (master.cc) initialises the units, owns the time loop and the step
// control (step_control.h), and accepts or rejects what an attempt gave.
//
// - Jacobi, Gauss-Seidel (jacobi_gauss_seidel.cc): one round of steps from extrapolated inputs,
//   all at once or in the reactive order;
// - fixed point (fixed_point.cc) and Newton (newton.cc): iterations on the coupling unknowns at
//   t[N+1] over tentative steps (iterative.h), Newton also for the one linear solve of
//   algorithm.linear_coupling.
// Every round goes through the fan-out (fan_out.h). One thread (the job's).
#pragma once

#include <memory>

#include "absl/status/status.h"
#include "master/src/coupled_units.h"

namespace cosimo::master {

class Algorithm {
 public:
  virtual ~Algorithm() = default;
  // One attempt of the macro step [t, t + h] from the accepted outputs at t. *attempt says
  // whether the step can be accepted (the run then commits it) or why not (the run rejects it
  // when the steps were tentative); an error ends the run.
  [[nodiscard]] virtual absl::Status DoStep(double t, double h, Attempt* attempt) = 0;
};

// The algorithm `units.config()` names.
std::unique_ptr<Algorithm> MakeAlgorithm(CoupledUnits& units);

// The constructors MakeAlgorithm chooses from.
std::unique_ptr<Algorithm> MakeJacobi(CoupledUnits& units);
std::unique_ptr<Algorithm> MakeGaussSeidel(CoupledUnits& units);
std::unique_ptr<Algorithm> MakeFixedPoint(CoupledUnits& units);
// `jacobian`: never AUTO. `perturbation`: the relative perturbation of finite differences, 0 for
// the default (1 for a linear coupling: exact for an affine map, and well scaled).
std::unique_ptr<Algorithm> MakeNewton(CoupledUnits& units, v1::Algorithm::NewtonJacobian jacobian,
                                      double perturbation);

}  // namespace cosimo::master
