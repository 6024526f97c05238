// The orchestrator's HTTP port (--http): /metrics scraped during a job, the token rules, the JSON
// API, and the web page in headless Chromium (skipped when no Chromium is installed;
// deploy/install-deps.sh installs chromium-headless-shell), a sweep job's with its table and
// scatter plot.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>

#include "cosimo/common/calibration.h"
#include "cosimo/common/security.h"
#include "cosimo/common/sweep.h"
#include "tests/integration/fixture.h"
#include "tests/integration/process.h"

// Last: through <resolv.h> it defines the macro _res, a parameter name in Eigen's headers.
#include <httplib.h>

namespace cosimo::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The value of the sample `series` (name and labels, as written) in a /metrics text; -1 if absent.
double Sample(const std::string& text, const std::string& series) {
  const size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Headless Chromium from Debian (chromium-headless-shell, or chromium), or empty.
std::string FindChromium() {
  if (const char* env = std::getenv("COSIMO_CHROMIUM"); env != nullptr && *env != '\0') {
    return env;
  }
  for (const char* candidate :
       {"/usr/bin/chromium-headless-shell", "/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (std::filesystem::exists(candidate)) return candidate;
  }
  return "";
}

class HttpTest : public HttpPortTest {
 protected:
  std::unique_ptr<httplib::Client> Http() {
    auto c = std::make_unique<httplib::Client>("127.0.0.1", http_port_);
    c->set_read_timeout(30, 0);
    return c;
  }
  std::string Url(const std::string& path) {
    return "http://127.0.0.1:" + std::to_string(http_port_) + path;
  }
  // Runs `chromium` headless with `args` (a profile of its own named `what`) and returns its
  // standard output. --virtual-time-budget lets the page's fetches and timers run before the
  // DOM is dumped.
  std::string Browse(const std::string& chromium, const std::string& what,
                     const std::vector<std::string>& args) {
    std::vector<std::string> argv = {chromium,
                                     "--headless",
                                     "--no-sandbox",
                                     "--disable-gpu",
                                     "--user-data-dir=" + dir_ + "/chromium-" + what,
                                     "--virtual-time-budget=5000",
                                     "--window-size=1100,900"};
    argv.insert(argv.end(), args.begin(), args.end());
    // Standard output alone: that is where --dump-dom writes.
    std::string command = "exec";
    for (const std::string& a : argv) command += " '" + a + "'";
    command += " 2>'" + dir_ + "/chromium-" + what + ".log'";
    Process p({"/bin/sh", "-c", command}, dir_ + "/" + what + ".out");
    EXPECT_EQ(p.Wait(std::chrono::seconds(120)), 0)
        << ReadFile(dir_ + "/chromium-" + what + ".log");
    return ReadFile(dir_ + "/" + what + ".out");
  }
};

TEST_F(HttpTest, MetricsDuringAJobShowTheStepCounterGrowing) {
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  v1::Scenario long_run = CarScenario(0.01);
  long_run.set_stop_time(1e5);  // far longer than the test: canceled once scraped
  absl::StatusOr<std::string> id = client.Submit(long_run);
  ASSERT_TRUE(id.ok()) << id.status();
  std::unique_ptr<httplib::Client> client_http = Http();
  httplib::Client& http = *client_http;
  const std::string series = "cosimo_job_steps_accepted_total{job=\"" + *id + "\"}";
  double first = -1;
  std::string text;
  for (int i = 0; i < 600 && first <= 0; ++i) {
    httplib::Result r = http.Get("/metrics");
    ASSERT_TRUE(r) << httplib::to_string(r.error());
    ASSERT_EQ(r->status, 200);
    EXPECT_THAT(r->get_header_value("Content-Type"), HasSubstr("text/plain; version=0.0.4"));
    text = r->body;
    first = Sample(text, series);
    if (first <= 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_GT(first, 0) << text;
  EXPECT_EQ(Sample(text, "cosimo_jobs{state=\"running\"}"), 1) << text;
  EXPECT_EQ(Sample(text, "cosimo_workers{state=\"busy\"}"), 2) << text;
  EXPECT_EQ(Sample(text, "cosimo_queue_length"), 0) << text;
  EXPECT_GT(Sample(text, "cosimo_step_seconds_count"), 0) << text;
  EXPECT_GE(Sample(text, "cosimo_job_iterations_total{job=\"" + *id + "\"}"), first) << text;
  EXPECT_EQ(Sample(text, "cosimo_job_steps_rejected_total{job=\"" + *id + "\"}"), 0) << text;
  EXPECT_THAT(text, HasSubstr("cosimo_worker_round_trip_seconds_count{worker=\""));
  // Uploads: none for built-in units, and the gauge says so.
  EXPECT_GE(Sample(text, "cosimo_artifact_store_bytes"), 0) << text;

  // The counter goes on as the job steps: scraped again until it passed the first value.
  httplib::Result again = http.Get("/metrics");
  for (int i = 0; i < 200 && again && Sample(again->body, series) <= first; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    again = http.Get("/metrics");
  }
  ASSERT_TRUE(again);
  EXPECT_GT(Sample(again->body, series), first) << again->body;
  // The step histogram counts the steps the job took.
  EXPECT_GE(Sample(again->body, "cosimo_step_seconds_count"), Sample(again->body, series));

  ASSERT_TRUE(client.Cancel(*id).ok());
  absl::StatusOr<v1::JobStatus> end = client.Watch(*id, nullptr, 50);
  ASSERT_TRUE(end.ok()) << end.status();
  EXPECT_EQ(end->state(), v1::CANCELED);
  // A finished job's series stay while the job exists, and go with it.
  httplib::Result after = http.Get("/metrics");
  ASSERT_TRUE(after);
  EXPECT_GE(Sample(after->body, series), Sample(again->body, series));
  EXPECT_EQ(Sample(after->body, "cosimo_jobs{state=\"canceled\"}"), 1) << after->body;
  ASSERT_TRUE(client.Delete(*id).ok());
  after = http.Get("/metrics");
  ASSERT_TRUE(after);
  EXPECT_EQ(Sample(after->body, series), -1) << after->body;
}

// The demand for workers an autoscaler follows: the units of the queued jobs, one slot each.
TEST_F(HttpTest, MetricsCountTheUnitsWaitingForSlots) {
  client::Client client(orchestrator_->address());
  std::unique_ptr<httplib::Client> client_http = Http();
  httplib::Client& http = *client_http;
  const auto scrape = [&](const std::string& series) {
    httplib::Result r = http.Get("/metrics");
    EXPECT_TRUE(r) << httplib::to_string(r.error());
    return r ? Sample(r->body, series) : -2;
  };
  EXPECT_EQ(scrape("cosimo_units_waiting_for_slots"), 0);

  // No worker attached: two jobs of two units each cannot be placed, and wait.
  absl::StatusOr<std::string> first = client.Submit(CarScenario(0.1));
  ASSERT_TRUE(first.ok()) << first.status();
  absl::StatusOr<std::string> second = client.Submit(CarScenario(0.1));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(scrape("cosimo_queue_length"), 2);
  EXPECT_EQ(scrape("cosimo_units_waiting_for_slots"), 4);

  // A canceled job no longer asks for slots.
  ASSERT_TRUE(client.Cancel(*second).ok());
  ASSERT_TRUE(client.Watch(*second, nullptr, 50).ok());
  EXPECT_EQ(scrape("cosimo_units_waiting_for_slots"), 2);

  // One worker of one slot cannot serve two units: the demand stays.
  StartWorkers(1);
  for (int i = 0; i < 200 && scrape("cosimo_workers{state=\"idle\"}") < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_EQ(scrape("cosimo_workers{state=\"idle\"}"), 1);
  EXPECT_EQ(scrape("cosimo_units_waiting_for_slots"), 2);

  // A second worker: the job starts, runs to its end, and nothing waits any more.
  StartWorkers(1);
  absl::StatusOr<v1::JobStatus> end = client.Watch(*first, nullptr, 50);
  ASSERT_TRUE(end.ok()) << end.status();
  EXPECT_EQ(end->state(), v1::SUCCEEDED) << end->message();
  EXPECT_EQ(scrape("cosimo_queue_length"), 0);
  EXPECT_EQ(scrape("cosimo_units_waiting_for_slots"), 0);
}

TEST_F(HttpTest, TheApiListsJobsAndWorkersAndPlotsResults) {
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  std::string id;
  ASSERT_EQ(RunJob(client, CarScenario(0.1), &id).state(), v1::SUCCEEDED);
  std::unique_ptr<httplib::Client> client_http = Http();
  httplib::Client& http = *client_http;

  httplib::Result jobs = http.Get("/api/jobs");
  ASSERT_TRUE(jobs);
  const nlohmann::json list = nlohmann::json::parse(jobs->body);
  ASSERT_EQ(list["jobs"].size(), 1u) << jobs->body;
  EXPECT_EQ(list["jobs"][0]["id"], id);
  EXPECT_EQ(list["jobs"][0]["name"], "car");
  EXPECT_EQ(list["jobs"][0]["state"], "succeeded");
  EXPECT_EQ(list["jobs"][0]["progress"], 1.0);
  EXPECT_EQ(list["jobs"][0]["steps_accepted"], 100);

  httplib::Result one = http.Get("/api/jobs/" + id);
  ASSERT_TRUE(one);
  EXPECT_EQ(nlohmann::json::parse(one->body)["time"], 10.0) << one->body;
  httplib::Result unknown = http.Get("/api/jobs/nope");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_THAT(unknown->body, HasSubstr("unknown job id 'nope'"));

  httplib::Result workers = http.Get("/api/workers");
  ASSERT_TRUE(workers);
  EXPECT_EQ(nlohmann::json::parse(workers->body)["workers"].size(), 2u) << workers->body;

  // Two units, one panel each with its one recorded variable, 101 points per series.
  httplib::Result svg = http.Get("/jobs/" + id + "/plot.svg");
  ASSERT_TRUE(svg);
  ASSERT_EQ(svg->status, 200) << svg->body;
  EXPECT_EQ(svg->get_header_value("Content-Type"), "image/svg+xml");
  const std::regex series("<polyline class=\"series\" data-variable=\"([^\"]+)\"");
  std::vector<std::string> variables;
  for (auto it = std::sregex_iterator(svg->body.begin(), svg->body.end(), series);
       it != std::sregex_iterator(); ++it) {
    variables.push_back((*it)[1]);
  }
  EXPECT_EQ(variables, (std::vector<std::string>{"vehicle.v", "controller.F"}));
  EXPECT_THAT(svg->body, HasSubstr("m/s"));  // the unit from the results' metadata
  httplib::Result bad = http.Get("/jobs/" + id + "/plot.svg?vars=vehicle.nope");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_THAT(bad->body, HasSubstr("vehicle.nope"));

  httplib::Result page = http.Get("/jobs/" + id);
  ASSERT_TRUE(page);
  EXPECT_THAT(page->body, HasSubstr("/static/app.js"));
  httplib::Result script = http.Get("/static/app.js");
  ASSERT_TRUE(script);
  EXPECT_EQ(script->status, 200);
  EXPECT_THAT(script->get_header_value("Content-Type"), HasSubstr("javascript"));
}

TEST_F(HttpTest, TheWebPageShowsTheJobRowAndItsPlotInChromium) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "no headless Chromium (/usr/bin/chromium-headless-shell or chromium; "
                    "deploy/install-deps.sh installs it, COSIMO_CHROMIUM names another)";
  }
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  std::string id;
  ASSERT_EQ(RunJob(client, CarScenario(0.1), &id).state(), v1::SUCCEEDED);

  auto browse = [&](const std::string& what, const std::vector<std::string>& args) {
    return Browse(chromium, what, args);
  };

  // At 1280 px wide (issue 42) the job table fits: no column is cut at the right edge.
  const std::string list = browse("list", {"--window-size=1280,800", "--dump-dom", Url("/")});
  EXPECT_THAT(list, HasSubstr("<div class=\"wide\" data-fits=\"true\">")) << list;
  EXPECT_THAT(list, HasSubstr("<tr class=\"job\" data-job=\"" + id + "\">")) << list;
  EXPECT_THAT(list, HasSubstr(">car</a>")) << list;
  EXPECT_THAT(list, HasSubstr("succeeded")) << list;
  EXPECT_THAT(list, HasSubstr("<tr class=\"worker\">")) << list;

  const std::string job = browse("job", {"--dump-dom", Url("/jobs/" + id)});
  EXPECT_THAT(job, HasSubstr("<div id=\"plot\"><svg")) << job;
  EXPECT_THAT(job, HasSubstr("<polyline class=\"series\" data-variable=\"vehicle.v\"")) << job;
  EXPECT_THAT(job, HasSubstr("<polyline class=\"series\" data-variable=\"controller.F\"")) << job;
  EXPECT_THAT(job, HasSubstr("100 accepted")) << job;

  // The screenshot for the docs (docs/images/web-job.png): COSIMO_WEB_SCREENSHOT says where.
  const std::string png = dir_ + "/web-job.png";
  browse("screenshot", {"--screenshot=" + png, "--hide-scrollbars", Url("/jobs/" + id)});
  const std::string bytes = ReadFile(png);
  ASSERT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  if (const char* out = std::getenv("COSIMO_WEB_SCREENSHOT"); out != nullptr && *out != '\0') {
    std::error_code ec;
    std::filesystem::copy_file(png, out, std::filesystem::copy_options::overwrite_existing, ec);
    EXPECT_FALSE(ec) << "COSIMO_WEB_SCREENSHOT=" << out << ": " << ec.message();
  }
}

// Issue 42: a running job's page plots its rows so far and redraws the plot as they grow,
// without a reload (data-draws counts the drawings of one page), with an ETA; a load once the job
// went more than twice as far draws another plot.
TEST_F(HttpTest, ARunningJobsPagePlotsItsRowsSoFarAsTheyGrowInChromium) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "no headless Chromium (see above)";
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  v1::Scenario long_run = CarScenario(0.1);
  long_run.set_stop_time(2e5);  // minutes at a round trip a step: canceled once seen
  absl::StatusOr<std::string> id = client.Submit(long_run);
  ASSERT_TRUE(id.ok()) << id.status();
  // Until it has rows and a rate (the ETA needs a second of running and a percent done).
  for (int i = 0; i < 1200; ++i) {
    absl::StatusOr<client::JobResults> r =
        client.Results(*id, client::ResultsRequest{.partial = true});
    absl::StatusOr<v1::JobStatus> status = client.Get(*id);
    if (r.ok() && r->rows() > 10 && status.ok() && status->wall_seconds() > 1.5 &&
        status->time() > 0.015 * long_run.stop_time()) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const std::string first = Browse(chromium, "running", {"--dump-dom", Url("/jobs/" + *id)});
  EXPECT_THAT(first, HasSubstr("<div id=\"plot\" data-live=\"true\"")) << first;
  EXPECT_THAT(first, HasSubstr("<polyline class=\"series\" data-variable=\"vehicle.v\"")) << first;
  EXPECT_THAT(first, HasSubstr("<dt>ETA</dt>")) << first;
  const size_t draws = first.find("data-draws=\"");
  ASSERT_NE(draws, std::string::npos);
  EXPECT_GE(std::stoi(first.substr(draws + 12)), 2) << "redrawn without a reload";
  const auto plot_of = [](const std::string& page) {
    const size_t at = page.find("<svg");
    return at == std::string::npos ? std::string() : page.substr(at, page.find("</svg>", at) - at);
  };
  // Until the job has gone more than twice as far as when the first page was drawn (its plot's
  // time axis then has other ticks: the car's speed is flat once it reached it).
  absl::StatusOr<v1::JobStatus> then = client.Get(*id);
  ASSERT_TRUE(then.ok()) << then.status();
  for (int i = 0; i < 2400; ++i) {
    absl::StatusOr<v1::JobStatus> status = client.Get(*id);
    if (status.ok() && status->time() > 2.5 * then->time()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const std::string later = Browse(chromium, "running-later", {"--dump-dom", Url("/jobs/" + *id)});
  absl::StatusOr<v1::JobStatus> now = client.Get(*id);
  ASSERT_TRUE(now.ok()) << now.status();
  EXPECT_EQ(now->state(), v1::RUNNING);
  EXPECT_TRUE(plot_of(later) != plot_of(first))
      << "more rows, another plot (t=" << now->time() << " s now; the plot's "
      << plot_of(first).size() << " bytes, then " << plot_of(later).size() << ")";
  if (const char* out = std::getenv("COSIMO_WEB_RUNNING_SCREENSHOT");
      out != nullptr && *out != '\0') {
    Browse(chromium, "running-screenshot",
           {"--screenshot=" + std::string(out), "--hide-scrollbars", Url("/jobs/" + *id)});
  }
  ASSERT_TRUE(client.Cancel(*id).ok());
}

// A sweep job's page: its table, one row per variant (the failed one marked), and a scatter plot
// of its first KPI against its first parameter, the two chosen with selects.
TEST_F(HttpTest, ASweepJobsPageShowsItsTableAndAScatterPlotInChromium) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "no headless Chromium (see above)";
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  // m = -5 is refused by the vehicle (m > 0): variant 2 fails.
  absl::StatusOr<v1::Sweep> sweep = ParseSweepJson(R"({"name": "masses",
      "parameters": [{"name": "vehicle.m", "values": [1000, 1500, -5]}],
      "kpis": [{"variable": "vehicle.v", "kind": "MAX"}]})");
  ASSERT_TRUE(sweep.ok()) << sweep.status();
  absl::StatusOr<std::string> id = client.SubmitSweep(CarScenario(0.1), *sweep);
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<v1::JobStatus> end = client.Watch(*id, nullptr, 50);
  ASSERT_TRUE(end.ok()) << end.status();
  ASSERT_EQ(end->state(), v1::SUCCEEDED) << end->message();

  const std::string job = Browse(chromium, "sweep", {"--dump-dom", Url("/jobs/" + *id)});
  EXPECT_THAT(job, HasSubstr("<select id=\"scatter-x\" name=\"x\"><option value=\"index\">"))
      << job;
  EXPECT_THAT(job, HasSubstr("<option value=\"max(vehicle.v)\">max(vehicle.v)</option>")) << job;
  // The defaults: the first parameter along x, the first KPI along y.
  EXPECT_THAT(job,
              HasSubstr("src=\"/jobs/" + *id + "/scatter.svg?x=vehicle.m&amp;y=max(vehicle.v)\""))
      << job;
  EXPECT_EQ(Count(job, "<tr class=\"variant\">"), 2u) << job;
  EXPECT_EQ(Count(job, "<tr class=\"variant failed\">"), 1u) << job;
  EXPECT_THAT(job, HasSubstr("<th>max(vehicle.v)</th>")) << job;
  // A sweep looks like a sweep (issue 42): its own name, its variants where a simulation's time
  // and steps would be, its summary not in the red box of failures.
  EXPECT_THAT(job, HasSubstr(">masses — job " + *id + "<")) << job;
  EXPECT_THAT(job, HasSubstr("<dt>variants</dt><dd>3 of 3 done, 1 failed, 0 to go</dd>")) << job;
  EXPECT_THAT(job, Not(HasSubstr("simulated time"))) << job;
  EXPECT_THAT(job, HasSubstr("<p class=\"message succeeded\">3 variants, 1 failed</p>")) << job;

  // The image the page asks for: one marker per succeeded variant.
  std::unique_ptr<httplib::Client> http = Http();
  httplib::Result svg = http->Get("/jobs/" + *id + "/scatter.svg?x=vehicle.m&y=max(vehicle.v)");
  ASSERT_TRUE(svg);
  ASSERT_EQ(svg->status, 200) << svg->body;
  EXPECT_EQ(Count(svg->body, "<circle class=\"point\""), 2u) << svg->body;
  EXPECT_THAT(svg->body, HasSubstr(">1 failed variant not shown<"));
  httplib::Result bad = http->Get("/jobs/" + *id + "/scatter.svg?x=vehicle.mass&y=index");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_THAT(bad->body, HasSubstr("no column 'vehicle.mass'"));

  // A look at it (COSIMO_WEB_SWEEP_SCREENSHOT says where to keep it).
  if (const char* out = std::getenv("COSIMO_WEB_SWEEP_SCREENSHOT");
      out != nullptr && *out != '\0') {
    Browse(chromium, "sweep-screenshot",
           {"--screenshot=" + std::string(out), "--hide-scrollbars", Url("/jobs/" + *id)});
  }
}

// A calibration job's page: its objective per iteration, and once it succeeded its measured data
// against its best run (/jobs/<id>/fit.svg), in place of the time plots.
TEST_F(HttpTest, AFitJobsPageShowsItsObjectivePerIterationAndMeasuredAgainstSimulated) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "no headless Chromium (see above)";
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  absl::StatusOr<v1::Calibration> calibration = ParseCalibrationJson(R"({"name": "mass fit",
      "scenario_file": "car.json",
      "parameters": [{"name": "vehicle.m", "start": 1500, "lower": 500, "upper": 3000}],
      "data": {"csv": "bench.csv", "columns": [{"column": "speed", "variable": "vehicle.v"}]},
      "optimizer": {"kind": "cmaes", "max_iterations": 3, "population": 4}, "seed": 2})");
  ASSERT_TRUE(calibration.ok()) << calibration.status();
  v1::CalibrationJob fit;
  *fit.mutable_calibration() = *calibration;
  v1::MeasuredSamples* speed = fit.add_samples();
  speed->set_column("speed");
  speed->set_variable("vehicle.v");
  for (int t = 1; t <= 5; ++t) {
    speed->add_times(t);
    speed->add_values(40.0 * (1 - std::exp(-t / 1.5)));
  }
  speed->set_factor(1.0);
  absl::StatusOr<std::string> id = client.SubmitFit(LongCar(6), fit);
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<v1::JobStatus> end = client.Watch(*id, nullptr, 50);
  ASSERT_TRUE(end.ok()) << end.status();
  ASSERT_EQ(end->state(), v1::SUCCEEDED) << end->message();

  const std::string job = Browse(chromium, "fit", {"--dump-dom", Url("/jobs/" + *id)});
  EXPECT_THAT(job, HasSubstr(">mass fit — job " + *id + "<")) << job;
  EXPECT_THAT(job, HasSubstr("<dt>objective per iteration</dt><dd>1: ")) << job;
  EXPECT_THAT(job, HasSubstr("<div id=\"plot\"><svg")) << job;
  EXPECT_THAT(job, HasSubstr(">speed (vehicle.v)<")) << job;
  EXPECT_EQ(Count(job, "<title>speed at "), 5u) << job;
  EXPECT_EQ(Count(job, "<polyline class=\"series\" data-variable=\"vehicle.v\""), 1u) << job;
}

// A running sweep's page shows the variants done so far in its table (the others "not run" yet)
// and says how many are to go; it grows as variants finish, without a reload.
TEST_F(HttpTest, ARunningSweepsPageShowsTheVariantsDoneSoFar) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "no headless Chromium (see above)";
  StartWorkers(1, {"--slots", "2"});  // one variant (two units) at a time
  client::Client client(orchestrator_->address());
  // Variants of 500,000 steps (about a second each, run whole on the worker).
  absl::StatusOr<std::string> id = client.SubmitSweep(LongCar(5000), GainSweep(60));
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<v1::JobStatus> status;
  for (int i = 0; i < 1200; ++i) {
    status = client.Get(*id);
    if (!status.ok() || status->sweep().variants_done() >= 1 || status->state() > v1::RUNNING) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(status.ok()) << status.status();
  ASSERT_EQ(status->state(), v1::RUNNING) << status->message();

  const std::string job = Browse(chromium, "running-sweep", {"--dump-dom", Url("/jobs/" + *id)});
  const size_t done = Count(job, "<td>SUCCEEDED</td>");
  EXPECT_GE(done, 1u) << job;
  EXPECT_LT(done, 60u) << job;
  EXPECT_EQ(done + Count(job, "<td>CANCELED</td>"), 60u) << job;
  EXPECT_THAT(job, HasSubstr("not run: the sweep is RUNNING")) << job;
  EXPECT_THAT(job, HasSubstr(" to go</dd>")) << job;
  EXPECT_THAT(job, HasSubstr("<img id=\"scatter-plot\"")) << job;
  if (const char* out = std::getenv("COSIMO_WEB_RUNNING_SWEEP_SCREENSHOT");
      out != nullptr && *out != '\0') {
    Browse(chromium, "running-sweep-screenshot",
           {"--screenshot=" + std::string(out), "--hide-scrollbars", Url("/jobs/" + *id)});
  }
  ASSERT_TRUE(client.Cancel(*id).ok());
}

// A job's log on its page (issue 42): the Log tab (chosen by #log) shows what the units said and
// printed; /api/jobs/<id>/logs gives the lines as JSON.
TEST_F(HttpTest, TheJobPagesLogTabShowsWhatItsUnitsSaidAndPrinted) {
  StartWorkers(2);
  client::Client client(orchestrator_->address());
  std::string id;
  ASSERT_EQ(RunJob(client, ChattyWithSpring(), &id).state(), v1::SUCCEEDED);

  std::unique_ptr<httplib::Client> http = Http();
  httplib::Result r = http->Get("/api/jobs/" + id + "/logs");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const nlohmann::json lines = nlohmann::json::parse(r->body)["lines"];
  ASSERT_EQ(lines.size(), 4u) << r->body;
  EXPECT_EQ(lines[0]["text"], "chatty banner: instance msd");
  EXPECT_EQ(lines[1]["source"], "fmi");
  EXPECT_EQ(lines[1]["status"], "fmi2Warning");
  EXPECT_EQ(lines[2]["source"], "stdout");
  EXPECT_EQ(lines[3]["text"], "chatty stderr at t=0.5");
  r = http->Get("/api/jobs/" + id + "/logs?unit=spring");
  ASSERT_TRUE(r);
  EXPECT_EQ(nlohmann::json::parse(r->body)["lines"].size(), 0u) << r->body;

  const std::string chromium = FindChromium();
  if (chromium.empty()) GTEST_SKIP() << "no headless Chromium (see above)";
  const std::string page = Browse(chromium, "log", {"--dump-dom", Url("/jobs/" + id + "#log")});
  EXPECT_THAT(page, HasSubstr("class=\"tab active\" data-tab=\"log\">Log</button>")) << page;
  EXPECT_THAT(page, HasSubstr("<div id=\"log\"><pre class=\"log\">msd t=")) << page;
  EXPECT_THAT(page, HasSubstr(" stdout: chatty banner: instance msd\n")) << page;
  EXPECT_THAT(page, HasSubstr(" fmi2Warning [logStatusWarning] half way at t=0.5\n")) << page;
  EXPECT_THAT(page, HasSubstr(" stderr: chatty stderr at t=0.5</pre>")) << page;
  EXPECT_THAT(page, HasSubstr("<div id=\"plot\" hidden=\"\">")) << page;
  if (const char* out = std::getenv("COSIMO_WEB_LOG_SCREENSHOT"); out != nullptr && *out != '\0') {
    Browse(chromium, "log-screenshot",
           {"--screenshot=" + std::string(out), "--hide-scrollbars", Url("/jobs/" + id + "#log")});
  }
}

class SecuredHttpTest : public HttpTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    certs_ = TempDir("cosimo-http-tls");
    const std::string command =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -addext "
        "subjectAltName=IP:127.0.0.1,DNS:localhost -keyout " +
        certs_ + "/key.pem -out " + certs_ + "/cert.pem > " + certs_ + "/openssl.log 2>&1";
    EXPECT_EQ(std::system(command.c_str()), 0) << ReadFile(certs_ + "/openssl.log");
    // A space, ';' and '%': the cookie must carry them without ending its value.
    WriteFile(certs_ + "/token", "s3cret; token%\n");
    std::vector<std::string> args = HttpTest::OrchestratorArgs();
    args.insert(args.end(), {"--tls-cert", certs_ + "/cert.pem", "--tls-key", certs_ + "/key.pem",
                             "--token-file", certs_ + "/token"});
    return args;
  }
  void TearDown() override { std::filesystem::remove_all(certs_); }
  std::unique_ptr<httplib::SSLClient> Https() {
    auto c = std::make_unique<httplib::SSLClient>("127.0.0.1", http_port_);
    c->set_ca_cert_path((certs_ + "/cert.pem").c_str());
    c->enable_server_certificate_verification(true);
    c->set_read_timeout(30, 0);
    return c;
  }
  std::string certs_;
};

TEST_F(SecuredHttpTest, EveryPathNeedsTheTokenAsHeaderQueryOrCookie) {
  std::unique_ptr<httplib::SSLClient> client_https = Https();
  httplib::SSLClient& https = *client_https;
  for (const std::string path :
       {"/metrics", "/", "/api/jobs", "/api/workers", "/api/jobs/1/table", "/jobs/1",
        "/jobs/1/plot.svg", "/jobs/1/scatter.svg?x=a&y=b", "/static/app.js"}) {
    httplib::Result r = https.Get(path);
    ASSERT_TRUE(r) << path << ": " << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 401) << path;
    EXPECT_EQ(r->get_header_value("WWW-Authenticate"), "Bearer realm=\"cosimo\"") << path;
    EXPECT_THAT(r->body, HasSubstr("requires a token")) << path;
    // A wrong token is no better.
    r = https.Get(path, {{"Authorization", "Bearer wrong"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 401) << path;
  }
  httplib::Result r = https.Get("/metrics", {{"Authorization", "Bearer s3cret; token%"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_THAT(r->body, HasSubstr("# TYPE cosimo_jobs gauge"));

  // The browser's way: ?token= once sets a cookie and sends the browser to the bare address.
  r = https.Get("/?token=s3cret%3B%20token%25");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 303);
  EXPECT_EQ(r->get_header_value("Location"), "/");
  const std::string cookie = r->get_header_value("Set-Cookie");
  // The value in web-safe base64: its first ';' is the one before the attributes.
  EXPECT_EQ(cookie.substr(0, cookie.find(';')), "cosimo_token=czNjcmV0OyB0b2tlbiU") << cookie;
  EXPECT_THAT(cookie, HasSubstr("HttpOnly"));
  EXPECT_THAT(cookie, HasSubstr("Secure"));
  r = https.Get("/api/jobs", {{"Cookie", cookie.substr(0, cookie.find(';'))}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  r = https.Get("/?token=wrong");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  r = https.Get("/api/jobs", {{"Cookie", "cosimo_token=wrong"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
}

// With --tokens-file beside --token-file, every client's token opens the HTTP port (it only
// reads, so ownership does not restrict it), and the jobs' JSON names their owner.
// The scheme in any case, with more than one space (issue 41 item 11: "bearer" got 401; RFC 9110
// section 11.1: the scheme is case-insensitive); another scheme is not taken.
TEST_F(SecuredHttpTest, TheSchemeIsCaseInsensitive) {
  std::unique_ptr<httplib::SSLClient> https = Https();
  const std::vector<std::pair<const char*, int>> cases = {{"bearer s3cret; token%", 200},
                                                          {"BEARER s3cret; token%", 200},
                                                          {"bEaReR   s3cret; token%", 200},
                                                          {"Basic s3cret; token%", 401},
                                                          {"bearer wrong", 401},
                                                          {"bearers3cret; token%", 401}};
  for (const auto& [authorization, status] : cases) {
    httplib::Result r = https->Get("/metrics", {{"Authorization", authorization}});
    ASSERT_TRUE(r) << authorization;
    EXPECT_EQ(r->status, status) << authorization;
  }
}

class NamedTokensHttpTest : public SecuredHttpTest {
 protected:
  std::vector<std::string> OrchestratorArgs() override {
    std::vector<std::string> args = SecuredHttpTest::OrchestratorArgs();
    WriteFile(certs_ + "/tokens", "alice alice-token-0123456789\n");
    WriteFile(certs_ + "/alice", "alice-token-0123456789\n");
    args.insert(args.end(), {"--tokens-file", certs_ + "/tokens"});
    return args;
  }
};

TEST_F(NamedTokensHttpTest, EveryClientsTokenOpensThePortAndJobsNameTheirOwner) {
  ClientSecurity security;
  security.tls_ca_file = certs_ + "/cert.pem";
  security.token_file = certs_ + "/alice";
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeChannelCredentials(security);
  ASSERT_TRUE(credentials.ok()) << credentials.status();
  client::Client alice(orchestrator_->address(), std::chrono::seconds(30), *credentials);
  absl::StatusOr<std::string> id = alice.Submit(CarScenario(0.01));  // no worker: queued
  ASSERT_TRUE(id.ok()) << id.status();

  std::unique_ptr<httplib::SSLClient> https = Https();
  for (const std::string token : {"alice-token-0123456789", "s3cret; token%"}) {
    httplib::Result r = https->Get("/api/jobs", {{"Authorization", "Bearer " + token}});
    ASSERT_TRUE(r);
    ASSERT_EQ(r->status, 200) << r->body;
    const nlohmann::json jobs = nlohmann::json::parse(r->body)["jobs"];
    ASSERT_EQ(jobs.size(), 1u);
    EXPECT_EQ(jobs[0]["id"], *id);
    EXPECT_EQ(jobs[0]["owner"], "alice");
  }
  httplib::Result r = https->Get("/api/jobs", {{"Authorization", "Bearer bob-token-0123456789"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
}

}  // namespace
}  // namespace cosimo::testing
