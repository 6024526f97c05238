#include "orchestrator/src/http/mhd_server.h"

#include <fcntl.h>
#include <netdb.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "orchestrator/src/http/mhd_api.h"

namespace cosimo::orchestrator::http {

std::string HttpRequest::param(const std::string& name) const {
  const auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

std::string HttpRequest::header(const std::string& name) const {
  const auto it = headers.find(absl::AsciiStrToLower(name));
  return it == headers.end() ? "" : it->second;
}

// The daemon, the TLS material it reads from, and the connections the watchdog looks after.
struct MhdServer::Impl {
  using SteadyTime = std::chrono::steady_clock::time_point;
  // A connection waiting for a request head since `since` (just opened, or answered and kept
  // alive), or reading or answering one (`waiting` false).
  struct Connection {
    int fd = -1;
    bool waiting = true;
    bool shut = false;
    SteadyTime since;
  };

  const MhdServer* server = nullptr;
  const MhdApi* mhd = nullptr;  // set by Start
  MHD_Daemon* daemon = nullptr;
  std::string cert_pem, key_pem;  // outlive the daemon, which reads them in place
  std::chrono::seconds request_timeout{10};

  absl::Mutex mutex;
  std::map<MHD_Connection*, Connection> connections ABSL_GUARDED_BY(mutex);
  bool stopping ABSL_GUARDED_BY(mutex) = false;
  std::thread watchdog;

  void Answer(HttpRequest& request, HttpResponse& response) const {
    server->Answer(request, response);
  }

  void Opened(MHD_Connection* connection) {
    const MHD_ConnectionInfo* info =
        mhd->MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    absl::MutexLock lock(&mutex);
    connections[connection] = {info == nullptr ? -1 : info->connect_fd, true, false,
                               std::chrono::steady_clock::now()};
  }
  void Closed(MHD_Connection* connection) {
    absl::MutexLock lock(&mutex);
    connections.erase(connection);
  }
  // A request head came in (waiting = false), or its answer went out (true, from now).
  void Waiting(MHD_Connection* connection, bool waiting) {
    absl::MutexLock lock(&mutex);
    const auto it = connections.find(connection);
    if (it == connections.end()) return;
    it->second.waiting = waiting;
    it->second.since = std::chrono::steady_clock::now();
  }

  // Shuts the sockets of connections that have waited longer than request_timeout for a whole
  // request head: libmicrohttpd sees the end of the stream and lets them go. The socket is shut,
  // not closed (libmicrohttpd closes it, after telling Closed, which takes the mutex first), so
  // the descriptor cannot have been reused by another connection meanwhile.
  void Watch() {
    // A quarter of the shortest timeout (1 s): a connection is shut at most that late.
    constexpr absl::Duration kTick = absl::Milliseconds(250);
    absl::MutexLock lock(&mutex);
    while (!stopping) {
      mutex.AwaitWithTimeout(absl::Condition(&stopping), kTick);
      const SteadyTime now = std::chrono::steady_clock::now();
      for (auto& [connection, c] : connections) {
        if (c.waiting && !c.shut && c.fd >= 0 && now - c.since >= request_timeout) {
          ::shutdown(c.fd, SHUT_RDWR);
          c.shut = true;
        }
      }
    }
  }
};

namespace {

// A marker for the request state libmicrohttpd keeps per request: the head was seen.
char kHeadSeen;

void OnConnection(void* cls, MHD_Connection* connection, void** /*socket_context*/,
                  MHD_ConnectionNotificationCode code) {
  auto* impl = static_cast<MhdServer::Impl*>(cls);
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    impl->Opened(connection);
  } else {
    impl->Closed(connection);
  }
}

void OnCompleted(void* cls, MHD_Connection* connection, void** /*request*/,
                 MHD_RequestTerminationCode /*code*/) {
  static_cast<MhdServer::Impl*>(cls)->Waiting(connection, true);
}

MHD_Result CollectHeader(void* cls, MHD_ValueKind /*kind*/, const char* key, const char* value) {
  if (key != nullptr) {
    (*static_cast<std::map<std::string, std::string>*>(cls))[absl::AsciiStrToLower(key)] =
        value == nullptr ? "" : value;
  }
  return MHD_YES;
}

MHD_Result CollectParam(void* cls, MHD_ValueKind /*kind*/, const char* key, const char* value) {
  if (key != nullptr) {
    (*static_cast<std::map<std::string, std::string>*>(cls))[key] = value == nullptr ? "" : value;
  }
  return MHD_YES;
}

MHD_Result Queue(const MhdApi& mhd, MHD_Connection* connection, const HttpResponse& response) {
  MHD_Response* r = mhd.MHD_create_response_from_buffer(
      response.body.size(), const_cast<char*>(response.body.data()), MHD_RESPMEM_MUST_COPY);
  if (r == nullptr) return MHD_NO;
  mhd.MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, response.content_type.c_str());
  for (const auto& [name, value] : response.headers) {
    mhd.MHD_add_response_header(r, name.c_str(), value.c_str());
  }
  const MHD_Result queued =
      mhd.MHD_queue_response(connection, static_cast<unsigned>(response.status), r);
  mhd.MHD_destroy_response(r);
  return queued;
}

void Log(void* /*cls*/, const char* format, va_list args) {
  char line[512];
  std::vsnprintf(line, sizeof line, format, args);
  std::string text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  spdlog::debug("http: {}", text);
}

// libmicrohttpd calls it twice or more per request: first when the head is in (which ends the
// wait the watchdog counts), then for the body (ignored: the routes take none), and once more
// when it is all in: the answer is queued then, as libmicrohttpd asks, so that kept-alive
// connections stay in step.
MHD_Result OnRequest(void* cls, MHD_Connection* connection, const char* url, const char* method,
                     const char* /*version*/, const char* /*upload_data*/, size_t* upload_data_size,
                     void** request_state) {
  auto* impl = static_cast<MhdServer::Impl*>(cls);
  if (*request_state == nullptr) {
    *request_state = &kHeadSeen;
    impl->Waiting(connection, false);
    return MHD_YES;
  }
  if (*upload_data_size != 0) {
    *upload_data_size = 0;
    return MHD_YES;
  }
  HttpRequest request;
  request.method = method;
  request.path = url;
  HttpResponse response;
  if (request.method != MHD_HTTP_METHOD_GET && request.method != MHD_HTTP_METHOD_HEAD) {
    response.status = 405;
    response.SetHeader("Allow", "GET, HEAD");
    response.body = "only GET and HEAD are served here\n";
    return Queue(*impl->mhd, connection, response);
  }
  impl->mhd->MHD_get_connection_values(connection, MHD_HEADER_KIND, CollectHeader,
                                       &request.headers);
  impl->mhd->MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, CollectParam,
                                       &request.params);
  impl->Answer(request, response);
  return Queue(*impl->mhd, connection, response);
}

}  // namespace

MhdServer::MhdServer(HttpLimits limits) : limits_(limits), impl_(std::make_unique<Impl>()) {
  impl_->server = this;
  impl_->request_timeout = std::max(limits.request_timeout, std::chrono::seconds(1));
}

MhdServer::~MhdServer() { Stop(); }

std::unique_ptr<MhdServer> MhdServer::Create(HttpLimits limits) {
  return std::unique_ptr<MhdServer>(new MhdServer(limits));
}

void MhdServer::Get(const std::string& pattern, HttpHandler handler) {
  routes_.emplace_back(std::regex(pattern), std::move(handler));
}

void MhdServer::Answer(HttpRequest& request, HttpResponse& response) const {
  if (filter_ && filter_(request, response)) return;
  for (const auto& [pattern, handler] : routes_) {
    std::smatch match;
    if (!std::regex_match(request.path, match, pattern)) continue;
    for (const auto& group : match) request.matches.push_back(group.str());
    handler(request, response);
    return;
  }
  response.status = 404;
  response.body = "no such page: " + request.path + "\n";
}

namespace {

// A listening socket on host:port, non-blocking; -1 and `error` when it cannot be had.
int Listen(const std::string& host, int port, bool* ipv6, std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int resolved = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (resolved != 0) {
    *error = gai_strerror(resolved);
    return -1;
  }
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 128) != 0) {
      *error = std::strerror(errno);
      ::close(fd);
      fd = -1;
      continue;
    }
    *ipv6 = a->ai_family == AF_INET6;
  }
  freeaddrinfo(found);
  return fd;
}

int BoundPort(int fd) {
  sockaddr_storage address{};
  socklen_t size = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) return 0;
  if (address.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
  }
  return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
}

}  // namespace

absl::Status MhdServer::Start(const std::string& what, const std::string& host, int port,
                              const Tls& tls) {
  absl::StatusOr<const MhdApi*> loaded = Mhd();
  if (!loaded.ok())
    return absl::Status(loaded.status().code(),
                        what + ": " + std::string(loaded.status().message()));
  const MhdApi& mhd = **loaded;
  impl_->mhd = &mhd;
  const bool secure = !tls.cert_pem.empty();
  if (secure && mhd.MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
    return absl::FailedPreconditionError(what +
                                         ": this libmicrohttpd was built without TLS support");
  }
  bool ipv6 = false;
  std::string error;
  const int fd = Listen(host, port, &ipv6, &error);
  if (fd < 0) {
    return absl::UnavailableError(what + ": cannot listen on " + host + ":" + std::to_string(port) +
                                  " (" + error + ")");
  }
  impl_->cert_pem = tls.cert_pem;
  impl_->key_pem = tls.key_pem;
  // A thread per connection is not needed: each of the pool's threads polls many. The total
  // limit is split between them by libmicrohttpd, so there are no more threads than it.
  const unsigned threads = std::max(1U, std::min(limits_.threads, limits_.max_connections));
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
  if (secure) flags |= MHD_USE_TLS;
  if (ipv6) flags |= MHD_USE_IPv6;
  std::vector<MHD_OptionItem> options = {
      {MHD_OPTION_LISTEN_SOCKET, fd, nullptr},
      {MHD_OPTION_CONNECTION_LIMIT, std::max(limits_.max_connections, threads), nullptr},
      {MHD_OPTION_PER_IP_CONNECTION_LIMIT, limits_.max_connections_per_client, nullptr},
      // Silence (nothing read or written) this long also ends a connection.
      {MHD_OPTION_CONNECTION_TIMEOUT, static_cast<intptr_t>(impl_->request_timeout.count()),
       nullptr},
  };
  // One thread: the polling thread itself (libmicrohttpd warns about a pool of one).
  if (threads > 1) options.push_back({MHD_OPTION_THREAD_POOL_SIZE, threads, nullptr});
  if (secure) {
    options.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, impl_->key_pem.data()});
    options.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, impl_->cert_pem.data()});
  }
  options.push_back({MHD_OPTION_END, 0, nullptr});
  impl_->daemon = mhd.MHD_start_daemon(
      flags, 0, nullptr, nullptr, &OnRequest, impl_.get(), MHD_OPTION_EXTERNAL_LOGGER, &Log,
      nullptr, MHD_OPTION_ARRAY, options.data(), MHD_OPTION_NOTIFY_CONNECTION, &OnConnection,
      impl_.get(), MHD_OPTION_NOTIFY_COMPLETED, &OnCompleted, impl_.get(), MHD_OPTION_END);
  if (impl_->daemon == nullptr) {
    ::close(fd);
    return absl::InvalidArgumentError(
        what + ": cannot serve on " + host + ":" + std::to_string(port) +
        (secure ? " (are the --tls-cert and --tls-key files a valid PEM pair?)" : ""));
  }
  port_ = BoundPort(fd);
  impl_->watchdog = std::thread([impl = impl_.get()] { impl->Watch(); });
  return absl::OkStatus();
}

void MhdServer::Stop() {
  if (impl_->daemon == nullptr) return;
  {
    absl::MutexLock lock(&impl_->mutex);
    impl_->stopping = true;
  }
  impl_->watchdog.join();
  impl_->mhd->MHD_stop_daemon(impl_->daemon);  // closes the listening socket too
  impl_->daemon = nullptr;
}

}  // namespace cosimo::orchestrator::http
