#!/usr/bin/env bash
# Installs every package Cosimo needs to build, test and run, from Debian 12's repositories.
# Environment: COSIMO_TEST_DEPS=0 installs only what building and running need (deploy/demo.sh,
# deploy/Dockerfile's build stage); deploy/test.sh installs the rest.
# Idempotent: packages already present are left as they are. Run as root (or with sudo available).
set -euo pipefail

# What the three programs need to build and run (the find_package / pkg_check_modules of the
# CMakeLists outside tests/ and bench/), and ccache (deploy/build.sh uses it when present).
packages=(
  cmake g++ make pkg-config ca-certificates openssl ccache
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler libabsl-dev libssl-dev zlib1g-dev
  libeigen3-dev libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev
  libzip-dev libpugixml-dev libsundials-dev libsqlite3-dev libcairo2-dev fonts-dejavu-core
  libmicrohttpd-dev
)
# Only the test suite needs these: GoogleTest, cpp-httplib (the HTTP tests' client), clang for
# the fuzzers (tests/fuzz) and the thread-safety check, a browser for the web page's test (tests/integration/http_test.cc, about
# 400 MB), clang-format for the format check, Python for the deployment and client tests, zip,
# ip and ps for integration tests, docker-compose (compose v1, without an engine: the
# deployment test validates the compose files with it), and what the Python package's tests
# use (tests/python: pytest, the package's optional numpy, pandas and matplotlib, and pip with
# setuptools and wheel for its offline install). COSIMO_TEST_DEPS=0 leaves them out.
if [[ "${COSIMO_TEST_DEPS:-1}" != 0 ]]; then
  packages+=(libgtest-dev libgmock-dev libbenchmark-dev clang-format libcpp-httplib-dev
             clang libclang-rt-14-dev chromium-headless-shell
             iproute2 procps zip python3 python3-yaml python3-grpcio docker-compose
             python3-protobuf python3-pytest python3-numpy python3-pandas python3-matplotlib
             python3-pip python3-setuptools python3-wheel)
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
