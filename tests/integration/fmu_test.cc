// FMUs through the whole service: uploaded by the client, fetched by real worker processes,
// coupled with built-in units. And the failures real FMUs bring: an FMI error, a crash (only its
// worker dies), a malicious archive; the orchestrator and the other workers keep serving.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "cosimo/master/local_unit.h"
#include "cosimo/master/master.h"
#include "cosimo/units/unit_host.h"
#include "tests/integration/fixture.h"

namespace cosimo {
namespace {

using testing::BinDir;
using testing::DistributedTest;
using testing::Fmu;
using ::testing::HasSubstr;
using testing::MsdWithSpring;
using testing::Process;

// x(t) of m x'' = -2 x - 0.5 x', x(0) = 1, v(0) = 0 (m = 1): an underdamped oscillator.
double Analytic(double t) {
  const double w0 = std::sqrt(2.0), zeta = 0.25 / w0, wd = w0 * std::sqrt(1 - zeta * zeta);
  return std::exp(-zeta * w0 * t) * (std::cos(wd * t) + zeta * w0 / wd * std::sin(wd * t));
}

TEST_F(DistributedTest, FmuCoupledWithABuiltinUnitMatchesTheAnalyticSolution) {
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  std::vector<double> errors;
  for (double h : {0.02, 0.01}) {
    std::string id;
    const v1::JobStatus status = RunJob(client, MsdWithSpring(Fmu("fmi2_msd"), h), &id);
    ASSERT_EQ(status.state(), v1::SUCCEEDED) << status.message();
    absl::StatusOr<client::JobResults> r = client.Results(id);
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->columns,
              (std::vector<std::string>{"time", "msd.x", "msd.v", "msd.energy", "msd.steps"}));
    double max_error = 0;
    const size_t w = r->columns.size();
    for (size_t row = 0; row < r->rows(); ++row) {
      max_error =
          std::max(max_error, std::abs(r->values[row * w + 1] - Analytic(r->values[row * w])));
    }
    // The recorded local (energy) and the integer output (DoStep calls) come along.
    EXPECT_EQ(r->values[(r->rows() - 1) * w + 4], static_cast<double>(r->rows() - 1));
    EXPECT_DOUBLE_EQ(r->values[3], 0.5);  // energy at t = 0: c x^2 / 2 with c = 1, x = 1
    EXPECT_EQ(r->metadata.artifact_digests().at("msd").substr(0, 7), "sha256:");
    errors.push_back(max_error);
  }
  EXPECT_LT(errors[1], 2e-2);
  EXPECT_NEAR(std::log2(errors[0] / errors[1]), 1.0, 0.25);  // Jacobi + ZOH: first order
}

TEST_F(DistributedTest, SixtyFourBitIntegersReachTheCsvExactly) {
  // FMI 3 Int64 2^53 + 1, -(2^53 + 1) and UInt64 2^64 - 1 have no double: they travel exactly
  // from the worker through the job store to the client's CSV, recorded as outputs or not.
  absl::StatusOr<v1::Scenario> s = ParseScenarioJson(R"({
    "name": "integers", "start_time": 0, "stop_time": 0.2,
    "units": [ { "name": "p", "fmu": { "path": "" } } ],
    "algorithm": { "kind": "JACOBI", "step_size": 0.1 },
    "record": [ "p.big", "p.negative", "p.ubig", "p.string_reads" ] })");
  ASSERT_TRUE(s.ok()) << s.status();
  s->mutable_units(0)->mutable_fmu()->set_path(Fmu("fmi3_probe"));
  StartWorkers(1);
  client::Client client(orchestrator_->address());
  std::string id;
  const v1::JobStatus status = RunJob(client, *s, &id);
  ASSERT_EQ(status.state(), v1::SUCCEEDED) << status.message();
  absl::StatusOr<client::JobResults> r = client.Results(id);
  ASSERT_TRUE(r.ok()) << r.status();
  std::ostringstream csv;
  WriteCsv(csv, *r);
  EXPECT_EQ(csv.str(),
            "time,p.big,p.negative,p.ubig,p.string_reads\n"
            "0,9007199254740993,-9007199254740993,18446744073709551615,0\n"
            "0.1,9007199254740993,-9007199254740993,18446744073709551615,0\n"
            "0.2,9007199254740993,-9007199254740993,18446744073709551615,0\n");
}

TEST_F(DistributedTest, FmiErrorFailsTheJobNamingTheCallAndStatus) {
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  std::string id;
  const v1::JobStatus status = RunJob(client, MsdWithSpring(Fmu("fmi2_error"), 0.01), &id);
  EXPECT_EQ(status.state(), v1::FAILED);
  EXPECT_THAT(status.message(), HasSubstr("unit 'msd'"));
  EXPECT_THAT(status.message(), HasSubstr("fmi2DoStep"));
  EXPECT_THAT(status.message(), HasSubstr("fmi2Error"));
  // The same workers serve the next job.
  EXPECT_EQ(RunJob(client, MsdWithSpring(Fmu("fmi2_msd"), 0.05), &id).state(), v1::SUCCEEDED);
}

// A segmentation fault inside an FMU kills its worker process only: the job fails naming the
// unit, the orchestrator and the other workers keep serving.
TEST_F(DistributedTest, CrashingFmuKillsOnlyItsWorker) {
  StartWorkers(3);
  client::Client client(orchestrator_->address());
  std::string id;
  const v1::JobStatus status = RunJob(client, MsdWithSpring(Fmu("fmi2_crash"), 0.01), &id);
  EXPECT_EQ(status.state(), v1::FAILED);
  EXPECT_THAT(status.message(), HasSubstr("unit 'msd'"));
  EXPECT_THAT(status.message(), HasSubstr("was lost"));
  EXPECT_NEAR(status.time(), 0.5, 0.05);
  int dead = 0;
  for (auto& w : workers_) dead += w->Wait(std::chrono::milliseconds(200)) >= 0 ? 1 : 0;
  EXPECT_EQ(dead, 1);
  EXPECT_EQ(RunJob(client, MsdWithSpring(Fmu("fmi2_msd"), 0.05), &id).state(), v1::SUCCEEDED);
}

TEST_F(DistributedTest, MaliciousArchiveIsRefusedWithTheEntryNamed) {
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  std::string id;
  const v1::JobStatus status = RunJob(client, MsdWithSpring(Fmu("fmi2_evil"), 0.01), &id);
  EXPECT_EQ(status.state(), v1::FAILED);
  EXPECT_THAT(status.message(), HasSubstr("../evil"));
  EXPECT_THAT(status.message(), HasSubstr("unit 'msd'"));
}

// In-process (LocalUnit, as the benchmarks and the master tests run units): String and Boolean
// columns come through with their types, the texts one per row.
TEST(InProcessFmuTest, RecordsStringAndBooleanColumnsThroughLocalUnits) {
  v1::Scenario scenario = MsdWithSpring(Fmu("fmi3_msd"), 0.1);
  scenario.set_stop_time(1.0);
  (*scenario.mutable_units(0)->mutable_parameters())["label"].set_string_value("in process");
  scenario.add_record("msd.label");
  scenario.add_record("msd.damping");
  std::vector<std::unique_ptr<master::LocalUnit>> owned;
  std::vector<master::UnitProxy*> units;
  for (int u = 0; u < scenario.units_size(); ++u) {
    absl::StatusOr<std::unique_ptr<master::LocalUnit>> unit =
        master::LocalUnit::Create(LoadUnitFor(scenario, u, "local"));
    ASSERT_TRUE(unit.ok()) << unit.status();
    units.push_back(unit->get());
    owned.push_back(*std::move(unit));
  }
  absl::StatusOr<master::MasterResult> r = master::RunMaster(scenario, units, nullptr);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->columns.size(), 7u);
  EXPECT_EQ(r->type(4), ValueType::kInteger);  // msd.steps
  EXPECT_EQ(r->type(5), ValueType::kString);   // msd.label
  EXPECT_EQ(r->type(6), ValueType::kBoolean);  // msd.damping
  ASSERT_EQ(r->rows(), 11u);
  ASSERT_EQ(r->strings.size(), r->rows());
  for (size_t row = 0; row < r->rows(); ++row) {
    EXPECT_EQ(r->strings[row], "in process") << "row " << row;
    EXPECT_TRUE(std::isnan(r->values[row * 7 + 5]));
    EXPECT_EQ(r->values[row * 7 + 6], 1.0);
  }
}

// An FMU's output derivatives cost an FMI call per step: the unit reads them only when an input
// it feeds is HERMITE or the step is adaptive (LoadUnit.skip_output_derivatives), and then they
// are dx/dt = v.
TEST(InProcessFmuTest, ReadsOutputDerivativesOnlyWhenAHermiteInputUsesThem) {
  for (bool hermite : {false, true}) {
    SCOPED_TRACE(hermite ? "spring's inputs HERMITE" : "ZOH everywhere");
    v1::Scenario scenario = MsdWithSpring(Fmu("fmi2_msd"), 0.01);
    if (hermite) scenario.mutable_units(1)->set_input_approximation(v1::HERMITE);
    const v1::LoadUnit load = LoadUnitFor(scenario, 0, "local");
    EXPECT_EQ(load.skip_output_derivatives(), !hermite);
    // The spring feeds only the FMU, whose input stays ZOH.
    EXPECT_TRUE(LoadUnitFor(scenario, 1, "local").skip_output_derivatives());
    // Adaptive steps: the first step's error estimate takes the tangent at t0.
    v1::Scenario adaptive = scenario;
    adaptive.mutable_algorithm()->mutable_adaptive()->set_max_step(0.1);
    EXPECT_FALSE(LoadUnitFor(adaptive, 1, "local").skip_output_derivatives());
    absl::StatusOr<std::unique_ptr<units::UnitHost>> host = units::UnitHost::Create(load);
    ASSERT_TRUE(host.ok()) << host.status();
    OutputsReply initial;
    ASSERT_TRUE((*host)->Initialize(0.0, &initial).ok());
    StepRequest request;
    request.time = 0.0;
    request.step = 0.01;
    request.mode = StepMode::kFinal;
    request.inputs.coefficients = Eigen::MatrixXd::Constant(1, 1, 0.5);
    StepReply reply;
    (*host)->Step(request, &reply);
    ASSERT_EQ(reply.status, StepStatus::kOk) << reply.message;
    if (hermite) {
      ASSERT_EQ(reply.derivatives.size(), 3);
      EXPECT_NEAR(reply.derivatives[0], reply.outputs[1], 1e-9);  // dx/dt = v
    } else {
      EXPECT_EQ(reply.derivatives.size(), 0);
    }
  }
}

// `cosimo run` with an FMU: the embedded path uploads and fetches it like production.
// String and Boolean variables are written as they are (the String quoted as CSV requires).
TEST(CosimoRunFmuTest, RunsAnFmuScenario) {
  const std::string dir = testing::TempDir("cosimo-run-fmu");
  v1::Scenario scenario = MsdWithSpring(Fmu("fmi2_msd"), 0.01);
  (*scenario.mutable_units(0)->mutable_parameters())["label"].set_string_value("pump \"A\", left");
  scenario.add_record("msd.label");
  scenario.add_record("msd.damping");
  std::ofstream(dir + "/fmu.json") << ScenarioToJson(scenario);
  Process run({BinDir() + "/cosimo", "run", dir + "/fmu.json", "--out", dir + "/out.csv"},
              dir + "/run.log");
  ASSERT_EQ(run.Wait(std::chrono::seconds(60)), 0) << run.log();
  const std::string csv = testing::ReadFile(dir + "/out.csv");
  const size_t header_end = csv.find('\n');
  EXPECT_EQ(csv.substr(0, header_end),
            "time,msd.x,msd.v,msd.energy,msd.steps,msd.label,msd.damping");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 1001);
  const std::string first_row =
      csv.substr(header_end + 1, csv.find('\n', header_end + 1) - header_end - 1);
  EXPECT_EQ(first_row, "0,1,0,0.5,0,\"pump \"\"A\"\", left\",true");
  const std::string last_row = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
  EXPECT_THAT(last_row, ::testing::StartsWith("10,"));
  EXPECT_THAT(last_row, ::testing::EndsWith(",1000,\"pump \"\"A\"\", left\",true\n"));
}

// `cosimo run`'s workers are forks of it that run the worker's main (issue 40: no second program
// to load): a copy of `cosimo` alone in a folder runs a job; with $COSIMO_WORKER_BINARY they are
// that program instead, and the results are the same bytes.
TEST(CosimoRunFmuTest, ItsWorkersAreForksOfItAndNeedNoWorkerProgramBesideIt) {
  const std::string dir = testing::TempDir("cosimo-run-fork");
  std::filesystem::copy_file(BinDir() + "/cosimo", dir + "/cosimo");
  std::ofstream(dir + "/fmu.json") << ScenarioToJson(MsdWithSpring(Fmu("fmi2_msd"), 0.01));
  Process alone(
      {dir + "/cosimo", "run", dir + "/fmu.json", "--out", dir + "/alone.csv", "--timings"},
      dir + "/alone.log");
  ASSERT_EQ(alone.Wait(std::chrono::seconds(60)), 0) << alone.log();
  EXPECT_THAT(alone.log(), HasSubstr("worker processes started (forked)"));
  setenv("COSIMO_WORKER_BINARY", (BinDir() + "/cosimo-worker").c_str(), 1);
  Process exec({dir + "/cosimo", "run", dir + "/fmu.json", "--out", dir + "/exec.csv", "--timings"},
               dir + "/exec.log");
  unsetenv("COSIMO_WORKER_BINARY");
  ASSERT_EQ(exec.Wait(std::chrono::seconds(60)), 0) << exec.log();
  EXPECT_THAT(exec.log(), HasSubstr("worker processes started\n"));
  const std::string csv = testing::ReadFile(dir + "/alone.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 1001);
  EXPECT_EQ(csv, testing::ReadFile(dir + "/exec.csv"));
}

}  // namespace
}  // namespace cosimo
