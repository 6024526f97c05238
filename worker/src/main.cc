// cosimo-worker: see cosimo/worker/worker_main.h.
#include "cosimo/worker/worker_main.h"

int main(int argc, char** argv) { return cosimo::worker::WorkerMain(argc, argv); }
