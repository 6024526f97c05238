#!/usr/bin/env bash
# The README's first command: install what building and running need (no test-only packages),
# build only the three programs (cosimo, cosimo-orchestrator, cosimo-worker) in Release, and run
# the car example with the embedded default (a cosimo-orchestrator and one cosimo-worker
# process per unit on loopback). deploy/test.sh later builds the rest in the same folder.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
# Tests and benchmarks off: their packages (GoogleTest, clang, a browser) are not installed
# here, and configuring them would need them. deploy/test.sh turns them on again.
COSIMO_TEST_DEPS="${COSIMO_TEST_DEPS:-0}" BUILD_DIR="$build_dir" \
  TARGETS="cosimo cosimo-orchestrator cosimo-worker" \
  "$root/deploy/build.sh" -DCOSIMO_BUILD_TESTS=OFF -DCOSIMO_BUILD_BENCH=OFF
out="$root/out/car.csv"
mkdir -p "$root/out"
"$build_dir/bin/cosimo" run "$root/examples/car.json" --out "$out"
