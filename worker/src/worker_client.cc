#include "cosimo/worker/worker_client.h"

#include <grpcpp/grpcpp.h>
#include <sched.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "cosimo/common/checkpoint_parts.h"
#include "cosimo/common/digest.h"
#include "cosimo/common/rpc_status.h"
#include "cosimo/common/scenario.h"
#include "cosimo/common/status.h"
#include "cosimo/units/abandon.h"
#include "cosimo/units/unit_factory.h"
#include "cosimo/units/unit_log.h"
#include "cosimo/v1/artifact_service.grpc.pb.h"
#include "cosimo/v1/worker_service.grpc.pb.h"
#include "cosimo/worker/artifact_cache.h"
#include "cosimo/worker/job_command.h"
#include "cosimo/worker/slot_handler.h"
#include "cosimo/worker/train_command.h"
#include "cosimo/worker/variant_runner.h"

namespace cosimo::worker {
namespace {

namespace fs = std::filesystem;
using Stream = grpc::ClientReaderWriter<v1::WorkerMessage, v1::OrchestratorMessage>;

std::string DefaultHost() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "unknown";
  return name;
}

std::string DefaultCacheDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    return std::string(xdg) + "/cosimo";
  }
  if (const char* home = std::getenv("HOME"); home && *home) {
    return std::string(home) + "/.cache/cosimo";
  }
  return "/tmp/cosimo-cache";
}

// Writes the health file (atomically: a reader sees the old or the new one); empty: none.
void WriteHealthFile(const std::string& path, const std::string& what) {
  if (path.empty()) return;
  const std::string partial = path + ".part";
  {
    std::ofstream out(partial, std::ios::trunc);
    out << what << "\n";
  }
  std::error_code ec;
  fs::rename(partial, path, ec);
  if (ec) spdlog::warn("cannot write the health file '{}': {}", path, ec.message());
}

void RemoveHealthFile(const std::string& path) {
  std::error_code ec;
  if (!path.empty()) fs::remove(path, ec);
}

// Fetches an artifact by digest into the cache (verified, written atomically); a cached copy is
// used as it is. Either counts as a use; after a fetch the cache is kept within `max_bytes`.
absl::StatusOr<std::string> FetchArtifact(const std::shared_ptr<grpc::Channel>& channel,
                                          const std::string& digest, const std::string& cache_dir,
                                          uint64_t max_bytes) {
  if (!IsValidDigest(digest)) {
    return absl::InvalidArgumentError("artifact digest '" + digest + "' is not sha256:<hex>");
  }
  const fs::path path = fs::path(cache_dir) / (digest.substr(7) + ".bin");
  std::error_code ec;
  if (fs::exists(path, ec)) {
    TouchCacheEntry(path.string());
    return path.string();
  }
  fs::create_directories(cache_dir, ec);
  const fs::path partial = path.string() + ".part." + std::to_string(getpid());
  auto stub = v1::ArtifactService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::minutes(30));
  v1::FetchRequest request;
  request.set_digest(digest);
  auto reader = stub->Fetch(&context, request);
  std::ofstream out(partial, std::ios::binary | std::ios::trunc);
  if (!out) return absl::PermissionDeniedError("cannot write to cache '" + partial.string() + "'");
  Sha256 sha;
  v1::FetchChunk chunk;
  while (reader->Read(&chunk)) {
    sha.Update(chunk.data().data(), chunk.data().size());
    out.write(chunk.data().data(), static_cast<std::streamsize>(chunk.data().size()));
  }
  out.close();
  const grpc::Status status = reader->Finish();
  if (!status.ok()) {
    fs::remove(partial, ec);
    return Annotate(FromGrpcStatus(status), "fetching artifact " + digest);
  }
  if (const std::string got = sha.Finish(); got != digest) {
    fs::remove(partial, ec);
    return absl::DataLossError("fetched artifact has digest " + got + ", expected " + digest);
  }
  fs::rename(partial, path, ec);
  if (ec) return absl::InternalError("cannot store artifact in cache: " + ec.message());
  for (const std::string& removed : EvictCacheEntries(cache_dir, max_bytes, path.string())) {
    spdlog::info("cache over {} MiB: removed the least recently used {}", max_bytes >> 20, removed);
  }
  return path.string();
}

// Whether `command` terminates a unit (alone or in a batch): its job's log is then flushed.
bool EndsAUnit(const v1::OrchestratorMessage& command) {
  if (command.has_terminate()) return true;
  for (const v1::OrchestratorMessage& c : command.batch().commands()) {
    if (c.has_terminate()) return true;
  }
  return false;
}

}  // namespace

// One Attach stream: reads commands, runs them through a SlotHandler (a CommandHandler per slot),
// writes the replies.
class WorkerClient::Session {
 public:
  Session(const WorkerOptions& options, std::shared_ptr<grpc::Channel> channel, Stream* stream)
      : options_(options), channel_(std::move(channel)), stream_(stream) {}

  bool Write(const v1::WorkerMessage& message) {
    absl::MutexLock lock(&write_mutex_);
    return stream_->Write(message);
  }

  // Sends the log lines the units said and printed since the last call (unit_log.h), if any:
  // with each heartbeat, and before a job's end (JobDone, the reply to a Terminate) so that the
  // orchestrator has the job's whole log when it sees the end. False: the stream is gone.
  bool FlushUnitLogs() {
    std::vector<v1::LogEntry> lines = units::TakeUnitLogLines();
    if (lines.empty()) return true;
    v1::WorkerMessage message;
    for (v1::LogEntry& line : lines) *message.mutable_unit_logs()->add_entries() = std::move(line);
    return Write(message);
  }

  void StartHeartbeat(int interval_ms) {
    units::AbandonRequest() = false;
    heartbeat_ = std::thread([this, interval_ms] {
      absl::MutexLock lock(&heartbeat_mutex_);
      v1::WorkerMessage beat;
      while (!stop_heartbeat_) {
        heartbeat_cv_.WaitWithTimeout(&heartbeat_mutex_, absl::Milliseconds(interval_ms));
        if (stop_heartbeat_) break;
        beat.mutable_heartbeat()->set_unix_ms(
            std::chrono::duration_cast<std::chrono::milliseconds>(
                std::chrono::system_clock::now().time_since_epoch())
                .count());
        if (!Write(beat) || !FlushUnitLogs()) {
          // The stream is gone (the orchestrator gave this worker up): what is being computed
          // has nobody to go to.
          units::AbandonRequest() = true;
          break;
        }
        WriteHealthFile(options_.health_file, "attached to " + options_.orchestrator);
      }
    });
  }

  void StopHeartbeat() {
    {
      absl::MutexLock lock(&heartbeat_mutex_);
      stop_heartbeat_ = true;
    }
    heartbeat_cv_.SignalAll();
    if (heartbeat_.joinable()) heartbeat_.join();
  }

  // Serves commands until the stream ends.
  void Serve() {
    v1::OrchestratorMessage command;
    bool read = stream_->Read(&command);
    while (read) {
      if (command.has_train()) {
        read = Train(&command);
        continue;
      }
      if (command.has_run_job()) {
        read = RunJob(&command);
        continue;
      }
      if (command.has_run_variants()) {
        read = Variants(&command);
        continue;
      }
      handler_.Handle(command, &reply_);
      if (EndsAUnit(command) && !FlushUnitLogs()) break;
      if (!WriteReply()) break;
      read = stream_->Read(&command);
    }
    for (const std::string& unit : handler_.DropUnits()) {
      spdlog::warn("stream ended while unit '{}' was loaded; dropped it", unit);
    }
  }

 private:
  absl::StatusOr<std::string> Fetch(const std::string& digest) {
    return FetchArtifact(channel_, digest,
                         options_.cache_dir.empty() ? DefaultCacheDir() : options_.cache_dir,
                         options_.cache_max_bytes);
  }

  bool WriteReply() {
    // Where this thread runs: the orchestrator sends first to the workers on its own CPU.
    const int cpu = sched_getcpu();
    reply_.set_cpu(cpu >= 0 ? static_cast<uint32_t>(cpu) + 1 : 0);
    return Write(reply_);
  }

  // A sweep's variants whole, here (variant_runner.h); no unit of them stays loaded. A thread
  // reads the stream meanwhile: a command before the reply (the orchestrator's Terminate: the
  // job was canceled) or the end of the stream stops the variants at their next step; the
  // command is then the next one, left in `*command` (a Terminate with no unit loaded is
  // answered as ever), and the worker stays attached. Returns whether there is one.
  bool Variants(v1::OrchestratorMessage* command) {
    v1::OrchestratorMessage next;
    bool read = false;
    std::thread reader([&] {
      read = stream_->Read(&next);
      units::AbandonRequest() = true;  // nothing runs any more once the reply is out
    });
    reply_.Clear();
    reply_.set_seq(command->seq());
    RunVariants(
        command->run_variants(), [this](const std::string& digest) { return Fetch(digest); },
        options_.threads, reply_.mutable_variants_done());
    const bool written = WriteReply();
    reader.join();                              // the next command, or the end of the stream
    if (read) units::AbandonRequest() = false;  // the stop was for the variants, now done
    command->Swap(&next);
    return read && written;
  }

  // A training job (cosimo/worker/train_command.h): progress messages with the command's seq,
  // then TrainingDone. Meanwhile a thread reads the stream: its end (the orchestrator gave this
  // worker up: a cancel) stops training after the current epoch, at once rather than when a write
  // first fails; the command it reads otherwise is the next one, left in `*command`. Returns
  // whether there is one (false: the stream ended).
  bool Train(v1::OrchestratorMessage* command) {
    v1::WorkerMessage progress_message, done_message;
    progress_message.set_seq(command->seq());
    done_message.set_seq(command->seq());
    v1::OrchestratorMessage next;
    bool read = false;
    std::thread reader([&] {
      read = stream_->Read(&next);
      if (!read) units::AbandonRequest() = true;
    });
    RunTrainingJob(
        command->train(), [this](const std::string& digest) { return Fetch(digest); },
        [&](const v1::TrainingProgress& progress) {
          *progress_message.mutable_training_progress() = progress;
          return Write(progress_message);
        },
        done_message.mutable_training_done());
    const bool written = Write(done_message);
    reader.join();  // the next command, or the end of the stream
    command->Swap(&next);
    return read && written;
  }

  // A simulation job whole here (cosimo/worker/job_command.h): its messages with the command's
  // seq, the last JobDone. A thread reads the stream meanwhile, as for Train: its end (a cancel)
  // abandons the run at once. Returns whether a next command was read into `*command`.
  bool RunJob(v1::OrchestratorMessage* command) {
    const uint64_t seq = command->seq();
    if (command->run_job().resume_in_parts() && !ReadResumeParts(command->mutable_run_job())) {
      return false;
    }
    v1::OrchestratorMessage next;
    bool read = false;
    std::thread reader([&] {
      read = stream_->Read(&next);
      if (!read) units::AbandonRequest() = true;
    });
    const bool written = RunJobCommand(
        command->run_job(), [this](const std::string& digest) { return Fetch(digest); },
        [this, seq](v1::WorkerMessage* message) {
          if (message->has_job_done() && !FlushUnitLogs()) return false;
          message->set_seq(seq);
          return Write(*message);
        });
    reader.join();  // the next command, or the end of the stream
    command->Swap(&next);
    return read && written;
  }

  // The checkpoint a RunJob resumes from, sent in parts after it (RunJob.resume_in_parts), into
  // its `resume`. False when the stream ends first or the parts are not a checkpoint (the
  // orchestrator gave this worker up, or should: it is told by the stream's end).
  bool ReadResumeParts(v1::RunJob* run_job) {
    CheckpointJoiner joiner;
    v1::OrchestratorMessage part;
    while (stream_->Read(&part)) {
      if (!part.has_resume_part()) break;
      std::optional<absl::StatusOr<v1::JobCheckpoint>> joined =
          joiner.Add(std::move(*part.mutable_resume_part()));
      if (!joined) continue;
      if (!joined->ok()) {
        spdlog::error("job {}: {}", run_job->job_id(), joined->status().message());
        return false;
      }
      *run_job->mutable_resume() = **std::move(joined);
      return true;
    }
    spdlog::error("job {}: the stream ended or sent another command before its checkpoint's parts",
                  run_job->job_id());
    return false;
  }

  const WorkerOptions& options_;
  std::shared_ptr<grpc::Channel> channel_;
  Stream* stream_;
  absl::Mutex write_mutex_;  // the stream's writes: replies and heartbeats
  SlotHandler handler_{options_.slots, options_.threads,
                       [this](const std::string& digest) { return Fetch(digest); }};
  v1::WorkerMessage reply_;  // reused per message (SlotHandler::Handle)

  std::thread heartbeat_;
  absl::Mutex heartbeat_mutex_;
  absl::CondVar heartbeat_cv_;
  bool stop_heartbeat_ ABSL_GUARDED_BY(heartbeat_mutex_) = false;
};

absl::Status CheckHealthFile(const std::string& health_file, std::chrono::seconds max_age) {
  if (health_file.empty()) {
    return absl::InvalidArgumentError(
        "no health file to check (--health-file or $COSIMO_WORKER_HEALTH_FILE)");
  }
  std::error_code ec;
  const fs::file_time_type written = fs::last_write_time(health_file, ec);
  if (ec) {
    return absl::UnavailableError("unhealthy: not attached to an orchestrator (no health file '" +
                                  health_file + "')");
  }
  const auto age =
      std::chrono::duration_cast<std::chrono::seconds>(fs::file_time_type::clock::now() - written);
  if (age > max_age) {
    return absl::UnavailableError("unhealthy: no heartbeat sent for " +
                                  std::to_string(age.count()) + " s (health file '" + health_file +
                                  "')");
  }
  return absl::OkStatus();
}

WorkerClient::WorkerClient(WorkerOptions options) : options_(std::move(options)) {
  if (options_.host.empty()) options_.host = DefaultHost();
}

WorkerClient::~WorkerClient() = default;

void WorkerClient::Shutdown() {
  shutdown_ = true;
  absl::MutexLock lock(&mutex_);
  if (active_context_ != nullptr) active_context_->TryCancel();
}

absl::Status WorkerClient::Run() {
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      MakeChannelCredentials(options_.security);
  if (!credentials.ok()) return credentials.status();
  credentials_ = *std::move(credentials);
  int failures = 0;
  while (!shutdown_) {
    bool connected = false;
    absl::Status status = RunOnce(&connected);
    if (status.code() == absl::StatusCode::kFailedPrecondition) return status;  // refused
    // Asked to stop, or a --once worker whose orchestrator stopped first (cosimo run stops both
    // at once): how the stream ended is no error.
    if (shutdown_ || (options_.once && status.code() == absl::StatusCode::kCancelled)) {
      spdlog::info("orchestrator {}: {}", options_.orchestrator,
                   status.ok() ? "stream closed" : std::string(status.message()));
      return absl::OkStatus();
    }
    if (options_.once) return status;
    failures = connected ? 0 : failures + 1;
    const int wait_ms = std::min(options_.reconnect_ms * (1 << std::min(failures, 4)), 15000);
    if (failures <= 1 || failures % 10 == 0) {
      spdlog::warn("orchestrator {}: {}; retrying in {} ms", options_.orchestrator,
                   status.ok() ? "stream closed" : std::string(status.message()), wait_ms);
    }
    for (int waited = 0; waited < wait_ms && !shutdown_; waited += 50) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  return absl::OkStatus();
}

absl::Status WorkerClient::RunOnce(bool* connected) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, 64 << 20);
  auto channel = grpc::CreateCustomChannel(options_.orchestrator, credentials_, args);
  // Up to 5 s, in slices, so that a shutdown (SIGTERM while the orchestrator is down) is not held
  // up by the attempt.
  bool connected_channel = false;
  for (int slice = 0; slice < 50 && !connected_channel && !shutdown_; ++slice) {
    connected_channel = channel->WaitForConnected(std::chrono::system_clock::now() +
                                                  std::chrono::milliseconds(100));
  }
  if (shutdown_) return absl::OkStatus();
  if (!connected_channel) {
    return absl::UnavailableError(
        options_.security.tls_ca_file.empty()
            ? "cannot connect (is it running? if it serves TLS, give --tls-ca)"
        : options_.security.tls_cert_file.empty()
            ? "cannot connect over TLS (is it running, serving TLS with a certificate that "
              "--tls-ca signs and that names this address?)"
            : "cannot connect over TLS (is it running, serving TLS with a certificate that "
              "--tls-ca signs and that names this address, and does its --tls-client-ca sign "
              "this worker's --tls-cert?)");
  }
  auto stub = v1::WorkerService::NewStub(channel);
  grpc::ClientContext context;
  {
    absl::MutexLock lock(&mutex_);
    if (shutdown_) return absl::OkStatus();
    active_context_ = &context;
  }
  std::unique_ptr<Stream> stream = stub->Attach(&context);
  v1::WorkerMessage hello;
  v1::Hello* h = hello.mutable_hello();
  h->set_protocol_version(static_cast<v1::ProtocolVersion>(options_.protocol_version));
  h->set_host(options_.host);
  for (const std::string& label : options_.labels) h->add_labels(label);
  h->set_pid(getpid());
  for (const std::string& model : units::BuiltinModelNames()) h->add_builtin_models(model);
  h->set_fmi2(true);
  h->set_fmi3(true);
  h->set_slots(options_.slots);
  h->set_runs_variants(true);
  h->set_runs_jobs(true);
  if (options_.crash) *h->mutable_crash() = *options_.crash;
  absl::Status result;
  v1::OrchestratorMessage welcome;
  if (!stream->Write(hello) || !stream->Read(&welcome) || !welcome.has_welcome()) {
    result = absl::UnavailableError("no welcome from the orchestrator");
  } else if (!welcome.welcome().accepted()) {
    result =
        absl::FailedPreconditionError("refused by the orchestrator: " + welcome.welcome().reason());
    spdlog::error("{}", result.message());
  } else {
    *connected = true;
    options_.crash.reset();  // reported
    spdlog::info("attached to {} as worker {} (host {}, {} slot{}, {} thread{})",
                 options_.orchestrator, welcome.welcome().worker_id(), options_.host,
                 options_.slots, options_.slots == 1 ? "" : "s", options_.threads,
                 options_.threads == 1 ? "" : "s");
    Session session(options_, channel, stream.get());
    WriteHealthFile(options_.health_file, "attached to " + options_.orchestrator);
    session.StartHeartbeat(std::max(50, welcome.welcome().heartbeat_ms()));
    session.Serve();
    session.StopHeartbeat();
    RemoveHealthFile(options_.health_file);
  }
  stream->WritesDone();
  const grpc::Status finish = stream->Finish();
  {
    absl::MutexLock lock(&mutex_);
    active_context_ = nullptr;
  }
  if (!result.ok()) return result;
  if (shutdown_) return absl::OkStatus();
  return finish.ok() ? absl::OkStatus() : FromGrpcStatus(finish);
}

}  // namespace cosimo::worker
