// The HTTP port's routes over a sweep job's table (orchestrator/src/http/http_server.h), in this
// process: a JobManager over an in-memory store holding a succeeded sweep job with its table, an
// HttpServer on a free loopback port, cpp-httplib's client. /jobs/<id>/scatter.svg draws one
// marker per succeeded variant and answers 400 naming an unknown column; /api/jobs/<id>/table
// gives the table's rows; /jobs/<id>/fit.svg draws a calibration job's measured data against its
// best run. (tests/integration/http_test.cc runs the port in the real program.)
#include "orchestrator/src/http/http_server.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cosimo/common/calibration.h"
#include "cosimo/common/kpi.h"
#include "cosimo/common/sweep.h"
#include "orchestrator/src/sqlite_job_store.h"
#include "tests/orchestrator/job_manager_fixture.h"
// Last: through <resolv.h> it defines the macro _res, a parameter name in Eigen's headers.
#include <httplib.h>

namespace cosimo::orchestrator::http {
namespace {

using ::testing::HasSubstr;
using namespace std::chrono_literals;

v1::Scenario Car() { return orchestrator::testing::OneCar("car"); }

// Six variants of the stop time, one KPI.
v1::Sweep StopTimes() {
  absl::StatusOr<v1::Sweep> sweep = ParseSweepJson(
      R"({"scenario_file": "ignored.json",
          "parameters": [{"name": "stop_time", "linspace": [1, 6, 6]}],
          "kpis": [{"variable": "car.v"}]})");
  EXPECT_TRUE(sweep.ok()) << sweep.status();
  return *sweep;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class HttpServerTest : public orchestrator::testing::JobManagerFixture {
 protected:
  void SetUp() override {
    JobManagerFixture::SetUp();
    // A sweep job, ended as a sweep job ends: SUCCEEDED, its table stored. Variants 1 and 4
    // failed.
    const v1::Sweep sweep = StopTimes();
    absl::StatusOr<std::string> id = jobs_->Submit(Car(), {}, nullptr, &sweep);
    ASSERT_TRUE(id.ok()) << id.status();
    sweep_id_ = *id;
    v1::JobStatus done = *jobs_->Get(sweep_id_);
    jobs_.reset();
    done.set_state(v1::SUCCEEDED);
    StoredResults table;
    static_cast<ResultTable&>(table) = SweepTableColumns(sweep);
    const auto start = std::chrono::steady_clock::now();
    for (uint64_t k = 0; k < 6; ++k) {
      SweepOutcome outcome;
      if (k == 1 || k == 4) {
        outcome.End(v1::FAILED, "unit 'car': refused", start);
      } else {
        outcome.End(v1::SUCCEEDED, "", start);
        outcome.kpis = {40.0 - static_cast<double>(k)};
      }
      AddSweepRow(&table, k, {1.0 + static_cast<double>(k)}, outcome);
    }
    ASSERT_TRUE(store_->UpdateStatus(done).ok());
    ASSERT_TRUE(store_->PutResults(sweep_id_, table).ok());
    Restart();
    ASSERT_TRUE(jobs_->Recover().ok());
    // A calibration job of the car's mass, ended as one ends: SUCCEEDED, the best run's results
    // stored (car.v = 2 t at 0, 0.1, ..., 1), three speeds measured.
    absl::StatusOr<v1::Calibration> calibration = ParseCalibrationJson(
        R"({"scenario_file": "car.json",
            "parameters": [{"name": "car.m", "start": 1000, "lower": 500, "upper": 3000}],
            "data": {"csv": "bench.csv", "columns": [{"column": "speed", "variable": "car.v"}]}})");
    ASSERT_TRUE(calibration.ok()) << calibration.status();
    v1::CalibrationJob fit;
    *fit.mutable_calibration() = *calibration;
    v1::MeasuredSamples* samples = fit.add_samples();
    samples->set_column("speed");
    samples->set_variable("car.v");
    for (double t : {0.25, 0.5, 0.95}) samples->add_times(t);
    for (double v : {0.4, 1.1, 1.9}) samples->add_values(v);
    samples->set_factor(1.0);
    id = jobs_->Submit(Car(), {}, nullptr, nullptr, &fit);
    ASSERT_TRUE(id.ok()) << id.status();
    fit_id_ = *id;
    v1::JobStatus fitted = *jobs_->Get(fit_id_);
    jobs_.reset();
    fitted.set_state(v1::SUCCEEDED);
    // Its iterations as a running fit's status carries them (FitStatus.history).
    for (uint32_t i = 1; i <= 2; ++i) {
      v1::FitIteration* it = fitted.mutable_fit()->add_history();
      it->set_iteration(i);
      it->set_evaluations(6 * i);
      it->set_objective(10.0 / i);
    }
    StoredResults best;
    best.columns = {"time", "car.v"};
    for (int r = 0; r <= 10; ++r) best.values.insert(best.values.end(), {0.1 * r, 0.2 * r});
    ASSERT_TRUE(store_->UpdateStatus(fitted).ok());
    ASSERT_TRUE(store_->PutResults(fit_id_, best).ok());
    Restart();
    ASSERT_TRUE(jobs_->Recover().ok());
    // And a simulation job that waits for workers.
    absl::StatusOr<std::string> queued = jobs_->Submit(Car(), {}, nullptr, nullptr);
    ASSERT_TRUE(queued.ok()) << queued.status();
    queued_id_ = *queued;

    sources_ = {jobs_.get(), artifacts_.get(), &metrics_, &auth_};
    HttpOptions options;
    options.listen = "127.0.0.1:0";
    absl::StatusOr<std::unique_ptr<HttpServer>> server = HttpServer::Start(options, sources_);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(*server);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_read_timeout(30, 0);
  }
  void TearDown() override {
    client_.reset();
    server_.reset();
    JobManagerFixture::TearDown();
  }
  httplib::Result Get(const std::string& path) {
    httplib::Result r = client_->Get(path);
    EXPECT_TRUE(r) << path << ": " << httplib::to_string(r.error());
    return r;
  }

  Metrics metrics_;
  TokenCheck auth_;
  HttpSources sources_;
  std::unique_ptr<HttpServer> server_;
  std::unique_ptr<httplib::Client> client_;
  std::string sweep_id_, fit_id_, queued_id_;
};

TEST_F(HttpServerTest, ScatterOfASweepJobHasOneMarkerPerSucceededVariant) {
  httplib::Result r = Get("/jobs/" + sweep_id_ + "/scatter.svg?x=stop_time&y=final(car.v)");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "image/svg+xml");
  EXPECT_EQ(Count(r->body, "<circle class=\"point\""), 4u) << r->body;
  for (int k : {0, 2, 3, 5}) {
    EXPECT_THAT(r->body, HasSubstr("<title>variant " + std::to_string(k) +
                                   ": stop_time = " + std::to_string(k + 1) +
                                   ", final(car.v) = " + std::to_string(40 - k) + "</title>"));
  }
  EXPECT_THAT(r->body, HasSubstr(">2 failed variants not shown<"));
  EXPECT_THAT(r->body, HasSubstr(">car (job " + sweep_id_ + ")<"));  // the job's name
  EXPECT_THAT(r->body, HasSubstr(">stop_time<"));
  EXPECT_THAT(r->body, HasSubstr(">final(car.v)<"));
  // Parameter against parameter: the failed variants have their values, but are left out too.
  r = Get("/jobs/" + sweep_id_ + "/scatter.svg?x=index&y=stop_time");
  ASSERT_TRUE(r);
  EXPECT_EQ(Count(r->body, "<circle class=\"point\""), 4u);
}

TEST_F(HttpServerTest, ScatterOfAnUnknownColumnIsA400NamingIt) {
  httplib::Result r = Get("/jobs/" + sweep_id_ + "/scatter.svg?x=stop_time&y=final(car.x)");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->body,
            "no column 'final(car.x)' in the table (numeric columns: index, stop_time, "
            "final(car.v), wall_time_s)\n");
  r = Get("/jobs/" + sweep_id_ + "/scatter.svg?x=status&y=stop_time");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_THAT(r->body, HasSubstr("column 'status' holds strings"));
  r = Get("/jobs/" + sweep_id_ + "/scatter.svg?x=stop_time");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_THAT(r->body, HasSubstr("give the columns as ?x=COLUMN&y=COLUMN (numeric columns: "
                                 "index, stop_time, final(car.v), wall_time_s)"));
  // No such job; a job without results yet.
  r = Get("/jobs/nope/scatter.svg?x=a&y=b");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 404);
  r = Get("/jobs/" + queued_id_ + "/scatter.svg?x=a&y=b");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409);
  EXPECT_THAT(r->body, HasSubstr("has no results: it is QUEUED"));
}

TEST_F(HttpServerTest, TheTableOfASweepJobAsJson) {
  httplib::Result r = Get("/api/jobs/" + sweep_id_ + "/table");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  const nlohmann::json table = nlohmann::json::parse(r->body);
  EXPECT_EQ(table["columns"], nlohmann::json({"index", "stop_time", "final(car.v)", "status",
                                              "wall_time_s", "message"}));
  EXPECT_EQ(table["numeric"],
            nlohmann::json({"index", "stop_time", "final(car.v)", "wall_time_s"}));
  EXPECT_EQ(table["parameters"], nlohmann::json({"stop_time"}));
  EXPECT_EQ(table["kpis"], nlohmann::json({"final(car.v)"}));
  EXPECT_EQ(table["total_rows"], 6);
  ASSERT_EQ(table["rows"].size(), 6u);
  const nlohmann::json& first = table["rows"][0];
  EXPECT_TRUE(first[0].is_number_integer());  // the index column is an integer one
  EXPECT_EQ(first[0], 0);
  EXPECT_EQ(table["rows"][5][0], 5);
  EXPECT_EQ(first[1], 1.0);
  EXPECT_EQ(first[2], 40.0);
  EXPECT_EQ(first[3], "SUCCEEDED");
  EXPECT_TRUE(first[4].is_number());
  EXPECT_EQ(first[5], "");
  const nlohmann::json& failed = table["rows"][1];
  EXPECT_TRUE(failed[2].is_null());  // NaN
  EXPECT_EQ(failed[3], "FAILED");
  EXPECT_EQ(failed[5], "unit 'car': refused");

  r = Get("/api/jobs/" + sweep_id_ + "/table?limit=2");
  ASSERT_TRUE(r);
  const nlohmann::json two = nlohmann::json::parse(r->body);
  EXPECT_EQ(two["rows"].size(), 2u);
  EXPECT_EQ(two["total_rows"], 6);
  r = Get("/api/jobs/" + sweep_id_ + "/table?limit=many");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_THAT(r->body, HasSubstr("'many'"));
  r = Get("/api/jobs/" + queued_id_ + "/table");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409);
}

TEST_F(HttpServerTest, AFitJobsPlotIsItsMeasuredDataAgainstItsBestRun) {
  httplib::Result r = Get("/jobs/" + fit_id_ + "/fit.svg");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(r->get_header_value("Content-Type"), "image/svg+xml");
  // One labelled marker per measured sample, the best run's car.v as the line, one panel.
  EXPECT_EQ(Count(r->body, "<title>speed at "), 3u) << r->body;
  EXPECT_THAT(r->body, HasSubstr("<title>speed at 0.95 s: 1.9</title>"));
  EXPECT_EQ(Count(r->body, "<polyline class=\"series\" data-variable=\"car.v\""), 1u);
  EXPECT_THAT(r->body, HasSubstr(">speed (car.v)<"));
  EXPECT_THAT(r->body, HasSubstr(">car (job " + fit_id_ + ")<"));
  // Not a calibration job; a job without results.
  r = Get("/jobs/" + sweep_id_ + "/fit.svg");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409);
  EXPECT_EQ(r->body, "job " + sweep_id_ + " is not a calibration job: /jobs/" + sweep_id_ +
                         "/plot.svg plots its results\n");
  r = Get("/jobs/" + queued_id_ + "/fit.svg");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 409);
  EXPECT_THAT(r->body, HasSubstr("has no results: it is QUEUED"));
}

TEST_F(HttpServerTest, AFitJobsJsonHasItsObjectivePerIterationSoFar) {
  const nlohmann::json expected = {{{"iteration", 1}, {"objective", 10.0}},
                                   {{"iteration", 2}, {"objective", 5.0}}};
  httplib::Result r = Get("/api/jobs/" + fit_id_);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  EXPECT_EQ(nlohmann::json::parse(r->body)["fit"]["history"], expected) << r->body;
  r = Get("/api/jobs");
  ASSERT_TRUE(r);
  bool found = false;
  const nlohmann::json jobs = nlohmann::json::parse(r->body);
  for (const nlohmann::json& job : jobs["jobs"]) {
    if (job["id"] != fit_id_) continue;
    found = true;
    EXPECT_EQ(job["fit"]["history"], expected);
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace cosimo::orchestrator::http
