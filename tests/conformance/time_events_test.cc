// Conformance of inputs that jump between communication points (issue 46, item 2): a table's
// discontinuities (a repeated time stamp, as the FMI cross-check's input files write them) and
// the samples of a held table are time events; the master ends a communication step on each,
// so that the unit fed sees the jump when it happens. CTest label `conformance`.
//
// The unit fed is fmi2_probe, an integrator x' = u (x(0) = 0), as Co-Simulation and as Model
// Exchange: with a piecewise constant u its exact solution is piecewise linear, which RK4 (and
// the FMU's own RK4 under Co-Simulation) integrates exactly, so the error is at the level of
// rounding when the steps end on the jumps. Applied at the next communication point instead
// (before issue 46: 0.9018 for a jump at 0.9 with H = 0.003006), x is off by the jump times the
// lag (1.8e-3 here) from the jump on.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/conformance/conformance_util.h"

namespace cosimo {
namespace {

using testing::TempDir;
using testing::WriteFile;

constexpr double kH = 0.003006;  // the step of the cross-check case of issue 46

std::string Scenario(const std::string& dir, const std::string& interpolation,
                     const std::string& solver) {
  return R"({ "name": "steps", "start_time": 0, "stop_time": 2,
    "units": [ { "name": "tab", "table": { "path": ")" +
         dir + R"(/u.csv", "interpolation": ")" + interpolation + R"(" } },
               { "name": "p", "fmu": { "path": ")" +
         Fmu("fmi2_probe") + "\" }" + (solver.empty() ? "" : R"(, "solver": )" + solver) +
         R"( } ],
    "connections": [ { "from": "tab.u", "to": "p.u" } ],
    "algorithm": { "kind": "JACOBI", "step_size": )" +
         std::to_string(kH) + R"( },
    "record": [ "p.x", "tab.u" ] })";
}

// The largest |x - exact| over the rows, and whether every event time is a row.
void Check(const Table& t, const std::function<double(double)>& exact,
           const std::vector<double>& events, const std::string& what) {
  const int x = t.Column("p.x");
  ASSERT_GE(x, 0) << what;
  double worst = 0.0, worst_t = 0.0;
  for (const auto& row : t.rows) {
    const double error = std::abs(row[static_cast<size_t>(x)] - exact(row[0]));
    if (error > worst) worst = error, worst_t = row[0];
  }
  EXPECT_LT(worst, 1e-12) << what << ": worst error " << worst << " at t=" << worst_t;
  for (double e : events) {
    const bool landed = std::any_of(t.rows.begin(), t.rows.end(),
                                    [&](const std::vector<double>& r) { return r[0] == e; });
    EXPECT_TRUE(landed) << what << ": no communication point at the event t=" << e;
  }
}

constexpr char kRk4[] = R"({ "method": "RK4", "step": 0.001 })";

// A step 0 -> 1 at t = 0.9 written as the cross-check writes it (two rows at 0.9) and back
// 1 -> -0.5 at 1.3: x = integral of u, exactly piecewise linear.
TEST(TimeEventConformance, ATableJumpIsACommunicationPoint) {
  const auto exact = [](double t) {
    if (t <= 0.9) return 0.0;
    if (t <= 1.3) return t - 0.9;
    return 0.4 - 0.5 * (t - 1.3);
  };
  for (const char* solver : {"", kRk4}) {
    const std::string dir = TempDir("conformance-time-events");
    WriteFile(dir + "/u.csv", "time,u\n0,0\n0.9,0\n0.9,1\n1.3,1\n1.3,-0.5\n2,-0.5\n");
    WriteFile(dir + "/s.json", Scenario(dir, "LINEAR", solver));
    const RunResult r = CosimoRun(dir, "jump", {dir + "/s.json"});
    ASSERT_EQ(r.code, 0) << r.log;
    Check(r.table, exact, {0.9, 1.3}, *solver == 0 ? "CS" : "ME");
  }
}

// A held table changes at each of its samples, none of them on the grid of H: each is a time
// event. u = 1 on [0, 0.31), 3 on [0.31, 0.777), -2 from 0.777.
TEST(TimeEventConformance, AHeldTableSamplesAreCommunicationPoints) {
  const auto exact = [](double t) {
    if (t <= 0.31) return t;
    if (t <= 0.777) return 0.31 + 3.0 * (t - 0.31);
    return 0.31 + 3.0 * (0.777 - 0.31) - 2.0 * (t - 0.777);
  };
  for (const char* solver : {"", kRk4}) {
    const std::string dir = TempDir("conformance-time-events");
    WriteFile(dir + "/u.csv", "time,u\n0,1\n0.31,3\n0.777,-2\n2,-2\n");
    WriteFile(dir + "/s.json", Scenario(dir, "HOLD", solver));
    const RunResult r = CosimoRun(dir, "held", {dir + "/s.json"});
    ASSERT_EQ(r.code, 0) << r.log;
    Check(r.table, exact, {0.31, 0.777}, *solver == 0 ? "CS" : "ME");
  }
}

// The grid of H goes on after an event: the communication points are the grid's, plus the
// events (H = 0.003006 from 0: 0.9 falls between 0.899.. and 0.9018).
TEST(TimeEventConformance, TheGridGoesOnAfterAnEvent) {
  const std::string dir = TempDir("conformance-time-events");
  WriteFile(dir + "/u.csv", "time,u\n0,0\n0.9,0\n0.9,1\n2,1\n");
  WriteFile(dir + "/s.json", Scenario(dir, "LINEAR", ""));
  const RunResult r = CosimoRun(dir, "grid", {dir + "/s.json"});
  ASSERT_EQ(r.code, 0) << r.log;
  const size_t grid_points = static_cast<size_t>(std::ceil(2.0 / kH - 1e-9));  // with stop
  EXPECT_EQ(r.table.rows.size(), grid_points + 2);  // t = 0, the grid, the event
  for (const auto& row : r.table.rows) {
    if (row[0] == 0.9 || row[0] == 2.0) continue;
    const double k = row[0] / kH;
    EXPECT_NEAR(k, std::round(k), 1e-9) << "t=" << row[0];
  }
}

}  // namespace
}  // namespace cosimo
