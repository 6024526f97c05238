// The orchestrator's HTTP port (--http HOST:PORT, off by default): Prometheus metrics, a small
// JSON API and the web page, all read-only.
//
//   GET /metrics              Prometheus text (jobs by state, per-job steps, iterations and
//                             rejections, the step time histogram, workers' round trips, queue
//                             length, artifact store size)
//   GET /api/jobs             the jobs, newest first (JSON)
//   GET /api/jobs/<id>        one job (JSON); the page polls it every second
//   GET /api/jobs/<id>/table  a succeeded job's results table (JSON: columns, the numeric ones,
//                             a sweep's parameters and KPIs, the first ?limit=N rows, 1000 by
//                             default); a sweep job's is its table, one row per variant
//   GET /api/jobs/<id>/logs   the job's log so far (JSON lines: unit, source, status,
//                             category, text, time, unix_ms); ?unit=NAME that unit's alone
//   GET /api/workers          the workers and the unit each one runs (JSON)
//   GET /jobs/<id>/plot.svg   the plot of a succeeded job's results (common/plot.h); ?vars=a,b
//   GET /jobs/<id>/scatter.svg?x=COL&y=COL   a scatter plot of two columns of those results (a
//                             sweep's KPI against a parameter); an unknown column is a 400
//   GET /, /jobs/<id>, /workers   the page (HTML, JS and CSS built into the binary)
//
// Tokens follow the gRPC API's (orchestrator/src/token_check.h): with a client token, every
// request needs it, as "Authorization: Bearer <token>", or as ?token=<token> (which sets an
// HttpOnly cookie, so a browser needs it once), or that cookie; without one, every request
// passes. With TLS (--tls-cert) the port serves HTTPS with the same certificate.
//
// Slow or idle clients cost a socket, not a thread (mhd_server.h): connections are bounded in
// all and per client address, and a request must arrive whole within a timeout (HttpLimits,
// the --http-* flags; docs/deployment.md).
//
// Thread safety: Start, then Stop from any thread (once). Requests run on a small pool of the
// server's own threads.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "orchestrator/src/artifact_store.h"
#include "orchestrator/src/http/mhd_server.h"
#include "orchestrator/src/job_manager.h"
#include "orchestrator/src/metrics.h"
#include "orchestrator/src/token_check.h"

namespace cosimo::orchestrator::http {

struct HttpOptions {
  std::string listen;         // HOST:PORT ([::1]:PORT for IPv6); port 0 picks a free one
  std::string tls_cert_file;  // both or neither: HTTPS
  std::string tls_key_file;
  HttpLimits limits;  // connections, per client, the time to send a request
};

// What the pages and metrics are read from; all outlive the server.
struct HttpSources {
  JobManager* jobs = nullptr;
  ArtifactStore* artifacts = nullptr;
  Metrics* metrics = nullptr;
  const TokenCheck* auth = nullptr;
};

class HttpServer {
 public:
  // Binds (errors name --http and the address) and starts serving.
  [[nodiscard]] static absl::StatusOr<std::unique_ptr<HttpServer>> Start(
      const HttpOptions& options, const HttpSources& sources);
  ~HttpServer();

  int port() const;
  void Stop();

 private:
  HttpServer() = default;
  void AddRoutes(const HttpSources& sources, bool tls);

  std::unique_ptr<MhdServer> server_;
};

// The /metrics text from `sources` (exposed for tests).
std::string RenderMetrics(const HttpSources& sources);

}  // namespace cosimo::orchestrator::http
