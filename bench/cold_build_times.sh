#!/usr/bin/env bash
# What a fresh machine's build costs, phase by phase (issue 30; docs/benchmarks.md, "Compile
# time"): from an empty ccache, the three programs deploy/demo.sh builds, then the rest that
# deploy/test.sh builds (tests, benchmarks), then the fuzz build; for each, the wall time and the
# compilers' CPU time (user + system, which another load on the machine changes little). The
# packages are not installed here (deploy/install-deps.sh; measured apart).
#   bench/cold_build_times.sh [FOLDER]    (default /tmp/cosimo-cold-build, emptied first)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-/tmp/cosimo-cold-build}"
rm -rf "$dir"
mkdir -p "$dir"
export CCACHE_DIR="$dir/ccache"  # empty: every object compiled, as on a fresh machine
build="$dir/build"
phase() {
  local name=$1
  shift
  local TIMEFORMAT='%R %U %S' times wall user sys
  times=$( { time "$@" >"$dir/$name.log" 2>&1; } 2>&1)
  read -r wall user sys <<<"$times"
  awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" \
    'BEGIN { printf "%-6s wall %7.1f s   CPU %7.1f s (user %.1f, system %.1f)\n", n, w, u + s, u, s }'
}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache >"$dir/configure.log"
phase demo cmake --build "$build" -j2 --target cosimo cosimo-orchestrator cosimo-worker
cmake -S "$root" -B "$build" -DCOSIMO_BUILD_TESTS=ON -DCOSIMO_BUILD_BENCH=ON >>"$dir/configure.log"
phase tests cmake --build "$build" -j2
phase fuzz cmake --build "$build" --target cosimo_fuzz_build
echo "logs in $dir"
