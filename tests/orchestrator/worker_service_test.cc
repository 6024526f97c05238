// WorkerService over its CompletionLoop, against fake workers speaking the Attach protocol from
// the test: the handshake (welcome, refusals), replies reaching the job thread that waits for
// them (with the job thread leading the loop itself), several job threads waiting at once,
// heartbeats read while no job leads, a worker lost by its stream or by the watchdog, a
// shutdown that ends the workers' streams, and what holds while a read waits for the next command.
#include "orchestrator/src/worker_service.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {
namespace {

using namespace std::chrono_literals;

class FakeWorker {
 public:
  explicit FakeWorker(const std::string& address)
      : stub_(v1::WorkerService::NewStub(
            grpc::CreateChannel(address, grpc::InsecureChannelCredentials()))) {
    context_.set_deadline(std::chrono::system_clock::now() + 60s);
    stream_ = stub_->Attach(&context_);
  }

  bool Send(const v1::WorkerMessage& message) { return stream_->Write(message); }
  bool SendHello(const std::string& host, v1::ProtocolVersion version = v1::PROTOCOL_VERSION_1,
                 int slots = 0) {
    v1::WorkerMessage hello;
    hello.mutable_hello()->set_slots(slots);
    hello.mutable_hello()->set_protocol_version(version);
    hello.mutable_hello()->set_host(host);
    hello.mutable_hello()->add_labels("fake");
    hello.mutable_hello()->set_pid(4242);
    return Send(hello);
  }
  bool SendHeartbeat() {
    v1::WorkerMessage beat;
    beat.mutable_heartbeat()->set_unix_ms(1);
    return Send(beat);
  }
  bool Reply(uint64_t seq) {
    v1::WorkerMessage reply;
    reply.set_seq(seq);
    reply.mutable_ack();
    return Send(reply);
  }
  bool Read(v1::OrchestratorMessage* message) { return stream_->Read(message); }
  grpc::Status Close() {
    stream_->WritesDone();
    v1::OrchestratorMessage ignored;
    while (stream_->Read(&ignored)) {
    }
    return stream_->Finish();
  }
  grpc::Status Finish() {
    v1::OrchestratorMessage ignored;
    while (stream_->Read(&ignored)) {
    }
    return stream_->Finish();
  }
  void Kill() { context_.TryCancel(); }

 private:
  std::unique_ptr<v1::WorkerService::Stub> stub_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::WorkerMessage, v1::OrchestratorMessage>> stream_;
};

class WorkerServiceTest : public ::testing::Test {
 protected:
  // `clock`: what the pool measures silence by (the real clock unless a test moves time).
  void Start(std::chrono::milliseconds heartbeat_timeout = 30s, Clock* clock = Clock::Real()) {
    pool_ = std::make_unique<WorkerPool>(heartbeat_timeout, clock);
    service_ = std::make_unique<WorkerServiceImpl>(pool_.get(), 50ms);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    service_->AddTo(&builder);
    server_ = builder.BuildAndStart();
    ASSERT_TRUE(server_ != nullptr);
    ASSERT_NE(port, 0);
    service_->Start();
    address_ = "127.0.0.1:" + std::to_string(port);
  }

  void TearDown() override {
    if (!server_) return;
    pool_->Shutdown();
    service_->CloseStreams(2s);
    server_->Shutdown(std::chrono::system_clock::now() + 2s);
    server_->Wait();
    service_->Shutdown();
  }

  // Attaches a fake worker and waits until the pool lists it.
  std::unique_ptr<FakeWorker> Attach(const std::string& host, std::string* id = nullptr,
                                     int slots = 0) {
    auto worker = std::make_unique<FakeWorker>(address_);
    EXPECT_TRUE(worker->SendHello(host, v1::PROTOCOL_VERSION_1, slots));
    v1::OrchestratorMessage welcome;
    EXPECT_TRUE(worker->Read(&welcome));
    EXPECT_TRUE(welcome.welcome().accepted()) << welcome.welcome().reason();
    if (id != nullptr) *id = welcome.welcome().worker_id();
    EXPECT_TRUE(WaitFor([&] {
      for (const WorkerInfo& info : pool_->List()) {
        if (info.id == welcome.welcome().worker_id()) return true;
      }
      return false;
    }));
    return worker;
  }

  template <typename Predicate>
  static bool WaitFor(Predicate predicate, std::chrono::milliseconds timeout = 20s) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!predicate()) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(1ms);
    }
    return true;
  }

  // Sends a heartbeat and waits until the pool has read it (at `clock_`'s time).
  void Heartbeat(FakeWorker* worker) {
    ASSERT_TRUE(worker->SendHeartbeat());
    ASSERT_TRUE(WaitFor([&] {
      const std::vector<WorkerInfo> workers = pool_->List();
      return workers.size() == 1 && workers[0].last_seen == clock_.Now();
    })) << "the heartbeat was not read";
  }

  std::shared_ptr<WorkerConnection> Acquire(const std::string& job) {
    auto workers = pool_->TryAcquire({""}, job);
    EXPECT_TRUE(workers.has_value());
    return workers ? workers->front() : nullptr;
  }

  static v1::OrchestratorMessage Command(uint64_t seq) {
    v1::OrchestratorMessage command;
    command.set_seq(seq);
    command.mutable_save();
    return command;
  }

  ManualClock clock_;  // for the tests that move time by hand
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<WorkerServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

TEST_F(WorkerServiceTest, WelcomesAWorkerRegistersItAndUnregistersItWhenItCloses) {
  Start();
  auto worker = std::make_unique<FakeWorker>(address_);
  ASSERT_TRUE(worker->SendHello("host-a"));
  v1::OrchestratorMessage welcome;
  ASSERT_TRUE(worker->Read(&welcome));
  ASSERT_TRUE(welcome.has_welcome());
  EXPECT_TRUE(welcome.welcome().accepted());
  EXPECT_EQ(welcome.welcome().heartbeat_ms(), 50);
  const std::string id = welcome.welcome().worker_id();
  EXPECT_FALSE(id.empty());
  ASSERT_TRUE(WaitFor([&] { return pool_->List().size() == 1; }));
  const WorkerInfo info = pool_->List().front();
  EXPECT_EQ(info.id, id);
  EXPECT_EQ(info.host, "host-a");
  EXPECT_EQ(info.labels, std::vector<std::string>{"fake"});
  EXPECT_FALSE(info.busy);

  EXPECT_TRUE(worker->Close().ok());
  EXPECT_TRUE(WaitFor([&] { return pool_->List().empty(); }));
}

TEST_F(WorkerServiceTest, RefusesAStreamThatDoesNotStartWithHello) {
  Start();
  FakeWorker worker(address_);
  ASSERT_TRUE(worker.SendHeartbeat());
  const grpc::Status status = worker.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(), "the first message must be Hello");
  EXPECT_TRUE(pool_->List().empty());
}

// A caller that opens Attach and never says Hello (it need not hold a token for that) is ended
// after the heartbeat timeout instead of being held open.
TEST_F(WorkerServiceTest, EndsAStreamThatSendsNoHelloWithinTheHeartbeatTimeout) {
  Start(400ms);
  FakeWorker silent(address_);
  const auto start = std::chrono::steady_clock::now();
  const grpc::Status status = silent.Finish();
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(status.error_code(), grpc::StatusCode::CANCELLED) << status.error_message();
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 5s);
  EXPECT_TRUE(pool_->List().empty());
}

// Worker ids carry a suffix drawn for each pool: after an orchestrator restart, old messages
// naming "w1" no longer name a new worker (ids restarted at w1).
TEST(WorkerPoolTest, IdsDifferAcrossPools) {
  WorkerPool first(1s), second(1s);
  const std::string a = first.NextId(), b = second.NextId();
  EXPECT_TRUE(std::regex_match(a, std::regex("w1-[0-9a-f]{6}"))) << a;
  EXPECT_TRUE(std::regex_match(b, std::regex("w1-[0-9a-f]{6}"))) << b;
  EXPECT_NE(a, b);
  EXPECT_EQ(first.NextId(), "w2" + a.substr(2));
}

// Slots: a job's units go to a worker the job already has while it has free slots, else to the
// idle worker with the most; a busy worker's free slots are not lent to another job; a worker
// from before slots (Hello.slots 0) has one; more than 4096 are refused.
TEST_F(WorkerServiceTest, TheSchedulerPacksAJobsUnitsOntoTheSlotsOfFewWorkers) {
  Start();
  auto one = Attach("host-one");
  auto four = Attach("host-four", nullptr, 4);
  auto two = Attach("host-two", nullptr, 2);
  const std::vector<std::string> five(5, "");
  EXPECT_EQ(pool_->CountMatching(five), 5);
  EXPECT_EQ(pool_->CountMatching(std::vector<std::string>(8, "")), 7);
  auto placed = pool_->TryAcquire(five, "job-a");
  ASSERT_TRUE(placed.has_value());
  std::vector<std::string> hosts;
  for (const auto& w : *placed) hosts.push_back(w->host());
  EXPECT_EQ(hosts, (std::vector<std::string>{"host-four", "host-four", "host-four", "host-four",
                                             "host-two"}));
  EXPECT_EQ(SlotsOf(*placed), (std::vector<int>{0, 1, 2, 3, 0}));
  // host-two has a free slot but is busy with job-a: only host-one is left.
  EXPECT_EQ(pool_->CountAvailable({"", ""}), 1);
  EXPECT_FALSE(pool_->TryAcquire({"", ""}, "job-b").has_value());
  for (const WorkerInfo& info : pool_->List()) {
    if (info.host == "host-four") {
      EXPECT_EQ(info.slots, 4);
      EXPECT_EQ(info.slots_busy, 4);
      EXPECT_EQ(info.job_id, "job-a");
    }
    if (info.host == "host-one") {
      EXPECT_EQ(info.slots, 1);
    }
  }
  pool_->Release(*placed);
  EXPECT_EQ(pool_->CountAvailable(five), 5);

  FakeWorker greedy(address_);
  ASSERT_TRUE(greedy.SendHello("greedy", v1::PROTOCOL_VERSION_1, 5000));
  v1::OrchestratorMessage welcome;
  ASSERT_TRUE(greedy.Read(&welcome));
  EXPECT_FALSE(welcome.welcome().accepted());
  EXPECT_EQ(welcome.welcome().reason(), "slots 5000 from host greedy is out of range (1 to 4096)");
}

TEST_F(WorkerServiceTest, RefusesAnotherProtocolVersionAndSaysWhichInTheWelcome) {
  Start();
  FakeWorker worker(address_);
  ASSERT_TRUE(worker.SendHello("old-host", static_cast<v1::ProtocolVersion>(7)));
  v1::OrchestratorMessage welcome;
  ASSERT_TRUE(worker.Read(&welcome));
  EXPECT_FALSE(welcome.welcome().accepted());
  EXPECT_NE(welcome.welcome().reason().find("incompatible protocol version 7 from host old-host"),
            std::string::npos)
      << welcome.welcome().reason();
  const grpc::Status status = worker.Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_TRUE(pool_->List().empty());
}

// A reply says which CPU it left from (WorkerMessage.cpu, 1 + the CPU); heartbeats and replies
// that do not say leave the last one known.
TEST_F(WorkerServiceTest, TheConnectionKnowsTheCpuOfTheWorkersLatestReply) {
  Start();
  auto worker = Attach("host-a");
  std::shared_ptr<WorkerConnection> connection = Acquire("job");
  ASSERT_TRUE(connection);
  EXPECT_EQ(connection->cpu(), -1);
  for (uint32_t seq = 1; seq <= 3; ++seq) {
    ASSERT_TRUE(connection->Write(Command(seq)));
    v1::OrchestratorMessage command;
    ASSERT_TRUE(worker->Read(&command));
    v1::WorkerMessage reply;
    reply.set_seq(seq);
    reply.mutable_ack();
    if (seq != 3) reply.set_cpu(seq == 1 ? 1 : 6);  // CPU 0, then CPU 5, then not said
    ASSERT_TRUE(worker->SendHeartbeat());
    ASSERT_TRUE(worker->Send(reply));
    v1::WorkerMessage got;
    ASSERT_TRUE(connection->WaitReply(seq, &got).ok());
    EXPECT_EQ(connection->cpu(), seq == 1 ? 0 : 5) << "after reply " << seq;
  }
  pool_->Release({connection});
}

TEST_F(WorkerServiceTest, TheWaitingJobThreadGetsItsReplyPastHeartbeatsAndLeadsTheLoopItself) {
  Start();
  auto worker = Attach("host-a");
  std::shared_ptr<WorkerConnection> connection = Acquire("job");
  ASSERT_TRUE(connection);
  std::thread fake([&] {
    for (uint64_t seq = 1; seq <= 200; ++seq) {
      v1::OrchestratorMessage command;
      ASSERT_TRUE(worker->Read(&command));
      ASSERT_EQ(command.seq(), seq);
      ASSERT_TRUE(command.has_save());
      if (seq % 10 == 0) {
        ASSERT_TRUE(worker->SendHeartbeat());
      }
      ASSERT_TRUE(worker->Reply(seq));
    }
  });
  const CompletionLoop::Counts before = service_->loop().counts();
  for (uint64_t seq = 1; seq <= 200; ++seq) {
    ASSERT_TRUE(connection->Write(Command(seq)));
    v1::WorkerMessage reply;
    ASSERT_TRUE(connection->WaitReply(seq, &reply).ok());
    EXPECT_EQ(reply.seq(), seq);
    EXPECT_TRUE(reply.has_ack());
  }
  fake.join();
  const CompletionLoop::Counts after = service_->loop().counts();
  // With no other job, the job thread leads: the background thread hands the lead over (once,
  // or again after an idle period) and the waits after that poll the queue themselves.
  EXPECT_GE(after.led - before.led, 150u)
      << "led " << after.led - before.led << ", followed " << after.followed - before.followed;
  pool_->Release({connection});
}

TEST_F(WorkerServiceTest, SeveralJobThreadsWaitAtOnceAndEachGetsItsOwnReplies) {
  Start();
  constexpr int kJobs = 3;
  constexpr uint64_t kRounds = 300;
  std::vector<std::unique_ptr<FakeWorker>> workers;
  for (int i = 0; i < kJobs; ++i) workers.push_back(Attach("host-" + std::to_string(i)));
  std::vector<std::thread> fakes, jobs;
  for (int i = 0; i < kJobs; ++i) {
    fakes.emplace_back([&, i] {
      for (uint64_t seq = 1; seq <= kRounds; ++seq) {
        v1::OrchestratorMessage command;
        ASSERT_TRUE(workers[i]->Read(&command));
        ASSERT_EQ(command.seq(), seq);
        ASSERT_TRUE(workers[i]->Reply(seq));
      }
    });
  }
  std::vector<std::shared_ptr<WorkerConnection>> connections;
  for (int i = 0; i < kJobs; ++i) connections.push_back(Acquire("job" + std::to_string(i)));
  for (int i = 0; i < kJobs; ++i) {
    jobs.emplace_back([&, i] {
      for (uint64_t seq = 1; seq <= kRounds; ++seq) {
        ASSERT_TRUE(connections[i]->Write(Command(seq)));
        v1::WorkerMessage reply;
        const absl::Status status = connections[i]->WaitReply(seq, &reply);
        ASSERT_TRUE(status.ok()) << status;
        ASSERT_EQ(reply.seq(), seq);
      }
    });
  }
  for (auto& t : jobs) t.join();
  for (auto& t : fakes) t.join();
  const CompletionLoop::Counts counts = service_->loop().counts();
  // Two waits per round: Write (for the previous write's completion) and WaitReply.
  EXPECT_EQ(counts.ready + counts.led + counts.followed, 2 * kJobs * kRounds);
  pool_->Release(connections);
}

TEST_F(WorkerServiceTest, AWorkerThatDiesWhileAJobWaitsFailsTheWaitNamingTheWorker) {
  Start();
  std::string id;
  auto worker = Attach("host-a", &id);
  std::shared_ptr<WorkerConnection> connection = Acquire("job");
  ASSERT_TRUE(connection->Write(Command(1)));
  v1::OrchestratorMessage command;
  ASSERT_TRUE(worker->Read(&command));
  std::future<absl::Status> wait = std::async(std::launch::async, [&] {
    v1::WorkerMessage reply;
    return connection->WaitReply(1, &reply);
  });
  ASSERT_TRUE(WaitFor([&] { return connection->waiting(); }));  // killed while the job waits
  worker->Kill();
  const absl::Status status = wait.get();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(status.message().find("worker " + id + " on host host-a was lost"), std::string::npos)
      << status;
  EXPECT_TRUE(connection->lost());
  EXPECT_FALSE(connection->Write(Command(2)));
  pool_->Release({connection});
  EXPECT_TRUE(WaitFor([&] { return pool_->List().empty(); }));
}

// A worker that heartbeats but never replies held its job forever: the wait ends at the command
// timeout, the worker is given up and its stream canceled (which tells it to abandon the step).
TEST_F(WorkerServiceTest, AWaitPastTheCommandTimeoutGivesTheWorkerUp) {
  Start();
  std::string id;
  auto worker = Attach("host-a", &id);
  std::shared_ptr<WorkerConnection> connection = Acquire("job");
  ASSERT_TRUE(connection->Write(Command(1)));
  v1::OrchestratorMessage command;
  ASSERT_TRUE(worker->Read(&command));
  std::atomic<bool> beating{true};
  std::thread heartbeats([&] {
    while (beating && worker->SendHeartbeat()) std::this_thread::sleep_for(20ms);
  });
  const auto start = std::chrono::steady_clock::now();
  v1::WorkerMessage reply;
  const absl::Status status = connection->WaitReply(1, &reply, {300ms, nullptr});
  const auto waited = std::chrono::steady_clock::now() - start;
  beating = false;
  heartbeats.join();
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  EXPECT_NE(status.message().find("worker " + id + " on host host-a: no reply within 300 ms"),
            std::string::npos)
      << status;
  EXPECT_GE(waited, 300ms);
  EXPECT_LT(waited, 3s);
  EXPECT_TRUE(connection->lost());
  EXPECT_EQ(worker->Finish().error_code(), grpc::StatusCode::CANCELLED);
  pool_->Release({connection});
}

// A cancel ends the wait at once (it waited for the step to end: 31 s, 92 s), and only the
// worker that had not replied is given up.
TEST_F(WorkerServiceTest, ACancelEndsTheWaitForAReply) {
  Start();
  auto worker = Attach("host-a");
  std::shared_ptr<WorkerConnection> connection = Acquire("job");
  ASSERT_TRUE(connection->Write(Command(1)));
  v1::OrchestratorMessage command;
  ASSERT_TRUE(worker->Read(&command));
  std::atomic<bool> cancel{false};
  std::future<absl::Status> wait = std::async(std::launch::async, [&] {
    v1::WorkerMessage reply;
    return connection->WaitReply(1, &reply, {std::chrono::milliseconds(0), &cancel});
  });
  ASSERT_TRUE(WaitFor([&] { return connection->waiting(); }));  // canceled while the job waits
  const auto start = std::chrono::steady_clock::now();
  cancel = true;
  const absl::Status status = wait.get();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled) << status;
  EXPECT_NE(status.message().find("the job was canceled"), std::string::npos) << status;
  EXPECT_TRUE(connection->lost());
  pool_->Release({connection});
}

// By a manual clock: a second of heartbeats 100 ms apart, then silence.
TEST_F(WorkerServiceTest, HeartbeatsKeepAnIdleWorkerAndSilenceLosesItAndEndsItsStream) {
  Start(300ms, &clock_);
  auto worker = Attach("host-a");
  // No job leads the loop: the background thread reads the heartbeats.
  for (int i = 0; i < 10; ++i) {
    clock_.Advance(100ms);
    ASSERT_NO_FATAL_FAILURE(Heartbeat(worker.get()));
    pool_->CheckWorkers();
  }
  ASSERT_EQ(pool_->List().size(), 1u) << "lost although it sent heartbeats";
  // Silence: at the timeout the worker is kept, past it the watchdog gives up on it and cancels
  // its stream.
  clock_.Advance(300ms);
  pool_->CheckWorkers();
  ASSERT_EQ(pool_->List().size(), 1u) << "lost at the timeout, not past it";
  clock_.Advance(1ms);
  pool_->CheckWorkers();
  EXPECT_TRUE(WaitFor([&] { return pool_->List().empty(); }));
  EXPECT_EQ(worker->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

TEST_F(WorkerServiceTest, ClosingTheStreamsEndsEveryWorkersStreamAndFailsAWaitingJob) {
  Start();
  auto first = Attach("host-a");
  auto second = Attach("host-b");
  std::shared_ptr<WorkerConnection> connection = Acquire("job");  // the other one stays idle
  ASSERT_TRUE(connection);
  ASSERT_TRUE(connection->Write(Command(1)));
  std::future<absl::Status> wait = std::async(std::launch::async, [&] {
    v1::WorkerMessage reply;
    return connection->WaitReply(1, &reply);
  });
  ASSERT_TRUE(WaitFor([&] { return connection->waiting(); }));  // closed while the job waits
  service_->CloseStreams(5s);
  const absl::Status status = wait.get();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(status.message().find("the orchestrator shut down"), std::string::npos) << status;
  EXPECT_EQ(first->Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_EQ(second->Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_TRUE(pool_->List().empty());
  // A worker that comes now is turned away.
  FakeWorker late(address_);
  late.SendHello("host-late");
  EXPECT_EQ(late.Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
}

// After a reply the connection's next read waits for the job's next command (worker_pool.h).
// These check what must still hold while it waits.
class DeferredReadTest : public WorkerServiceTest {
 protected:
  // One command and its reply: afterwards the connection's read waits.
  void RoundTrip(FakeWorker* worker, WorkerConnection* connection, uint64_t seq) {
    ASSERT_TRUE(connection->Write(Command(seq)));
    v1::OrchestratorMessage command;
    ASSERT_TRUE(worker->Read(&command));
    ASSERT_EQ(command.seq(), seq);
    ASSERT_TRUE(worker->Reply(seq));
    v1::WorkerMessage reply;
    const absl::Status status = connection->WaitReply(seq, &reply);
    ASSERT_TRUE(status.ok()) << status;
  }
};

TEST_F(DeferredReadTest, AJobsWorkerSendingHeartbeatsIsKeptWhileTheJobComputesPastTheTimeout) {
  Start(300ms, &clock_);
  auto worker = Attach("host-a");
  std::shared_ptr<WorkerConnection> connection = Acquire("job");
  ASSERT_NO_FATAL_FAILURE(RoundTrip(worker.get(), connection.get(), 1));
  // The job sends nothing for 1 s by the clock (another unit's long step, say); the worker
  // heartbeats. The watchdog's pass posts the waiting read, so the heartbeats count.
  for (int i = 0; i < 10; ++i) {
    clock_.Advance(100ms);
    ASSERT_TRUE(worker->SendHeartbeat());
    pool_->CheckWorkers();
    ASSERT_TRUE(WaitFor([&] { return pool_->List()[0].last_seen == clock_.Now(); }))
        << "the heartbeat was not read";
  }
  EXPECT_FALSE(connection->lost()) << connection->lost_reason();
  ASSERT_NO_FATAL_FAILURE(RoundTrip(worker.get(), connection.get(), 2));
  pool_->Release({connection});
}

TEST_F(DeferredReadTest, AWorkerKilledAfterItsReplyFailsTheJobsNextWaitNamingTheWorker) {
  Start();
  std::string id;
  auto worker = Attach("host-a", &id);
  std::shared_ptr<WorkerConnection> connection = Acquire("job");
  ASSERT_NO_FATAL_FAILURE(RoundTrip(worker.get(), connection.get(), 1));
  worker->Kill();
  connection->Write(Command(2));  // may still succeed: the loss shows on the read behind it
  v1::WorkerMessage reply;
  const absl::Status status = connection->WaitReply(2, &reply);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(status.message().find("worker " + id + " on host host-a was lost"), std::string::npos)
      << status;
  pool_->Release({connection});
  EXPECT_TRUE(WaitFor([&] { return pool_->List().empty(); }));
}

TEST_F(DeferredReadTest, AReleasedWorkerIsReadAgainSoItsEndIsSeenAtOnce) {
  Start();  // 30 s timeout: the watchdog's pass (every 6 s) would not post the read in time
  auto worker = Attach("host-a");
  std::shared_ptr<WorkerConnection> connection = Acquire("job");
  ASSERT_NO_FATAL_FAILURE(RoundTrip(worker.get(), connection.get(), 1));
  pool_->Release({connection});
  worker->Kill();
  EXPECT_TRUE(WaitFor([&] { return pool_->List().empty(); }, 3s))
      << "a killed idle worker was still listed after 3 s";
}

TEST_F(DeferredReadTest, ALateReplyAfterTheJobReleasedTheWorkerDoesNotStopItsReads) {
  Start();  // 30 s timeout, as above
  auto worker = Attach("host-a");
  std::shared_ptr<WorkerConnection> connection = Acquire("job");
  ASSERT_TRUE(connection->Write(Command(1)));
  v1::OrchestratorMessage command;
  ASSERT_TRUE(worker->Read(&command));
  pool_->Release({connection});  // the job failed elsewhere and let the worker go
  const uint64_t read = connection->replies_read();
  ASSERT_TRUE(worker->Reply(1));
  ASSERT_TRUE(WaitFor([&] { return connection->replies_read() > read; }));  // the reply is read
  worker->Kill();
  EXPECT_TRUE(WaitFor([&] { return pool_->List().empty(); }, 3s))
      << "a killed idle worker was still listed after 3 s";
}

// A job whose master runs on its worker gets many messages to one command (RunJob: rows, then a
// checkpoint). The watchdog's pass posts the waiting read (to see heartbeats) while the first
// message is not yet taken by the job's thread: the second must not be read over it.
TEST_F(DeferredReadTest, AWatchdogPassBeforeTheJobTakesItsReplyReadsNoMessageOverIt) {
  Start();
  auto worker = Attach("host-a");
  std::shared_ptr<WorkerConnection> connection = Acquire("job");
  ASSERT_TRUE(connection->Write(Command(1)));
  v1::OrchestratorMessage command;
  ASSERT_TRUE(worker->Read(&command));
  const uint64_t read = connection->replies_read();
  for (int steps : {100, 200}) {
    v1::WorkerMessage progress;
    progress.set_seq(1);
    progress.mutable_job_progress()->set_steps_accepted(steps);
    ASSERT_TRUE(worker->Send(progress));
  }
  ASSERT_TRUE(WaitFor([&] { return connection->replies_read() == read + 1; }));
  pool_->CheckWorkers();  // the watchdog's pass, before the job's thread takes the reply
  // Read over it, the second would be counted at once.
  EXPECT_FALSE(WaitFor([&] { return connection->replies_read() > read + 1; }, 300ms));
  for (int steps : {100, 200}) {
    v1::WorkerMessage reply;
    const absl::Status status = connection->WaitReply(1, &reply, {2s, nullptr});
    ASSERT_TRUE(status.ok()) << status;
    EXPECT_EQ(reply.job_progress().steps_accepted(), steps);
    connection->ResumeReads();
  }
  pool_->Release({connection});
}

TEST_F(DeferredReadTest, ClosingTheStreamsEndsTheStreamOfAWorkerThatJustReplied) {
  Start();
  auto worker = Attach("host-a");
  std::shared_ptr<WorkerConnection> connection = Acquire("job");
  ASSERT_NO_FATAL_FAILURE(RoundTrip(worker.get(), connection.get(), 1));
  service_->CloseStreams(5s);
  EXPECT_EQ(worker->Finish().error_code(), grpc::StatusCode::CANCELLED);
  EXPECT_TRUE(pool_->List().empty()) << "the stream was canceled but never finished";
  EXPECT_FALSE(connection->Write(Command(2)));
}

}  // namespace
}  // namespace cosimo::orchestrator
