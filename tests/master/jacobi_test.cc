// Jacobi and Gauss-Seidel on the tutorial's car split into a controller and a vehicle, against
// the analytic solution of m v' = k (v_d - v) - c_f v, v(0) = 0:
//   v(t) = v_inf (1 - e^{-lambda t}),  v_inf = k v_d / (k + c_f),  lambda = (k + c_f) / m
// (with the tutorial's m = 1576, k = 1e3, v_d = 40, c_f = 0.5: v_inf = 39.98001, lambda =
// 0.634835). Convergence orders are measured, not stored.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "tests/master/master_test_util.h"

namespace cosimo::master {
namespace {

using testing::At;
using testing::Rows;
using testing::RunJson;

constexpr double kM = 1576.0, kK = 1e3, kVd = 40.0, kCf = 0.5;

double CarSpeed(double t) { return kK * kVd / (kK + kCf) * (1.0 - std::exp(-(kK + kCf) / kM * t)); }

std::string CarScenario(const std::string& kind, double h, const std::string& approx,
                        double stop = 10.0) {
  return absl::StrCat(R"({"name": "car", "start_time": 0, "stop_time": )", stop, R"(,
    "units": [ {"name": "ctrl", "builtin": {"model": "car_controller"}},
               {"name": "car", "builtin": {"model": "car_vehicle"}} ],
    "connections": [ {"from": "car.v", "to": "ctrl.v"}, {"from": "ctrl.F", "to": "car.F"} ],
    "algorithm": {"kind": ")",
                      kind, R"(", "step_size": )", h, R"(, "input_approximation": ")", approx,
                      R"("},
    "record": ["car.v", "ctrl.F"]})");
}

double MaxCarError(const MasterResult& r) {
  double e = 0.0;
  for (size_t row = 0; row < Rows(r); ++row) {
    e = std::max(e, std::abs(At(r, row, "car.v") - CarSpeed(At(r, row, "time"))));
  }
  return e;
}

// Measured order log2(e(H) / e(H/2)) over H = 0.2, 0.1, 0.05, 0.025.
std::vector<double> Orders(const std::string& kind, const std::string& approx) {
  std::vector<double> errors;
  for (double h : {0.2, 0.1, 0.05, 0.025}) {
    absl::StatusOr<MasterResult> r = RunJson(CarScenario(kind, h, approx));
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok()) return {};
    errors.push_back(MaxCarError(*r));
  }
  std::vector<double> orders;
  for (size_t i = 1; i < errors.size(); ++i) orders.push_back(std::log2(errors[i - 1] / errors[i]));
  std::printf("%s %s: max errors %.3e %.3e %.3e %.3e, orders %.3f %.3f %.3f\n", kind.c_str(),
              approx.c_str(), errors[0], errors[1], errors[2], errors[3], orders[0], orders[1],
              orders[2]);
  return orders;
}

TEST(JacobiTest, CarZohConvergesAtFirstOrder) {
  for (double order : Orders("JACOBI", "ZOH")) EXPECT_NEAR(order, 1.0, 0.1);
}

TEST(JacobiTest, CarFohConvergesAtSecondOrder) {
  for (double order : Orders("JACOBI", "FOH")) EXPECT_NEAR(order, 2.0, 0.25);
}

TEST(GaussSeidelTest, CarZohConvergesAtFirstOrder) {
  for (double order : Orders("GAUSS_SEIDEL", "ZOH")) EXPECT_NEAR(order, 1.0, 0.1);
}

TEST(GaussSeidelTest, CarBeatsJacobiWithTheSameStep) {
  absl::StatusOr<MasterResult> j = RunJson(CarScenario("JACOBI", 0.1, "ZOH"));
  absl::StatusOr<MasterResult> gs = RunJson(CarScenario("GAUSS_SEIDEL", 0.1, "ZOH"));
  ASSERT_TRUE(j.ok()) << j.status();
  ASSERT_TRUE(gs.ok()) << gs.status();
  // The controller (output reactive) follows the vehicle, so F(t[N+1]) is consistent with
  // v(t[N+1]) at every recorded point.
  for (size_t row = 0; row < Rows(*gs); ++row) {
    EXPECT_NEAR(At(*gs, row, "ctrl.F"), kK * (kVd - At(*gs, row, "car.v")), 1e-9);
  }
  EXPECT_LT(MaxCarError(*gs), MaxCarError(*j));
}

TEST(JacobiTest, RecordsEveryCommunicationPointAndLandsOnStopTime) {
  // H = 0.3 on [0, 1]: rows at 0, 0.3, 0.6, 0.9 (t[N] = N H, no drift) and the shortened step
  // to 1.0.
  absl::StatusOr<MasterResult> r = RunJson(CarScenario("JACOBI", 0.3, "ZOH", 1.0));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->columns, (std::vector<std::string>{"time", "car.v", "ctrl.F"}));
  ASSERT_EQ(Rows(*r), 5u);
  const double expected[] = {0.0, 0.3, 0.6, 0.3 * 3, 1.0};
  for (size_t row = 0; row < 5; ++row) EXPECT_EQ(At(*r, row, "time"), expected[row]);
  EXPECT_EQ(r->steps_accepted, 4u);
  EXPECT_EQ(r->steps_rejected, 0u);
  EXPECT_EQ(r->iterations_mean, 1.0);
  EXPECT_EQ(r->iterations_max, 1u);
  // Initial outputs are consistent: F(0) = k (v_d - v(0)) = 40000.
  EXPECT_EQ(At(*r, 0, "ctrl.F"), 40000.0);
  ASSERT_EQ(r->units.size(), 2u);
  for (const UnitSummary& s : r->units) {
    EXPECT_EQ(s.location.worker, "local");
    EXPECT_EQ(s.report.mode, UnitMode::kDirect);  // never asked a tentative step
    EXPECT_EQ(s.report.real_integrations, 4u);
    EXPECT_EQ(s.report.estimates, 0u);
  }
}

TEST(JacobiTest, ManyStepsDoNotDriftOffTheGrid) {
  // 0.1 does not add up exactly in binary; t[N] = start + N H keeps the grid.
  absl::StatusOr<MasterResult> r = RunJson(CarScenario("JACOBI", 0.1, "ZOH", 10.0));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(Rows(*r), 101u);
  for (size_t row = 0; row < 100; ++row) EXPECT_EQ(At(*r, row, "time"), 0.1 * row);
  EXPECT_EQ(At(*r, 100, "time"), 10.0);
}

class CountingObserver : public MasterObserver {
 public:
  void OnProgress(const Progress& p) override {
    ++calls;
    last = p;
  }
  bool Canceled() override { return cancel_after >= 0 && calls >= cancel_after; }
  int calls = 0;
  int cancel_after = -1;
  Progress last;
};

TEST(JacobiTest, ObserverSeesProgressAndCanCancel) {
  const v1::Scenario scenario = testing::Parse(CarScenario("JACOBI", 0.5, "ZOH", 5.0));
  for (int cancel_after : {-1, 3}) {
    testing::LocalJob job;
    for (int u = 0; u < scenario.units_size(); ++u) {
      absl::StatusOr<std::unique_ptr<LocalUnit>> unit =
          LocalUnit::Create(testing::LoadFor(scenario, u));
      ASSERT_TRUE(unit.ok()) << unit.status();
      job.Add(*std::move(unit));
    }
    CountingObserver observer;
    observer.cancel_after = cancel_after;
    absl::StatusOr<MasterResult> r = RunMaster(scenario, job.units, &observer);
    if (cancel_after < 0) {
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(observer.calls, 10);
      EXPECT_EQ(observer.last.time, 5.0);
      EXPECT_EQ(observer.last.steps_accepted, 10u);
    } else {
      EXPECT_EQ(r.status().code(), absl::StatusCode::kCancelled);
      EXPECT_NE(r.status().message().find("t=1.5"), std::string::npos) << r.status();
    }
  }
}

TEST(JacobiTest, InputReactiveUnitIsAnError) {
  const v1::Scenario scenario = testing::Parse(R"({"start_time": 0, "stop_time": 1,
    "units": [ {"name": "src", "builtin": {"model": "fake"}},
               {"name": "react", "builtin": {"model": "fake"}} ],
    "connections": [ {"from": "src.y", "to": "react.u"}, {"from": "react.y", "to": "src.u"} ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.1}})");
  testing::FakeUnit::Config plain, reactive;
  reactive.capabilities.input_reactive = true;
  testing::LocalJob job;
  job.Add(testing::FakeProxy(scenario, 0, plain));
  job.Add(testing::FakeProxy(scenario, 1, reactive));
  absl::StatusOr<MasterResult> r = RunMaster(scenario, job.units, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'react'"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("input reactive"), std::string::npos) << r.status();
  EXPECT_NE(r.status().message().find("t=0"), std::string::npos) << r.status();
}

TEST(JacobiTest, FakeUnitsJacobiMatchesHandComputedZoh) {
  // y1 = x1, x1' = -x1 + u1, u1 = y2;  y2 = x2, x2' = -x2 + u2, u2 = y1; x1(0) = 1, x2(0) = 0.
  // Jacobi ZOH step 1 (H = 0.5): x1 = e^{-H}, x2 = (1 - e^{-H}) * 1 (u2 = y1(0) = 1).
  const v1::Scenario scenario = testing::Parse(R"({"start_time": 0, "stop_time": 0.5,
    "units": [ {"name": "a", "builtin": {"model": "fake"}},
               {"name": "b", "builtin": {"model": "fake"}} ],
    "connections": [ {"from": "a.y", "to": "b.u"}, {"from": "b.y", "to": "a.u"} ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.5}, "record": ["a.y", "b.y", "a.x"]})");
  testing::FakeUnit::Config a, b;
  a.x0 = 1.0;
  testing::LocalJob job;
  job.Add(testing::FakeProxy(scenario, 0, a));
  job.Add(testing::FakeProxy(scenario, 1, b));
  absl::StatusOr<MasterResult> r = RunMaster(scenario, job.units, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(Rows(*r), 2u);
  EXPECT_NEAR(At(*r, 1, "a.y"), std::exp(-0.5), 1e-12);
  EXPECT_NEAR(At(*r, 1, "b.y"), 1.0 - std::exp(-0.5), 1e-12);
  EXPECT_NEAR(At(*r, 1, "a.x"), std::exp(-0.5), 1e-12);  // an extra recorded variable
  EXPECT_EQ(At(*r, 0, "a.x"), 1.0);
}

}  // namespace
}  // namespace cosimo::master
