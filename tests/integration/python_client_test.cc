// Any gRPC client can drive Cosimo: examples/python/cosimo_submit.py (Debian's python3-grpcio,
// stubs that the build generates into build/python) submits a scenario (uploading its FMU),
// follows it and writes the CSV, which must be the CSV that `cosimo results` writes for the same
// job, number for number (the shortest form that reads back).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

using testing::BinDir;
using testing::DistributedTest;
using testing::Process;
using testing::ReadFile;

// Runs the Python client on `scenario` and `cosimo results` on its job; returns both CSVs.
std::pair<std::string, std::string> RunBoth(const std::string& scenario, const std::string& address,
                                            const std::string& dir, const std::string& tag) {
  // From another folder, with no protoc on the PATH: the stubs come from the build tree.
  Process python({"/bin/sh", "-c",
                  "cd / && PATH=/nonexistent COSIMO_BUILD_DIR=\"$0\" exec /usr/bin/python3 \"$@\"",
                  std::string(COSIMO_BINARY_DIR),
                  std::string(COSIMO_SOURCE_DIR) + "/examples/python/cosimo_submit.py", scenario,
                  "--orchestrator", address, "--out", dir + "/" + tag + ".py.csv"},
                 dir + "/" + tag + ".python.log");
  EXPECT_EQ(python.Wait(std::chrono::seconds(120)), 0) << python.log();
  std::istringstream log(python.log());
  std::string job;
  std::getline(log, job);
  EXPECT_THAT(job, ::testing::StartsWith("job-")) << python.log();
  EXPECT_THAT(python.log(), ::testing::HasSubstr("SUCCEEDED"));
  Process cli({BinDir() + "/cosimo", "results", job, "--orchestrator", address, "--out",
               dir + "/" + tag + ".cli.csv"},
              dir + "/" + tag + ".cli.log");
  EXPECT_EQ(cli.Wait(std::chrono::seconds(60)), 0) << cli.log();
  return {ReadFile(dir + "/" + tag + ".py.csv"), ReadFile(dir + "/" + tag + ".cli.csv")};
}

TEST_F(DistributedTest, PythonClientRunsJobsAndWritesTheSameCsvAsTheCli) {
  StartWorkers(2);
  auto [python, cli] = RunBoth(std::string(COSIMO_SOURCE_DIR) + "/examples/car.json",
                               orchestrator_->address(), dir_, "car");
  EXPECT_EQ(std::count(cli.begin(), cli.end(), '\n'), 1 + 101);
  EXPECT_EQ(python, cli);

  // An FMU beside the scenario (uploaded by the script), with Integer, Boolean and String
  // columns.
  std::filesystem::copy_file(std::string(COSIMO_BINARY_DIR) + "/fmus/fmi2_msd.fmu",
                             dir_ + "/msd.fmu");
  std::ofstream(dir_ + "/fmu.json") << R"({"name": "msd", "start_time": 0, "stop_time": 1,
    "units": [ {"name": "msd", "fmu": {"path": "msd.fmu"},
                "parameters": {"label": "pump \"A\", left"}} ],
    "algorithm": {"kind": "JACOBI", "step_size": 0.01},
    "record": ["msd.x", "msd.steps", "msd.damping", "msd.label"]})";
  std::tie(python, cli) = RunBoth(dir_ + "/fmu.json", orchestrator_->address(), dir_, "fmu");
  EXPECT_THAT(cli, ::testing::HasSubstr(",true,\"pump \"\"A\"\", left\"\n"));
  EXPECT_EQ(std::count(cli.begin(), cli.end(), '\n'), 1 + 101);
  EXPECT_EQ(python, cli);
}

}  // namespace
}  // namespace cosimo
