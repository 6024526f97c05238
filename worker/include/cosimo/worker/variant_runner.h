// Variants of a sweep job run whole in the worker's process (RunVariants,
// proto/cosimo/v1/worker_service.proto; docs/sweeps.md, "Where the variants run"): its units
// loaded here (artifacts fetched by digest, an FMU kept unpacked between variants by the FMU
// cache), the master (RunMaster) run over them as LocalUnits, and the sweep's KPIs computed from
// the recorded table. A sweep of small variants costs one round trip per variant instead of one
// per macro step. Free of gRPC: the worker's session (worker_client.cc) sends the reply.
//
// Thread safety: RunVariant may run on several threads at once (each its own units).
#pragma once

#include "cosimo/v1/worker_service.pb.h"
#include "cosimo/worker/command_handler.h"

namespace cosimo::worker {

// Runs `command` and fills `done`: SUCCEEDED with one KPI per command.kpis(), or FAILED with the
// message (a unit that cannot load, the master's error, a KPI that cannot be computed). Stops
// early when the worker is asked to abandon its command (abandon.h) or past
// command.max_recorded_rows() rows.
void RunVariant(const v1::RunVariant& command, const CommandHandler::ArtifactFetcher& fetch,
                v1::VariantDone* done);

// Runs every variant of `command` (RunVariant each) on up to `threads` threads at once, and
// fills `done` with one VariantDone each, in their order. `fetch` is called from one thread at
// a time.
void RunVariants(const v1::RunVariants& command, const CommandHandler::ArtifactFetcher& fetch,
                 int threads, v1::VariantsDone* done);

}  // namespace cosimo::worker
