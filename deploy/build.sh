#!/usr/bin/env bash
# Installs the dependencies (deploy/install-deps.sh) and builds Cosimo into build/ (binaries in
# build/bin/). Used by deploy/demo.sh, deploy/test.sh and deploy/Dockerfile; arguments go to
# CMake's configure step (-DCOSIMO_BUILD_TESTS=OFF ...).
# Environment:
#   BUILD_DIR   the build folder (default build)
#   BUILD_TYPE  CMake build type (default Release: demo.sh and test.sh share one folder and one
#               type, so the test command reuses the objects the first command compiled)
#   TARGETS     what to build, space-separated (default: everything configured)
#   JOBS        parallel compile jobs (default 2)
#   COSIMO_TEST_DEPS  passed to install-deps.sh (0: no test-only packages)
# ccache, when on PATH (install-deps.sh installs it), is the compiler launcher: a rebuild after
# touching one file, or a second build folder with the same flags, compiles only what changed.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"
"$root/deploy/install-deps.sh"

configure=(-DCMAKE_BUILD_TYPE="${BUILD_TYPE:-Release}")
if command -v ccache >/dev/null; then
  configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  # The test suites use precompiled headers (tests/CMakeLists.txt): ccache caches the files that
  # include one only with this sloppiness (no source of ours uses __DATE__ or __TIME__).
  export CCACHE_SLOPPINESS="${CCACHE_SLOPPINESS:+$CCACHE_SLOPPINESS,}pch_defines,time_macros"
  # Paths under the tree are hashed relative to it, so a second clone or worktree of the same
  # sources (another branch, CI's fresh clone) reuses the objects the first one compiled.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}"
fi
cmake -S "$root" -B "$build_dir" "${configure[@]}" "$@"

build=(--build "$build_dir" -j"${JOBS:-2}")
if [[ -n "${TARGETS:-}" ]]; then
  read -r -a targets <<<"$TARGETS"
  build+=(--target "${targets[@]}")
fi
start=$SECONDS
cmake "${build[@]}"
echo "build: ${TARGETS:-everything} in $build_dir ($((SECONDS - start)) s)"
