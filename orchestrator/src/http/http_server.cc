#include "orchestrator/src/http/http_server.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "cosimo/common/fit_plot.h"
#include "cosimo/common/job_state.h"
#include "cosimo/common/kpi.h"
#include "cosimo/common/plot.h"
#include "orchestrator/src/http/prometheus_text.h"
#include "orchestrator/src/http/web_assets.h"

namespace cosimo::orchestrator::http {
namespace {

constexpr char kCookie[] = "cosimo_token";

std::string StateName(v1::JobState state) {
  return absl::AsciiStrToLower(v1::JobState_Name(state));
}

// A sweep's progress: variants done of all, failed, ETA (s).
nlohmann::json SweepJson(const v1::SweepStatus& s) {
  return {{"variants_total", s.variants_total()},
          {"variants_done", s.variants_done()},
          {"variants_failed", s.variants_failed()},
          {"eta_seconds", s.eta_seconds()}};
}

nlohmann::json JobJson(const v1::JobStatus& s) {
  const double span = s.stop_time() - s.start_time();
  double progress = span > 0 ? (s.time() - s.start_time()) / span : 0.0;
  if (s.has_sweep()) {
    const uint64_t total = s.sweep().variants_total();
    progress = total > 0
                   ? static_cast<double>(s.sweep().variants_done()) / static_cast<double>(total)
                   : 0.0;
  }
  const int32_t epochs = s.training().request().epochs();
  if (s.has_training() && epochs > 0) progress = static_cast<double>(s.training().epoch()) / epochs;
  const uint32_t generations = s.fit().calibration().calibration().optimizer().max_iterations();
  if (s.has_fit())
    progress = static_cast<double>(s.fit().iteration()) / (generations > 0 ? generations : 100);
  if (s.state() == v1::SUCCEEDED) progress = 1.0;
  nlohmann::json json = {{"id", s.job_id()},
                         {"name", s.name()},
                         {"owner", s.owner()},
                         {"state", StateName(s.state())},
                         {"message", s.message()},
                         {"start_time", s.start_time()},
                         {"stop_time", s.stop_time()},
                         {"time", s.time()},
                         {"progress", std::clamp(progress, 0.0, 1.0)},
                         {"steps_accepted", s.steps_accepted()},
                         {"steps_rejected", s.steps_rejected()},
                         {"iterations", s.iterations()},
                         {"workers_needed", s.workers_needed()},
                         {"wall_seconds", s.wall_seconds()},
                         {"submitted_unix_ms", s.submitted_unix_ms()},
                         {"finished_unix_ms", s.finished_unix_ms()},
                         {"finished", IsFinished(s.state())}};
  if (s.has_sweep()) json["sweep"] = SweepJson(s.sweep());
  if (s.has_fit()) {
    const v1::FitStatus& f = s.fit();
    nlohmann::json parameters = nlohmann::json::object();
    const v1::Calibration& c = f.calibration().calibration();
    for (int i = 0; i < f.parameters_size() && i < c.parameters_size(); ++i) {
      parameters[c.parameters(i).name()] = f.parameters(i);
    }
    // The iterations so far while it runs (or as far as it got), all of them once it succeeded.
    nlohmann::json history = nlohmann::json::array();
    for (const v1::FitIteration& it : f.history_size() > 0 ? f.history() : f.result().history()) {
      history.push_back({{"iteration", it.iteration()}, {"objective", it.objective()}});
    }
    json["fit"] = {
        {"iteration", f.iteration()},
        {"evaluations", f.evaluations()},
        {"best_objective", std::isfinite(f.best_objective()) ? nlohmann::json(f.best_objective())
                                                             : nlohmann::json(nullptr)},
        {"parameters", parameters},
        {"history", history}};
  }
  if (s.has_training()) {
    json["training"] = {
        {"epoch", s.training().epoch()}, {"epochs", epochs}, {"loss", s.training().loss()}};
  }
  return json;
}

int HttpCode(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kInvalidArgument:
      return 400;
    case absl::StatusCode::kFailedPrecondition:
      return 409;
    default:
      return 500;
  }
}

void SetError(HttpResponse& res, const absl::Status& status) {
  res.status = HttpCode(status);
  res.SetContent(std::string(status.message()) + "\n", "text/plain; charset=utf-8");
}

void SetJson(HttpResponse& res, const nlohmann::json& json) {
  res.SetHeader("Cache-Control", "no-store");
  res.SetContent(json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                 "application/json");
}

// A token as a cookie value: web-safe base64 (letters, digits, '-' and '_'), so that a token with
// ';', ',', '"', '%' or a space (a token file holds any bytes but a newline) neither ends the
// value nor adds attributes to the Set-Cookie header.
std::string CookieEncode(absl::string_view value) { return absl::WebSafeBase64Escape(value); }

// CookieEncode undone; empty when the value is not web-safe base64 (it then matches no token).
std::string CookieDecode(absl::string_view value) {
  std::string out;
  if (!absl::WebSafeBase64Unescape(value, &out)) return "";
  return out;
}

// The value of cookie `name` in a Cookie header ("a=1; cosimo_token=..."), decoded, or empty.
std::string CookieValue(const std::string& header, absl::string_view name) {
  for (absl::string_view part : absl::StrSplit(header, ';')) {
    part = absl::StripAsciiWhitespace(part);
    if (part.size() > name.size() && part.substr(0, name.size()) == name &&
        part[name.size()] == '=') {
      return CookieDecode(part.substr(name.size() + 1));
    }
  }
  return "";
}

// Splits "HOST:PORT" or "[V6]:PORT".
absl::StatusOr<std::pair<std::string, int>> HostPort(const std::string& listen) {
  const size_t colon = listen.rfind(':');
  int port = -1;
  if (colon == std::string::npos || !absl::SimpleAtoi(listen.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError("--http '" + listen +
                                      "' is not HOST:PORT (e.g. 127.0.0.1:7780)");
  }
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) {
    return absl::InvalidArgumentError("--http '" + listen +
                                      "' names no host: say where to listen (0.0.0.0 for every "
                                      "interface, 127.0.0.1 for this machine only)");
  }
  return std::make_pair(host, port);
}

// The calibration jobs' progress: iterations, runs and best objective, one series per job.
void FitMetrics(const JobManager::Counts& counts, PrometheusText& out) {
  using Type = PrometheusText::Type;
  out.Family("cosimo_fit_iterations",
             "Iterations (CMA-ES generations, Levenberg-Marquardt Jacobians) a calibration job has "
             "done (series kept while the job exists).",
             Type::kGauge);
  for (const auto& [id, f] : counts.fits) {
    out.Sample({{"job", id}}, static_cast<double>(f.iteration()));
  }
  out.Family("cosimo_fit_evaluations", "Runs (variants) a calibration job has done.", Type::kGauge);
  for (const auto& [id, f] : counts.fits) {
    out.Sample({{"job", id}}, static_cast<double>(f.evaluations()));
  }
  out.Family("cosimo_fit_best_objective", "The best objective a calibration job has found so far.",
             Type::kGauge);
  for (const auto& [id, f] : counts.fits) out.Sample({{"job", id}}, f.best_objective());
}

}  // namespace

std::string RenderMetrics(const HttpSources& sources) {
  using Type = PrometheusText::Type;
  const JobManager::Counts counts = sources.jobs->Count();
  const std::vector<v1::WorkerStatus> workers = sources.jobs->Workers();
  std::set<std::string> worker_ids;
  for (const v1::WorkerStatus& w : workers) worker_ids.insert(w.worker_id());
  const Metrics::Snapshot snapshot = sources.metrics->Read(counts.job_ids, worker_ids);

  PrometheusText out;
  out.Family("cosimo_jobs", "Jobs the orchestrator knows, by state.", Type::kGauge);
  for (v1::JobState state : {v1::QUEUED, v1::RUNNING, v1::SUCCEEDED, v1::FAILED, v1::CANCELED}) {
    const auto it = counts.by_state.find(state);
    out.Sample({{"state", StateName(state)}}, it == counts.by_state.end() ? 0 : it->second);
  }
  out.Family("cosimo_queue_length", "Jobs queued, waiting for workers.", Type::kGauge);
  out.Sample({}, static_cast<double>(counts.queued));
  out.Family("cosimo_units_waiting_for_slots",
             "Units of the queued jobs, one worker slot each: the workers' demand an autoscaler "
             "follows.",
             Type::kGauge);
  out.Sample({}, counts.units_waiting);
  out.Family("cosimo_job_steps_accepted",
             "Accepted macro steps of a job (series kept while the job exists).", Type::kCounter);
  for (const auto& [id, c] : snapshot.jobs) {
    out.Sample({{"job", id}}, static_cast<double>(c.steps_accepted), "_total");
  }
  out.Family("cosimo_job_steps_rejected", "Rejected macro step attempts of a job.", Type::kCounter);
  for (const auto& [id, c] : snapshot.jobs) {
    out.Sample({{"job", id}}, static_cast<double>(c.steps_rejected), "_total");
  }
  out.Family("cosimo_job_iterations",
             "Internal iterations of a job (one per step when not "
             "iterative).",
             Type::kCounter);
  for (const auto& [id, c] : snapshot.jobs) {
    out.Sample({{"job", id}}, static_cast<double>(c.iterations), "_total");
  }
  out.Family("cosimo_sweep_variants",
             "Variants of a sweep job: all, done (succeeded or failed), failed (series kept while "
             "the job exists).",
             Type::kGauge);
  for (const auto& [id, s] : counts.sweeps) {
    out.Sample({{"job", id}, {"state", "total"}}, static_cast<double>(s.variants_total()));
    out.Sample({{"job", id}, {"state", "done"}}, static_cast<double>(s.variants_done()));
    out.Sample({{"job", id}, {"state", "failed"}}, static_cast<double>(s.variants_failed()));
  }
  FitMetrics(counts, out);
  const Histogram::Counts& steps = snapshot.step_seconds;
  out.Family("cosimo_step_seconds",
             "Wall time per accepted macro step (rejected attempts and iterations included), s.",
             Type::kHistogram);
  out.Histogram({}, steps.upper_bounds, steps.counts, steps.sum);
  out.Family("cosimo_workers", "Workers attached, by state.", Type::kGauge);
  int busy = 0;
  for (const v1::WorkerStatus& w : workers) busy += w.busy() ? 1 : 0;
  out.Sample({{"state", "busy"}}, busy);
  out.Sample({{"state", "idle"}}, static_cast<double>(workers.size()) - busy);
  out.Family("cosimo_worker_round_trip_seconds",
             "Round trip of a command to a worker, from sending it to its reply (the unit's work "
             "included), s.",
             Type::kHistogram);
  for (const auto& [id, h] : snapshot.worker_round_trip) {
    out.Histogram({{"worker", id}}, h.upper_bounds, h.counts, h.sum);
  }
  out.Family("cosimo_artifact_store_bytes", "Bytes in the artifact store (uploads included).",
             Type::kGauge);
  out.Sample({}, static_cast<double>(sources.artifacts->TotalBytes()));
  return out.text();
}

namespace {

// A file's whole contents; `flag` names it in the error.
absl::StatusOr<std::string> ReadPem(const std::string& flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  if (!in || !(text << in.rdbuf())) {
    return absl::InvalidArgumentError("--http: cannot read the " + flag + " file '" + path + "'");
  }
  return text.str();
}

}  // namespace

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpOptions& options,
                                                              const HttpSources& sources) {
  absl::StatusOr<std::pair<std::string, int>> address = HostPort(options.listen);
  if (!address.ok()) return address.status();
  MhdServer::Tls tls;
  if (!options.tls_cert_file.empty()) {
    absl::StatusOr<std::string> cert = ReadPem("--tls-cert", options.tls_cert_file);
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadPem("--tls-key", options.tls_key_file);
    if (!key.ok()) return key.status();
    tls = {*std::move(cert), *std::move(key)};
  }
  std::unique_ptr<HttpServer> server(new HttpServer());
  server->server_ = MhdServer::Create(options.limits);
  server->AddRoutes(sources, !tls.cert_pem.empty());
  const auto& [host, port] = *address;
  absl::Status started = server->server_->Start("--http '" + options.listen + "'", host, port, tls);
  if (!started.ok()) return started;
  spdlog::info("HTTP ({}) on {}:{}: /metrics and the web page{}",
               tls.cert_pem.empty() ? "plain" : "TLS", host, server->server_->port(),
               sources.auth->enabled() ? ", token required" : "");
  return server;
}

HttpServer::~HttpServer() { Stop(); }

int HttpServer::port() const { return server_->port(); }

void HttpServer::Stop() { server_->Stop(); }

namespace {

// A request carries the token (Authorization, the cookie, or ?token= once, which sets the
// cookie and redirects), or is answered 401 here (true: answered).
bool Authorize(const HttpSources& sources, bool tls, const HttpRequest& req, HttpResponse& res) {
  if (!sources.auth->enabled()) return false;
  if (!req.header("Authorization").empty() &&
      sources.auth->AcceptsAuthorization(req.header("Authorization"))) {
    return false;
  }
  if (req.has_param("token") &&
      sources.auth->AcceptsAuthorization("Bearer " + req.param("token"))) {
    // The browser keeps it, so that the page's own requests carry it, and the address bar
    // loses it.
    res.SetHeader("Set-Cookie", std::string(kCookie) + "=" + CookieEncode(req.param("token")) +
                                    "; Path=/; HttpOnly; SameSite=Strict" +
                                    (tls ? "; Secure" : ""));
    res.Redirect(req.path, 303);
    return true;
  }
  const std::string cookie = CookieValue(req.header("Cookie"), kCookie);
  if (!cookie.empty() && sources.auth->AcceptsAuthorization("Bearer " + cookie)) {
    return false;
  }
  res.status = 401;
  res.SetHeader("WWW-Authenticate", "Bearer realm=\"cosimo\"");
  res.SetContent(
      "this orchestrator requires a token: send \"Authorization: Bearer <token>\" (the "
      "--token-file's), or open the page once with ?token=<token>\n",
      "text/plain; charset=utf-8");
  return true;
}

// The title of a job's plots: its name and id.
std::string PlotTitle(const v1::JobStatus& job) {
  return job.name().empty() ? "job " + job.job_id() : job.name() + " (job " + job.job_id() + ")";
}

// A table's rows as JSON, the first `limit`: numbers (null for NaN and infinities, which JSON
// lacks), true / false in Boolean columns, texts in columns of strings.
nlohmann::json RowsJson(const ResultTable& table, size_t limit) {
  const size_t width = table.columns.size();
  const size_t texts = table.string_columns();
  nlohmann::json rows = nlohmann::json::array();
  for (size_t r = 0; r < std::min(limit, table.rows()); ++r) {
    nlohmann::json row = nlohmann::json::array();
    size_t text = r * texts;
    for (size_t c = 0; c < width; ++c) {
      const double v = table.values[r * width + c];
      switch (table.type(c)) {
        case ValueType::kString:
          row.push_back(text < table.strings.size() ? table.strings[text] : "");
          ++text;
          break;
        case ValueType::kBoolean:
          row.push_back(v != 0.0);
          break;
        case ValueType::kInteger:  // exact as a JSON integer up to 2^53
          if (std::abs(v) < 0x1p53) {
            row.push_back(static_cast<int64_t>(v));
            break;
          }
          [[fallthrough]];
        default:
          row.push_back(std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr));
      }
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// /api/jobs/<id>/table: a succeeded job's results table (a sweep job's: one row per variant), a
// running one's rows so far (`partial`: a prefix of its results).
nlohmann::json TableJson(const v1::JobStatus& job, const StoredResults& table, size_t limit) {
  std::vector<std::string> parameters, kpis;
  for (const v1::SweepParameter& p : job.sweep().sweep().parameters()) {
    parameters.push_back(p.name());
  }
  for (const v1::Kpi& kpi : job.sweep().sweep().kpis()) kpis.push_back(KpiName(kpi));
  return {{"columns", table.columns},           {"numeric", NumericColumns(table)},
          {"parameters", parameters},           {"kpis", kpis},
          {"total_rows", table.rows()},         {"rows", RowsJson(table, limit)},
          {"partial", table.metadata.partial()}};
}

// A job's status and its results (with ?partial=1 a running job's rows so far). Errors: no such
// job (kNotFound), no results (it has not succeeded, or is a training job: kFailedPrecondition).
struct JobTable {
  v1::JobStatus job;
  StoredResults results;
};
absl::StatusOr<JobTable> LoadJobTable(const HttpSources& sources, const HttpRequest& req) {
  const std::string& id = req.matches[1];
  absl::StatusOr<v1::JobStatus> job = sources.jobs->Get(id);
  if (!job.ok()) return job.status();
  // ?partial=1: a running job's rows recorded so far.
  const bool partial = req.param("partial") == "1" || req.param("partial") == "true";
  absl::StatusOr<StoredResults> results = sources.jobs->Results(id, partial);
  if (!results.ok()) return results.status();
  return JobTable{*std::move(job), *std::move(results)};
}

// The routes that read a succeeded job's results: its time plots, its table, a scatter plot of
// two of its columns.
void AddResultRoutes(MhdServer& s, const HttpSources& sources) {
  s.Get(R"(/jobs/([^/]+)/plot\.svg)", [sources](const HttpRequest& req, HttpResponse& res) {
    absl::StatusOr<JobTable> t = LoadJobTable(sources, req);
    if (!t.ok()) return SetError(res, t.status());
    PlotOptions options;
    options.title = PlotTitle(t->job);
    for (const v1::RecordedVariable& v : t->results.metadata.variables()) {
      if (!v.unit().empty()) options.units[v.name()] = v.unit();
    }
    if (req.has_param("vars")) {
      options.variables = absl::StrSplit(req.param("vars"), ',', absl::SkipEmpty());
    }
    absl::StatusOr<std::string> svg = PlotSvg(t->results, options);
    if (!svg.ok()) return SetError(res, svg.status());
    res.SetContent(*svg, "image/svg+xml");
  });
  // A calibration job's measured data against its best run (its results).
  s.Get(R"(/jobs/([^/]+)/fit\.svg)", [sources](const HttpRequest& req, HttpResponse& res) {
    absl::StatusOr<JobTable> t = LoadJobTable(sources, req);
    if (!t.ok()) return SetError(res, t.status());
    if (!t->job.has_fit()) {
      return SetError(res, absl::FailedPreconditionError(
                               "job " + t->job.job_id() + " is not a calibration job: /jobs/" +
                               t->job.job_id() + "/plot.svg plots its results"));
    }
    PlotOptions options;
    options.title = PlotTitle(t->job);
    for (const v1::RecordedVariable& v : t->results.metadata.variables()) {
      if (!v.unit().empty()) options.units[v.name()] = v.unit();
    }
    absl::StatusOr<v1::CalibrationJob> samples = sources.jobs->CalibrationSamples(t->job.job_id());
    if (!samples.ok()) return SetError(res, samples.status());
    absl::StatusOr<std::string> svg = FitPlotSvg(t->results, MeasuredSeriesOf(*samples), options);
    if (!svg.ok()) return SetError(res, svg.status());
    res.SetContent(*svg, "image/svg+xml");
  });
  s.Get(R"(/jobs/([^/]+)/scatter\.svg)", [sources](const HttpRequest& req, HttpResponse& res) {
    absl::StatusOr<JobTable> t = LoadJobTable(sources, req);
    if (!t.ok()) return SetError(res, t.status());
    if (req.param("x").empty() || req.param("y").empty()) {
      return SetError(res, absl::InvalidArgumentError(
                               "give the columns as ?x=COLUMN&y=COLUMN (numeric columns: " +
                               absl::StrJoin(NumericColumns(t->results), ", ") + ")"));
    }
    ScatterOptions options;
    options.title = PlotTitle(t->job);
    absl::StatusOr<std::string> svg =
        PlotScatterSvg(t->results, req.param("x"), req.param("y"), options);
    if (!svg.ok()) return SetError(res, svg.status());
    res.SetHeader("Cache-Control", "no-store");
    res.SetContent(*svg, "image/svg+xml");
  });
  s.Get(R"(/api/jobs/([^/]+)/table)", [sources](const HttpRequest& req, HttpResponse& res) {
    size_t limit = 1000;
    if (req.has_param("limit") && !absl::SimpleAtoi(req.param("limit"), &limit)) {
      return SetError(res, absl::InvalidArgumentError("?limit= takes a number of rows (not '" +
                                                      req.param("limit") + "')"));
    }
    absl::StatusOr<JobTable> t = LoadJobTable(sources, req);
    if (!t.ok()) return SetError(res, t.status());
    SetJson(res, TableJson(t->job, t->results, limit));
  });
}

}  // namespace

void HttpServer::AddRoutes(const HttpSources& sources, bool tls) {
  MhdServer& s = *server_;
  // Every request: the token first.
  s.SetFilter([sources, tls](const HttpRequest& req, HttpResponse& res) {
    return Authorize(sources, tls, req, res);
  });

  s.Get("/metrics", [sources](const HttpRequest&, HttpResponse& res) {
    res.SetContent(RenderMetrics(sources), "text/plain; version=0.0.4; charset=utf-8");
  });
  s.Get("/api/jobs", [sources](const HttpRequest&, HttpResponse& res) {
    nlohmann::json jobs = nlohmann::json::array();
    std::string token;
    do {
      absl::StatusOr<JobManager::JobPage> page = sources.jobs->List(1000, token);
      if (!page.ok()) return SetError(res, page.status());
      for (const v1::JobStatus& job : page->jobs) jobs.push_back(JobJson(job));
      token = page->next_page_token;
    } while (!token.empty());
    SetJson(res, {{"jobs", jobs}});
  });
  s.Get(R"(/api/jobs/([^/]+))", [sources](const HttpRequest& req, HttpResponse& res) {
    absl::StatusOr<v1::JobStatus> job = sources.jobs->Get(req.matches[1]);
    if (!job.ok()) return SetError(res, job.status());
    SetJson(res, JobJson(*job));
  });
  s.Get(R"(/api/jobs/([^/]+)/logs)", [sources](const HttpRequest& req, HttpResponse& res) {
    absl::StatusOr<std::vector<v1::LogEntry>> lines =
        sources.jobs->Logs(req.matches[1], req.param("unit"));
    if (!lines.ok()) return SetError(res, lines.status());
    nlohmann::json json = nlohmann::json::array();
    for (const v1::LogEntry& line : *lines) {
      json.push_back({{"unit", line.unit()},
                      {"source", line.source()},
                      {"status", line.status()},
                      {"category", line.category()},
                      {"text", line.text()},
                      {"time", std::isfinite(line.time()) ? nlohmann::json(line.time())
                                                          : nlohmann::json(nullptr)},
                      {"unix_ms", line.unix_ms()}});
    }
    SetJson(res, {{"lines", json}});
  });
  s.Get("/api/workers", [sources](const HttpRequest&, HttpResponse& res) {
    const std::map<std::string, std::string> units = sources.jobs->RunningUnits();
    nlohmann::json workers = nlohmann::json::array();
    for (const v1::WorkerStatus& w : sources.jobs->Workers()) {
      const auto unit = units.find(w.worker_id());
      workers.push_back({{"id", w.worker_id()},
                         {"host", w.host()},
                         {"pid", w.pid()},
                         {"labels", std::vector<std::string>(w.labels().begin(), w.labels().end())},
                         {"busy", w.busy()},
                         {"job", w.job_id()},
                         {"unit", unit == units.end() ? "" : unit->second}});
    }
    SetJson(res, {{"workers", workers}});
  });
  AddResultRoutes(s, sources);
  // The page: one HTML file whose script draws the list, a job or the workers from the path.
  auto page = [](const HttpRequest&, HttpResponse& res) {
    const WebAsset* index = FindWebAsset("index.html");
    res.SetContent(std::string(index->body), std::string(index->content_type));
  };
  s.Get("/", page);
  s.Get("/workers", page);
  s.Get(R"(/jobs/([^/]+))", page);
  s.Get(R"(/static/([a-z_]+\.(js|css)))", [](const HttpRequest& req, HttpResponse& res) {
    const WebAsset* asset = FindWebAsset(req.matches[1]);
    if (asset == nullptr) {
      res.status = 404;
      return;
    }
    res.SetContent(std::string(asset->body), std::string(asset->content_type));
  });
}

}  // namespace cosimo::orchestrator::http
