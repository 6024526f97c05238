#!/usr/bin/env bash
# The README's first command: install, build, and run the car example with the embedded default
# (an in-process orchestrator and one cosimo-worker process per unit on loopback).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/deploy/build.sh"
out="$root/out/car.csv"
mkdir -p "$root/out"
"$root/build/bin/cosimo" run "$root/examples/car.json" --out "$out"
