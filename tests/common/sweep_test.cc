// Sweep files (cosimo/common/sweep.h): parsing, the checks that name the field, the variants'
// scenarios, the checks against the base scenario (with a fake of the scenario checks).
#include "cosimo/common/sweep.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "cosimo/common/kpi.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sweep_design.h"

namespace cosimo {
namespace {

using ::testing::HasSubstr;

constexpr char kBase[] = R"({
  "name": "car", "stop_time": 10,
  "units": [
    { "name": "controller", "builtin": { "model": "car_controller", "parameters": { "k": 1000 } } },
    { "name": "vehicle", "builtin": { "model": "car_vehicle", "parameters": { "m": 1576 } },
      "parameters": { "v0": 0 } }
  ],
  "algorithm": { "kind": "JACOBI", "step_size": 0.1 },
  "record": [ "vehicle.v", "controller.F" ]
})";

v1::Sweep Parse(const std::string& json) {
  absl::StatusOr<v1::Sweep> sweep = ParseSweepJson(json);
  EXPECT_TRUE(sweep.ok()) << sweep.status();
  return sweep.ok() ? *sweep : v1::Sweep();
}

std::string Problems(const std::string& json) {
  return std::string(ValidateSweep(Parse(json)).message());
}

TEST(SweepTest, AGridSweepParsesAndValidates) {
  const v1::Sweep sweep = Parse(R"({"scenario_file": "car.json",
    "parameters": [ {"name": "vehicle.m", "linspace": [1000, 2000, 3]},
                    {"name": "algorithm.step_size", "logspace": [0.01, 1, 3]},
                    {"name": "controller.k", "values": [1, 2]} ],
    "kpis": [ {"variable": "vehicle.v", "kind": "FIRST_CROSSING", "level": 30} ]})");
  EXPECT_TRUE(ValidateSweep(sweep).ok()) << ValidateSweep(sweep);
  EXPECT_EQ(VariantCount(sweep), 18u);
  const std::vector<std::vector<double>> values = DesignValues(sweep);
  ASSERT_EQ(values.size(), 18u);
  EXPECT_EQ(values[0], (std::vector<double>{1000, 0.01, 1}));
  EXPECT_EQ(values[1], (std::vector<double>{1000, 0.01, 2}));
  EXPECT_EQ(values[17], (std::vector<double>{2000, 1, 2}));
}

TEST(SweepTest, BadRangesNameTheirField) {
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json",
      "parameters": [ {"name": "a.x", "values": [1]}, {"name": "a.y", "linspace": [0, 1, 0]} ]})"),
            "parameters[1].linspace: n must be >= 1 (not 0)");
  EXPECT_THAT(Problems(R"({"scenario_file": "b.json",
      "parameters": [ {"name": "a.x", "values": []} ]})"),
              HasSubstr("parameters[0]: give exactly one of values, linspace or logspace"));
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json",
      "parameters": [ {"name": "a.x", "logspace": [0, "Infinity", 3]} ]})"),
            "parameters[0].logspace: a, b and n must be finite");
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json",
      "parameters": [ {"name": "a.x", "values": [1, "NaN"]} ]})"),
            "parameters[0].values: every value must be finite");
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json",
      "parameters": [ {"name": "a.x", "linspace": [0, 1, 2.5]} ]})"),
            "parameters[0].linspace: n must be a whole number (not 2.5)");
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json",
      "parameters": [ {"name": "a.x", "logspace": [0, 1, 2]} ]})"),
            "parameters[0].logspace: a and b must be > 0");
}

// Issue 41 item 6, its inputs: linspace over the double range gave -nan and inf
// (a + (b - a) t with b - a overflowing). Every value is now finite, between the bounds, the
// first exactly a and the last exactly b; the same for logspace and the random designs' bounds,
// and a normal whose values would overflow is refused naming the bound.
TEST(SweepTest, DesignsOverTheDoubleRangeStayFiniteOrAreRefused) {
  const v1::Sweep sweep = Parse(R"({"scenario_file": "b.json",
    "parameters": [ {"name": "a.x", "linspace": [1e308, -1e308, 3]},
                    {"name": "a.y", "linspace": [-1.7e308, 1.7e308, 5]},
                    {"name": "a.z", "logspace": [1e-308, 1.7e308, 3]} ]})");
  ASSERT_TRUE(ValidateSweep(sweep).ok()) << ValidateSweep(sweep);
  const std::vector<std::vector<double>> values = DesignValues(sweep);
  ASSERT_EQ(values.size(), 45u);
  std::vector<std::set<double>> axes(3);
  for (const std::vector<double>& v : values) {
    for (size_t i = 0; i < 3; ++i) {
      EXPECT_TRUE(std::isfinite(v[i])) << i;
      axes[i].insert(v[i]);
    }
  }
  EXPECT_EQ(axes[0], (std::set<double>{1e308, 0.0, -1e308}));
  EXPECT_EQ(Linspace(1e308, -1e308, 3), (std::vector<double>{1e308, 0.0, -1e308}));
  const std::vector<double> wide = Linspace(-1.7e308, 1.7e308, 5);
  EXPECT_EQ(wide.front(), -1.7e308);
  EXPECT_EQ(wide.back(), 1.7e308);
  EXPECT_DOUBLE_EQ(wide[1], -8.5e307);
  EXPECT_EQ(wide[2], 0.0);
  EXPECT_DOUBLE_EQ(wide[3], 8.5e307);
  const std::vector<double> log = Logspace(1e-308, 1.7e308, 3);
  EXPECT_EQ(log.front(), 1e-308);
  EXPECT_EQ(log.back(), 1.7e308);

  // The random designs: uniform over the whole range stays in it; log_uniform likewise.
  for (const char* kind : {"RANDOM", "LATIN_HYPERCUBE"}) {
    const v1::Sweep random = Parse(std::string(R"({"scenario_file": "b.json",
      "design": {"kind": ")") + kind +
                                   R"(", "samples": 64, "seed": 1},
      "parameters": [ {"name": "a.x", "uniform": [-1.7976931348623157e308, 1.7976931348623157e308]},
                      {"name": "a.y", "log_uniform": [5e-324, 1.7976931348623157e308]} ]})");
    ASSERT_TRUE(ValidateSweep(random).ok()) << ValidateSweep(random);
    for (const std::vector<double>& v : DesignValues(random)) {
      EXPECT_TRUE(std::isfinite(v[0])) << kind;
      EXPECT_TRUE(std::isfinite(v[1]) && v[1] > 0.0) << kind;
    }
  }
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json", "design": {"kind": "RANDOM", "samples": 3},
      "parameters": [ {"name": "a.x", "normal": [1e308, 1e307]} ]})"),
            "parameters[0].normal: the mean plus 9 standard deviations must stay within the double "
            "range (1.7976931348623157e+308); the values would overflow");
}

// A LIST design: variant i takes the i-th value of each parameter (a calibration's points).
TEST(SweepTest, AListDesignZipsTheValues) {
  const v1::Sweep sweep = Parse(R"({"scenario_file": "car.json", "design": {"kind": "LIST"},
    "parameters": [ {"name": "vehicle.m", "values": [1000, 1500, 2000]},
                    {"name": "controller.k", "values": [1, 2, 3]} ],
    "kpis": [ {"variable": "vehicle.v", "kind": "AT", "time": 1.5} ]})");
  EXPECT_TRUE(ValidateSweep(sweep).ok()) << ValidateSweep(sweep);
  EXPECT_EQ(VariantCount(sweep), 3u);
  EXPECT_EQ(DesignValues(sweep),
            (std::vector<std::vector<double>>{{1000, 1}, {1500, 2}, {2000, 3}}));
  EXPECT_EQ(KpiName(sweep.kpis(0)), "at(vehicle.v@1.5)");
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json", "design": {"kind": "LIST"},
      "parameters": [ {"name": "a.x", "values": [1, 2]}, {"name": "a.y", "linspace": [0, 1, 2]},
                      {"name": "a.z", "values": [1]} ]})"),
            "3 problems:\n  parameters[1].values: 0 values, but parameters[0] has 2 (a LIST "
            "design takes the i-th of each)\n  parameters[2].values: 1 values, but parameters[0] "
            "has 2 (a LIST design takes the i-th of each)\n  parameters[1].linspace: not for a "
            "LIST design (give values)");
}

TEST(SweepTest, DesignsTakeTheirOwnSources) {
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json", "design": {"kind": "RANDOM", "samples": 3},
      "parameters": [ {"name": "a.x", "values": [1, 2]} ]})"),
            "parameters[0].values: not for a RANDOM design (give uniform, normal or log_uniform)");
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json", "design": {"kind": "LATIN_HYPERCUBE"},
      "parameters": [ {"name": "a.x", "values": [1, 2]} ]})"),
            "2 problems:\n  design.samples: must be >= 1 for a LATIN_HYPERCUBE design\n"
            "  parameters[0].values: not for a LATIN_HYPERCUBE design (give uniform, normal or "
            "log_uniform)");
  // A normal in a Latin hypercube: its strata need a standard deviation > 0.
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json",
      "design": {"kind": "LATIN_HYPERCUBE", "samples": 4},
      "parameters": [ {"name": "a.x", "normal": [1, 0]}, {"name": "a.y", "normal": [1, "Infinity"]},
                      {"name": "a.z", "normal": [1]}, {"name": "a.w", "normal": [1, 0.5]} ]})"),
            "3 problems:\n"
            "  parameters[0].normal: the standard deviation must be > 0 in a LATIN_HYPERCUBE "
            "design\n"
            "  parameters[1].normal: the numbers must be finite\n"
            "  parameters[2].normal: give [mean, standard deviation] (2 numbers, not 1)");
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json", "design": {"kind": "RANDOM", "samples": 3},
      "parameters": [ {"name": "a.x", "uniform": [2, 1]}, {"name": "a.y", "normal": [0, -1]},
                      {"name": "a.z", "log_uniform": [0, 1]} ]})"),
            "3 problems:\n  parameters[0].uniform: low must be <= high\n"
            "  parameters[1].normal: the standard deviation must be >= 0\n"
            "  parameters[2].log_uniform: low must be > 0");
}

TEST(SweepTest, TheRestOfTheSweepIsChecked) {
  EXPECT_EQ(Problems(R"({"parameters": [ {"name": "a.x", "values": [1]}, {"name": "a.x",
      "values": [2]} ], "kpis": [ {"variable": "nodot"}, {"variable": "a.y"}, {"variable": "a.y"} ]})"),
            "4 problems:\n  scenario_file: missing (or give the base scenario inline as scenario)\n"
            "  parameters[1].name: 'a.x' is swept twice\n"
            "  kpis[0].variable: 'nodot' is not of the form <unit>.<variable>\n"
            "  kpis[2]: a second KPI named 'final(a.y)' (give it a name)");
  EXPECT_THAT(std::string(ParseSweepJson(R"({"parameter": []})").status().message()),
              HasSubstr("parameter: no such field"));
}

// Issue 41 item 7: KPIs named like a parameter or like the table's own columns gave a header
// with repeated names (a "status" column of numbers); each is refused naming the KPI.
TEST(SweepTest, KpiNamesThatCollideWithTheTablesColumnsAreRefused) {
  EXPECT_EQ(Problems(R"({"scenario_file": "b.json",
      "parameters": [ {"name": "a.x", "values": [1, 2]} ],
      "kpis": [ {"variable": "a.y", "name": "index"}, {"variable": "a.y", "name": "status"},
                {"variable": "a.y", "name": "message", "kind": "MAX"},
                {"variable": "a.y", "name": "wall_time_s", "kind": "MIN"},
                {"variable": "a.y", "name": "a.x", "kind": "MEAN"},
                {"variable": "a.y", "name": "peak", "kind": "MAX"} ]})"),
            "5 problems:\n"
            "  kpis[0]: the name 'index' is a column the sweep's table has already (index, "
            "status, wall_time_s, message); give it another name\n"
            "  kpis[1]: the name 'status' is a column the sweep's table has already (index, "
            "status, wall_time_s, message); give it another name\n"
            "  kpis[2]: the name 'message' is a column the sweep's table has already (index, "
            "status, wall_time_s, message); give it another name\n"
            "  kpis[3]: the name 'wall_time_s' is a column the sweep's table has already (index, "
            "status, wall_time_s, message); give it another name\n"
            "  kpis[4]: the name 'a.x' is a swept parameter's (a column of the sweep's table); "
            "give it another name");
}

v1::Scenario Base() {
  absl::StatusOr<v1::Scenario> base = ParseScenarioJson(kBase);
  EXPECT_TRUE(base.ok()) << base.status();
  return *base;
}

TEST(SweepTest, AVariantSetsTheParametersWhereTheyTakeEffect) {
  const v1::Sweep sweep = Parse(R"({"scenario_file": "b.json", "parameters": [
      {"name": "vehicle.m", "values": [1]}, {"name": "vehicle.v0", "values": [1]},
      {"name": "vehicle.c_f", "values": [1]}, {"name": "algorithm.step_size", "values": [1]},
      {"name": "stop_time", "values": [1]}, {"name": "algorithm.max_iterations", "values": [1]},
      {"name": "algorithm.adaptive.max_step", "values": [1]} ]})");
  absl::StatusOr<v1::Scenario> s = VariantScenario(Base(), sweep, {2000, 3, 0.7, 0.05, 5, 9, 0.5});
  ASSERT_TRUE(s.ok()) << s.status();
  const v1::Unit& vehicle = s->units(1);
  EXPECT_EQ(vehicle.builtin().parameters().at("m").number_value(), 2000);  // where it was
  EXPECT_FALSE(vehicle.parameters().contains("m"));
  EXPECT_EQ(vehicle.parameters().at("v0").number_value(), 3);
  EXPECT_EQ(vehicle.parameters().at("c_f").number_value(), 0.7);
  EXPECT_EQ(s->algorithm().step_size(), 0.05);
  EXPECT_EQ(s->stop_time(), 5);
  EXPECT_EQ(s->algorithm().max_iterations(), 9);
  EXPECT_EQ(s->algorithm().adaptive().max_step(), 0.5);
  EXPECT_EQ(Base().units(1).builtin().parameters().at("m").number_value(), 1576);
}

TEST(SweepTest, ParametersThatDoNotApplyNameTheirField) {
  v1::Scenario s = Base();
  EXPECT_EQ(ApplyParameter(&s, "algorithm.max_iterations", 2.5, "parameters[2].name").message(),
            "parameters[2].name: 'algorithm.max_iterations' takes whole numbers in range, not 2.5");
  EXPECT_THAT(
      std::string(ApplyParameter(&s, "plant.k", 1, "parameters[0].name").message()),
      HasSubstr("parameters[0].name: 'plant.k': neither a unit nor a field of the scenario"));
  EXPECT_EQ(ApplyParameter(&s, "algorithm.kind", 1, "parameters[0].name").message(),
            "parameters[0].name: 'algorithm.kind': not a numeric field");
}

// A fake of the scenario checks: car_vehicle knows m, c_f, v0; vehicle has variable v and F.
absl::Status FakeCheck(const v1::Scenario& s) {
  for (const auto& [name, value] : s.units(1).parameters()) {
    if (name != "m" && name != "c_f" && name != "v0") {
      return absl::InvalidArgumentError("unknown parameter '" + name + "'");
    }
  }
  for (const std::string& r : s.record()) {
    if (r != "vehicle.v" && r != "vehicle.F" && r != "controller.F") {
      return absl::InvalidArgumentError("record: no variable '" + r + "'");
    }
  }
  return absl::OkStatus();
}

TEST(SweepTest, TheBaseScenarioChecksTheNamesAndTheKpis) {
  const v1::Sweep good = Parse(R"({"scenario_file": "b.json", "parameters": [
      {"name": "vehicle.m", "values": [1]}, {"name": "vehicle.c_f", "values": [1]} ],
      "kpis": [ {"variable": "vehicle.v", "kind": "MAX"} ]})");
  EXPECT_TRUE(CheckSweepAgainstBase(good, Base(), FakeCheck).ok());
  const v1::Sweep unknown = Parse(R"({"scenario_file": "b.json", "parameters": [
      {"name": "vehicle.m", "values": [1]}, {"name": "vehicle.mass", "linspace": [1, 2, 2]} ]})");
  EXPECT_EQ(CheckSweepAgainstBase(unknown, Base(), FakeCheck).message(),
            "parameters[1].name: 'vehicle.mass' with 1: unknown parameter 'mass'");
  const v1::Sweep unrecorded = Parse(R"({"scenario_file": "b.json", "parameters": [
      {"name": "vehicle.m", "values": [1]} ], "kpis": [ {"variable": "vehicle.F"} ]})");
  EXPECT_EQ(CheckSweepAgainstBase(unrecorded, Base(), FakeCheck).message(),
            "kpis[0].variable: 'vehicle.F' is not recorded by the base scenario (record: "
            "vehicle.v, controller.F)");
  v1::Scenario all_outputs = Base();
  all_outputs.clear_record();  // every output: the variable must exist
  EXPECT_TRUE(CheckSweepAgainstBase(unrecorded, all_outputs, FakeCheck).ok());
  const v1::Sweep missing = Parse(R"({"scenario_file": "b.json", "parameters": [
      {"name": "vehicle.m", "values": [1]} ], "kpis": [ {"variable": "vehicle.q"} ]})");
  EXPECT_EQ(CheckSweepAgainstBase(missing, all_outputs, FakeCheck).message(),
            "kpis[0].variable: 'vehicle.q': record: no variable 'vehicle.q'");
}

TEST(SweepTest, TheBaseScenarioFileIsRelativeToTheSweepFile) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "cosimo-sweep-test";
  std::filesystem::create_directories(dir / "sub");
  std::ofstream(dir / "sub" / "base.json") << kBase;
  std::ofstream(dir / "sweep.json")
      << R"({"scenario_file": "sub/base.json", "parameters": [{"name": "vehicle.m", "values": [1]}]})";
  absl::StatusOr<LoadedSweep> loaded = LoadSweepFile((dir / "sweep.json").string());
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->base.name(), "car");
  std::ofstream(dir / "sweep.json") << R"({"scenario_file": "none.json"})";
  EXPECT_THAT(std::string(LoadSweepFile((dir / "sweep.json").string()).status().message()),
              HasSubstr("sweep.json: scenario_file: cannot read scenario file"));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cosimo
