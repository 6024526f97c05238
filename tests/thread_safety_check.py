#!/usr/bin/env python3
"""Clang's thread-safety analysis over the sources that use absl::Mutex annotations.

GCC ignores ABSL_GUARDED_BY and friends; this compiles (syntax only) every translation unit of
the tree whose source or own header names an absl::Mutex with clang++ -Wthread-safety -Werror,
with the flags of compile_commands.json, so that an access without its lock fails the suite.
    thread_safety_check.py CLANGXX SOURCE_DIR BUILD_DIR
"""
import json
import os
import shlex
import subprocess
import sys

MARKERS = ("ABSL_GUARDED_BY", "ABSL_EXCLUSIVE_LOCKS_REQUIRED", "absl::Mutex")


def annotated(path):
    for candidate in (path, os.path.splitext(path)[0] + ".h"):
        try:
            with open(candidate, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            continue
        if any(m in text for m in MARKERS):
            return True
    return False


def main():
    clangxx, source_dir, build_dir = sys.argv[1:4]
    with open(os.path.join(build_dir, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    seen = set()
    checked = 0
    failed = []
    for entry in entries:
        path = entry["file"]
        if not path.startswith(source_dir) or "/tests/" in path or path in seen:
            continue
        if not path.endswith(".cc") or not annotated(path):
            continue
        seen.add(path)
        args = shlex.split(entry["command"])[1:]
        kept = []
        skip = False
        for a in args:
            if skip:
                skip = False
                continue
            if a == "-o":
                skip = True
                continue
            if a == "-c":
                continue
            kept.append(a)
        command = [clangxx, *kept, "-fsyntax-only", "-Wthread-safety", "-Werror",
                   "-Wno-unknown-warning-option"]
        result = subprocess.run(command, cwd=entry["directory"], capture_output=True, text=True)
        checked += 1
        if result.returncode != 0:
            failed.append(path)
            sys.stdout.write(result.stdout + result.stderr)
    print(f"thread-safety analysis: {checked} translation units checked, {len(failed)} failed")
    if checked == 0:
        print("no annotated translation unit found: the check checks nothing")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
