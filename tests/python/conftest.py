"""Fixtures of the Python package's tests: real ``cosimo-orchestrator`` and ``cosimo-worker``
processes on free loopback ports, the ``cosimo`` CLI to compare with, the test FMUs.

Programs and FMUs come from ``$COSIMO_BUILD_DIR`` (CTest sets it; default: the repository's
``build/``). Every process a test starts is stopped by a finalizer, and dies with the test run
(PR_SET_PDEATHSIG) if pytest itself is killed; every wait is bounded.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

import cosimo

REPOSITORY = Path(__file__).resolve().parent.parent.parent
BUILD = Path(os.environ.get("COSIMO_BUILD_DIR") or REPOSITORY / "build")
BIN = BUILD / "bin"
FMUS = BUILD / "fmus"
CAR = REPOSITORY / "examples" / "car.json"


def _die_with_parent() -> None:
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class Processes:
    """Processes started for one test or module; `stop` ends them all (TERM, then KILL)."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, argv: list[str], log: Path) -> subprocess.Popen[bytes]:
        with open(log, "wb") as out:
            process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                       stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
        self.started.append(process)
        return process

    def stop(self) -> None:
        for process in self.started:
            if process.poll() is None:
                process.terminate()
        for process in self.started:
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(10)


class Service:
    """An orchestrator and `workers` workers in `folder`; `address` is where it listens."""

    def __init__(self, folder: Path, workers: int, orchestrator_args: Sequence[str] = (),
                 worker_args: Sequence[str] = ()) -> None:
        self.folder = folder
        self.processes = Processes()
        port_file = folder / "port"
        self.orchestrator = self.processes.start(
            [str(BIN / "cosimo-orchestrator"), "--listen", "127.0.0.1:0", "--port-file",
             str(port_file), "--data-dir", str(folder / "data"), "--heartbeat-interval-ms", "200",
             "--heartbeat-timeout-ms", "3000", *orchestrator_args], folder / "orchestrator.log")
        deadline = time.monotonic() + 20
        while not port_file.is_file() or not port_file.read_text().endswith("\n"):
            if time.monotonic() > deadline or self.orchestrator.poll() is not None:
                self.processes.stop()
                raise RuntimeError("the orchestrator did not start: " +
                                   (folder / "orchestrator.log").read_text())
            time.sleep(0.02)
        self.address = f"127.0.0.1:{int(port_file.read_text())}"
        for i in range(workers):
            self.processes.start([str(BIN / "cosimo-worker"), "--orchestrator", self.address,
                                  "--cache-dir", str(folder / "cache"), *worker_args],
                                 folder / f"worker{i}.log")
        self.workers = workers

    def wait_for_workers(self, client: cosimo.Client) -> None:
        """Until every worker has attached (at most 20 s)."""
        deadline = time.monotonic() + 20
        while len(client.workers()) < self.workers:
            assert time.monotonic() < deadline, "workers did not attach"
            time.sleep(0.05)

    def stop(self) -> None:
        self.processes.stop()


def cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Runs the ``cosimo`` CLI of this build; its output as text."""
    return subprocess.run([str(BIN / "cosimo"), *args], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    """An orchestrator with two workers, shared by a module's tests."""
    running = Service(tmp_path_factory.mktemp("service"), workers=2)
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def client(service: Service) -> Iterator[cosimo.Client]:
    """A client of `service`, its workers attached."""
    with cosimo.Client(service.address) as c:
        service.wait_for_workers(c)
        yield c
