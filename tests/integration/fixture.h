// The fixture of the service integration tests: a real cosimo-orchestrator process on a free
// loopback port, real cosimo-worker processes, the car scenario of examples/, Busch's dual-mass
// oscillator, and a scenario run in-process (LocalUnits) to compare with.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cosimo/client/client.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/sweep.h"
#include "cosimo/master/local_unit.h"
#include "cosimo/master/master.h"
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

// The car of examples/ run `stop_time` s at a macro step of 0.01 s (a sweep's long variant).
inline v1::Scenario LongCar(double stop_time) {
  absl::StatusOr<v1::Scenario> car =
      LoadScenarioFile(std::string(COSIMO_SOURCE_DIR) + "/examples/car.json");
  EXPECT_TRUE(car.ok()) << car.status();
  car->set_stop_time(stop_time);
  car->mutable_algorithm()->set_step_size(0.01);
  return *car;
}

// A sweep of the car over `variants` values of the controller's gain, the final speed its KPI.
inline v1::Sweep GainSweep(int variants) {
  absl::StatusOr<v1::Sweep> sweep =
      ParseSweepJson(R"({"parameters": [{"name": "controller.k", "linspace": [500, 1500, )" +
                     std::to_string(variants) + R"(]}], "kpis": [{"variable": "vehicle.v"}]})");
  EXPECT_TRUE(sweep.ok()) << sweep.status();
  return *sweep;
}

// A test FMU built by tests/fmus (fmi2_msd, fmi2_error, ...).
inline std::string Fmu(const std::string& name) {
  return std::string(COSIMO_BINARY_DIR) + "/fmus/" + name + ".fmu";
}

// The FMI 2 mass-spring-damper (m x'' = -c x - cf x' + F) with its force from a built-in gain
// F = -k x: together m x'' = -(c + k) x - cf x'.
inline v1::Scenario MsdWithSpring(const std::string& fmu, double h) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({
    "name": "fmu-with-builtin", "start_time": 0, "stop_time": 10,
    "units": [
      { "name": "msd", "fmu": { "path": "" },
        "parameters": { "m": 1.0, "c": 1.0, "cf": 0.5, "x": 1.0 } },
      { "name": "spring", "builtin": { "model": "linear_state_space",
          "parameters": { "A": [], "B": [], "C": [], "D": [-1, 0], "num_inputs": 2, "x0": [] } } } ],
    "connections": [ { "from": "msd.x", "to": "spring.u0" }, { "from": "msd.v", "to": "spring.u1" },
                     { "from": "spring.y0", "to": "msd.F" } ],
    "algorithm": { "kind": "JACOBI", "step_size": 0.01 },
    "record": [ "msd.x", "msd.v", "msd.energy", "msd.steps" ] })");
  EXPECT_TRUE(s.ok()) << s.status();
  s->mutable_units(0)->mutable_fmu()->set_path(fmu);
  s->mutable_algorithm()->set_step_size(h);
  return *s;
}

// MsdWithSpring over fmi2_chatty for 1 s (h = 0.01): the FMU prints a banner when instantiated
// and, at the step that ends at 0.5 s, a logger warning, a stdout line and a stderr line.
inline v1::Scenario ChattyWithSpring() {
  v1::Scenario scenario = MsdWithSpring(Fmu("fmi2_chatty"), 0.01);
  scenario.set_stop_time(1.0);
  return scenario;
}

// Busch's dual-mass oscillator split at its coupling spring (coupling stiffness `c_c`), Hermite
// inputs, `kind` an iterative algorithm with `extra` algorithm fields ("name": value, each
// followed by a comma); m1 may not roll back (COSTARICA).
inline v1::Scenario DualMass(const std::string& kind, const std::string& extra, double c_c,
                             double stop_time) {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(
      absl::StrCat(R"({"name": "dual_mass", "start_time": 0, "stop_time": )", stop_time, R"(,
    "units": [
      {"name": "m1", "builtin": {"model": "dual_mass_oscillator_1"}, "rollback": "FORBID"},
      {"name": "m2", "builtin": {"model": "dual_mass_oscillator_2",
                                 "parameters": {"c_c": )",
                   c_c, R"(}}} ],
    "connections": [ {"from": "m1.x1", "to": "m2.x1"}, {"from": "m1.v1", "to": "m2.v1"},
                     {"from": "m2.F_c", "to": "m1.F_c"} ],
    "algorithm": {)",
                   extra, R"( "kind": ")", kind, R"(", "step_size": 0.01,
                  "input_approximation": "HERMITE", "tolerance": 1e-10, "max_iterations": 50},
    "record": ["m1.x1", "m1.v1", "m2.x2", "m2.v2", "m2.F_c"]})"));
  EXPECT_TRUE(s.ok()) << s.status();
  return *s;
}

// Watches job `id` to its end through `client`, trying again for up to 10 s while the
// orchestrator it dials (just restarted) does not answer yet.
inline absl::StatusOr<v1::JobStatus> WatchOnceItAnswers(client::Client& client,
                                                        const std::string& id) {
  absl::StatusOr<v1::JobStatus> status;
  for (int i = 0; i < 200; ++i) {
    status = client.Watch(id, nullptr, 50);
    if (status.ok()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return status;
}

// The scenario run in this process, every unit a LocalUnit.
inline master::MasterResult InProcess(const v1::Scenario& scenario) {
  std::vector<std::unique_ptr<master::LocalUnit>> units;
  std::vector<master::UnitProxy*> proxies;
  for (int i = 0; i < scenario.units_size(); ++i) {
    auto unit = master::LocalUnit::Create(LoadUnitFor(scenario, i, "in-process"));
    EXPECT_TRUE(unit.ok()) << unit.status();
    if (!unit.ok()) return {};
    proxies.push_back(unit->get());
    units.push_back(*std::move(unit));
  }
  absl::StatusOr<master::MasterResult> r = master::RunMaster(scenario, proxies, nullptr);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : master::MasterResult();
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
      // Appended piece by piece: GCC 12's -Wstringop-overread misfires on `a + b + ".log"` here.
      std::string log = dir_;
      log.append("/worker").append(std::to_string(workers_.size())).append(".log");
      workers_.push_back(std::make_unique<Process>(argv, log));
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

// The same with the orchestrator's HTTP port open (--http) on a free loopback port: http_port_.
class HttpPortTest : public DistributedTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    std::vector<std::string> args = DistributedTest::OrchestratorArgs();
    args.insert(args.end(), {"--http", "127.0.0.1:0", "--http-port-file", dir_ + "/http_port"});
    return args;
  }
  void SetUp() override {
    DistributedTest::SetUp();
    http_port_ = ReadPort(dir_ + "/http_port");
    ASSERT_GT(http_port_, 0) << orchestrator_->process().log();
  }

  int http_port_ = 0;
};

}  // namespace cosimo::testing
