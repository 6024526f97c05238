#!/usr/bin/env python3
"""Generates the gRPC stubs of the ``cosimo`` package from ``proto/cosimo/v1/``.

The stubs (``cosimo/v1/*_pb2.py`` and ``*_pb2_grpc.py``) are never written by hand and never
committed: the CMake build makes them (target ``cosimo_python_package``), and so does
``pip install ./python``. Both run this file, which calls Debian's ``protoc`` with
``grpc_python_plugin`` (packages protobuf-compiler and protobuf-compiler-grpc) and then writes
``cosimo/v1/_stubs.json``: the SHA-256 of every ``.proto`` it read and of every file it wrote.
``cosimo._stubs`` checks that manifest when the package is imported, so a stub older than its
``.proto`` (or edited by hand) is named instead of failing in some later call.

    python3 python/cosimo/_generate.py --proto-dir proto --out python/cosimo/v1

It imports nothing from the package (the package cannot be imported before its stubs exist).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# The protos a client needs, relative to the proto folder (worker_service.proto is the workers').
PROTOS = ("cosimo/v1/scenario.proto", "cosimo/v1/sweep.proto", "cosimo/v1/calibration.proto",
          "cosimo/v1/job_service.proto", "cosimo/v1/artifact_service.proto")
MANIFEST = "_stubs.json"


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file's bytes, as hex."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def stub_names(proto: str) -> list[str]:
    """The files protoc writes for `proto` ("cosimo/v1/x.proto"), relative to the v1 folder."""
    base = Path(proto).stem
    return [base + "_pb2.py", base + "_pb2_grpc.py"]


def find_tool(name: str, fallback: str) -> str:
    """`name` on the PATH, else `fallback` (Debian's location) when it exists."""
    found = shutil.which(name)
    if found:
        return found
    if os.path.exists(fallback):
        return fallback
    raise SystemExit(f"cosimo stubs: no {name} (Debian: apt-get install protobuf-compiler "
                     "protobuf-compiler-grpc)")


def generate(proto_dir: Path, out: Path, protoc: str | None = None,
             plugin: str | None = None) -> None:
    """Writes the stubs of PROTOS and the manifest into `out` (the package's v1 folder).

    Files are written to a temporary folder first and then moved into place, so an interrupted
    run leaves either the old stubs with their manifest or the new ones.
    """
    protoc = protoc or find_tool("protoc", "/usr/bin/protoc")
    plugin = plugin or find_tool("grpc_python_plugin", "/usr/bin/grpc_python_plugin")
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cosimo-stubs-") as tmp:
        subprocess.run([protoc, f"--proto_path={proto_dir}", f"--python_out={tmp}",
                        f"--grpc_python_out={tmp}", f"--plugin=protoc-gen-grpc_python={plugin}",
                        *PROTOS], check=True)
        manifest: dict[str, dict[str, str]] = {"protos": {}, "stubs": {}}
        for proto in PROTOS:
            manifest["protos"][proto] = sha256_of(proto_dir / proto)
            for name in stub_names(proto):
                generated = Path(tmp) / "cosimo" / "v1" / name
                manifest["stubs"][name] = sha256_of(generated)
                shutil.move(str(generated), str(out / name))
        text = json.dumps(manifest, indent=2, sort_keys=True) + "\n"
        (out / MANIFEST).write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    here = Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proto-dir", type=Path, default=here.parent.parent / "proto",
                        help="the folder holding cosimo/v1/*.proto (default: the repository's)")
    parser.add_argument("--out", type=Path, default=here / "v1",
                        help="the package's v1 folder (default: beside this file)")
    parser.add_argument("--protoc", help="protoc to use (default: on the PATH)")
    parser.add_argument("--plugin", help="grpc_python_plugin to use (default: on the PATH)")
    args = parser.parse_args(argv)
    generate(args.proto_dir, args.out, args.protoc, args.plugin)
    return 0


if __name__ == "__main__":
    sys.exit(main())
