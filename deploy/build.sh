#!/usr/bin/env bash
# Installs the dependencies (deploy/install-deps.sh) and builds Cosimo into build/ (binaries in
# build/bin/). Used by the README's commands, by .ci/run and by deploy/Dockerfile.
# Environment: BUILD_DIR (default build), BUILD_TYPE (default RelWithDebInfo), JOBS (default 2).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
"$root/deploy/install-deps.sh"
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "$@"
cmake --build "$build_dir" -j"${JOBS:-2}"
