#!/usr/bin/env python3
"""Where the build spends its time: compiles every production translation unit of a build's
compile_commands.json (not tests/, not bench/) again, two at a time and without ccache (the
compiler is called directly, into a temporary folder), and prints the total and the slowest, in
seconds of CPU (user + system of the compiler), which other load on the machine changes little,
and the wall time of the whole.

Usage: bench/compile_times.py BUILD_DIR [--top N]
(docs/benchmarks.md, "Compile time", has the latest figures.)
"""
import argparse
import json
import os
import shlex
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("build_dir")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    build = os.path.abspath(args.build_dir)
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    source = os.path.dirname(build)
    units = [c for c in commands if c["file"].endswith(".cc") and "/tests/" not in c["file"]
             and "/bench/" not in c["file"]]
    out = tempfile.mkdtemp(prefix="cosimo-compile-times-")

    def compile_one(item):
        i, c = item
        argv = shlex.split(c["command"])
        argv[argv.index("-o") + 1] = os.path.join(out, f"{i}.o")
        process = subprocess.Popen(argv, cwd=c["directory"])
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            raise RuntimeError(f"{c['file']}: the compiler exited with {process.returncode}")
        return usage.ru_utime + usage.ru_stime, os.path.relpath(c["file"], source)

    wall = time.monotonic()
    with ThreadPoolExecutor(2) as pool:
        times = sorted(pool.map(compile_one, enumerate(units)), reverse=True)
    wall = time.monotonic() - wall
    total = sum(t for t, _ in times)
    print(f"{len(times)} translation units: {total:.0f} s of compile (CPU), {wall:.0f} s wall "
          f"(two at a time)")
    for t, name in times[:args.top]:
        print(f"{t:6.1f} s  {name}")


if __name__ == "__main__":
    main()
