// cosimo-worker's main: the simulation units of one job at a time (one unless --slots), for an
// orchestrator it dials.
//   cosimo-worker --orchestrator HOST:PORT [--label L]... [--cache-dir DIR] [--fmu-cache N]
//   [--once]
//                 [--slots N [--threads T]] [--cpus LIST]
//                 [--tls-ca FILE [--token-file FILE] [--tls-cert FILE --tls-key FILE]]
//                 [--health-file FILE] [--log-level LEVEL] [--log-format text|json]
//   cosimo-worker --health-check [--health-file FILE]   (exit 0: attached, heartbeats going out)
//
// The program cosimo-worker is this function; `cosimo run` and the other embedded runs also call
// it in a child they fork (cosimo/common/process.h, ForkProcess), with no second program to load.
// It returns only on a bad command line or a failed set-up (the exit code); otherwise it serves
// until the orchestrator's stream ends or a signal stops it and ends the process itself (_exit).
#pragma once

namespace cosimo::worker {

int WorkerMain(int argc, char** argv);

}  // namespace cosimo::worker
