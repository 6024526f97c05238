// Many small jobs at once against a real orchestrator: the load test
// (tests/integration/load_test.cc) and the load figure of cosimo-bench (its orchestrator's RSS
// before and after) share this. Header-only, so that the test needs no bench library.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/client/client.h"
#include "cosimo/common/job_state.h"
#include "cosimo/common/scenario.h"

namespace cosimo::bench {

// One linear_state_space unit, x' = -x, 10 explicit Euler steps of 1 ms: a job that costs the
// orchestrator its bookkeeping and a few messages, nearly nothing else. 11 rows of results.
inline v1::Scenario TinyJob() {
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({"name": "tiny", "stop_time": 0.01,
    "units": [ {"name": "x", "builtin": {"model": "linear_state_space",
                "parameters": {"A": [-1], "B": [1], "C": [1], "D": [0], "x0": [1]}},
                "solver": {"method": "EXPLICIT_EULER", "step": 0.001}} ],
    "algorithm": {"step_size": 0.001}})");
  return s.ok() ? *s : v1::Scenario();
}

struct LoadRun {
  std::vector<std::string> ids;       // one per job submitted, in submission slots (empty: failed)
  std::vector<std::string> errors;    // submissions and waits that failed
  std::vector<v1::JobStatus> listed;  // ListJobs once every job ended (or the wait gave up)
  double seconds = 0.0;               // from the first submit to the list of ended jobs
};

// Submits `count` copies of `scenario` to `address` at once, from `clients` threads with a
// channel each, then polls ListJobs until every job ended or `timeout` passed.
inline LoadRun SubmitAtOnceAndWait(const std::string& address, const v1::Scenario& scenario,
                                   int count, int clients, std::chrono::seconds timeout) {
  LoadRun run;
  run.ids.resize(static_cast<size_t>(count));
  std::vector<std::vector<std::string>> errors(static_cast<size_t>(clients));
  const auto start = std::chrono::steady_clock::now();
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < clients; ++t) {
    threads.emplace_back([&, t] {
      client::Client client(address);
      while (!go) std::this_thread::yield();
      for (int i = t; i < count; i += clients) {
        absl::StatusOr<std::string> id = client.Submit(scenario);
        if (id.ok()) {
          run.ids[static_cast<size_t>(i)] = *id;
        } else {
          errors[static_cast<size_t>(t)].push_back(std::string(id.status().message()));
        }
      }
    });
  }
  go = true;
  for (std::thread& t : threads) t.join();
  for (auto& e : errors) run.errors.insert(run.errors.end(), e.begin(), e.end());

  client::Client client(address);
  const auto deadline = start + timeout;
  while (true) {
    absl::StatusOr<std::vector<v1::JobStatus>> jobs = client.List();
    if (!jobs.ok()) {
      run.errors.push_back("list: " + std::string(jobs.status().message()));
      break;
    }
    run.listed = *std::move(jobs);
    bool ended = true;
    for (const v1::JobStatus& job : run.listed) ended = ended && IsFinished(job.state());
    if (ended || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

}  // namespace cosimo::bench
