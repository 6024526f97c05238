#!/usr/bin/env bash
# Runs one libFuzzer fuzzer on its seed corpus, then mutates from it.
#   run_fuzzer.sh FUZZER CORPUS_DIR [--runs N | --time SECONDS]
# --runs N (the test suite's way): N mutations with a fixed seed, so a run is reproducible.
# --time S (the long way, by hand): S seconds with a random seed; new inputs that reach new code
#   are kept in CORPUS_DIR.new (copy the useful ones into the corpus).
# A crash, a leak, a sanitizer report or an input that takes over 10 s fails the run; libFuzzer
# writes the input to crash-*/leak-*/timeout-* in the folder it was started from: add it to CORPUS_DIR so
# that it stays a regression test, and fix the bug.
set -euo pipefail
fuzzer="$1"
corpus="$2"
mode="${3:---runs}"
amount="${4:-20000}"
if [[ ! -x "$fuzzer" ]]; then
  # 77: CTest's skip. deploy/test.sh (the README's test command and CI) always builds them.
  echo "run_fuzzer: $fuzzer is not built: cmake --build build --target cosimo_fuzz_build" >&2
  exit 77
fi
artifacts="$(pwd)/"
work="$(mktemp -d "${TMPDIR:-/tmp}/cosimo-fuzz-XXXXXX")"
trap 'rm -rf "$work"' EXIT
cd "$work"
common=(-artifact_prefix="$artifacts" -error_exitcode=1 -timeout_exitcode=1 -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1)
case "$mode" in
  --runs)
    mkdir -p new
    "$fuzzer" "${common[@]}" -seed=1 -runs="$amount" new "$corpus"
    ;;
  --time)
    mkdir -p "$corpus.new"
    "$fuzzer" "${common[@]}" -max_total_time="$amount" "$corpus.new" "$corpus"
    ;;
  *)
    echo "run_fuzzer: unknown option $mode (--runs N or --time SECONDS)" >&2
    exit 2
    ;;
esac
