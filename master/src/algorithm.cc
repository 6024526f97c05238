#include "master/src/algorithm.h"

namespace cosimo::master {

std::unique_ptr<Algorithm> MakeAlgorithm(CoupledUnits& units) {
  const MasterConfig& c = units.config();
  if (c.linear_coupling) return MakeNewton(units, v1::Algorithm::FINITE_DIFFERENCES, 1.0);
  switch (c.algorithm.kind) {
    case v1::Algorithm::GAUSS_SEIDEL:
      return MakeGaussSeidel(units);
    case v1::Algorithm::FIXED_POINT:
      return MakeFixedPoint(units);
    case v1::Algorithm::NEWTON:
      return MakeNewton(units, c.newton_jacobian, 0.0);
    default:
      return MakeJacobi(units);
  }
}

}  // namespace cosimo::master
