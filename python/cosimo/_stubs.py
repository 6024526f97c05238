"""The generated gRPC stubs, checked before use.

``cosimo/_generate.py`` writes the stubs and a manifest (``cosimo/v1/_stubs.json``) with the
SHA-256 of every ``.proto`` it read and every stub it wrote. Importing this module checks:

- that the stubs exist (else: how to generate them);
- that each stub is byte for byte what the generator wrote (a hand edit is named);
- when the package is used in place from the repository (``PYTHONPATH=python``) and so the
  ``.proto`` files are beside it, that none changed since (a stale stub is named with its proto).

Any failure raises :class:`StaleStubs`, an ImportError, with the file and the command that mends it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

_V1 = Path(__file__).resolve().parent / "v1"
_PROTO_DIR = Path(__file__).resolve().parent.parent.parent / "proto"
_REGENERATE = ("regenerate them: cmake --build build --target cosimo_python_package, or "
               "python3 python/cosimo/_generate.py, or pip install ./python again")


class StaleStubs(ImportError):
    """The package's generated stubs are missing, stale or were edited; the message names which."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check(v1_dir: Path = _V1, proto_dir: Path = _PROTO_DIR) -> None:
    """Raises StaleStubs unless the stubs in `v1_dir` match their manifest and, when `proto_dir`
    holds the protos, the protos the manifest names."""
    manifest_path = v1_dir / "_stubs.json"
    if not manifest_path.is_file():
        raise StaleStubs(f"cosimo: the gRPC stubs are not generated ({manifest_path} is missing); "
                         + _REGENERATE)
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for name, digest in sorted(manifest["stubs"].items()):
        stub = v1_dir / name
        if not stub.is_file():
            raise StaleStubs(f"cosimo: the gRPC stub {stub} is missing; " + _REGENERATE)
        if _sha256(stub) != digest:
            raise StaleStubs(f"cosimo: the gRPC stub {stub} is not what the generator wrote "
                             "(edited by hand?); " + _REGENERATE)
    for proto, digest in sorted(manifest["protos"].items()):
        source = proto_dir / proto
        if source.is_file() and _sha256(source) != digest:
            stubs = ", ".join(str(v1_dir / (Path(proto).stem + s)) for s in ("_pb2.py",
                                                                            "_pb2_grpc.py"))
            raise StaleStubs(f"cosimo: the gRPC stubs {stubs} are stale: {source} changed since "
                             "they were generated; " + _REGENERATE)


check()

# Imported only once checked: a stale stub would load and then misread messages.
from cosimo.v1 import artifact_service_pb2 as artifact_pb  # noqa: E402
from cosimo.v1 import artifact_service_pb2_grpc as artifact_grpc  # noqa: E402
from cosimo.v1 import calibration_pb2 as calibration_pb  # noqa: E402
from cosimo.v1 import job_service_pb2 as job_pb  # noqa: E402
from cosimo.v1 import job_service_pb2_grpc as job_grpc  # noqa: E402
from cosimo.v1 import scenario_pb2 as scenario_pb  # noqa: E402
from cosimo.v1 import sweep_pb2 as sweep_pb  # noqa: E402

__all__ = ["StaleStubs", "check", "artifact_pb", "artifact_grpc", "calibration_pb", "job_pb",
           "job_grpc", "scenario_pb", "sweep_pb"]
