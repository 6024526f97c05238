// The metadata stored with a simulation's results, from a scenario and a master's result alone:
// artifacts keyed by unit (and "<unit>.<field>" for a second file), unit reports, counts and
// times, and each recorded column's variable as the first description naming it says.
#include "orchestrator/src/results_metadata.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace cosimo::orchestrator {
namespace {

using ::testing::Pair;
using ::testing::UnorderedElementsAre;

const char kFmuDigest[] = "sha256:1111111111111111111111111111111111111111111111111111111111111111";
const char kWeightsDigest[] =
    "sha256:2222222222222222222222222222222222222222222222222222222222222222";

VariableInfo Variable(const std::string& name, Causality causality, const std::string& unit = "") {
  VariableInfo info;
  info.name = name;
  info.causality = causality;
  info.unit = unit;
  return info;
}

v1::Scenario TwoUnits() {
  v1::Scenario s;
  s.set_start_time(1.0);
  s.set_stop_time(3.0);
  s.mutable_algorithm()->set_kind(v1::Algorithm::JACOBI);
  v1::Unit* car = s.add_units();
  car->set_name("car");
  car->mutable_builtin()->set_model("car");
  v1::Unit* net = s.add_units();
  net->set_name("net");
  net->mutable_hybrid()->mutable_fmu()->set_digest(kFmuDigest);
  net->mutable_hybrid()->mutable_weights()->set_digest(kWeightsDigest);
  return s;
}

TEST(ResultsMetadataTest, HoldsTheRunAndItsArtifacts) {
  const v1::Scenario scenario = TwoUnits();
  master::MasterResult result;
  result.steps_accepted = 20;
  result.steps_rejected = 2;
  result.iterations_mean = 1.5;
  result.iterations_max = 4;
  master::UnitSummary& unit = result.units.emplace_back();
  unit.name = "car";
  unit.location = {"w1-abc", "host1"};
  unit.report.real_integrations = 7;
  const v1::ResultsMetadata meta = BuildResultsMetadata(scenario, result, {}, {1000, 4000, 2.5});
  EXPECT_EQ(meta.scenario_digest(), DeterministicDigest(scenario));
  EXPECT_THAT(
      meta.artifact_digests(),
      UnorderedElementsAre(Pair("net", kFmuDigest), Pair("net.hybrid.weights", kWeightsDigest)));
  ASSERT_EQ(meta.units_size(), 1);
  EXPECT_EQ(meta.units(0).worker(), "w1-abc");
  EXPECT_EQ(meta.units(0).host(), "host1");
  EXPECT_EQ(meta.units(0).real_integrations(), 7u);
  EXPECT_EQ(meta.steps_accepted(), 20u);
  EXPECT_EQ(meta.steps_rejected(), 2u);
  EXPECT_EQ(meta.iterations_max(), 4u);
  EXPECT_EQ(meta.algorithm(), "JACOBI");
  EXPECT_EQ(meta.start_time(), 1.0);
  EXPECT_EQ(meta.stop_time(), 3.0);
  EXPECT_EQ(meta.started_unix_ms(), 1000);
  EXPECT_EQ(meta.finished_unix_ms(), 4000);
  EXPECT_EQ(meta.wall_seconds(), 2.5);
  EXPECT_FALSE(meta.cosimo_version().empty());
}

TEST(ResultsMetadataTest, AColumnIsDescribedByTheFirstDescriptionNamingIt) {
  const v1::Scenario scenario = TwoUnits();
  ResultTable table;
  table.columns = {"time", "car.v", "car.x", "net.y", "car.gone"};
  UnitDescription car;
  car.outputs.push_back(Variable("v", Causality::kOutput, "m/s"));
  car.others.push_back(Variable("v", Causality::kState, "km/h"));
  car.others.push_back(Variable("x", Causality::kState, "m"));
  UnitDescription net;
  net.outputs.push_back(Variable("y", Causality::kOutput));
  const std::vector<v1::RecordedVariable> variables =
      RecordedVariables(scenario, table, {&car, &net});
  ASSERT_EQ(variables.size(), 4u);
  EXPECT_EQ(variables[0].name(), "car.v");
  EXPECT_EQ(variables[0].causality(), "output");
  EXPECT_EQ(variables[0].unit(), "m/s");
  EXPECT_EQ(variables[0].type(), "real");
  EXPECT_EQ(variables[1].causality(), "state");
  EXPECT_EQ(variables[2].causality(), "output");
  EXPECT_EQ(variables[3].name(), "car.gone");
  EXPECT_EQ(variables[3].causality(), "") << "no description names it";
}

}  // namespace
}  // namespace cosimo::orchestrator
