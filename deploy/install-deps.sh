#!/usr/bin/env bash
# Installs every package Cosimo needs to build, test and run, from Debian 12's repositories.
# Environment: COSIMO_TEST_DEPS=0 installs only what building and running need.
# Idempotent: packages already present are left as they are. Run as root (or with sudo available).
set -euo pipefail

packages=(
  cmake g++ make pkg-config ca-certificates openssl
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev libssl-dev zlib1g-dev
  libeigen3-dev libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libzip-dev zip libpugixml-dev libsundials-dev libsqlite3-dev libcairo2-dev fonts-dejavu-core
  libcpp-httplib-dev
  iproute2 procps python3 python3-yaml python3-grpcio clang-format
)
# Only the test suite needs these: clang for the fuzzers (tests/fuzz) and a browser for the web
# page's test (tests/integration/http_test.cc), about 400 MB. COSIMO_TEST_DEPS=0 leaves them out
# (deploy/Dockerfile's build stage, which builds without tests).
if [[ "${COSIMO_TEST_DEPS:-1}" != 0 ]]; then
  packages+=(clang libclang-rt-14-dev chromium-headless-shell)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
