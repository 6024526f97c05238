#!/usr/bin/env bash
# Builds the benchmarks with Release flags (in build-bench/ unless BUILD_DIR is set) and runs
# every figure: prints the table and writes the figures to $BUILD_DIR/bench/figures.json.
#   bench/run.sh [--smoke] [cosimo-bench options...]
# Takes a few minutes (figure 2 starts 32 cosimo-worker processes).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-${root}/build-bench}"
jobs="${JOBS:-2}"

if [[ ! -f "${build}/CMakeCache.txt" ]] ||
   ! grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "${build}/CMakeCache.txt"; then
  cmake -S "${root}" -B "${build}" -DCMAKE_BUILD_TYPE=Release -DCOSIMO_BUILD_BENCH=ON
fi
cmake --build "${build}" -j"${jobs}" --target cosimo-bench cosimo-worker cosimo-orchestrator cosimo cosimo_test_fmus

mkdir -p "${build}/bench"
log="${build}/bench/bench.log"
: > "${log}"
"${build}/bin/cosimo-bench" --json "${build}/bench/figures.json" --log "${log}" "$@"
