#!/usr/bin/env bash
# The README's second command: install everything (the test-only packages too), build the rest
# of the tree (tests, benchmarks) in the same folder and build type as deploy/demo.sh, so the
# objects it compiled are reused, and run the whole test suite with CTest.
# The suite includes the fuzzers (tests/fuzz): a second build of the tree by clang with libFuzzer
# and the sanitizers, into build/fuzz. COSIMO_SKIP_FUZZ=1 leaves it out (its tests are then
# skipped), for a quicker run while working on something else.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
# ON explicitly: demo.sh leaves them OFF in the same folder's CMake cache.
COSIMO_TEST_DEPS=1 BUILD_DIR="$build_dir" \
  "$root/deploy/build.sh" -DCOSIMO_BUILD_TESTS=ON -DCOSIMO_BUILD_BENCH=ON
if [[ "${COSIMO_SKIP_FUZZ:-0}" != 1 ]]; then
  cmake --build "$build_dir" --target cosimo_fuzz_build
fi
cd "$build_dir"
ctest --output-on-failure -j2 --timeout 600
