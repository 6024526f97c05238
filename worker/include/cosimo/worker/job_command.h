// A simulation job run whole on a worker (the RunJob command of the worker protocol,
// proto/cosimo/v1/worker_service.proto): its units loaded here as LocalUnits and the master run
// over them in this process (master::RunInProcess, the one run-in-process sequence), resumed
// from the command's checkpoint when it has one. What the orchestrator needs of the run goes out
// through `send` as it happens: progress, the results table's rows in chunks as they are
// recorded (JobRows), checkpoints (without rows), then JobDone. `send` may block (a gRPC stream's
// write waits on flow control): the run waits with it, holding at most one chunk of rows. Free of
// gRPC: the worker's session (worker_client.cc) carries the messages and sets their seq.
//
// Thread safety: runs on the calling thread. The run stops (JobDone with CANCELLED) when `send`
// returns false or the worker's abandon request is set (units/abandon.h: the stream ended), and
// when the job records more than RunJob.max_recorded_rows rows.
#pragma once

#include <functional>

#include "cosimo/v1/worker_service.pb.h"
#include "cosimo/worker/command_handler.h"

namespace cosimo::worker {

// Writes one message of the run (its body set; the caller sets the seq). False: it could not.
using JobMessageSink = std::function<bool(v1::WorkerMessage*)>;

// A JobRows chunk's bytes of values, texts and integers when RunJob.result_chunk_bytes is 0
// (about: whole rows; gRPC's default receive limit on the orchestrator is 4 MB).
inline constexpr size_t kResultRowsChunkBytes = size_t{1} << 20;

// Runs `command` to its JobDone, the last message it sends. Returns whether every message went
// out.
bool RunJobCommand(const v1::RunJob& command, const CommandHandler::ArtifactFetcher& fetch,
                   const JobMessageSink& send);

}  // namespace cosimo::worker
