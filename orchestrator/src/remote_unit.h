// A UnitProxy for a unit that runs in a worker process, over the worker's Attach stream, and the
// WorkerBatch through which the units of one job on one worker share that stream.
//
// Send holds the command in the unit's WorkerBatch; Flush (FanOut, after every unit of a round
// got its command) writes the commands held as one message: a plain command when one unit of
// the worker takes part, a CommandBatch when several do, answered by one ReplyBatch. Await
// flushes first if its command is still held (a single unit's Send + Await), then waits for the
// message's reply (WorkerConnection::WaitReply: the waiting thread reads it from the socket
// itself when it leads the loop) and hands every unit of that message its part. Messages are
// reused, so the step path does not allocate once warmed up.
//
// Thread safety: the job's thread only, like every UnitProxy.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cosimo/master/unit_proxy.h"
#include "cosimo/v1/worker_service.pb.h"
#include "orchestrator/src/metrics.h"
#include "orchestrator/src/worker_pool.h"

namespace cosimo::orchestrator {

class RemoteUnit;

// The order in which one job's messages of a round go out: a WorkerBatch flushed is only marked
// ready, and the ready ones are written together before the first reply of the round is awaited,
// first to the workers whose latest reply left from the writing thread's own CPU, then to the
// others, each group in the order they became ready. A worker woken from the sender's CPU starts
// as soon as the job thread waits, while the others start on their CPUs; woken the other way
// round, the two wake-ups serialise (on the 2-core VMs of docs/benchmarks.md, "Placement", the
// 2-unit Jacobi step took about 72 us in the good order and 130 us in the other). The master
// sends in scenario order and knows nothing of CPUs. Job thread only.
class SendOrder {
 public:
  class Writer {
   public:
    virtual ~Writer() = default;
    // The CPU the worker last answered from; -1: not known.
    virtual int cpu() const = 0;
    virtual void Write() = 0;
  };
  // `writer` has a message to write (once per round; a second call before WriteReady is a no-op).
  void Ready(Writer* writer);
  // Writes every ready message, in the order above.
  void WriteReady();

 private:
  std::vector<Writer*> ready_;
};

// The commands of one job's units on one worker, coalesced per round; owns the stream's
// sequence numbers for that job. Shared by those RemoteUnits.
class WorkerBatch final : public SendOrder::Writer {
 public:
  WorkerBatch(std::shared_ptr<WorkerConnection> worker, const WorkerConnection::WaitOptions& wait,
              std::shared_ptr<SendOrder> order)
      : worker_(std::move(worker)), wait_(wait), order_(std::move(order)) {}

  WorkerConnection& worker() { return *worker_; }
  const WorkerConnection::WaitOptions& wait() const { return wait_; }
  // Holds `unit`'s prepared command for the next Flush.
  void Hold(RemoteUnit* unit);
  // The held commands are one message, ready to be written in the job's SendOrder (nothing
  // held: nothing to write).
  void Flush();
  // Until `unit`'s reply (or the error that ended the wait for it) is in `unit`; the round's
  // ready messages are written first.
  void Receive(RemoteUnit* unit, const WorkerConnection::WaitOptions& wait);

  // SendOrder::Writer: writes the held commands as one message.
  int cpu() const override { return worker_->cpu(); }
  void Write() override;

 private:
  // Waits for the reply to the last message written and hands it out.
  void Collect(const WorkerConnection::WaitOptions& wait);

  std::shared_ptr<WorkerConnection> worker_;
  WorkerConnection::WaitOptions wait_;
  std::shared_ptr<SendOrder> order_;
  bool ready_ = false;  // in the SendOrder, not yet written
  uint64_t seq_ = 0;
  std::vector<RemoteUnit*> held_;
  std::vector<RemoteUnit*> sent_;  // the units of the message whose reply is awaited
  uint64_t sent_seq_ = 0;
  v1::OrchestratorMessage batch_;  // reused
  v1::WorkerMessage reply_;        // reused
};

class RemoteUnit final : public master::UnitProxy {
 public:
  // LoadUnit for every unit (`loads[i]` on `workers[i]`, the entries of WorkerPool::TryAcquire:
  // units packed onto one worker share a WorkerBatch and get its slots in order), written at once,
  // one message per worker; each unit's FinishLoad waits for its UnitLoaded. `wait`: how long each
  // command may take, and the job's cancel flag, which ends the wait for any command but
  // Terminate (the clean-up after a cancel).
  static std::vector<std::unique_ptr<RemoteUnit>> StartLoads(
      const std::vector<std::shared_ptr<WorkerConnection>>& workers,
      const std::vector<v1::LoadUnit>& loads, const WorkerConnection::WaitOptions& wait = {});
  [[nodiscard]] absl::Status FinishLoad();
  // FinishLoad of every unit; the first error.
  [[nodiscard]] static absl::Status FinishLoads(
      const std::vector<std::unique_ptr<RemoteUnit>>& units);
  // The units as the master takes them (master::RunOverUnits).
  static std::vector<master::UnitProxy*> Proxies(
      const std::vector<std::unique_ptr<RemoteUnit>>& units);
  // After a failed run: Terminate, the reply ignored, unless the worker is lost, so that every
  // surviving worker is clean for the next job.
  void Abandon() override;

  const std::string& name() const override { return name_; }
  const UnitDescription& description() const override { return description_; }
  IterativeMode iterative_mode() const override { return mode_; }
  master::UnitLocation location() const override;
  void Send(const UnitCommand& command) override;
  void Flush() override;
  [[nodiscard]] absl::Status Await(UnitResponse* response) override;

  WorkerConnection& worker() { return batch_->worker(); }
  uint32_t slot() const { return slot_; }
  // Commands sent to this unit so far (LoadUnit included): one round trip each, however many
  // commands shared their message.
  uint64_t commands_sent() const { return commands_; }
  // From now on every command's round trip (Send to its reply in Await, the unit's work
  // included), s, goes into `round_trips` (may be null: none).
  void set_round_trips(std::shared_ptr<Histogram> round_trips) {
    round_trips_ = std::move(round_trips);
  }

 private:
  friend class WorkerBatch;
  RemoteUnit(std::shared_ptr<WorkerBatch> batch, std::string name, uint32_t slot)
      : batch_(std::move(batch)), name_(std::move(name)), slot_(slot) {}
  [[nodiscard]] absl::Status Context(const absl::Status& status) const;
  // Waits for the reply to the pending command into reply_.
  [[nodiscard]] absl::Status Receive();

  std::shared_ptr<WorkerBatch> batch_;
  std::string name_;
  uint32_t slot_ = 0;
  UnitDescription description_;
  IterativeMode mode_ = IterativeMode::kEstimate;
  uint64_t commands_ = 0;
  UnitCommand::Kind pending_kind_ = UnitCommand::Kind::kStep;
  // Where the pending command is: held in the batch, written, answered (received_ with
  // receive_status_ the wait's outcome).
  bool held_ = false;
  bool received_ = false;
  absl::Status receive_status_;
  std::shared_ptr<Histogram> round_trips_;
  std::chrono::steady_clock::time_point sent_;
  v1::OrchestratorMessage command_;
  v1::WorkerMessage reply_;
};

}  // namespace cosimo::orchestrator
