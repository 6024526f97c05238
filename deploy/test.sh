#!/usr/bin/env bash
# The README's second command: install, build, and run the whole test suite with CTest.
# The suite includes the fuzzers (tests/fuzz): a second build of the tree by clang with libFuzzer
# and the sanitizers, into build/fuzz. COSIMO_SKIP_FUZZ=1 leaves it out (its tests are then
# skipped), for a quicker run while working on something else.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/deploy/build.sh"
if [[ "${COSIMO_SKIP_FUZZ:-0}" != 1 ]]; then
  cmake --build "$root/build" --target cosimo_fuzz_build
fi
cd "$root/build"
ctest --output-on-failure -j2 --timeout 600
