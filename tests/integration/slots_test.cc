// Several units per worker (cosimo-worker --slots): every master algorithm gives the same CSV,
// byte for byte, with its units on one-slot workers (a message per unit per round) and packed
// onto one worker of 4 slots (one batched message per round, the units stepped on parallel
// threads), over gRPC with real worker processes, and the same as in-process with LocalUnits.
// A worker hosting 4 units gets one message per step.
#include <gtest/gtest.h>

#include <sstream>

#include "absl/strings/str_cat.h"
#include "cosimo/common/csv.h"
#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

using testing::DistributedTest;
using testing::DualMass;
using testing::InProcess;

// Four first-order units in a ring, x_k' = -(k+1) x_k + u_k, y_k = x_k, u_k = y_{k-1}.
v1::Scenario Ring(const std::string& kind, double stop_time) {
  std::string units, connections;
  for (int k = 0; k < 4; ++k) {
    absl::StrAppend(&units, k ? "," : "", R"({"name": "r)", k,
                    R"(", "builtin": {"model": "linear_state_space", "parameters": {"A": [)",
                    -(k + 1), R"(], "B": [1], "C": [1], "D": [0], "x0": [)", k + 1,
                    R"(]}}, "solver": {"method": "RK4", "step": 0.001}})");
    absl::StrAppend(&connections, k ? "," : "", R"({"from": "r)", (k + 3) % 4, R"(.y0", "to": "r)",
                    k, R"(.u0"})");
  }
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(absl::StrCat(
      R"({"name": "ring", "start_time": 0, "stop_time": )", stop_time, R"(, "units": [)", units,
      R"(], "connections": [)", connections, R"(], "algorithm": {"kind": ")", kind,
      R"(", "step_size": 0.01, "input_approximation": "FOH"}})"));
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

std::string Csv(const ResultTable& table) {
  std::ostringstream out;
  WriteCsv(out, table);
  return out.str();
}

class SlotsTest : public DistributedTest {
 protected:
  // The unit-by-unit path's batches are what these tests measure: a job on the four-slot worker
  // would otherwise run its master in it (master_in_worker_test.cc).
  std::vector<std::string> OrchestratorArgs() override {
    std::vector<std::string> args = DistributedTest::OrchestratorArgs();
    args.push_back("--master-in-worker=false");
    return args;
  }

  // Four one-slot workers labelled "single" and one four-slot worker labelled "multi".
  void SetUp() override {
    DistributedTest::SetUp();
    StartWorkers(4, {"--label", "single"});
    StartWorkers(1, {"--label", "multi", "--slots", "4", "--threads", "4"});
    client_ = std::make_unique<client::Client>(orchestrator_->address());
    for (int i = 0; i < 600; ++i) {
      absl::StatusOr<std::vector<v1::WorkerStatus>> workers = client_->Workers();
      if (workers.ok() && workers->size() == 5) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    FAIL() << "the 5 workers did not attach";
  }

  // The CSV of `scenario` with every unit on workers labelled `label`.
  std::string RunOn(v1::Scenario scenario, const std::string& label) {
    for (v1::Unit& unit : *scenario.mutable_units()) unit.set_worker_label(label);
    std::string id;
    const v1::JobStatus status = RunJob(*client_, scenario, &id);
    EXPECT_EQ(status.state(), v1::SUCCEEDED) << status.message();
    absl::StatusOr<client::JobResults> results = client_->Results(id);
    EXPECT_TRUE(results.ok()) << results.status();
    return results.ok() ? Csv(*results) : "";
  }

  // Messages written to the multi-slot worker so far.
  uint64_t MultiMessages() {
    absl::StatusOr<std::vector<v1::WorkerStatus>> workers = client_->Workers();
    EXPECT_TRUE(workers.ok()) << workers.status();
    for (const v1::WorkerStatus& w : *workers) {
      if (w.slots() == 4) return w.messages();
    }
    ADD_FAILURE() << "no worker with 4 slots";
    return 0;
  }

  std::unique_ptr<client::Client> client_;
};

TEST_F(SlotsTest, EveryAlgorithmGivesTheSameCsvWithOneSlotAndFourSlots) {
  const std::vector<std::pair<std::string, v1::Scenario>> cases = {
      {"Jacobi ring", Ring("JACOBI", 1.0)},
      {"Gauss-Seidel ring", Ring("GAUSS_SEIDEL", 1.0)},
      {"fixed point, COSTARICA", DualMass("FIXED_POINT", "", 100.0, 0.5)},
      {"Newton, COSTARICA", DualMass("NEWTON", "", 100.0, 0.5)},
      {"Newton, finite differences",
       DualMass("NEWTON", R"("newton_jacobian": "FINITE_DIFFERENCES",)", 100.0, 0.5)},
      {"Newton, JFNK", DualMass("NEWTON", R"("newton_jacobian": "JFNK",)", 100.0, 0.5)},
      {"adaptive Newton with rejections",
       DualMass("NEWTON", R"("adaptive": {"min_step": 1e-6, "max_step": 0.01, "tolerance": 1e-5},)",
                1e4, 0.1)},
  };
  for (const auto& [name, scenario] : cases) {
    SCOPED_TRACE(name);
    const std::string single = RunOn(scenario, "single");
    const std::string multi = RunOn(scenario, "multi");
    ASSERT_FALSE(single.empty());
    EXPECT_EQ(single, multi);
    EXPECT_EQ(single, Csv(InProcess(scenario)));
  }
}

TEST_F(SlotsTest, AWorkerWithFourUnitsGetsOneMessagePerStep) {
  // Two runs of 100 and 300 Jacobi steps on the 4-slot worker: setup and clean-up cancel out.
  const uint64_t before = MultiMessages();
  RunOn(Ring("JACOBI", 1.0), "multi");
  const uint64_t after_short = MultiMessages();
  RunOn(Ring("JACOBI", 3.0), "multi");
  const uint64_t after_long = MultiMessages();
  EXPECT_EQ((after_long - after_short) - (after_short - before), 200u);
}

TEST(EmbeddedWorkerPlanTest, AtMostOneProcessPerCoreWithSlotsForTheRest) {
  const v1::Scenario ring = Ring("JACOBI", 1.0);
  auto plan = client::EmbeddedWorkerPlan(ring, 2);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].processes, 2);
  EXPECT_EQ(plan[0].slots, 2);
  plan = client::EmbeddedWorkerPlan(ring, 3);  // 3 processes of 2 slots: 4 units fit
  EXPECT_EQ(plan[0].processes, 3);
  EXPECT_EQ(plan[0].slots, 2);
  plan = client::EmbeddedWorkerPlan(ring, 8);  // one process per unit, as without slots
  EXPECT_EQ(plan[0].processes, 4);
  EXPECT_EQ(plan[0].slots, 1);
  // Pinned units get processes of their label, at least one each.
  v1::Scenario pinned = ring;
  pinned.mutable_units(3)->set_worker_label("gpu");
  plan = client::EmbeddedWorkerPlan(pinned, 1);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].label, "");
  EXPECT_EQ(plan[0].processes, 1);
  EXPECT_EQ(plan[0].slots, 3);
  EXPECT_EQ(plan[1].label, "gpu");
  EXPECT_EQ(plan[1].processes, 1);
  EXPECT_EQ(plan[1].slots, 1);
  // The default (no --workers): one process per label holding all its units.
  plan = client::EmbeddedWorkerPlan(ring, 0);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].processes, 1);
  EXPECT_EQ(plan[0].slots, 4);
  plan = client::EmbeddedWorkerPlan(pinned, 0);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0].slots, 3);
  EXPECT_EQ(plan[1].slots, 1);
}

TEST(EmbeddedRunTest, OneWorkerProcessWithFourSlotsGivesTheCsvOfFour) {
  client::EmbeddedOptions options;
  options.worker_binary = testing::BinDir() + "/cosimo-worker";
  for (const std::string kind : {"JACOBI", "NEWTON"}) {
    const v1::Scenario scenario =
        kind == "JACOBI" ? Ring(kind, 1.0) : DualMass(kind, "", 100.0, 0.5);
    options.max_workers = 1;
    absl::StatusOr<client::JobResults> packed = client::RunEmbedded(scenario, options);
    ASSERT_TRUE(packed.ok()) << packed.status();
    options.max_workers = 4;
    absl::StatusOr<client::JobResults> spread = client::RunEmbedded(scenario, options);
    ASSERT_TRUE(spread.ok()) << spread.status();
    EXPECT_EQ(Csv(*packed), Csv(*spread)) << kind;
  }
}

}  // namespace
}  // namespace cosimo
