// The kernel's floor of a Jacobi step's fan-out (PingMode::kSockets, figure fig2.N.sockets): the
// messages of one step to `peers` processes and back over plain TCP loopback sockets, with no
// gRPC. Runs in a child process of cosimo-bench (--ping-server sockets), which forks the peers.
#pragma once

#include "ping_pong.h"

namespace cosimo::bench {

// `count` rounds after a warm-up: one command (a Step's size) to every peer, then every reply (a
// StepDone's size). Returns 0 and fills `result` (samples in ns per round, CPU and thread runs
// per round and per peer), or an exit code: 2 set-up failed, 3 a peer failed.
int RunSocketFanout(int count, int peers, PingResult* result);

}  // namespace cosimo::bench
