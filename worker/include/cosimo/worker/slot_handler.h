// The units of one worker process: one CommandHandler per slot (`cosimo-worker --slots N`), and
// a small fixed pool of threads that runs the commands of a CommandBatch in parallel, one unit
// per thread at a time. A plain command goes to the handler of its `slot` on the calling thread;
// a batch's commands run on the calling thread and the pool's, and their replies come back in
// the batch's order, whatever thread finished first. Free of gRPC, like CommandHandler: the
// Attach session (worker_client.cc) reads, hands over and writes.
//
// Artifact fetches are serialized (two units of a batch may need the same file).
//
// Call order: Handle for every message of the stream, in order; DropUnits when the stream ends.
// Thread safety: one calling thread; the pool's threads only run inside Handle.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cosimo/v1/worker_service.pb.h"
#include "cosimo/worker/command_handler.h"

namespace cosimo::worker {

class SlotHandler {
 public:
  // `slots` >= 1 units; `threads` >= 1 threads step a batch's units (the caller's included).
  SlotHandler(int slots, int threads, CommandHandler::ArtifactFetcher fetch);
  ~SlotHandler();  // terminates the units still loaded
  SlotHandler(const SlotHandler&) = delete;
  SlotHandler& operator=(const SlotHandler&) = delete;

  int slots() const;
  int threads() const;

  // Runs `message` (a command for one slot, or a CommandBatch) and writes its one reply. As with
  // CommandHandler::Handle, pass the same reply every time, so that its buffers are reused.
  void Handle(const v1::OrchestratorMessage& message, v1::WorkerMessage* reply);

  // Terminates and drops every loaded unit (the stream ended); returns their names.
  std::vector<std::string> DropUnits();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cosimo::worker
