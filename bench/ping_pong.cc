#include "ping_pong.h"

#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <memory>
#include <mutex>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "cosimo/common/status.h"
#include "cosimo/common/unit_api_proto.h"
#include "cosimo/v1/worker_service.grpc.pb.h"
#include "harness.h"
#include "socket_fanout.h"

namespace cosimo::bench {
namespace {

constexpr double kStep = 1e-3;  // s, as in the benchmark scenarios

StepRequest MakeRequest(int inputs, double time) {
  StepRequest request;
  request.time = time;
  request.step = kStep;
  request.inputs.coefficients = Eigen::MatrixXd::Constant(inputs, 1, 0.123456789);
  return request;
}

StepReply MakeReply(int outputs, double time) {
  StepReply reply;
  reply.end_time = time + kStep;
  reply.outputs = Eigen::VectorXd::Constant(outputs, 0.987654321);
  return reply;
}

// The channel arguments of the real worker (worker/src/worker_client.cc), so that both sides of
// the comparison run the same HTTP/2 settings.
grpc::ChannelArguments WorkerChannelArguments() {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 10000);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, 5000);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, 64 << 20);
  return args;
}

// The command line of the k-th ping-pong peer of a measurement (pinned as PeerCpu(k) says).
std::vector<std::string> PeerArgv(int port, int outputs, int k) {
  std::vector<std::string> argv = {SelfPath(), "--ping-peer", absl::StrCat("127.0.0.1:", port),
                                   "--ping-outputs", std::to_string(outputs)};
  if (const int cpu = PeerCpu(k); cpu >= 0) {
    argv.insert(argv.end(), {"--ping-cpu", std::to_string(cpu)});
  }
  return argv;
}

// Serves `impl` (a service with members `server` and `peer`, WaitAttached() and Stop()) on a free
// loopback port and starts the peer process, which dials it; fails if the peer does not attach.
template <typename Impl>
absl::Status ServeWithPeer(Impl* impl, int outputs, const std::string& log_path,
                           const std::string& what) {
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(impl);
  impl->server = builder.BuildAndStart();
  if (!impl->server || port == 0) return absl::UnavailableError(what + ": cannot listen");
  impl->peer = std::make_unique<ChildProcess>(PeerArgv(port, outputs, 0), log_path);
  if (!impl->WaitAttached(std::chrono::seconds(20))) {
    impl->Stop();
    impl->server->Shutdown(std::chrono::system_clock::now());
    return absl::DeadlineExceededError(what + ": the peer did not attach (see " + log_path + ")");
  }
  return absl::OkStatus();
}

// Ends the peer's stream, the server and the peer process.
template <typename Impl>
void StopServing(Impl* impl) {
  impl->Stop();
  impl->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  impl->server->Wait();
  impl->peer.reset();
}

}  // namespace

MessageSizes StepMessageSizes(int inputs, int outputs) {
  v1::OrchestratorMessage command;
  command.set_seq(12345);
  ToProto(MakeRequest(inputs, 12.345), command.mutable_step());
  v1::WorkerMessage reply;
  reply.set_seq(12345);
  ToProto(MakeReply(outputs, 12.345), reply.mutable_step_done());
  return {command.ByteSizeLong(), reply.ByteSizeLong()};
}

namespace {

// PingMode::kSync and kSyncHandoff: the minimal Attach for one peer; Measure() hands the handler
// thread a count and waits.
class SyncPingServer final : public v1::WorkerService::Service {
 public:
  explicit SyncPingServer(int inputs) : inputs_(inputs) {}

  grpc::Status Attach(
      grpc::ServerContext* /*context*/,
      grpc::ServerReaderWriter<v1::OrchestratorMessage, v1::WorkerMessage>* stream) override {
    v1::WorkerMessage reply;
    if (!stream->Read(&reply) || !reply.has_hello()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "expected Hello");
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      attached_ = true;
    }
    cv_.notify_all();
    v1::OrchestratorMessage command;
    while (true) {
      int count = 0;
      bool handoff = false;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return stop_ || requested_ > 0; });
        if (stop_) break;
        count = requested_;
        handoff = handoff_;
      }
      bool ok = true;
      std::vector<double> samples;
      if (handoff) {
        // Cosimo's structure: this (handler) thread only reads and hands each reply over; the
        // measuring thread writes and waits (see MeasureWithHandoff).
        {
          std::lock_guard<std::mutex> lock(mutex_);
          stream_ = stream;
          reader_ready_ = true;
        }
        cv_.notify_all();
        for (int i = 0; i < count && ok; ++i) {
          ok = stream->Read(&reply);
          {
            std::lock_guard<std::mutex> lock(mutex_);
            replied_seq_ = reply.seq();
            failed_ = !ok;
          }
          cv_.notify_all();
        }
      } else {
        samples.reserve(static_cast<size_t>(count));
        for (int i = 0; i < count && ok; ++i) {
          command.set_seq(++seq_);
          ToProto(MakeRequest(inputs_, time_), command.mutable_step());
          time_ += kStep;
          const int64_t start = NowNs();
          ok = stream->Write(command) && stream->Read(&reply) && reply.seq() == seq_;
          samples.push_back(static_cast<double>(NowNs() - start));
        }
      }
      {
        std::lock_guard<std::mutex> lock(mutex_);
        requested_ = 0;
        reader_ready_ = false;
        failed_ = failed_ || !ok;
        if (!handoff) samples_ = std::move(samples);
        done_ = true;
      }
      cv_.notify_all();
      if (!ok) break;
    }
    return grpc::Status::OK;
  }

  bool WaitAttached(std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return attached_; });
  }

  absl::StatusOr<std::vector<double>> Measure(int count) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_ = false;
    handoff_ = false;
    requested_ = count;
    cv_.notify_all();
    cv_.wait(lock, [&] { return done_; });
    if (failed_) return absl::UnavailableError("the ping-pong peer went away");
    return std::move(samples_);
  }

  absl::StatusOr<std::vector<double>> MeasureWithHandoff(int count) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_ = false;
    handoff_ = true;
    requested_ = count;
    cv_.notify_all();
    cv_.wait(lock, [&] { return reader_ready_ || done_; });
    std::vector<double> samples;
    samples.reserve(static_cast<size_t>(count));
    v1::OrchestratorMessage command;
    for (int i = 0; i < count && !failed_; ++i) {
      command.set_seq(++seq_);
      ToProto(MakeRequest(inputs_, time_), command.mutable_step());
      time_ += kStep;
      lock.unlock();
      const int64_t start = NowNs();
      const bool written = stream_->Write(command);
      lock.lock();
      if (!written) {
        failed_ = true;
        break;
      }
      cv_.wait(lock, [&] { return replied_seq_ == seq_ || failed_; });
      samples.push_back(static_cast<double>(NowNs() - start));
    }
    cv_.wait(lock, [&] { return done_; });
    if (failed_) return absl::UnavailableError("the ping-pong peer went away");
    return samples;
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
  }

  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<ChildProcess> peer;

 private:
  const int inputs_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool attached_ = false;
  bool stop_ = false;
  int requested_ = 0;
  bool handoff_ = false;
  bool reader_ready_ = false;
  grpc::ServerReaderWriter<v1::OrchestratorMessage, v1::WorkerMessage>* stream_ = nullptr;
  uint64_t seq_ = 0;  // last command sent
  uint64_t replied_seq_ = 0;
  double time_ = 0.0;
  bool done_ = false;
  bool failed_ = false;
  std::vector<double> samples_;
};

}  // namespace

int RunPingPeer(const std::string& address, int outputs) {
  auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(),
                                           WorkerChannelArguments());
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10))) {
    return 2;
  }
  auto stub = v1::WorkerService::NewStub(channel);
  grpc::ClientContext context;
  auto stream = stub->Attach(&context);
  v1::WorkerMessage hello;
  hello.mutable_hello()->set_protocol_version(v1::PROTOCOL_VERSION_1);
  hello.mutable_hello()->set_pid(getpid());
  if (!stream->Write(hello)) return 3;
  v1::OrchestratorMessage command;
  v1::WorkerMessage reply;
  StepReply canned = MakeReply(outputs, 0.0);  // reused, as the worker reuses its reply
  while (stream->Read(&command)) {
    reply.set_seq(command.seq());
    canned.end_time = command.step().time() + command.step().step();
    ToProto(canned, reply.mutable_step_done());
    if (!stream->Write(reply)) break;
  }
  stream->WritesDone();
  (void)stream->Finish();
  return 0;
}

}  // namespace cosimo::bench

namespace cosimo::bench {

namespace {

// PingMode::kCallback and kCallbackHandoff: the same ping-pong served with gRPC's callback API (a
// ServerBidiReactor on a server with no synchronous service, so no sync-server pollers).
class CallbackPingServer final : public v1::WorkerService::CallbackService {
 public:
  explicit CallbackPingServer(int inputs) : inputs_(inputs) {}

  class Reactor final : public grpc::ServerBidiReactor<v1::WorkerMessage, v1::OrchestratorMessage> {
   public:
    explicit Reactor(CallbackPingServer* impl) : impl_(impl) { StartRead(&reply_); }

    void OnReadDone(bool ok) override {
      if (!ok) {
        impl_->Fail();
        Finish(grpc::Status::OK);
        return;
      }
      if (!attached_) {
        attached_ = true;
        impl_->Attached(this);
        return;
      }
      const int64_t now = NowNs();
      if (event_driven_) {
        samples_.push_back(static_cast<double>(now - start_));
        if (--remaining_ > 0) {
          SendNext();
        } else {
          impl_->Done(std::move(samples_));
        }
      } else {
        impl_->Replied(reply_.seq());
      }
    }
    void OnWriteDone(bool ok) override {
      if (!ok) impl_->Fail();
      bool next = false;
      {
        std::lock_guard<std::mutex> lock(write_mutex_);
        next = write_pending_;
        write_pending_ = false;
        write_busy_ = next;
      }
      if (next) StartWrite(&command_);
    }
    void OnDone() override { impl_->Gone(); }

    // Measuring thread (the first command) or the reactor itself.
    void RunEventDriven(int count) {
      event_driven_ = true;
      remaining_ = count;
      samples_.clear();
      samples_.reserve(static_cast<size_t>(count));
      SendNext();
    }
    void SendOne() {
      event_driven_ = false;
      SendNext();
    }
    void Stop() { Finish(grpc::Status::OK); }

   private:
    void SendNext() {
      command_.set_seq(++seq_);
      ToProto(MakeRequest(impl_->inputs_, time_), command_.mutable_step());
      time_ += kStep;
      start_ = NowNs();
      StartRead(&reply_);
      {
        // One write at a time: the previous OnWriteDone may still be on its way.
        std::lock_guard<std::mutex> lock(write_mutex_);
        if (write_busy_) {
          write_pending_ = true;
          return;
        }
        write_busy_ = true;
      }
      StartWrite(&command_);
    }

    CallbackPingServer* impl_;
    bool attached_ = false;
    bool event_driven_ = false;
    int remaining_ = 0;
    uint64_t seq_ = 0;
    double time_ = 0.0;
    int64_t start_ = 0;
    v1::OrchestratorMessage command_;
    v1::WorkerMessage reply_;
    std::vector<double> samples_;
    std::mutex write_mutex_;
    bool write_busy_ = false;
    bool write_pending_ = false;
  };

  grpc::ServerBidiReactor<v1::WorkerMessage, v1::OrchestratorMessage>* Attach(
      grpc::CallbackServerContext* /*context*/) override {
    return new Reactor(this);
  }

  void Attached(Reactor* reactor) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      reactor_ = reactor;
    }
    cv_.notify_all();
  }
  void Replied(uint64_t seq) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      replied_seq_ = seq;
    }
    cv_.notify_all();
  }
  void Done(std::vector<double> samples) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      samples_ = std::move(samples);
      done_ = true;
    }
    cv_.notify_all();
  }
  void Fail() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      failed_ = true;
    }
    cv_.notify_all();
  }
  void Gone() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      failed_ = true;
      gone_ = true;
    }
    cv_.notify_all();
  }

  bool WaitAttached(std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return reactor_ != nullptr; });
  }

  absl::StatusOr<std::vector<double>> Measure(int count, bool event_driven) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (reactor_ == nullptr || failed_) return absl::UnavailableError("callback peer went away");
    if (event_driven) {
      done_ = false;
      lock.unlock();
      reactor_->RunEventDriven(count);
      lock.lock();
      cv_.wait(lock, [&] { return done_ || failed_; });
      if (failed_) return absl::UnavailableError("the callback ping-pong peer went away");
      return std::move(samples_);
    }
    std::vector<double> samples;
    samples.reserve(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i) {
      const uint64_t want = replied_seq_ + 1;
      lock.unlock();
      const int64_t start = NowNs();
      reactor_->SendOne();
      lock.lock();
      cv_.wait(lock, [&] { return replied_seq_ >= want || failed_; });
      if (failed_) return absl::UnavailableError("the callback ping-pong peer went away");
      samples.push_back(static_cast<double>(NowNs() - start));
    }
    return samples;
  }

  void Stop() {
    Reactor* reactor = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      reactor = gone_ ? nullptr : reactor_;
    }
    if (reactor != nullptr) reactor->Stop();
  }

  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<ChildProcess> peer;

 private:
  const int inputs_;
  std::mutex mutex_;
  std::condition_variable cv_;
  Reactor* reactor_ = nullptr;
  uint64_t replied_seq_ = 0;
  bool done_ = false;
  bool failed_ = false;
  bool gone_ = false;
  std::vector<double> samples_;
};

}  // namespace

}  // namespace cosimo::bench

namespace cosimo::bench {

void SetCosts(const Usage& usage, const Usage& peer_usage, int peers, PingResult* result) {
  result->peer_cpu_us = peer_usage.CpuUsPer();
  result->peer_runs = peer_usage.RunsPer();
  result->cpu_us = usage.CpuUsPer() + peers * result->peer_cpu_us;
  result->runs = usage.RunsPer() + peers * result->peer_runs;
}

namespace {

// Waits for the completion of `want` on `cq` (other tags: an error), up to 10 s.
bool AwaitTag(grpc::ServerCompletionQueue* cq, void* want) {
  void* tag = nullptr;
  bool ok = false;
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(10);
  return cq->AsyncNext(&tag, &ok, deadline) == grpc::CompletionQueue::GOT_EVENT && ok &&
         tag == want;
}

// The single-poller server (PingMode::kSinglePoller); returns 0 and fills `result`, or an exit
// code.
int RunSinglePoller(int count, int peers, const std::string& log_path, PingResult* result) {
  v1::WorkerService::AsyncService service;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  std::unique_ptr<grpc::ServerCompletionQueue> cq = builder.AddCompletionQueue();
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || port == 0) return 2;
  // One stream per peer; each stream's three tags are the addresses of its `tags` entries.
  struct Peer {
    std::unique_ptr<ChildProcess> process;
    grpc::ServerContext context;
    std::unique_ptr<grpc::ServerAsyncReaderWriter<v1::OrchestratorMessage, v1::WorkerMessage>>
        stream;
    v1::WorkerMessage reply;
    v1::OrchestratorMessage command;
    int tags[3] = {0, 0, 0};  // call, read, write
  };
  std::vector<std::unique_ptr<Peer>> all;
  std::vector<pid_t> peer_pids;
  bool ok = true;
  for (int k = 0; k < peers && ok; ++k) {
    auto p = std::make_unique<Peer>();
    p->stream =
        std::make_unique<grpc::ServerAsyncReaderWriter<v1::OrchestratorMessage, v1::WorkerMessage>>(
            &p->context);
    service.RequestAttach(&p->context, p->stream.get(), cq.get(), cq.get(), &p->tags[0]);
    p->process = std::make_unique<ChildProcess>(PeerArgv(port, 1, k), log_path);
    peer_pids.push_back(p->process->pid());
    ok = AwaitTag(cq.get(), &p->tags[0]);
    if (ok) {
      p->stream->Read(&p->reply, &p->tags[1]);
      ok = AwaitTag(cq.get(), &p->tags[1]) && p->reply.has_hello();
    }
    all.push_back(std::move(p));
  }
  const int warmup = std::min(500, count);
  std::vector<double> samples;
  samples.reserve(static_cast<size_t>(count));
  Usage usage, peer_usage;
  std::unique_ptr<Usage::Span> span, peer_span;
  double time = 0.0;
  const auto deadline = std::chrono::system_clock::now() + std::chrono::seconds(60);
  for (int i = 0; ok && i < warmup + count; ++i) {
    if (i == warmup) {
      span = std::make_unique<Usage::Span>(std::vector<pid_t>{0}, &usage);
      peer_span = std::make_unique<Usage::Span>(peer_pids, &peer_usage);
    }
    const int64_t start = NowNs();
    for (auto& p : all) {
      p->command.set_seq(static_cast<uint64_t>(i + 1));
      ToProto(MakeRequest(1, time), p->command.mutable_step());
      // Write first: a read posted on an empty stream sends gRPC 1.51's window update at once,
      // and behind the command it reaches the peer in the same wake.
      p->stream->Write(p->command, &p->tags[2]);
      p->stream->Read(&p->reply, &p->tags[1]);
    }
    time += kStep;
    // Every read and every write of this round completes.
    for (int pending = 2 * peers; pending > 0 && ok; --pending) {
      void* tag = nullptr;
      bool op_ok = false;
      ok = cq->AsyncNext(&tag, &op_ok, deadline) == grpc::CompletionQueue::GOT_EVENT && op_ok;
    }
    for (auto& p : all) ok = ok && p->reply.seq() == p->command.seq();
    if (i >= warmup) samples.push_back(static_cast<double>(NowNs() - start));
  }
  if (span != nullptr) {
    span->Stop(static_cast<int64_t>(samples.size()));
    peer_span->Stop(static_cast<int64_t>(samples.size()) * peers);  // per peer and round
  }
  for (auto& p : all) p->context.TryCancel();
  server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  cq->Shutdown();
  void* tag = nullptr;
  bool drained = false;
  while (cq->Next(&tag, &drained)) {
  }
  all.clear();
  if (!ok) return 3;
  result->samples = std::move(samples);
  SetCosts(usage, peer_usage, peers, result);
  return 0;
}

// The other modes: one of the servers above, in this (child) process.
template <typename Server, typename MeasureFn>
int RunWithServer(const std::string& what, int count, const std::string& log_path,
                  MeasureFn measure, PingResult* result) {
  Server server(1);
  if (absl::Status s = ServeWithPeer(&server, 1, log_path, what); !s.ok()) {
    spdlog::error("{}", s.ToString());
    return 2;
  }
  absl::Cleanup stop = [&server] { StopServing(&server); };
  if (!measure(server, std::min(500, count)).ok()) return 3;  // warm-up
  Usage usage, peer_usage;
  Usage::Span span({0}, &usage), peer_span({server.peer->pid()}, &peer_usage);
  absl::StatusOr<std::vector<double>> samples = measure(server, count);
  if (!samples.ok()) return 3;
  span.Stop(static_cast<int64_t>(samples->size()));
  peer_span.Stop(static_cast<int64_t>(samples->size()));
  result->samples = *std::move(samples);
  SetCosts(usage, peer_usage, 1, result);
  return 0;
}

const PingMode kAllModes[] = {PingMode::kSync,         PingMode::kSyncHandoff,
                              PingMode::kCallback,     PingMode::kCallbackHandoff,
                              PingMode::kSinglePoller, PingMode::kSockets};

}  // namespace

const char* PingModeName(PingMode mode) {
  switch (mode) {
    case PingMode::kSync:
      return "sync";
    case PingMode::kSyncHandoff:
      return "sync-handoff";
    case PingMode::kCallback:
      return "callback";
    case PingMode::kCallbackHandoff:
      return "callback-handoff";
    case PingMode::kSinglePoller:
      return "single-poller";
    case PingMode::kSockets:
      return "sockets";
  }
  return "?";
}

int RunPingServer(const std::string& mode_name, const std::string& out_path, int count, int peers,
                  const std::string& log_path) {
  const PingMode* mode = nullptr;
  for (const PingMode& m : kAllModes) {
    if (mode_name == PingModeName(m)) mode = &m;
  }
  if (mode == nullptr || count <= 0 || peers <= 0) return 2;
  PingResult result;
  int code = 0;
  switch (*mode) {
    case PingMode::kSync:
    case PingMode::kSyncHandoff: {
      const bool handoff = *mode == PingMode::kSyncHandoff;
      code = RunWithServer<SyncPingServer>(
          "ping-pong", count, log_path,
          [handoff](SyncPingServer& p, int n) {
            return handoff ? p.MeasureWithHandoff(n) : p.Measure(n);
          },
          &result);
      break;
    }
    case PingMode::kCallback:
    case PingMode::kCallbackHandoff: {
      const bool event_driven = *mode == PingMode::kCallback;
      code = RunWithServer<CallbackPingServer>(
          "callback ping-pong", count, log_path,
          [event_driven](CallbackPingServer& p, int n) { return p.Measure(n, event_driven); },
          &result);
      break;
    }
    case PingMode::kSinglePoller:
      code = RunSinglePoller(count, peers, log_path, &result);
      break;
    case PingMode::kSockets:
      code = RunSocketFanout(count, peers, &result);
      break;
  }
  if (code != 0) return code;
  std::ofstream out(out_path);
  out << result.cpu_us << " " << result.runs << " " << result.peer_cpu_us << " " << result.peer_runs
      << "\n";
  for (double v : result.samples) out << v << "\n";
  return out ? 0 : 4;
}

absl::StatusOr<PingResult> MeasurePingPong(PingMode mode, int count, int peers,
                                           const std::string& log_path) {
  const std::string out_path = absl::StrCat(log_path, ".ping.", getpid());
  std::vector<std::string> argv = {SelfPath(),     "--ping-server",       PingModeName(mode),
                                   out_path,       "--ping-count",        std::to_string(count),
                                   "--ping-peers", std::to_string(peers), "--log",
                                   log_path};
  if (!PinPeers()) argv.push_back("--no-pin");
  ChildProcess child(argv, log_path);
  const int code = child.Wait();
  if (code != 0) {
    return absl::UnavailableError(absl::StrCat("the ", PingModeName(mode),
                                               " ping-pong process exited with ", code, " (see ",
                                               log_path, ")"));
  }
  PingResult result;
  std::ifstream in(out_path);
  in >> result.cpu_us >> result.runs >> result.peer_cpu_us >> result.peer_runs;
  double v = 0.0;
  while (in >> v) result.samples.push_back(v);
  std::remove(out_path.c_str());
  if (result.samples.size() != static_cast<size_t>(count)) {
    return absl::DataLossError(absl::StrCat("the ", PingModeName(mode), " ping-pong: ",
                                            result.samples.size(), " of ", count, " samples"));
  }
  return result;
}

}  // namespace cosimo::bench
