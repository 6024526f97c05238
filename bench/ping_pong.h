// The transport floor: a raw gRPC bidirectional-stream ping-pong with the messages of one
// macro step (a Step command and its StepDone reply, built by the same ToProto functions as the
// real path, so the sizes and the parsing work are the same).
//
// It reuses the WorkerService.Attach method, but not Cosimo's implementation of it: a process of
// its own (see MeasurePingPong) serves a minimal Attach whose handler thread writes a command and
// reads the echo, as fast as it can; the peer is a child process (this executable with --ping-peer
// ADDRESS) that dials out, like a worker, and answers every command with a canned StepDone. The
// topology is the production one (the orchestrator listens and writes commands, the worker dials
// and replies) without the thread hop, the sequence bookkeeping and the unit.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace cosimo::bench {

struct MessageSizes {
  size_t command = 0;  // serialized OrchestratorMessage, bytes
  size_t reply = 0;    // serialized WorkerMessage, bytes
};

// Sizes of one step's messages for a unit with `inputs` inputs (zero-order hold) and `outputs`
// outputs, as RemoteUnit and the worker build them.
MessageSizes StepMessageSizes(int inputs, int outputs);

// The variants of the ping-pong. Each runs in a child process of its own (this executable with
// --ping-server MODE), so that its server is the only one of its process, as the orchestrator's is
// in production, and so that the benchmark's own process holds only the orchestrator's server
// while it measures Jacobi steps.
enum class PingMode {
  kSync,  // the baseline of figures 1-3: the handler thread writes a command, reads the echo
  // Cosimo's threading before 44089f1: the measuring thread writes and waits on a condition
  // variable; the handler thread reads and hands each reply over. Shows what that costs.
  kSyncHandoff,
  // gRPC's callback API (a ServerBidiReactor on a server with no synchronous service): the
  // reactor writes the next command from OnReadDone (the master's loop on gRPC's thread) ...
  kCallback,
  // ... or OnReadDone wakes the measuring thread, which writes (a job thread over a callback
  // Attach).
  kCallbackHandoff,
  // The fewest thread wake-ups gRPC allows: Attach served with the asynchronous API on one
  // completion queue that the main thread alone drives, so it is the only thread of its process
  // polling the sockets and reads each reply itself. With `peers` > 1 each round is a fan-out:
  // one command to every peer, then every reply (a Jacobi step's messages without the master).
  kSinglePoller,
  // No gRPC at all: the same fan-out over plain TCP loopback sockets (TCP_NODELAY, as gRPC sets),
  // messages of a step's command and reply sizes, one server thread on epoll and `peers` forked
  // processes that block in read() and answer with write(). What one process per unit costs the
  // kernel alone on this machine: a wake, one message in and one out per peer and round.
  kSockets,
};
const char* PingModeName(PingMode mode);  // "sync", "sync-handoff", ...

struct PingResult {
  std::vector<double> samples;  // ns per round trip (per round of a fan-out)
  double cpu_us = 0.0;          // CPU per round trip, the server's process and its peers
  double runs = 0.0;            // thread runs per round trip, the same processes
  // One peer's share: what a worker's process spends to take a command and answer it.
  double peer_cpu_us = 0.0;
  double peer_runs = 0.0;
};

struct Usage;  // bench/harness.h

// Fills the costs of `result` per round trip: `usage` the server's process per round,
// `peer_usage` one peer per round (`peers` of them take part in each).
void SetCosts(const Usage& usage, const Usage& peer_usage, int peers, PingResult* result);

// Runs `count` round trips (after a warm-up) in a child process and collects what it measured.
[[nodiscard]] absl::StatusOr<PingResult> MeasurePingPong(PingMode mode, int count, int peers,
                                                         const std::string& log_path);
// The child's main: --ping-server MODE OUT --ping-count N --ping-peers K. Writes "cpu_us runs
// peer_cpu_us peer_runs" and then one sample per line to OUT. Returns the process exit code.
int RunPingServer(const std::string& mode, const std::string& out_path, int count, int peers,
                  const std::string& log_path);

// The peer's main (this executable with --ping-peer ADDRESS --ping-outputs N): dials, says
// Hello, answers every command with a StepDone of `outputs` values until the stream ends.
// Returns the process exit code.
int RunPingPeer(const std::string& address, int outputs);

}  // namespace cosimo::bench
