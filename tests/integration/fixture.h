// The fixture of the service integration tests: a real cosimo-orchestrator process on a free
// loopback port, real cosimo-worker processes, and the car scenario of examples/.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "cosimo/client/client.h"
#include "cosimo/common/scenario.h"
#include "tests/integration/process.h"

namespace cosimo::testing {

inline v1::Scenario CarScenario(double h) {
  absl::StatusOr<v1::Scenario> s =
      LoadScenarioFile(std::string(COSIMO_SOURCE_DIR) + "/examples/car.json");
  EXPECT_TRUE(s.ok()) << s.status();
  s->mutable_algorithm()->set_step_size(h);
  // A fine solver inside the vehicle, so that the error measured is the coupling's.
  s->mutable_units(1)->mutable_solver()->set_step(1e-4);
  return *s;
}

class DistributedTest : public ::testing::Test {
 protected:
  // Extra orchestrator flags; tests with a data directory or other timeouts override it.
  virtual std::vector<std::string> OrchestratorArgs() {
    return {"--heartbeat-interval-ms", "200", "--heartbeat-timeout-ms", "3000"};
  }

  void SetUp() override {
    dir_ = TempDir("cosimo-it");
    orchestrator_ = std::make_unique<OrchestratorProcess>(dir_, OrchestratorArgs());
    ASSERT_GT(orchestrator_->port(), 0) << orchestrator_->process().log();
  }

  void StartWorkers(int n, std::vector<std::string> extra = {}) {
    for (int i = 0; i < n; ++i) {
      std::vector<std::string> argv = {BinDir() + "/cosimo-worker", "--orchestrator",
                                       orchestrator_->address(), "--cache-dir", dir_ + "/cache"};
      argv.insert(argv.end(), extra.begin(), extra.end());
      workers_.push_back(std::make_unique<Process>(
          argv, dir_ + "/worker" + std::to_string(workers_.size()) + ".log"));
    }
  }

  // Submits and waits; returns the final status.
  v1::JobStatus RunJob(client::Client& client, const v1::Scenario& scenario, std::string* id) {
    absl::StatusOr<std::string> job = client.Submit(scenario);
    EXPECT_TRUE(job.ok()) << job.status();
    if (!job.ok()) return {};
    *id = *job;
    absl::StatusOr<v1::JobStatus> status = client.Watch(*job, nullptr, 50);
    EXPECT_TRUE(status.ok()) << status.status();
    return status.ok() ? *status : v1::JobStatus();
  }

  std::string dir_;
  std::unique_ptr<OrchestratorProcess> orchestrator_;
  std::vector<std::unique_ptr<Process>> workers_;
};

}  // namespace cosimo::testing
