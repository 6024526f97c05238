// Hybrid units in scenarios run by the master: an untrained hybrid gives the wrapped unit's
// results under every algorithm (Jacobi, Gauss-Seidel, Newton with rollback and with COSTARICA
// through the chain-rule Linearize), and a trained one changes them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "tests/master/master_test_util.h"

namespace cosimo::master {
namespace {

using testing::At;
using testing::Parse;
using testing::Rows;
using testing::RunScenario;

// Busch's dual-mass oscillator split in two; m1 plain or as a hybrid around the same model,
// with the same solver (a plain linear model would otherwise default to EXACT, a hybrid to RK45).
std::string DualMass(const std::string& kind, const std::string& rollback, bool hybrid,
                     const std::string& extra = "") {
  const std::string m1 =
      hybrid ? R"({"name": "m1", "hybrid": {"builtin": {"model": "dual_mass_oscillator_1"},
                    "top": {"layers": [{"size": 6, "activation": "TANH"}]},
                    "bottom": {"layers": [{"size": 5, "activation": "RELU"}]})" +
                   extra + R"(}, "rollback": ")" + rollback +
                   R"(", "solver": {"method": "RK4", "step": 0.001}})"
             : R"({"name": "m1", "builtin": {"model": "dual_mass_oscillator_1"},
                   "rollback": ")" +
                   rollback + R"(", "solver": {"method": "RK4", "step": 0.001}})";
  return R"({"stop_time": 2.0, "units": [)" + m1 +
         R"(, {"name": "m2", "builtin": {"model": "dual_mass_oscillator_2"}}],
    "connections": [{"from": "m1.x1", "to": "m2.x1"}, {"from": "m1.v1", "to": "m2.v1"},
                    {"from": "m2.F_c", "to": "m1.F_c"}],
    "algorithm": {"kind": ")" +
         kind + R"(", "step_size": 0.01, "input_approximation": "FOH",
                  "tolerance": 1e-10, "max_iterations": 30},
    "record": ["m1.x1", "m1.v1", "m2.x2"]})";
}

double MaxDifference(const MasterResult& a, const MasterResult& b) {
  EXPECT_EQ(a.values.size(), b.values.size());
  double worst = 0.0;
  for (size_t i = 0; i < a.values.size() && i < b.values.size(); ++i) {
    worst = std::max(worst, std::abs(a.values[i] - b.values[i]));
  }
  return worst;
}

TEST(HybridMasterTest, UntrainedHybridGivesTheWrappedUnitsResultsUnderEveryAlgorithm) {
  for (const char* kind : {"JACOBI", "GAUSS_SEIDEL", "NEWTON", "FIXED_POINT"}) {
    for (const char* rollback : {"AUTO", "FORBID"}) {
      SCOPED_TRACE(std::string(kind) + " " + rollback);
      absl::StatusOr<MasterResult> plain = RunScenario(Parse(DualMass(kind, rollback, false)));
      absl::StatusOr<MasterResult> hybrid = RunScenario(Parse(DualMass(kind, rollback, true)));
      ASSERT_TRUE(plain.ok()) << plain.status();
      ASSERT_TRUE(hybrid.ok()) << hybrid.status();
      ASSERT_EQ(Rows(*hybrid), 201u);
      EXPECT_LE(MaxDifference(*plain, *hybrid), 1e-12);
      const UnitSummary* m1 = testing::Summary(*hybrid, "m1");
      ASSERT_NE(m1, nullptr);
      const bool iterative = std::string(kind) == "NEWTON" || std::string(kind) == "FIXED_POINT";
      if (iterative) {
        EXPECT_EQ(m1->report.mode,
                  std::string(rollback) == "FORBID" ? UnitMode::kEstimate : UnitMode::kRollback);
      }
    }
  }
}

TEST(HybridMasterTest, TrainedLinearHybridAgreesUnderRollbackAndCostarica) {
  // Weights with every layer non-zero and identity activations: the hybrid is affine, so the
  // COSTARICA estimate from its chain-rule Jacobians is exact and FORBID agrees with rollback;
  // and the networks change the results.
  const std::string path = ::testing::TempDir() + "/hybrid_master_weights.json";
  std::ofstream(path) << R"({
    "top": [{"rows": 3, "cols": 2, "weight": [1, 0, 0, 1, 0.5, 0.5], "bias": [0, 0, 0]},
            {"rows": 2, "cols": 3, "weight": [0.02, 0, 0, 0, 0.03, -0.01], "bias": [0.01, 0]}],
    "bottom": [{"rows": 3, "cols": 2, "weight": [1, 0, 0, 1, 1, -1], "bias": [0, 0, 0]},
               {"rows": 2, "cols": 3, "weight": [0, 0, 0, -0.1, 0.05, 0.02], "bias": [0, 0.1]}]
  })";
  auto with_weights = [&](const std::string& rollback) {
    v1::Scenario s = Parse(DualMass("NEWTON", rollback, true));
    v1::HybridModel* h = s.mutable_units(0)->mutable_hybrid();
    h->mutable_top()->mutable_layers(0)->set_size(3);
    h->mutable_top()->mutable_layers(0)->set_activation(v1::DenseLayer::IDENTITY);
    h->mutable_bottom()->mutable_layers(0)->set_size(3);
    h->mutable_bottom()->mutable_layers(0)->set_activation(v1::DenseLayer::IDENTITY);
    h->mutable_weights()->set_path(path);
    return s;
  };
  absl::StatusOr<MasterResult> base = RunScenario(Parse(DualMass("NEWTON", "AUTO", false)));
  absl::StatusOr<MasterResult> rollback = RunScenario(with_weights("AUTO"));
  absl::StatusOr<MasterResult> forbid = RunScenario(with_weights("FORBID"));
  ASSERT_TRUE(base.ok()) << base.status();
  ASSERT_TRUE(rollback.ok()) << rollback.status();
  ASSERT_TRUE(forbid.ok()) << forbid.status();
  EXPECT_LT(MaxDifference(*rollback, *forbid), 1e-8);
  EXPECT_GT(std::abs(At(*rollback, 200, "m1.x1") - At(*base, 200, "m1.x1")), 1e-3);
  EXPECT_EQ(testing::Summary(*forbid, "m1")->report.mode, UnitMode::kEstimate);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace cosimo::master
