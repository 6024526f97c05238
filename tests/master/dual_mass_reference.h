// The reference solution of Busch's dual-mass oscillator for the master tests: the monolithic
// x(t) = e^{A t} x0 with the split models' defaults (m1 = m2 = 1, c1 = c2 = 10, d1 = d2 = 1,
// c_c = 100, d_c = 1, x1(0) = 1), and the error and difference measures the tests share.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <unsupported/Eigen/MatrixFunctions>

#include "tests/master/master_test_util.h"

namespace cosimo::master::testing {

// Monolithic states [x1, x2, v1, v2] at t.
inline Eigen::Vector4d Analytic(double t, double c_c = 100.0) {
  const double m1 = 1, m2 = 1, c1 = 10, c2 = 10, d1 = 1, d2 = 1, d_c = 1;
  Eigen::Matrix4d a = Eigen::Matrix4d::Zero();
  a(0, 2) = a(1, 3) = 1.0;
  a(2, 0) = -(c1 + c_c) / m1;
  a(2, 1) = c_c / m1;
  a(2, 2) = -(d1 + d_c) / m1;
  a(2, 3) = d_c / m1;
  a(3, 0) = c_c / m2;
  a(3, 1) = -(c2 + c_c) / m2;
  a(3, 2) = d_c / m2;
  a(3, 3) = -(d2 + d_c) / m2;
  const Eigen::Matrix4d phi = (a * t).exp();
  return phi * Eigen::Vector4d(1, 0, 0, 0);
}

inline double MaxError(const MasterResult& r, double c_c = 100.0) {
  double e = 0.0;
  for (size_t row = 0; row < Rows(r); ++row) {
    const Eigen::Vector4d x = Analytic(At(r, row, "time"), c_c);
    e = std::max({e, std::abs(At(r, row, "m1.x1") - x[0]), std::abs(At(r, row, "m2.x2") - x[1])});
  }
  return e;
}

inline double MaxDifference(const MasterResult& a, const MasterResult& b) {
  EXPECT_EQ(a.values.size(), b.values.size());
  double d = 0.0;
  for (size_t i = 0; i < std::min(a.values.size(), b.values.size()); ++i) {
    d = std::max(d, std::abs(a.values[i] - b.values[i]));
  }
  return d;
}

}  // namespace cosimo::master::testing
