// A small HTTP/1.1 server of GET (and HEAD) routes on GNU libmicrohttpd, for the orchestrator's
// HTTP port (http_server.h). libmicrohttpd reads requests event-driven on a few threads, so a
// client that connects and then sends slowly, or not at all, holds a socket but no thread: the
// page and /metrics answer others meanwhile. On top of that, the limits of HttpLimits:
//
//  - connections in all: beyond max_connections, new ones wait in the listen backlog until one
//    closes (they are not refused);
//  - connections per client address: beyond max_connections_per_client, a new one is closed at
//    once;
//  - a whole request in request_timeout: a connection that has not sent a complete request head
//    that long after it opened (or after its last answer, on a kept-alive connection) is closed,
//    however often it sends a byte. libmicrohttpd's own timeout counts only silence, so a
//    watchdog thread here shuts such sockets.
//
// Thread safety: routes and the filter are set before Start; handlers run on the server's
// threads, several at once. Stop (or the destructor) from any other thread, once.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace cosimo::orchestrator::http {

struct HttpLimits {
  unsigned max_connections = 64;             // --http-max-connections
  unsigned max_connections_per_client = 8;   // --http-max-connections-per-client
  std::chrono::seconds request_timeout{10};  // --http-request-timeout-s
  unsigned threads = 4;                      // threads reading requests and running handlers
};

struct HttpRequest {
  std::string method;                         // GET or HEAD
  std::string path;                           // decoded, without the query
  std::vector<std::string> matches;           // the route's regex groups; [0] is the whole path
  std::map<std::string, std::string> params;  // the query's, decoded

  bool has_param(const std::string& name) const { return params.count(name) > 0; }
  // The parameter's value, or "".
  std::string param(const std::string& name) const;
  // A request header's value (the name in any case), or "".
  std::string header(const std::string& name) const;

  // Lower-case name -> value.
  std::map<std::string, std::string> headers;
};

struct HttpResponse {
  int status = 200;
  std::string body;
  std::string content_type = "text/plain; charset=utf-8";
  std::vector<std::pair<std::string, std::string>> headers;

  void SetContent(std::string content, std::string type) {
    body = std::move(content);
    content_type = std::move(type);
  }
  void SetHeader(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
  }
  void Redirect(const std::string& location, int code) {
    status = code;
    SetHeader("Location", location);
  }
};

using HttpHandler = std::function<void(const HttpRequest&, HttpResponse&)>;
// Runs before the routes: true when it answered the request itself (the routes are skipped).
using HttpFilter = std::function<bool(const HttpRequest&, HttpResponse&)>;

class MhdServer {
 public:
  struct Tls {
    std::string cert_pem;  // contents, not file names; both empty: plain HTTP
    std::string key_pem;
  };

  MhdServer(const MhdServer&) = delete;
  MhdServer& operator=(const MhdServer&) = delete;
  ~MhdServer();

  // A server with no routes; nothing listens until Start.
  static std::unique_ptr<MhdServer> Create(HttpLimits limits);

  // A GET (and HEAD) route: the whole decoded path must match `pattern`.
  void Get(const std::string& pattern, HttpHandler handler);
  void SetFilter(HttpFilter filter) { filter_ = std::move(filter); }

  // Listens on host:port (port 0: a free one; port() says which) and serves. Errors name the
  // address (`what` is the flag the address came from) or the TLS files.
  [[nodiscard]] absl::Status Start(const std::string& what, const std::string& host, int port,
                                   const Tls& tls);
  int port() const { return port_; }
  void Stop();

  // What the handlers of libmicrohttpd's callbacks reach (mhd_server.cc).
  struct Impl;

 private:
  explicit MhdServer(HttpLimits limits);
  // Runs the filter, then the first route that matches (its groups into request.matches).
  void Answer(HttpRequest& request, HttpResponse& response) const;

  HttpLimits limits_;
  std::vector<std::pair<std::regex, HttpHandler>> routes_;
  HttpFilter filter_;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace cosimo::orchestrator::http
