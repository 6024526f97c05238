#include "scenarios.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace cosimo::bench {
namespace {

void SetList(v1::BuiltinModel* model, const std::string& name, const std::vector<double>& values) {
  google::protobuf::ListValue* list = (*model->mutable_parameters())[name].mutable_list_value();
  for (double v : values) list->add_values()->set_number_value(v);
}

v1::Unit LinearUnit(const std::string& name, const std::vector<double>& a,
                    const std::vector<double>& b, const std::vector<double>& c,
                    const std::vector<double>& d, const std::vector<double>& x0) {
  v1::Unit unit;
  unit.set_name(name);
  v1::BuiltinModel* model = unit.mutable_builtin();
  model->set_model("linear_state_space");
  SetList(model, "A", a);
  if (!b.empty()) SetList(model, "B", b);
  if (!c.empty()) SetList(model, "C", c);
  if (!d.empty()) SetList(model, "D", d);
  if (!x0.empty()) SetList(model, "x0", x0);
  return unit;
}

// y = gain u, no states.
v1::Unit GainUnit(const std::string& name, double gain) {
  v1::Unit unit = LinearUnit(name, {}, {}, {}, {gain}, {});
  unit.mutable_solver()->set_method(v1::Solver::EXPLICIT_EULER);
  unit.mutable_solver()->set_step(kMacroStep);
  return unit;
}

void Connect(v1::Scenario* scenario, const std::string& from, const std::string& to) {
  v1::Connection* c = scenario->add_connections();
  c->set_from(from);
  c->set_to(to);
}

}  // namespace

v1::Unit TrivialUnit(const std::string& name, double x0) {
  v1::Unit unit = LinearUnit(name, {-1.0}, {1.0}, {1.0}, {0.0}, {x0});
  unit.mutable_solver()->set_method(v1::Solver::EXPLICIT_EULER);
  unit.mutable_solver()->set_step(kMacroStep);
  return unit;
}

v1::Unit TenStateUnit(const std::string& name, double macro_step, int substeps) {
  constexpr int kN = 10;
  std::vector<double> a(kN * kN, 0.0), b(kN, 0.0), c(kN, 0.0), x0(kN, 0.0);
  for (int i = 0; i < kN; ++i) {
    a[i * kN + i] = -2.0;
    if (i + 1 < kN) a[i * kN + i + 1] = a[(i + 1) * kN + i] = 1.0;
    x0[i] = 0.1 * (i + 1);
  }
  b[0] = 1.0;
  c[kN - 1] = 1.0;
  v1::Unit unit = LinearUnit(name, a, b, c, {0.0}, x0);
  unit.mutable_solver()->set_method(v1::Solver::RK4);
  unit.mutable_solver()->set_step(macro_step / substeps);
  return unit;
}

v1::Scenario RingScenario(int units, int steps) {
  v1::Scenario s;
  s.set_name(absl::StrCat("bench ring of ", units));
  s.set_start_time(0.0);
  s.set_stop_time(steps * kMacroStep);
  for (int i = 0; i < units; ++i) {
    *s.add_units() = TrivialUnit(absl::StrCat("u", i), 1.0 + i);
  }
  for (int i = 0; i < units; ++i) {
    Connect(&s, absl::StrCat("u", i, ".y0"), absl::StrCat("u", (i + 1) % units, ".u0"));
  }
  s.mutable_algorithm()->set_kind(v1::Algorithm::JACOBI);
  s.mutable_algorithm()->set_step_size(kMacroStep);
  return s;
}

v1::Scenario FixedPointScenario(int steps, double tolerance) {
  v1::Scenario s;
  s.set_name("bench fixed point");
  s.set_start_time(0.0);
  s.set_stop_time(steps * kMacroStep);
  v1::Unit a = LinearUnit("a", {-1.0}, {1.0}, {1.0}, {0.5}, {1.0});
  a.mutable_solver()->set_method(v1::Solver::EXPLICIT_EULER);
  a.mutable_solver()->set_step(kMacroStep);
  *s.add_units() = a;
  *s.add_units() = GainUnit("b", 0.5);
  Connect(&s, "a.y0", "b.u0");
  Connect(&s, "b.y0", "a.u0");
  v1::Algorithm* algorithm = s.mutable_algorithm();
  algorithm->set_kind(v1::Algorithm::FIXED_POINT);
  algorithm->set_step_size(kMacroStep);
  algorithm->set_tolerance(tolerance);
  algorithm->set_max_iterations(50);
  return s;
}

v1::Scenario EstimatedLoopScenario(int steps, double macro_step) {
  v1::Scenario s;
  s.set_name("bench COSTARICA loop");
  s.set_start_time(0.0);
  s.set_stop_time(steps * macro_step);
  v1::Unit plant = TenStateUnit("plant", macro_step, 100);
  plant.set_rollback(v1::Unit::FORBID);
  *s.add_units() = plant;
  v1::Unit gain = GainUnit("feedback", -0.5);
  gain.mutable_solver()->set_step(macro_step);
  *s.add_units() = gain;
  Connect(&s, "plant.y0", "feedback.u0");
  Connect(&s, "feedback.y0", "plant.u0");
  v1::Algorithm* algorithm = s.mutable_algorithm();
  algorithm->set_kind(v1::Algorithm::FIXED_POINT);
  algorithm->set_step_size(macro_step);
  algorithm->set_tolerance(1e-10);
  algorithm->set_max_iterations(50);
  return s;
}

}  // namespace cosimo::bench
