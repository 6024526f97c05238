#!/usr/bin/env python3
"""Submit a scenario to a Cosimo orchestrator from Python, follow it, and write its results.

What `cosimo submit SCENARIO.json --wait` and `cosimo results` do, with nothing but gRPC
(Debian's python3-grpcio). The Python stubs come from the build tree (the CMake build generates
them into build/python; COSIMO_PYTHON_STUBS or COSIMO_BUILD_DIR point elsewhere), so the script
runs from any folder; without a build they are generated from proto/ by Debian's protoc and
grpc_python_plugin (protobuf-compiler, protobuf-compiler-grpc).

    python3 examples/python/cosimo_submit.py examples/car.json --orchestrator localhost:7700 \
        --out car.csv [--tls-ca cert.pem --token-file token]

Prints the job id first, then progress lines on standard error; exits 0 only if the job
succeeded. FMU and table paths are uploaded (by SHA-256) as the CLI does.

This is the client written from scratch, with no dependency beyond gRPC; the `cosimo` package
(python/, docs/python.md, examples/python/car_notebook.py) does all of this and more.
"""

import argparse
import atexit
import decimal
import hashlib
import importlib
import math
import os
import shutil
import subprocess
import sys
import tempfile

PROTO_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "proto")
CHUNK = 1 << 20
CALL_TIMEOUT = 30.0  # s, for every call but the job's watch (as long as the job) and results


def stub_dirs():
    """Where generated stubs may already be: $COSIMO_PYTHON_STUBS, then the build tree's python/
    folder (CMake generates it: build/python, or $COSIMO_BUILD_DIR/python)."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    dirs = [os.environ.get("COSIMO_PYTHON_STUBS"),
            os.path.join(os.environ.get("COSIMO_BUILD_DIR") or os.path.join(root, "build"),
                         "python")]
    return [d for d in dirs if d and os.path.isfile(
        os.path.join(d, "cosimo", "v1", "job_service_pb2_grpc.py"))]


def load_stubs():
    """Imports the cosimo.v1 Python modules: from the build tree when it has them (no protoc
    needed), else generated from proto/ into a temporary folder."""
    names = ("scenario_pb2", "job_service_pb2", "job_service_pb2_grpc",
             "artifact_service_pb2", "artifact_service_pb2_grpc")
    found = stub_dirs()
    if found:
        out = found[0]
    else:
        if not shutil.which("protoc") or not os.path.exists("/usr/bin/grpc_python_plugin"):
            sys.exit("cosimo_submit: no generated stubs (build the project: cmake puts them in "
                     "build/python, or set COSIMO_PYTHON_STUBS) and no protoc with "
                     "grpc_python_plugin to generate them (Debian: protobuf-compiler-grpc)")
        out = tempfile.mkdtemp(prefix="cosimo-py-")
        atexit.register(shutil.rmtree, out, True)
        protos = [os.path.join("cosimo", "v1", f) for f in
                  ("scenario.proto", "sweep.proto", "calibration.proto", "job_service.proto",
                   "artifact_service.proto")]
        subprocess.run(["protoc", "-I", PROTO_DIR, "--python_out", out, "--grpc_python_out", out,
                        "--plugin=protoc-gen-grpc_python=/usr/bin/grpc_python_plugin"] + protos,
                       check=True)
    sys.path.insert(0, out)
    return {n: importlib.import_module("cosimo.v1." + n) for n in names}


def channel(args):
    import grpc
    options = [("grpc.max_receive_message_length", 64 << 20)]
    if not args.tls_ca:
        if args.token_file:
            sys.exit("cosimo_submit: --token-file needs --tls-ca (the token is only sent over TLS)")
        return grpc.insecure_channel(args.orchestrator, options=options)
    with open(args.tls_ca, "rb") as f:
        credentials = grpc.ssl_channel_credentials(root_certificates=f.read())
    if args.token_file:
        with open(args.token_file) as f:
            token = f.read().strip()
        credentials = grpc.composite_channel_credentials(
            credentials, grpc.access_token_call_credentials(token))
    return grpc.secure_channel(args.orchestrator, credentials, options=options)


def upload(stubs, artifacts, path):
    """Uploads one file unless the orchestrator has it; returns its digest."""
    pb = stubs["artifact_service_pb2"]
    with open(path, "rb") as f:
        data = f.read()
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if artifacts.Stat(pb.StatRequest(digest=digest), timeout=CALL_TIMEOUT).stored:
        return digest

    def chunks():
        first = pb.UploadChunk(digest=digest, size=len(data), file_name=os.path.basename(path))
        for offset in range(0, max(len(data), 1), CHUNK):
            chunk = first if offset == 0 else pb.UploadChunk()
            chunk.data = data[offset:offset + CHUNK]
            yield chunk

    # At least 10 MB/s, as the CLI allows.
    return artifacts.Upload(chunks(), timeout=CALL_TIMEOUT + len(data) / 10e6).digest


def csv_text(text):
    if any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


def shortest(v):
    """A number as the CLI's CSV writes it (C++ std::to_chars): the shortest digits that read
    back to the same double (Python's repr finds the same), in fixed or scientific notation,
    whichever is shorter (fixed on a tie; the exponent has at least two digits)."""
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    sign, digit_tuple, exponent = decimal.Decimal(repr(v)).as_tuple()
    digits = "".join(map(str, digit_tuple))
    stripped = digits.rstrip("0")
    exponent += len(digits) - len(stripped)
    digits = stripped or "0"
    minus = "-" if sign else ""
    if digits == "0":
        return minus + "0"
    point = len(digits) + exponent  # where the decimal point goes, counted from the first digit
    if exponent >= 0:  # an integer: its exact digits, as to_chars (1234567890123456774144)
        fixed = str(int(abs(v)))
    elif point > 0:
        fixed = digits[:point] + "." + digits[point:]
    else:
        fixed = "0." + "0" * -point + digits
    e = point - 1
    scientific = (digits[0] + ("." + digits[1:] if len(digits) > 1 else "") +
                  "e" + ("-" if e < 0 else "+") + "%02d" % abs(e))
    return minus + (fixed if len(fixed) <= len(scientific) else scientific)


def write_csv(stubs, header, rows, path):
    """The CSV `cosimo results` writes: shortest round-trip numbers, true/false, quoted
    strings."""
    scenario_pb2 = stubs["scenario_pb2"]
    width = len(header.columns)
    types = list(header.column_types) or [scenario_pb2.REAL] * width
    texts_per_row = sum(1 for t in types if t == scenario_pb2.STRING)
    with open(path, "w", newline="") as out:
        out.write(",".join(csv_text(c) for c in header.columns) + "\n")
        values = [v for r in rows for v in r.values]
        strings = [s for r in rows for s in r.strings]
        for row in range(len(values) // width if width else 0):
            cells = []
            text = row * texts_per_row
            for c in range(width):
                v = values[row * width + c]
                if types[c] == scenario_pb2.BOOLEAN:
                    cells.append("true" if v != 0.0 else "false")
                elif types[c] == scenario_pb2.STRING:
                    cells.append(csv_text(strings[text]) if text < len(strings) else "")
                    text += 1
                else:
                    cells.append(shortest(v))
            out.write(",".join(cells) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", help="scenario JSON file")
    parser.add_argument("--orchestrator",
                        default=os.environ.get("COSIMO_ORCHESTRATOR") or "localhost:7700")
    parser.add_argument("--out", default="results.csv", help="results CSV")
    parser.add_argument("--tls-ca", default=os.environ.get("COSIMO_TLS_CA"))
    parser.add_argument("--token-file", default=os.environ.get("COSIMO_TOKEN_FILE"))
    args = parser.parse_args()

    stubs = load_stubs()
    from google.protobuf import json_format
    scenario = stubs["scenario_pb2"].Scenario()
    with open(args.scenario) as f:
        json_format.Parse(f.read(), scenario)

    ch = channel(args)
    jobs = stubs["job_service_pb2_grpc"].JobServiceStub(ch)
    artifacts = stubs["artifact_service_pb2_grpc"].ArtifactServiceStub(ch)
    base = os.path.dirname(os.path.abspath(args.scenario))
    for unit in scenario.units:
        model = unit.fmu if unit.HasField("fmu") else unit.table if unit.HasField("table") else None
        if model is not None and model.path and not model.digest:
            model.digest = upload(stubs, artifacts, os.path.join(base, model.path))

    pb = stubs["job_service_pb2"]
    job_id = jobs.SubmitJob(pb.SubmitJobRequest(scenario=scenario), timeout=CALL_TIMEOUT).job_id
    print(job_id, flush=True)
    status = None
    for status in jobs.WatchJob(pb.WatchJobRequest(job_id=job_id, min_interval_ms=200)):
        print("%s %s t=%g/%g steps=%d" % (job_id, pb.JobState.Name(status.state), status.time,
                                         status.stop_time, status.steps_accepted),
              file=sys.stderr)
    if status is None or status.state != pb.SUCCEEDED:
        sys.exit("cosimo_submit: job %s %s: %s" % (
            job_id, pb.JobState.Name(status.state) if status else "lost", status.message if status else ""))

    header, rows = None, []
    for chunk in jobs.GetResults(pb.GetResultsRequest(job_id=job_id)):
        if chunk.HasField("header"):
            header = chunk.header
        else:
            rows.append(chunk.rows)
    write_csv(stubs, header, rows, args.out)
    print("results written to %s" % args.out, file=sys.stderr)


if __name__ == "__main__":
    main()
