// What the orchestrator's job tests without workers set up: a one-unit scenario of the built-in
// `car` model, and a JobManager over an in-memory SQLite store, an artifact folder of its own, a
// manual clock and a pool with no worker (its jobs stay queued), made again by Restart() over the
// same store, as an orchestrator restart would.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "orchestrator/src/artifact_store.h"
#include "orchestrator/src/clock.h"
#include "orchestrator/src/job_manager.h"
#include "orchestrator/src/sqlite_job_store.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator::testing {

// One `car` unit, 1 s in steps of 0.1 s.
inline v1::Scenario OneCar(const std::string& name = "one") {
  v1::Scenario s;
  s.set_name(name);
  s.set_stop_time(1.0);
  v1::Unit* unit = s.add_units();
  unit->set_name("car");
  unit->mutable_builtin()->set_model("car");
  s.mutable_algorithm()->set_step_size(0.1);
  return s;
}

class JobManagerFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        (std::filesystem::temp_directory_path() /
         ("cosimo_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
          "_" + std::to_string(getpid())))
            .string();
    artifacts_ = std::make_unique<ArtifactStore>(dir_);
    store_ = *SqliteJobStore::Open("");
    Restart();
  }
  void TearDown() override {
    jobs_.reset();
    std::filesystem::remove_all(dir_);
  }
  // A new manager over the same store (its jobs recovered by the test when it wants them).
  void Restart() {
    jobs_.reset();
    jobs_ = std::make_unique<JobManager>(&pool_, store_.get(), artifacts_.get(),
                                         std::chrono::seconds(0), std::chrono::milliseconds(0),
                                         nullptr, &clock_);
  }

  ManualClock clock_;
  WorkerPool pool_{std::chrono::milliseconds(10000), &clock_};
  std::unique_ptr<SqliteJobStore> store_;
  std::string dir_;
  std::unique_ptr<ArtifactStore> artifacts_;
  std::unique_ptr<JobManager> jobs_;
};

}  // namespace cosimo::orchestrator::testing
