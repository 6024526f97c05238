// Helpers for the FMI unit tests: where the test FMUs are, scenario unit specs, stepping a unit,
// and the analytic solutions the results are compared against.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "cosimo/units/unit.h"
#include "cosimo/v1/scenario.pb.h"
#include "units/src/fmi/fmu_unit.h"

namespace cosimo::units::fmu::testing {

inline std::string FmuPath(const std::string& name) {
  return std::string(COSIMO_BINARY_DIR) + "/fmus/" + name + ".fmu";
}

inline v1::Unit Spec(const std::string& name, const std::string& fmu) {
  v1::Unit spec;
  spec.set_name(name);
  spec.mutable_fmu()->set_path(FmuPath(fmu));
  return spec;
}
inline void SetNumber(v1::Unit* spec, const std::string& name, double value) {
  (*spec->mutable_parameters())[name].set_number_value(value);
}
inline void UseSolver(v1::Unit* spec, v1::Solver::Method method, double step) {
  spec->mutable_solver()->set_method(method);
  spec->mutable_solver()->set_step(step);
}

inline std::unique_ptr<Unit> Load(const v1::Unit& spec) {
  auto unit = CreateFmuUnit(spec, spec.fmu().path());
  EXPECT_TRUE(unit.ok()) << unit.status();
  return unit.ok() ? std::move(*unit) : nullptr;
}

// One step of size h with the inputs `coefficients` (inputs x order); expects success.
inline StepReply StepOnce(Unit& unit, double h, const Eigen::MatrixXd& coefficients) {
  StepRequest request;
  request.time = unit.time();
  request.step = h;
  request.inputs.coefficients = coefficients;
  StepReply reply;
  unit.Step(request, &reply);
  return reply;
}

// m x'' + cf x' + c x = F0 + k t, x(0) = x0, x'(0) = v0 (underdamped): x(t), x'(t).
struct Oscillator {
  double m = 1.0, c = 1.0, cf = 0.2;
  void Solve(double x0, double v0, double f0, double k, double t, double* x, double* v) const {
    const double slope = k / c;  // particular solution A t + B
    const double offset = (f0 - cf * k / c) / c;
    const double a = cf / (2.0 * m);
    const double wd = std::sqrt(c / m - a * a);
    const double y0 = x0 - offset, w0 = v0 - slope;  // homogeneous part
    const double A = y0, B = (w0 + a * y0) / wd;
    const double decay = std::exp(-a * t);
    const double cs = std::cos(wd * t), sn = std::sin(wd * t);
    *x = slope * t + offset + decay * (A * cs + B * sn);
    *v = slope + decay * (-a * (A * cs + B * sn) + wd * (-A * sn + B * cs));
  }
};

}  // namespace cosimo::units::fmu::testing
