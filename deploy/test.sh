#!/usr/bin/env bash
# The README's second command: install, build, and run the whole test suite with CTest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/deploy/build.sh"
cd "$root/build"
ctest --output-on-failure -j2 --timeout 600
