#include "cosimo/orchestrator/server.h"

#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "cosimo/common/security.h"
#include "orchestrator/src/health_service.h"
#include "orchestrator/src/housekeeper.h"
#include "orchestrator/src/http/http_server.h"
#include "orchestrator/src/metrics.h"
#include "orchestrator/src/reflection_guard.h"
#include "orchestrator/src/services.h"
#include "orchestrator/src/sqlite_job_store.h"
#include "orchestrator/src/tokens_file.h"
#include "orchestrator/src/worker_service.h"

namespace cosimo::orchestrator {

namespace fs = std::filesystem;

namespace {

// The token checks of one reading of the token files.
struct Tokens {
  TokenCheck auth;         // clients: JobService, uploads
  TokenCheck worker_auth;  // workers' Attach streams
  TokenCheck fetch_auth;   // artifact fetches: clients' or workers' token
};

}  // namespace

class OrchestratorServer::Impl {
 public:
  ServerOptions options;
  std::string temp_dir;  // removed on shutdown when there is no data dir
  std::unique_ptr<JobStore> store;
  std::unique_ptr<ArtifactStore> artifacts;
  std::unique_ptr<WorkerPool> pool;
  Metrics metrics;
  std::unique_ptr<JobManager> jobs;
  std::unique_ptr<JobServiceImpl> job_service;
  std::unique_ptr<WorkerServiceImpl> worker_service;
  std::unique_ptr<ArtifactServiceImpl> artifact_service;
  std::unique_ptr<HealthServiceImpl> health_service;
  Tokens tokens;  // read at start, again on ReloadTokens
  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<http::HttpServer> http;  // with options.http_listen
  int port = 0;
  absl::Mutex mutex;
  bool shut_down ABSL_GUARDED_BY(mutex) = false;
  std::unique_ptr<Housekeeper> housekeeper;  // job and artifact retention

  // A start that failed after the temporary folder was made (a bad TLS key pair, a port in use)
  // leaves nothing behind either.
  ~Impl() { RemoveTempDir(); }
  void RemoveTempDir() {
    if (temp_dir.empty()) return;
    std::error_code ignored;
    fs::remove_all(temp_dir, ignored);
    temp_dir.clear();
  }
};

namespace {

// The clients' (--token-file, --tokens-file) and the workers' (--worker-token-file, else the
// shared --token-file) token checks, or an error naming the flags misused.
absl::Status SetUpTokens(const ServerOptions& options, bool tls, Tokens* tokens) {
  const bool shared = !options.token_file.empty(), named = !options.tokens_file.empty();
  if (!shared && !named) {
    if (!options.worker_token_file.empty()) {
      return absl::InvalidArgumentError(
          "--worker-token-file needs --token-file or --tokens-file (and TLS): clients would "
          "need no token at all");
    }
    return absl::OkStatus();
  }
  if (!tls) {
    return absl::InvalidArgumentError(
        std::string(shared ? "--token-file" : "--tokens-file") +
        " needs --tls-cert and --tls-key: a token sent in clear text protects nothing");
  }
  std::vector<std::string> client_tokens;
  if (named) {
    absl::StatusOr<std::vector<ClientToken>> clients = ReadTokensFile(options.tokens_file);
    if (!clients.ok()) return clients.status();
    for (const ClientToken& client : *clients) {
      if (shared && client.name == kDefaultClient) {
        return absl::InvalidArgumentError(
            "--tokens-file names a client 'default', the name of --token-file's holder: rename "
            "it, or drop --token-file");
      }
      tokens->auth.Add(client.name, client.token, client.admin);
      client_tokens.push_back(client.token);
    }
  }
  std::string token;
  if (shared) {
    absl::StatusOr<std::string> read = ReadCredentialFile(options.token_file, "--token-file");
    if (!read.ok()) return read.status();
    token = *read;
    if (std::find(client_tokens.begin(), client_tokens.end(), token) != client_tokens.end()) {
      return absl::InvalidArgumentError(
          "--token-file holds the token of a client of --tokens-file: give that client another");
    }
    tokens->auth.Add(kDefaultClient, token, /*admin=*/true);
    client_tokens.push_back(token);
  }
  std::string worker_token = token;  // the shared token serves workers too unless they have one
  if (!options.worker_token_file.empty()) {
    absl::StatusOr<std::string> read =
        ReadCredentialFile(options.worker_token_file, "--worker-token-file");
    if (!read.ok()) return read.status();
    worker_token = *read;
    if (std::find(client_tokens.begin(), client_tokens.end(), worker_token) !=
        client_tokens.end()) {
      return absl::InvalidArgumentError(
          std::string("--worker-token-file holds the same token as ") +
          (worker_token == token ? "--token-file" : "a client of --tokens-file") +
          ": give workers a token of their own");
    }
  } else if (!shared) {
    return absl::InvalidArgumentError(
        "--tokens-file names the clients' tokens: give the workers theirs with "
        "--worker-token-file (or the shared --token-file, whose holder is the admin client "
        "'default')");
  }
  tokens->worker_auth = TokenCheck(worker_token);
  tokens->fetch_auth = tokens->auth;  // artifact fetches: any client's token, or the workers'
  if (worker_token != token) tokens->fetch_auth.Add("worker", worker_token, /*admin=*/false);
  return absl::OkStatus();
}

}  // namespace

OrchestratorServer::OrchestratorServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

OrchestratorServer::~OrchestratorServer() { Shutdown(); }

namespace {

// The job store and the artifact store: in --data-dir, else the store in memory and the
// artifacts in a temporary folder (removed at shutdown).
absl::Status OpenStores(const ServerOptions& options, OrchestratorServer::Impl& server) {
  OrchestratorServer::Impl* impl = &server;
  std::string db_path, artifact_dir;
  std::error_code ec;
  if (!options.data_dir.empty()) {
    fs::create_directories(options.data_dir, ec);
    if (ec) {
      return absl::PermissionDeniedError("--data-dir '" + options.data_dir +
                                         "' cannot be created: " + ec.message());
    }
    db_path = (fs::path(options.data_dir) / "jobs.sqlite").string();
    artifact_dir = (fs::path(options.data_dir) / "artifacts").string();
  } else {
    std::string pattern = (fs::temp_directory_path() / "cosimo-orchestrator-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      return absl::InternalError("cannot create a temporary artifact folder");
    }
    impl->temp_dir = pattern;
    artifact_dir = pattern;
  }
  absl::StatusOr<std::unique_ptr<SqliteJobStore>> store = SqliteJobStore::Open(db_path);
  if (!store.ok()) return store.status();
  impl->store = *std::move(store);
  impl->artifacts = std::make_unique<ArtifactStore>(artifact_dir);
  return absl::OkStatus();
}

// The gRPC server with every service, on options.listen.
absl::Status Listen(const ServerOptions& options,
                    const std::shared_ptr<grpc::ServerCredentials>& credentials, bool tls,
                    OrchestratorServer::Impl& server) {
  OrchestratorServer::Impl* impl = &server;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.listen, credentials, &impl->port);
  builder.RegisterService(impl->job_service.get());
  impl->worker_service->AddTo(&builder);
  builder.RegisterService(impl->artifact_service.get());
  builder.RegisterService(impl->health_service.get());
  // Set deliberately (gRPC's default is 4 MiB): a message over it fails with gRPC's
  // RESOURCE_EXHAUSTED, which the client completes with the flag's name
  // (cosimo/common/rpc_status.h).
  builder.SetMaxReceiveMessageSize(static_cast<int>(options.max_message_bytes));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 5000);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  impl->server = builder.BuildAndStart();
  if (!impl->server || impl->port == 0) {
    return absl::UnavailableError("cannot listen on '" + options.listen +
                                  (tls ? "' (address in use or invalid, or the --tls-cert and "
                                         "--tls-key files are not a valid PEM pair)"
                                       : "' (address in use or invalid)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<OrchestratorServer>> OrchestratorServer::Start(
    const ServerOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> credentials = MakeServerCredentials(
      options.tls_cert_file, options.tls_key_file, options.tls_client_ca_file);
  if (!credentials.ok()) return credentials.status();
  const bool tls = !options.tls_cert_file.empty();
  if (absl::Status s = SetUpTokens(options, tls, &impl->tokens); !s.ok()) return s;
  if (!options.tls_client_ca_file.empty()) impl->tokens.worker_auth.RequireClientCertificate();
  if (absl::Status s = OpenStores(options, *impl); !s.ok()) return s;
  impl->pool = std::make_unique<WorkerPool>(options.heartbeat_timeout);
  impl->jobs = std::make_unique<JobManager>(
      impl->pool.get(), impl->store.get(), impl->artifacts.get(), options.unschedulable_timeout,
      std::chrono::duration_cast<std::chrono::milliseconds>(options.command_timeout),
      // Only /metrics reads the per-step counters and round-trip histograms: without --http no
      // step pays for them.
      options.http_listen.empty() ? nullptr : &impl->metrics, Clock::Real(), options.limits);
  impl->jobs->set_checkpoint_interval(options.checkpoint_interval);
  impl->jobs->set_max_resumptions(options.max_resumptions);
  impl->jobs->set_master_in_worker(options.master_in_worker);
  impl->jobs->set_checkpoint_part_bytes(options.checkpoint_part_bytes);
  if (absl::Status s = impl->jobs->Recover(); !s.ok()) return s;
  impl->job_service = std::make_unique<JobServiceImpl>(impl->jobs.get(), &impl->tokens.auth);
  impl->worker_service = std::make_unique<WorkerServiceImpl>(
      impl->pool.get(), options.heartbeat_interval, &impl->tokens.worker_auth);
  impl->artifact_service =
      std::make_unique<ArtifactServiceImpl>(impl->artifacts.get(), &impl->tokens.auth,
                                            &impl->tokens.fetch_auth, options.max_upload_bytes);

  impl->health_service = std::make_unique<HealthServiceImpl>(std::vector<std::string>{
      v1::JobService::service_full_name(), v1::WorkerService::service_full_name(),
      v1::ArtifactService::service_full_name()});

  // The HTTP port first: a start that fails on it has no gRPC server to stop.
  if (!options.http_listen.empty()) {
    absl::StatusOr<std::unique_ptr<http::HttpServer>> http = http::HttpServer::Start(
        {options.http_listen,
         options.tls_cert_file,
         options.tls_key_file,
         {.max_connections = options.http_max_connections,
          .max_connections_per_client = options.http_max_connections_per_client,
          .request_timeout = options.http_request_timeout}},
        {impl->jobs.get(), impl->artifacts.get(), &impl->metrics, &impl->tokens.auth});
    if (!http.ok()) return http.status();
    impl->http = *std::move(http);
  }
  // Not gRPC's default health service: it would bring callback threads that poll the workers'
  // streams too (orchestrator/src/health_service.h).
  grpc::EnableDefaultHealthCheckService(false);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  if (impl->tokens.auth.enabled()) {
    (*credentials)->SetAuthMetadataProcessor(std::make_shared<ReflectionGuard>(&impl->tokens.auth));
  }
  if (absl::Status s = Listen(options, *credentials, tls, *impl); !s.ok()) return s;
  impl->worker_service->Start();
  impl->housekeeper = std::make_unique<Housekeeper>(
      impl->jobs.get(), RetentionOptions{options.job_retention, options.artifact_retention});
  impl->housekeeper->Start();
  spdlog::info("orchestrator listening on port {} ({}{}{}; data: {})", impl->port,
               tls ? "TLS" : "plain gRPC",
               !options.tokens_file.empty()  ? ", clients' tokens required"
               : impl->tokens.auth.enabled() ? ", token required"
                                             : "",
               options.tls_client_ca_file.empty() ? "" : ", workers need a client certificate",
               options.data_dir.empty() ? "in memory" : options.data_dir);
  return std::unique_ptr<OrchestratorServer>(new OrchestratorServer(std::move(impl)));
}

int OrchestratorServer::port() const { return impl_->port; }

int OrchestratorServer::http_port() const { return impl_->http ? impl_->http->port() : 0; }

std::string OrchestratorServer::local_address() const {
  return "127.0.0.1:" + std::to_string(impl_->port);
}

std::shared_ptr<grpc::Channel> OrchestratorServer::InProcessChannel() const {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  return impl_->server->InProcessChannel(args);
}

absl::StatusOr<size_t> OrchestratorServer::ReloadTokens() {
  const ServerOptions& options = impl_->options;
  if (options.token_file.empty() && options.tokens_file.empty()) {
    return absl::FailedPreconditionError(
        "this orchestrator was started without --token-file or --tokens-file: no token to "
        "re-read");
  }
  Tokens tokens;
  if (absl::Status s = SetUpTokens(options, /*tls=*/true, &tokens); !s.ok()) return s;
  impl_->tokens.auth.Replace(tokens.auth);
  impl_->tokens.worker_auth.Replace(tokens.worker_auth);
  impl_->tokens.fetch_auth.Replace(tokens.fetch_auth);
  return tokens.auth.size();
}

void OrchestratorServer::Shutdown() {
  {
    absl::MutexLock lock(&impl_->mutex);
    if (impl_->shut_down) return;
    impl_->shut_down = true;
  }
  impl_->housekeeper->Stop();
  if (impl_->http) impl_->http->Stop();
  impl_->health_service->Shutdown();
  impl_->jobs->Shutdown();
  impl_->pool->Shutdown();
  impl_->worker_service->CloseStreams(std::chrono::seconds(2));
  impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  impl_->server->Wait();
  impl_->worker_service->Shutdown();
  impl_->RemoveTempDir();
}

void OrchestratorServer::Wait() { impl_->server->Wait(); }

}  // namespace cosimo::orchestrator
