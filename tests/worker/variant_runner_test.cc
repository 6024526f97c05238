// A sweep's variant run whole on a worker (RunVariant, cosimo/worker/variant_runner.h): its KPIs
// are those of the same scenario run by the master over LocalUnits here; a unit that refuses a
// parameter, a KPI on a missing column and too many rows are FAILED outcomes naming the cause;
// several at once (RunVariants) give each its own outcome, in order; an FMU variant run twice is
// unpacked once and gives the damped oscillator's final position.
#include "cosimo/worker/variant_runner.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "cosimo/common/kpi.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sweep.h"
#include "cosimo/master/local_unit.h"
#include "cosimo/master/master.h"
#include "units/src/fmi/fmu_cache.h"

namespace cosimo::worker {
namespace {

v1::Scenario Car() {
  absl::StatusOr<v1::Scenario> car =
      LoadScenarioFile(std::string(COSIMO_SOURCE_DIR) + "/examples/car.json");
  EXPECT_TRUE(car.ok()) << car.status();
  return car.ok() ? *car : v1::Scenario();
}

v1::Kpi MakeKpi(const std::string& variable, v1::Kpi::Kind kind, double level = 0.0) {
  v1::Kpi kpi;
  kpi.set_variable(variable);
  kpi.set_kind(kind);
  kpi.set_level(level);
  return kpi;
}

v1::RunVariant Command(const v1::Scenario& scenario, const std::vector<v1::Kpi>& kpis) {
  v1::RunVariant command;
  command.set_job_id("job-test");
  *command.mutable_scenario() = scenario;
  for (int i = 0; i < scenario.units_size(); ++i) {
    *command.add_loads() = LoadUnitFor(scenario, i, "job-test");
  }
  for (const v1::Kpi& k : kpis) *command.add_kpis() = k;
  return command;
}

absl::StatusOr<std::string> NoFetch(const std::string& digest) {
  return absl::NotFoundError("no artifact " + digest + " in this test");
}

v1::VariantDone RunHere(const v1::RunVariant& command) {
  v1::VariantDone done;
  RunVariant(command, NoFetch, &done);
  return done;
}

TEST(VariantRunnerTest, KpisAreThoseOfTheMasterRunHere) {
  v1::Scenario car = Car();
  (*car.mutable_units(1)->mutable_builtin()->mutable_parameters())["m"].set_number_value(1200);
  const std::vector<v1::Kpi> kpis = {MakeKpi("vehicle.v", v1::Kpi::FINAL),
                                     MakeKpi("vehicle.v", v1::Kpi::FIRST_CROSSING, 30.0),
                                     MakeKpi("controller.F", v1::Kpi::RMS)};
  const v1::VariantDone done = RunHere(Command(car, kpis));
  ASSERT_EQ(done.status(), "SUCCEEDED") << done.message();
  ASSERT_EQ(done.kpis_size(), 3);
  EXPECT_GT(done.wall_s(), 0.0);

  std::vector<std::unique_ptr<master::LocalUnit>> units;
  std::vector<master::UnitProxy*> proxies;
  for (int i = 0; i < car.units_size(); ++i) {
    absl::StatusOr<std::unique_ptr<master::LocalUnit>> unit =
        master::LocalUnit::Create(LoadUnitFor(car, i, "here"));
    ASSERT_TRUE(unit.ok()) << unit.status();
    units.push_back(*std::move(unit));
    proxies.push_back(units.back().get());
  }
  absl::StatusOr<master::MasterResult> here = master::RunMaster(car, proxies, nullptr);
  ASSERT_TRUE(here.ok()) << here.status();
  for (int k = 0; k < 3; ++k) {
    absl::StatusOr<double> expected = ComputeKpi(kpis[k], *here);
    ASSERT_TRUE(expected.ok()) << expected.status();
    EXPECT_EQ(done.kpis(k), *expected) << KpiName(kpis[k]);
  }
  // The car reaches its set speed (40 m/s) and crosses 30 m/s on the way.
  EXPECT_NEAR(done.kpis(0), 40.0, 0.5);
  EXPECT_GT(done.kpis(1), 0.0);
  EXPECT_LT(done.kpis(1), car.stop_time());
}

TEST(VariantRunnerTest, FailuresAreOutcomesNamingTheCause) {
  v1::Scenario car = Car();
  (*car.mutable_units(1)->mutable_builtin()->mutable_parameters())["m"].set_number_value(-5);
  v1::VariantDone refused = RunHere(Command(car, {MakeKpi("vehicle.v", v1::Kpi::FINAL)}));
  EXPECT_EQ(refused.status(), "FAILED");
  EXPECT_NE(refused.message().find("'m' must be > 0"), std::string::npos) << refused.message();
  EXPECT_EQ(refused.kpis_size(), 0);

  v1::VariantDone no_column = RunHere(Command(Car(), {MakeKpi("vehicle.x", v1::Kpi::FINAL)}));
  EXPECT_EQ(no_column.status(), "FAILED");
  EXPECT_NE(no_column.message().find("vehicle.x"), std::string::npos) << no_column.message();

  v1::RunVariant long_run = Command(Car(), {MakeKpi("vehicle.v", v1::Kpi::FINAL)});
  long_run.set_max_recorded_rows(10);  // the car records 101
  v1::VariantDone too_many = RunHere(long_run);
  EXPECT_EQ(too_many.status(), "FAILED");
  EXPECT_TRUE(too_many.rows_exceeded());
}

TEST(VariantRunnerTest, SeveralAtOnceGiveEachItsOwnOutcomeInOrder) {
  const std::vector<v1::Kpi> kpis = {MakeKpi("vehicle.v", v1::Kpi::FINAL),
                                     MakeKpi("controller.F", v1::Kpi::MAX)};
  v1::RunVariants command;
  std::vector<v1::VariantDone> alone;
  for (double m : {900.0, 1200.0, -1.0, 2000.0, 3000.0}) {
    v1::Scenario car = Car();
    (*car.mutable_units(1)->mutable_builtin()->mutable_parameters())["m"].set_number_value(m);
    *command.add_variants() = Command(car, kpis);
    alone.push_back(RunHere(command.variants(command.variants_size() - 1)));
  }
  v1::VariantsDone done;
  RunVariants(command, NoFetch, 2, &done);
  ASSERT_EQ(done.done_size(), 5);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(done.done(i).status(), alone[i].status()) << i;
    EXPECT_EQ(done.done(i).message(), alone[i].message()) << i;
    ASSERT_EQ(done.done(i).kpis_size(), alone[i].kpis_size()) << i;
    for (int k = 0; k < alone[i].kpis_size(); ++k) {
      EXPECT_EQ(done.done(i).kpis(k), alone[i].kpis(k)) << i << ", KPI " << k;
    }
  }
  EXPECT_EQ(done.done(2).status(), "FAILED");  // m = -1
  // A heavier car is slower: its final speed lower, for the same gain.
  EXPECT_GT(done.done(0).kpis(0), done.done(4).kpis(0));
}

TEST(VariantRunnerTest, AnFmuVariantRunTwiceIsUnpackedOnce) {
  absl::StatusOr<v1::Scenario> scenario = ParseScenarioJson(R"({
    "name": "msd", "stop_time": 3.0,
    "units": [ { "name": "msd", "fmu": { "path": ")" + std::string(COSIMO_BINARY_DIR) +
                                                            R"(/fmus/fmi2_msd.fmu" },
                 "parameters": { "m": 2.0 } } ],
    "algorithm": { "kind": "JACOBI", "step_size": 0.1 },
    "record": [ "msd.x" ] })");
  ASSERT_TRUE(scenario.ok()) << scenario.status();
  units::fmu::FmuCache::Global().set_max_idle(0);  // empties it
  units::fmu::FmuCache::Global().set_max_idle(units::fmu::FmuCache::kDefaultMaxIdle);
  const v1::RunVariant command = Command(*scenario, {MakeKpi("msd.x", v1::Kpi::FINAL)});
  const v1::VariantDone first = RunHere(command);
  ASSERT_EQ(first.status(), "SUCCEEDED") << first.message();
  EXPECT_EQ(units::fmu::FmuCache::Global().idle(), 1u);
  const v1::VariantDone second = RunHere(command);
  ASSERT_EQ(second.status(), "SUCCEEDED") << second.message();
  EXPECT_EQ(units::fmu::FmuCache::Global().idle(), 1u);  // the same entry, back again
  EXPECT_EQ(second.kpis(0), first.kpis(0));
  // m x'' + 0.2 x' + x = 0, x(0) = 1, x'(0) = 0, m = 2: x(3) = exp(-a t)(cos(wd t) +
  // a / wd sin(wd t)), a = 0.05, wd = sqrt(1/2 - a^2).
  const double a = 0.05, wd = std::sqrt(0.5 - a * a), t = 3.0;
  EXPECT_NEAR(second.kpis(0), std::exp(-a * t) * (std::cos(wd * t) + a / wd * std::sin(wd * t)),
              1e-6);
}

}  // namespace
}  // namespace cosimo::worker
