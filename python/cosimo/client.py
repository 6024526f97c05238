"""The client of a Cosimo orchestrator: submit, follow, cancel and fetch jobs from Python.

:class:`Client` is what the ``cosimo`` CLI's client verbs do (``submit``, ``watch``,
``results``, ``cancel``, ``list``, ``workers``, ``delete``, ``train --orchestrator``) over the
same gRPC API (``proto/cosimo/v1``, docs/protocol.md): files a scenario names are uploaded by
SHA-256 (skipped when the orchestrator has them), every call has a deadline, and every failure
is a :class:`cosimo.CosimoError` with the gRPC status and the server's message.

Thread safety: a Client (its gRPC channel) may be shared between threads; a :class:`Job` is a
handle (the client and an id) and may be too.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import grpc
from google.protobuf import json_format

from cosimo._stubs import (artifact_grpc, artifact_pb, calibration_pb, job_grpc, job_pb,
                           sweep_pb)
from cosimo.errors import CosimoError, InvalidScenario, JobFailed, Timeout, from_rpc_error
from cosimo.results import Results
from cosimo.scenario import LoadedScenario, ScenarioLike, artifacts, load_scenario

DEFAULT_ADDRESS = "localhost:7700"
CHUNK_BYTES = 1 << 20  # per upload message, as the CLI
_ENDED = ("SUCCEEDED", "FAILED", "CANCELED")
_T = TypeVar("_T")


@dataclass(frozen=True)
class TrainingStatus:
    """What a training job trains and how far it got (``JobStatus.training``)."""

    unit: str
    epochs: int         # requested
    learning_rate: float
    epoch: int          # epochs done so far
    loss: float         # of the last epoch done (at the trained parameters once succeeded)
    first_loss: float   # before training
    seconds: float      # s of training on the worker so far


@dataclass(frozen=True)
class JobStatus:
    """One job's status as the orchestrator reports it (``cosimo.v1.JobStatus``).

    ``state`` is ``"QUEUED"``, ``"RUNNING"``, ``"SUCCEEDED"``, ``"FAILED"`` or ``"CANCELED"``;
    ``message`` the failure reason, or what a queued job waits for. Times in s (``time`` is
    the simulated time reached), ``*_unix_ms`` in ms since the Unix epoch (0: not yet).
    """

    job_id: str
    name: str
    state: str
    message: str
    start_time: float
    stop_time: float
    time: float
    steps_accepted: int
    steps_rejected: int
    iterations: int
    workers_needed: int
    workers_available: int
    wall_seconds: float
    submitted_unix_ms: int
    finished_unix_ms: int
    owner: str
    training: TrainingStatus | None = None
    proto: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_proto(cls, s: Any) -> JobStatus:
        training = None
        if s.HasField("training"):
            t = s.training
            training = TrainingStatus(t.request.unit, t.request.epochs, t.request.learning_rate,
                                      t.epoch, t.loss, t.first_loss, t.seconds)
        return cls(s.job_id, s.name, job_pb.JobState.Name(s.state), s.message, s.start_time,
                   s.stop_time, s.time, s.steps_accepted, s.steps_rejected, s.iterations,
                   s.workers_needed, s.workers_available, s.wall_seconds, s.submitted_unix_ms,
                   s.finished_unix_ms, s.owner, training, s)

    @property
    def done(self) -> bool:
        """Whether the job has ended (SUCCEEDED, FAILED or CANCELED)."""
        return self.state in _ENDED

    @property
    def progress(self) -> float:
        """How far the job got, from 0 to 1 (simulated time, or epochs of a training job)."""
        if self.training is not None:
            return self.training.epoch / self.training.epochs if self.training.epochs else 1.0
        span = self.stop_time - self.start_time
        return min(max((self.time - self.start_time) / span, 0.0), 1.0) if span > 0 else 0.0

    def __str__(self) -> str:
        if self.training is not None:
            where = (f"epoch {self.training.epoch}/{self.training.epochs}, "
                     f"loss {self.training.loss:.4g}")
        else:
            where = (f"t={self.time:g}/{self.stop_time:g} s, {self.steps_accepted} steps"
                     + (f", {self.steps_rejected} rejected" if self.steps_rejected else ""))
        text = f"{self.job_id} {self.state} ({self.progress:.0%}: {where})"
        return text + (f": {self.message}" if self.message else "")


@dataclass(frozen=True)
class WorkerStatus:
    """A worker attached to the orchestrator (``cosimo workers``)."""

    worker_id: str
    host: str
    pid: int
    labels: list[str]
    busy: bool
    job_id: str
    slots: int       # units it hosts at once (a worker from before slots says 0: one)
    slots_busy: int
    messages: int    # messages written to it for jobs so far

    @classmethod
    def from_proto(cls, w: Any) -> WorkerStatus:
        return cls(w.worker_id, w.host, w.pid, list(w.labels), w.busy, w.job_id,
                   max(w.slots, 1), w.slots_busy, w.messages)


@dataclass(frozen=True)
class TrainingResult:
    """What a succeeded training job produced: the weights file and how training went."""

    unit: str
    weights_json: str  # the weights file, byte for byte what a local ``cosimo train`` writes
    epochs: int
    first_loss: float
    final_loss: float
    seconds: float     # s of training on the worker
    worker: str
    host: str

    @property
    def weights(self) -> dict[str, Any]:
        """The weights file parsed (JSON of ``cosimo.v1.HybridWeights``)."""
        return json.loads(self.weights_json)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Writes the weights file (what ``hybrid.weights.path`` of a scenario names)."""
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(self.weights_json)


def _read_credential(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as f:
            data = f.read().rstrip()
    except OSError as e:
        raise ValueError(f"cosimo: {what}: cannot read '{path}': {e.strerror}") from None
    if not data:
        raise ValueError(f"cosimo: {what}: '{path}' is empty")
    return data


class Client:
    """A connection to a Cosimo orchestrator.

    Args:
        address: ``HOST:PORT`` of the orchestrator. Default: ``$COSIMO_ORCHESTRATOR``, else
            ``localhost:7700`` (as the CLI).
        tls_ca: dial TLS, trusting the PEM certificates in this file. Default:
            ``$COSIMO_TLS_CA``; neither: plain gRPC.
        token: the client's token, sent with every call (needs TLS).
        token_file: a file holding the token. Default: ``$COSIMO_TOKEN_FILE`` (when `token` is
            not given).
        timeout: the deadline of each call, s (a watch lasts as long as its job; uploads get
            time in proportion to their size; results ten times this).

    Raises ValueError for a token without TLS or an unreadable file, as the CLI refuses them.
    Use it as a context manager, or call :meth:`close`, to close the channel.
    """

    def __init__(self, address: str | None = None, *, tls_ca: str | os.PathLike[str] | None = None,
                 token: str | None = None, token_file: str | os.PathLike[str] | None = None,
                 timeout: float = 30.0) -> None:
        self.address: str = address or os.environ.get("COSIMO_ORCHESTRATOR") or DEFAULT_ADDRESS
        self.timeout = timeout
        tls_ca = tls_ca or os.environ.get("COSIMO_TLS_CA") or None
        if token is None:
            token_file = token_file or os.environ.get("COSIMO_TOKEN_FILE") or None
            if token_file:
                token = _read_credential(os.fspath(token_file), "token_file").decode()
        options = [("grpc.max_receive_message_length", 64 << 20)]
        if tls_ca is None:
            if token:
                raise ValueError("cosimo: a token needs tls_ca (the token is only sent over TLS)")
            self._channel = grpc.insecure_channel(self.address, options=options)
        else:
            credentials = grpc.ssl_channel_credentials(
                root_certificates=_read_credential(os.fspath(tls_ca), "tls_ca"))
            if token:
                credentials = grpc.composite_channel_credentials(
                    credentials, grpc.access_token_call_credentials(token))
            self._channel = grpc.secure_channel(self.address, credentials, options=options)
        self._jobs = job_grpc.JobServiceStub(self._channel)
        self._artifacts = artifact_grpc.ArtifactServiceStub(self._channel)
        self.secure = tls_ca is not None

    # --- plumbing ------------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the channel; the client cannot be used afterwards."""
        self._channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<cosimo.Client {self.address}{' (TLS)' if self.secure else ''}>"

    def _call(self, rpc: Callable[..., _T], request: Any, what: str,
              timeout: float | None = None) -> _T:
        try:
            return rpc(request, timeout=self.timeout if timeout is None else timeout)
        except grpc.RpcError as e:
            raise from_rpc_error(e, what, self.address) from None

    # --- artifacts -----------------------------------------------------------------------------

    def upload(self, path: str | os.PathLike[str]) -> str:
        """Uploads one file unless the orchestrator has it; returns its ``sha256:<hex>``."""
        path = os.fspath(path)
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(CHUNK_BYTES), b""):
                digest.update(block)
        name = "sha256:" + digest.hexdigest()
        if self._call(self._artifacts.Stat, artifact_pb.StatRequest(digest=name),
                      f"upload of '{path}'").stored:
            return name
        size = os.path.getsize(path)

        def chunks() -> Iterator[Any]:
            with open(path, "rb") as f:
                first = True
                while True:
                    block = f.read(CHUNK_BYTES)
                    if not block and not first:
                        return
                    if first:
                        yield artifact_pb.UploadChunk(digest=name, size=size,
                                                      file_name=os.path.basename(path), data=block)
                        first = False
                    else:
                        yield artifact_pb.UploadChunk(data=block)

        # At least 10 MB/s, as the CLI allows.
        self._call(self._artifacts.Upload, chunks(), f"upload of '{path}'",
                   self.timeout + size / 10e6)
        return name

    def _upload_artifacts(self, scenario: Any) -> None:
        for i, unit in enumerate(scenario.units):
            for where, model in artifacts(unit):
                if not model.path or model.digest:
                    continue
                if not os.path.isfile(model.path):
                    raise InvalidScenario(f"units[{i}].{where}.path: unit '{unit.name}': cannot "
                                          f"read '{model.path}'")
                model.digest = self.upload(model.path)

    # --- jobs ----------------------------------------------------------------------------------

    def submit(self, scenario: ScenarioLike, *, base_dir: str | os.PathLike[str] | None = None,
               stop_time: float | None = None, step_size: float | None = None) -> Job:
        """Uploads the scenario's files (FMUs, tables, weights) by digest and submits it.

        Args:
            scenario: a dict (protobuf's JSON mapping, as the JSON files), a path to a scenario
                JSON or to an SSP (``.ssp``, ``.ssd``), or a ``cosimo.v1.Scenario`` message.
                An SSP is imported by the ``cosimo`` program (``cosimo import``, found as
                :func:`cosimo.run` finds it), since the SSP import is the C++ CLI's.
            base_dir: the folder relative paths of a dict or message are taken from (default:
                the current folder; a JSON file's own folder for a path).
            stop_time, step_size: instead of the scenario's (for an SSP: instead of its
                DefaultExperiment, as ``--stop-time`` / ``--step-size``).

        Returns the :class:`Job`. Raises InvalidScenario (naming the field) for a scenario
        the orchestrator or the parser here refuses, CosimoError for other failures.
        """
        loaded = load_scenario(scenario, base_dir, stop_time=stop_time, step_size=step_size)
        return self._submit(loaded, None)

    def train(self, scenario: ScenarioLike, data: str | os.PathLike[str], unit: str, *,
              epochs: int = 100, learning_rate: float = 1e-3,
              base_dir: str | os.PathLike[str] | None = None) -> Job:
        """Submits a training job of a hybrid unit (docs/hybrid.md), as ``cosimo train
        --orchestrator``: the scenario's files and the measured CSV `data` (``time``, then
        ``<unit>.<variable>`` columns: a results CSV) are uploaded, and one worker fits the
        unit's networks with Adam for `epochs` epochs at `learning_rate`.

        Returns the :class:`Job`; ``job.wait()`` then ``job.training_result()`` give the
        weights file.
        """
        data = os.fspath(data)
        if not os.path.isfile(data):
            raise InvalidScenario(f"data: cannot read '{data}'")
        loaded = load_scenario(scenario, base_dir)
        request = job_pb.TrainingRequest(unit=unit, epochs=epochs, learning_rate=learning_rate,
                                         data_name=os.path.basename(data))
        return self._submit(loaded, (request, data))

    def sweep(self, sweep: dict[str, Any] | str | os.PathLike[str], *, wait: bool = True,
              timeout: float | None = None) -> Any:
        """Submits a parameter sweep (docs/sweeps.md) as one job, as ``cosimo sweep
        --orchestrator``: the sweep file's base scenario (``scenario_file``, relative to the
        sweep file, or ``scenario`` inline) has its files uploaded, and the orchestrator runs the
        variants on its workers.

        Args:
            sweep: a path to a sweep JSON file, or its dict (relative paths then from the
                current folder).
            wait: follow the job to its end and return its table (else return the :class:`Job`).
            timeout: with `wait`, at most this many seconds (:class:`cosimo.Timeout`).

        Returns the sweep table, one row per variant (index, the parameters' values, the KPIs,
        ``status``, ``wall_time_s``, ``message``), as a pandas DataFrame when pandas is
        installed, else as :class:`Results`; or the :class:`Job` without `wait`. A variant that
        fails is a FAILED row, not an error. Raises InvalidScenario naming the field
        (``sweep.parameters[0].linspace: ...``) for a sweep the orchestrator refuses.
        """
        if isinstance(sweep, dict):
            data, base_dir, source = dict(sweep), Path(os.getcwd()), "sweep"
        else:
            path = os.fspath(sweep)
            try:
                with open(path, encoding="utf-8") as f:
                    data = json.load(f)
            except OSError as e:
                raise InvalidScenario(f"cannot read sweep file '{path}': {e.strerror}") from None
            except json.JSONDecodeError as e:
                raise InvalidScenario(f"{path}: not valid JSON: {e.msg} at line {e.lineno} "
                                      f"column {e.colno}") from None
            base_dir, source = Path(path).resolve().parent, path
        if not isinstance(data, dict):
            raise InvalidScenario(f"{source}: a sweep is a JSON object")
        inline, scenario_file = data.pop("scenario", None), data.pop("scenario_file", None)
        if (inline is None) == (scenario_file is None):
            raise InvalidScenario(f"{source}: give the base scenario as scenario_file or "
                                  "scenario (one of them)")
        message = sweep_pb.Sweep()
        try:
            json_format.ParseDict(data, message, ignore_unknown_fields=False)
        except json_format.ParseError as e:
            raise InvalidScenario(f"{source}: {e}") from None
        if inline is not None:
            loaded = load_scenario(inline, base_dir)
        else:
            loaded = load_scenario(str(base_dir / scenario_file))
        job = self._submit(loaded, None, sweep=message)
        if not wait:
            return job
        job.wait(timeout)
        table = job.results()
        try:
            return table.to_pandas()
        except ImportError:
            return table

    def fit(self, calibration: str | os.PathLike[str], *, wait: bool = True,
            timeout: float | None = None) -> Any:
        """Submits a calibration (docs/calibration.md) as one job, as ``cosimo fit
        --orchestrator``: the calibration file's base scenario has its files uploaded, its
        measured CSV is read here, and the orchestrator runs the optimiser, each batch of points
        variants on its workers.

        Returns, with `wait`, a dict: ``estimates``, ``standard_errors``, ``undetermined`` (by
        parameter name), ``objective``, ``correlation`` (a list of rows), ``stop_reason``,
        ``jacobian`` (where the Jacobians came from, and why: docs/calibration.md#the-jacobian),
        ``iterations``, ``evaluations``, ``history`` (one row per iteration: iteration,
        evaluations, objective, then each parameter: a pandas DataFrame when pandas is
        installed, else a list of dicts), ``best`` (the best run's results, a DataFrame or
        :class:`Results`) and ``job`` (the :class:`Job`); without `wait` the :class:`Job`.
        Raises InvalidScenario naming the field for a calibration refused, JobFailed when the
        fit failed or was canceled.
        """
        path = os.fspath(calibration)
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except OSError as e:
            raise InvalidScenario(f"cannot read calibration file '{path}': {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise InvalidScenario(f"{path}: not valid JSON: {e.msg} at line {e.lineno} "
                                  f"column {e.colno}") from None
        base_dir = Path(path).resolve().parent
        inline = data.pop("scenario", None) if isinstance(data, dict) else None
        message = calibration_pb.Calibration()
        try:
            json_format.ParseDict(data, message, ignore_unknown_fields=False)
        except json_format.ParseError as e:
            raise InvalidScenario(f"{path}: {e}") from None
        if inline is None and not message.scenario_file:
            raise InvalidScenario(f"{path}: give the base scenario as scenario_file or scenario")
        loaded = (load_scenario(inline, base_dir) if inline is not None
                  else load_scenario(str(base_dir / message.scenario_file)))
        if inline is not None:
            message.scenario_file = "(inline)"
        job_message = calibration_pb.CalibrationJob(calibration=message)
        job_message.samples.extend(_measured_samples(message, base_dir / message.data.csv, path))
        job = self._submit(loaded, None, calibration=job_message)
        if not wait:
            return job
        job.wait(timeout)
        return _fit_result(job)

    def _submit(self, loaded: LoadedScenario, training: tuple[Any, str] | None,
                sweep: Any = None, calibration: Any = None) -> Job:
        try:
            self._upload_artifacts(loaded.scenario)
            request = job_pb.SubmitJobRequest(scenario=loaded.scenario)
            if sweep is not None:
                request.sweep.CopyFrom(sweep)
            if calibration is not None:
                request.calibration.CopyFrom(calibration)
            if training is not None:
                message, data = training
                message.data_digest = self.upload(data)
                request.training.CopyFrom(message)
            response = self._call(self._jobs.SubmitJob, request, "submit")
        finally:
            loaded.close()
        return Job(self, response.job_id, loaded.notices)

    def job(self, job_id: str) -> Job:
        """The handle of a job submitted earlier (by anyone: ``cosimo submit`` prints the id)."""
        return Job(self, job_id)

    def jobs(self) -> list[JobStatus]:
        """Every job the orchestrator knows, newest first (``cosimo list``)."""
        out: list[JobStatus] = []
        request = job_pb.ListJobsRequest(page_size=1000)
        while True:
            response = self._call(self._jobs.ListJobs, request, "list")
            out.extend(JobStatus.from_proto(j) for j in response.jobs)
            if not response.next_page_token:
                return out
            request.page_token = response.next_page_token

    def workers(self) -> list[WorkerStatus]:
        """The workers attached to the orchestrator, in the order they attached."""
        response = self._call(self._jobs.ListWorkers, job_pb.ListWorkersRequest(),
                              "list workers")
        return [WorkerStatus.from_proto(w) for w in response.workers]

    def delete(self, job: Job | str) -> None:
        """Forgets a finished job and its results (a queued or running one is refused: cancel
        it first)."""
        job_id = job.id if isinstance(job, Job) else job
        self._call(self._jobs.DeleteJob, job_pb.DeleteJobRequest(job_id=job_id),
                   f"delete {job_id}")


class Job:
    """A job on the orchestrator: its id and the client that reaches it.

    Attributes:
        id: the job id (``job-...``).
        notices: how the scenario was completed before submitting (a stop time taken from the
            FMUs' DefaultExperiment, an SSP's import), as the CLI prints them.
    """

    def __init__(self, client: Client, job_id: str, notices: list[str] | None = None) -> None:
        self.client = client
        self.id = job_id
        self.notices = list(notices or [])
        self._last: JobStatus | None = None

    def status(self, timeout: float | None = None) -> JobStatus:
        """The job's status, once (``cosimo status``)."""
        response = self.client._call(self.client._jobs.GetJob,
                                     job_pb.GetJobRequest(job_id=self.id), f"status of {self.id}",
                                     timeout)
        self._last = JobStatus.from_proto(response.status)
        return self._last

    def watch(self, min_interval: float = 0.2, timeout: float | None = None
              ) -> Iterator[JobStatus]:
        """The job's status on every change (at most every `min_interval` s, and at least once a
        second while it runs), until it ends; the last one is its final status. `timeout` (s)
        bounds the whole watch (default: none); past it, :class:`cosimo.Timeout`. Leaving the
        loop early ends the watch (the job goes on)."""
        request = job_pb.WatchJobRequest(job_id=self.id,
                                         min_interval_ms=max(1, int(min_interval * 1000)))
        # Without a timeout the deadline only guards against a lost orchestrator, as the CLI's.
        call = self.client._jobs.WatchJob(request, timeout=timeout or 30 * 24 * 3600.0)
        try:
            for status in call:
                self._last = JobStatus.from_proto(status)
                yield self._last
        except grpc.RpcError as e:
            raise from_rpc_error(e, f"watch {self.id}", self.client.address) from None
        finally:
            call.cancel()

    def wait(self, timeout: float | None = None,
             on_update: Callable[[JobStatus], None] | None = None) -> JobStatus:
        """Waits until the job ends (`on_update` sees each status on the way) and returns its
        final status if it SUCCEEDED.

        Raises :class:`cosimo.JobFailed` (with the server's message) if it FAILED or was
        CANCELED, :class:`cosimo.Timeout` after `timeout` s (the job goes on). Interrupting
        (Ctrl-C) leaves the job running on the orchestrator, as ``cosimo watch``.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        status = self._last
        while status is None or not status.done:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                break
            try:
                for status in self.watch(timeout=left):
                    if on_update is not None:
                        on_update(status)
            except Timeout:
                break
            if status is None or not status.done:  # a watch ended early: ask again
                status = self.status()
        if status is None or not status.done:
            state = status.state if status else "unknown"
            raise Timeout(f"job {self.id} is still {state} after {timeout:g} s", None,
                          f"wait for {self.id}")
        if status.state != "SUCCEEDED":
            raise JobFailed(status)
        return status

    def cancel(self) -> JobStatus:
        """Cancels the job if it is queued or running (no effect on a finished one); returns its
        status."""
        response = self.client._call(self.client._jobs.CancelJob,
                                     job_pb.CancelJobRequest(job_id=self.id),
                                     f"cancel {self.id}")
        self._last = JobStatus.from_proto(response.status)
        return self._last

    def resume(self) -> JobStatus:
        """Queues a sweep that failed or was canceled again (``cosimo resume``): its finished
        variants' rows are kept, the others run. Raises CosimoError (FAILED_PRECONDITION) for
        another job or a sweep that has not ended or succeeded."""
        response = self.client._call(self.client._jobs.ResumeJob,
                                     job_pb.ResumeJobRequest(job_id=self.id),
                                     f"resume {self.id}")
        self._last = JobStatus.from_proto(response.status)
        return self._last

    def results(self, partial: bool = True) -> Results:
        """The results of the succeeded job (``cosimo results``); of a running one the rows so far
        (``.partial``, a prefix of its results: ``cosimo results --partial``; refused with
        `partial` False); a sweep's table also while it runs and after it failed or was canceled
        (partial: its variants not run are CANCELED rows). CosimoError (FAILED_PRECONDITION,
        naming the state and reason) for a job queued, failed or canceled."""
        return self._read_results(partial=partial)

    def stream(self, interval: float = 1.0, timeout: float | None = None) -> Iterator[Results]:
        """The job's rows as they are recorded, for a notebook loop: every `interval` s while it
        runs, a :class:`Results` of the rows new since the last one (``.first_row`` where they
        begin, ``.to_pandas()``), none when nothing came; every row once, in order, until it
        ends. :class:`cosimo.JobFailed` after the last rows if it failed or was canceled,
        :class:`cosimo.Timeout` after `timeout` s (the job goes on)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        next_row = 0
        while True:
            status = self.status()
            if status.state in ("RUNNING", "SUCCEEDED"):
                try:
                    chunk = self._read_results(partial=True, first_row=next_row)
                except CosimoError:  # it ended meanwhile: the next status says how
                    if status.state == "SUCCEEDED":
                        raise
                    chunk = None
                if chunk is not None and len(chunk):
                    next_row = chunk.first_row + len(chunk)
                    yield chunk
            if status.done:
                if status.state != "SUCCEEDED":
                    raise JobFailed(status)
                return
            if deadline is not None and time.monotonic() >= deadline:
                raise Timeout(f"job {self.id} is still {status.state}", None, f"stream {self.id}")
            time.sleep(interval)

    def _read_results(self, *, partial: bool, first_row: int = 0,
                      last_rows: int | None = None) -> Results:
        what = f"results of {self.id}"
        request = job_pb.GetResultsRequest(job_id=self.id, partial=partial, first_row=first_row)
        if last_rows is not None:
            request.last_rows = last_rows
        call = self.client._jobs.GetResults(request, timeout=self.client.timeout * 10)
        header = None
        rows = []
        try:
            for chunk in call:
                if chunk.HasField("header"):
                    header = chunk.header
                else:
                    rows.append(chunk.rows)
        except grpc.RpcError as e:
            raise from_rpc_error(e, what, self.client.address) from None
        if header is None:
            raise CosimoError("the orchestrator sent no results header", None, what)
        return Results.from_chunks(header, rows, self.id)

    def training_result(self) -> TrainingResult:
        """A succeeded training job's weights file and how training went."""
        r = self.client._call(self.client._jobs.GetTrainingResult,
                              job_pb.GetTrainingResultRequest(job_id=self.id),
                              f"training result of {self.id}")
        return TrainingResult(r.unit, r.weights_json, r.epochs, r.first_loss, r.final_loss,
                              r.seconds, r.worker, r.host)

    def logs(self, unit: str | None = None) -> list[dict[str, Any]]:
        """The job's log so far (``cosimo logs``): what its units said through the FMI logger
        and printed on their standard output and error, in order, one dict a line: ``unit``,
        ``source`` ("fmi", "stdout", "stderr"), ``status`` and ``category`` (of an FMI message),
        ``text``, ``time`` (simulated s of the call; None while the unit loads), ``unix_ms``.
        With `unit`, that unit's lines alone."""
        r = self.client._call(self.client._jobs.GetJobLogs,
                              job_pb.GetJobLogsRequest(job_id=self.id, unit=unit or ""),
                              f"log of {self.id}")
        return [{"unit": e.unit, "source": e.source, "status": e.status,
                 "category": e.category, "text": e.text,
                 "time": None if math.isnan(e.time) else e.time, "unix_ms": e.unix_ms}
                for e in r.entries]

    def delete(self) -> None:
        """Forgets the finished job and its results on the orchestrator."""
        self.client.delete(self.id)

    def _summary(self) -> str:
        try:
            status: JobStatus | None = self.status(timeout=2.0)
            known = ""
        except CosimoError:
            status, known = self._last, " (last known)"
        if status is None:
            return f"Job {self.id} on {self.client.address} (status unknown)"
        return f"Job {status}{known}" + (f" [{status.name}]" if status.name else "")

    def __repr__(self) -> str:
        return f"<cosimo.{self._summary()}>"

    def _repr_html_(self) -> str:
        import html

        return f"<div><b>cosimo</b> {html.escape(self._summary())}</div>"


def _measured_samples(message: Any, csv_path: Path, source: str) -> list[Any]:
    """The calibration's measured columns read from its CSV, as ``cosimo fit`` reads them: the
    first column time, empty cells left out, the factor 1 / standard_deviation, sqrt(weight) or 1."""
    import csv
    try:
        with open(csv_path, encoding="utf-8", newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise InvalidScenario(f"{source}: data.csv: cannot read '{csv_path}': {e.strerror}") \
            from None
    if not rows:
        raise InvalidScenario(f"{source}: data.csv: '{csv_path}' is empty")
    header, body = rows[0], rows[1:]
    out = []
    for i, column in enumerate(message.data.columns):
        if column.column not in header:
            raise InvalidScenario(f"{source}: data.columns[{i}].column: '{column.column}' is not "
                                  f"a column of {message.data.csv}")
        j = header.index(column.column)
        times, values = [], []
        for row in body:
            if j < len(row) and row[j].strip():
                times.append(float(row[0]))
                values.append(float(row[j]))
        factor = (1.0 / column.standard_deviation if column.standard_deviation > 0
                  else math.sqrt(column.weight) if column.weight > 0 else 1.0)
        out.append(calibration_pb.MeasuredSamples(column=column.column, variable=column.variable,
                                                  times=times, values=values, factor=factor))
    return out


def _fit_result(job: Job) -> dict[str, Any]:
    """A succeeded calibration job's result as a dict (Client.fit)."""
    status = job.client._call(job.client._jobs.GetJob, job_pb.GetJobRequest(job_id=job.id),
                              f"status of {job.id}").status
    fit = status.fit
    names = [p.name for p in fit.calibration.calibration.parameters]
    r = fit.result
    n = len(names)
    history = [dict(iteration=h.iteration, evaluations=h.evaluations, objective=h.objective,
                    **dict(zip(names, h.parameters))) for h in r.history]
    best: Any = job.results()
    try:
        import pandas
        history_table: Any = pandas.DataFrame(history)
        best = best.to_pandas()
    except ImportError:
        history_table = history
    return {"estimates": dict(zip(names, r.estimates)),
            "standard_errors": dict(zip(names, r.standard_errors)),
            "undetermined": dict(zip(names, r.undetermined)),
            "objective": r.objective,
            "correlation": [list(r.correlation[i * n:(i + 1) * n]) for i in range(n)],
            "stop_reason": r.stop_reason, "jacobian": r.jacobian, "iterations": r.iterations,
            "evaluations": r.evaluations, "history": history_table, "best": best, "job": job}
