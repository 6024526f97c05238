// Mass-spring-damper systems: the tutorial's mass-spring-damper (Example 4), Busch's dual-mass
// oscillator and the passenger of Example 5, each whole (for analytic comparison) and split into
// units coupled by forces (for co-simulation). All states are [positions; velocities].
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cosimo/common/status.h"
#include "units/src/models/affine_model.h"
#include "units/src/models/model_factories.h"

namespace cosimo::units {
namespace {

struct Body {
  std::string x, v;  // variable names of position and velocity
};

VariableInfo Position(const std::string& name, Causality c) { return Variable(name, c, "m"); }
VariableInfo Speed(const std::string& name, Causality c) { return Variable(name, c, "m/s"); }
VariableInfo Force(const std::string& name, Causality c) { return Variable(name, c, "N"); }

ModelResult Build(AffineModelSpec spec) {
  return std::unique_ptr<Model>(std::make_unique<AffineModel>(std::move(spec)));
}

// One mass on a spring-damper (c, d) to a base, optionally driven by a force input:
//   m x'' = -c (x - x_b) - d (v - v_b) + F.
// The base is the wall (x_b = v_b = 0) unless `base` names its position/velocity inputs.
// Inputs: [x_b, v_b]? then [F]?; outputs [x, v].
AffineModelSpec DrivenMass(double m, double c, double d, double x0, double v0, const Body& self,
                           const Body* base, const std::string* force) {
  AffineModelSpec spec;
  spec.states = {Position(self.x, Causality::kState), Speed(self.v, Causality::kState)};
  spec.outputs = {Position(self.x, Causality::kOutput), Speed(self.v, Causality::kOutput)};
  if (base != nullptr) {
    spec.inputs.push_back(Position(base->x, Causality::kInput));
    spec.inputs.push_back(Speed(base->v, Causality::kInput));
  }
  if (force != nullptr) spec.inputs.push_back(Force(*force, Causality::kInput));
  const Eigen::Index inputs = static_cast<Eigen::Index>(spec.inputs.size());
  spec.A.resize(2, 2);
  spec.A << 0.0, 1.0, -c / m, -d / m;
  spec.B = Eigen::MatrixXd::Zero(2, inputs);
  Eigen::Index column = 0;
  if (base != nullptr) {
    spec.B(1, 0) = c / m;
    spec.B(1, 1) = d / m;
    column = 2;
  }
  if (force != nullptr) spec.B(1, column) = 1.0 / m;
  spec.C = Eigen::MatrixXd::Identity(2, 2);
  spec.x0.resize(2);
  spec.x0 << x0, v0;
  return spec;
}

// One side of a coupling: a mass on a spring-damper (c, d) to the wall, tied to another body by
// a spring-damper (k_c, d_c). Inputs: the other body's position and velocity; outputs: x, v and
// the force this side exerts on the other, F = k_c (x - x_o) + d_c (v - v_o):
//   m x'' = -c x - d v - F.
AffineModelSpec CouplingMass(double m, double c, double d, double k_c, double d_c, double x0,
                             double v0, const Body& self, const Body& other,
                             const std::string& force) {
  AffineModelSpec spec;
  spec.states = {Position(self.x, Causality::kState), Speed(self.v, Causality::kState)};
  spec.inputs = {Position(other.x, Causality::kInput), Speed(other.v, Causality::kInput)};
  spec.outputs = {Position(self.x, Causality::kOutput), Speed(self.v, Causality::kOutput),
                  Force(force, Causality::kOutput)};
  spec.A.resize(2, 2);
  spec.A << 0.0, 1.0, -(c + k_c) / m, -(d + d_c) / m;
  spec.B.resize(2, 2);
  spec.B << 0.0, 0.0, k_c / m, d_c / m;
  spec.C.resize(3, 2);
  spec.C << 1.0, 0.0, 0.0, 1.0, k_c, d_c;
  spec.D.resize(3, 2);
  spec.D << 0.0, 0.0, 0.0, 0.0, -k_c, -d_c;
  spec.x0.resize(2);
  spec.x0 << x0, v0;
  return spec;
}

// M q'' = -K q - D q' for positions q: states [q; q'], A = [[0, I], [-M^-1 K, -M^-1 D]].
void SecondOrderSystem(const Eigen::VectorXd& masses, const Eigen::MatrixXd& stiffness,
                       const Eigen::MatrixXd& damping, AffineModelSpec* spec) {
  const Eigen::Index n = masses.size();
  spec->A = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  spec->A.topRightCorner(n, n) = Eigen::MatrixXd::Identity(n, n);
  const Eigen::VectorXd inverse = masses.cwiseInverse();
  spec->A.bottomLeftCorner(n, n) = -(inverse.asDiagonal() * stiffness);
  spec->A.bottomRightCorner(n, n) = -(inverse.asDiagonal() * damping);
}

}  // namespace

ModelResult MakeMassSpringDamper(ModelParameters& p) {
  COSIMO_ASSIGN_OR_RETURN(const double m, p.Number("m", 1.0, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(const double c, p.Number("c", 1.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(const double c_f, p.Number("c_f", 0.1, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(const double x0, p.Number("x0", 1.0));
  COSIMO_ASSIGN_OR_RETURN(const double v0, p.Number("v0", 0.0));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  const std::string force = "F_e";
  return Build(DrivenMass(m, c, c_f, x0, v0, {"x", "v"}, nullptr, &force));
}

ModelResult MakeMassSpringDamperCoupling(ModelParameters& p) {
  COSIMO_ASSIGN_OR_RETURN(const double m, p.Number("m", 1.0, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(const double c, p.Number("c", 1.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(const double c_f, p.Number("c_f", 0.1, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(const double k_c, p.Number("k_c", 1.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(const double d_c, p.Number("d_c", 0.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(const double x0, p.Number("x0", 0.0));
  COSIMO_ASSIGN_OR_RETURN(const double v0, p.Number("v0", 0.0));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  return Build(CouplingMass(m, c, c_f, k_c, d_c, x0, v0, {"x", "v"}, {"x_o", "v_o"}, "F_c"));
}

// ---- Dual-mass oscillator -----------------------------------------------------------------
namespace {

struct DualMassParameters {
  double m1, c1, d1, x1_0, v1_0;
  double m2, c2, d2, x2_0, v2_0;
  double c_c, d_c;
};

absl::Status ReadMass1(ModelParameters& p, DualMassParameters* q) {
  COSIMO_ASSIGN_OR_RETURN(q->m1, p.Number("m1", 1.0, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(q->c1, p.Number("c1", 10.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q->d1, p.Number("d1", 1.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q->x1_0, p.Number("x1_0", 1.0));
  COSIMO_ASSIGN_OR_RETURN(q->v1_0, p.Number("v1_0", 0.0));
  return absl::OkStatus();
}

absl::Status ReadMass2(ModelParameters& p, DualMassParameters* q) {
  COSIMO_ASSIGN_OR_RETURN(q->m2, p.Number("m2", 1.0, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(q->c2, p.Number("c2", 10.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q->d2, p.Number("d2", 1.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q->x2_0, p.Number("x2_0", 0.0));
  COSIMO_ASSIGN_OR_RETURN(q->v2_0, p.Number("v2_0", 0.0));
  COSIMO_ASSIGN_OR_RETURN(q->c_c, p.Number("c_c", 100.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q->d_c, p.Number("d_c", 1.0, Sign::kNonNegative));
  return absl::OkStatus();
}

}  // namespace

// States [x1, x2, v1, v2]; outputs x1, v1, x2, v2, F_c = c_c (x2 - x1) + d_c (v2 - v1).
ModelResult MakeDualMassOscillator(ModelParameters& p) {
  DualMassParameters q{};
  COSIMO_RETURN_IF_ERROR(ReadMass1(p, &q));
  COSIMO_RETURN_IF_ERROR(ReadMass2(p, &q));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  AffineModelSpec spec;
  spec.states = {Position("x1", Causality::kState), Position("x2", Causality::kState),
                 Speed("v1", Causality::kState), Speed("v2", Causality::kState)};
  spec.outputs = {Position("x1", Causality::kOutput), Speed("v1", Causality::kOutput),
                  Position("x2", Causality::kOutput), Speed("v2", Causality::kOutput),
                  Force("F_c", Causality::kOutput)};
  Eigen::Vector2d masses(q.m1, q.m2);
  Eigen::Matrix2d stiffness, damping;
  stiffness << q.c1 + q.c_c, -q.c_c, -q.c_c, q.c2 + q.c_c;
  damping << q.d1 + q.d_c, -q.d_c, -q.d_c, q.d2 + q.d_c;
  SecondOrderSystem(masses, stiffness, damping, &spec);
  spec.C.resize(5, 4);
  spec.C << 1, 0, 0, 0,  //
      0, 0, 1, 0,        //
      0, 1, 0, 0,        //
      0, 0, 0, 1,        //
      -q.c_c, q.c_c, -q.d_c, q.d_c;
  spec.x0.resize(4);
  spec.x0 << q.x1_0, q.x2_0, q.v1_0, q.v2_0;
  return Build(std::move(spec));
}

// Mass 1: m1 x1'' = -c1 x1 - d1 v1 + F_c; input F_c, outputs x1, v1.
ModelResult MakeDualMassOscillator1(ModelParameters& p) {
  DualMassParameters q{};
  COSIMO_RETURN_IF_ERROR(ReadMass1(p, &q));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  const std::string force = "F_c";
  return Build(DrivenMass(q.m1, q.c1, q.d1, q.x1_0, q.v1_0, {"x1", "v1"}, nullptr, &force));
}

// Mass 2 with the coupling: inputs x1, v1; outputs x2, v2 and F_c (force on mass 1);
// m2 x2'' = -c2 x2 - d2 v2 - F_c.
ModelResult MakeDualMassOscillator2(ModelParameters& p) {
  DualMassParameters q{};
  COSIMO_RETURN_IF_ERROR(ReadMass2(p, &q));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  return Build(CouplingMass(q.m2, q.c2, q.d2, q.c_c, q.d_c, q.x2_0, q.v2_0, {"x2", "v2"},
                            {"x1", "v1"}, "F_c"));
}

// ---- Passenger (tutorial Example 5) ---------------------------------------------------------
namespace {

struct PassengerParameters {
  double m_h, c_h, d_h, x_h0, v_h0;  // head, tied to the torso (neck)
  double m_t, c_t, d_t, x_t0, v_t0;  // torso, tied to the seat, which moves with the motor
  double m_m, c_m, x_m0, v_m0;       // motor on its mount (mass-spring)
};

absl::Status ReadHead(ModelParameters& p, PassengerParameters* q) {
  COSIMO_ASSIGN_OR_RETURN(q->m_h, p.Number("m_h", 5.0, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(q->c_h, p.Number("c_h", 2000.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q->d_h, p.Number("d_h", 20.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q->x_h0, p.Number("x_h0", 0.0));
  COSIMO_ASSIGN_OR_RETURN(q->v_h0, p.Number("v_h0", 0.0));
  return absl::OkStatus();
}

absl::Status ReadTorso(ModelParameters& p, PassengerParameters* q) {
  COSIMO_ASSIGN_OR_RETURN(q->m_t, p.Number("m_t", 40.0, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(q->c_t, p.Number("c_t", 40000.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q->d_t, p.Number("d_t", 800.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q->x_t0, p.Number("x_t0", 0.0));
  COSIMO_ASSIGN_OR_RETURN(q->v_t0, p.Number("v_t0", 0.0));
  return absl::OkStatus();
}

absl::Status ReadMotor(ModelParameters& p, PassengerParameters* q) {
  COSIMO_ASSIGN_OR_RETURN(q->m_m, p.Number("m_m", 100.0, Sign::kPositive));
  COSIMO_ASSIGN_OR_RETURN(q->c_m, p.Number("c_m", 160000.0, Sign::kNonNegative));
  COSIMO_ASSIGN_OR_RETURN(q->x_m0, p.Number("x_m0", 0.01));
  COSIMO_ASSIGN_OR_RETURN(q->v_m0, p.Number("v_m0", 0.0));
  return absl::OkStatus();
}

}  // namespace

// States [x_h, x_t, x_m, v_h, v_t, v_m]; outputs the same and F_h.
ModelResult MakePassenger(ModelParameters& p) {
  PassengerParameters q{};
  COSIMO_RETURN_IF_ERROR(ReadHead(p, &q));
  COSIMO_RETURN_IF_ERROR(ReadTorso(p, &q));
  COSIMO_RETURN_IF_ERROR(ReadMotor(p, &q));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  AffineModelSpec spec;
  spec.states = {Position("x_h", Causality::kState), Position("x_t", Causality::kState),
                 Position("x_m", Causality::kState), Speed("v_h", Causality::kState),
                 Speed("v_t", Causality::kState),    Speed("v_m", Causality::kState)};
  for (const VariableInfo& s : spec.states) {
    spec.outputs.push_back(Variable(s.name, Causality::kOutput, s.unit));
  }
  spec.outputs.push_back(Force("F_h", Causality::kOutput));
  Eigen::Vector3d masses(q.m_h, q.m_t, q.m_m);
  Eigen::Matrix3d stiffness, damping;
  // The motor is not loaded by the passenger (one-way drive, as in the tutorial).
  stiffness << q.c_h, -q.c_h, 0.0,    //
      -q.c_h, q.c_h + q.c_t, -q.c_t,  //
      0.0, 0.0, q.c_m;
  damping << q.d_h, -q.d_h, 0.0,      //
      -q.d_h, q.d_h + q.d_t, -q.d_t,  //
      0.0, 0.0, 0.0;
  SecondOrderSystem(masses, stiffness, damping, &spec);
  spec.C = Eigen::MatrixXd::Zero(7, 6);
  spec.C.topRows(6) = Eigen::MatrixXd::Identity(6, 6);
  spec.C.row(6) << q.c_h, -q.c_h, 0.0, q.d_h, -q.d_h, 0.0;
  spec.x0.resize(6);
  spec.x0 << q.x_h0, q.x_t0, q.x_m0, q.v_h0, q.v_t0, q.v_m0;
  return Build(std::move(spec));
}

// Head: inputs x_t, v_t; outputs x_h, v_h, F_h = c_h (x_h - x_t) + d_h (v_h - v_t).
ModelResult MakePassengerHead(ModelParameters& p) {
  PassengerParameters q{};
  COSIMO_RETURN_IF_ERROR(ReadHead(p, &q));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  return Build(CouplingMass(q.m_h, 0.0, 0.0, q.c_h, q.d_h, q.x_h0, q.v_h0, {"x_h", "v_h"},
                            {"x_t", "v_t"}, "F_h"));
}

// Torso: m_t x_t'' = -c_t (x_t - x_m) - d_t (v_t - v_m) + F_h; inputs x_m, v_m, F_h.
ModelResult MakePassengerTorso(ModelParameters& p) {
  PassengerParameters q{};
  COSIMO_RETURN_IF_ERROR(ReadTorso(p, &q));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  const Body base{"x_m", "v_m"};
  const std::string force = "F_h";
  return Build(DrivenMass(q.m_t, q.c_t, q.d_t, q.x_t0, q.v_t0, {"x_t", "v_t"}, &base, &force));
}

// Motor: m_m x_m'' = -c_m x_m; outputs x_m, v_m.
ModelResult MakePassengerMotor(ModelParameters& p) {
  PassengerParameters q{};
  COSIMO_RETURN_IF_ERROR(ReadMotor(p, &q));
  COSIMO_RETURN_IF_ERROR(p.CheckAllKnown());
  return Build(DrivenMass(q.m_m, q.c_m, 0.0, q.x_m0, q.v_m0, {"x_m", "v_m"}, nullptr, nullptr));
}

}  // namespace cosimo::units
