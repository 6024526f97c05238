"""The exceptions of the ``cosimo`` package.

Every failure of a call to the orchestrator is a :class:`CosimoError` carrying the gRPC status
code (``.code``, a ``grpc.StatusCode``) and the server's message (``.details``), converted in
one place (:func:`from_rpc_error`). A few codes have their own subclass, so that a notebook can
catch exactly what it expects:

====================  ==========================================================================
exception             when
====================  ==========================================================================
InvalidScenario       the scenario is refused (``INVALID_ARGUMENT``, or it cannot be read or
                      parsed here): the CLI's exit code 2. The message names the field.
JobFailed             ``job.wait()`` saw the job end FAILED or CANCELED (the server's message)
Unavailable           the orchestrator cannot be reached (``UNAVAILABLE``)
Timeout               a deadline passed (``DEADLINE_EXCEEDED``, ``job.wait(timeout=...)``)
NotFound              an unknown job id (``NOT_FOUND``)
PermissionDenied      no token, a wrong token (``UNAUTHENTICATED``), or another client's job
                      (``PERMISSION_DENIED``)
====================  ==========================================================================
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import grpc

if TYPE_CHECKING:
    from cosimo.client import JobStatus


class CosimoError(Exception):
    """A request to Cosimo failed.

    Attributes:
        code: the gRPC status code of the failed call, or None when the error arose here.
        details: the server's message (or ours), without the prefix this exception adds.
    """

    def __init__(self, details: str, code: grpc.StatusCode | None = None,
                 what: str = "") -> None:
        self.code = code
        self.details = details
        prefix = f"{what}: " if what else ""
        suffix = f" [{code.name}]" if code is not None else ""
        super().__init__(prefix + details + suffix)


class InvalidScenario(CosimoError, ValueError):
    """The scenario is refused: the cases for which the ``cosimo`` CLI exits with code 2.

    Attributes:
        problems: the problems one by one (the orchestrator reports every problem of a scenario
            at once, ``N problems:`` then one line each, each naming the field).
    """

    @property
    def problems(self) -> list[str]:
        lines = [line.strip() for line in self.details.splitlines()]
        if len(lines) > 1 and lines[0].endswith("problems:"):
            return [line for line in lines[1:] if line]
        return [self.details]


class JobFailed(CosimoError):
    """A job ended FAILED or CANCELED; ``details`` is the server's message.

    Attributes:
        job_id: the job.
        state: ``"FAILED"`` or ``"CANCELED"``.
        status: the job's final :class:`cosimo.JobStatus`.
    """

    def __init__(self, status: JobStatus) -> None:
        self.job_id = status.job_id
        self.state = status.state
        self.status = status
        super().__init__(status.message or status.state.lower(), None,
                         f"job {status.job_id} {status.state}")


class Unavailable(CosimoError):
    """The orchestrator cannot be reached (address, network, TLS handshake)."""


class Timeout(CosimoError, TimeoutError):
    """A deadline passed."""


class NotFound(CosimoError, LookupError):
    """The orchestrator knows no such job (or artifact)."""


class PermissionDenied(CosimoError, PermissionError):
    """The call's token is missing or wrong, or the job belongs to another client."""


_BY_CODE: dict[grpc.StatusCode, type[CosimoError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidScenario,
    grpc.StatusCode.UNAVAILABLE: Unavailable,
    grpc.StatusCode.DEADLINE_EXCEEDED: Timeout,
    grpc.StatusCode.NOT_FOUND: NotFound,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDenied,
    grpc.StatusCode.UNAUTHENTICATED: PermissionDenied,
}


def from_rpc_error(error: grpc.RpcError, what: str, target: str = "") -> CosimoError:
    """The exception for a failed gRPC call: the one place where gRPC errors are converted.

    `what` names the request ("submit", "results of job-..."); `target` the orchestrator's
    address, added to the message when it cannot be reached.
    """
    code: Any = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details: str = (error.details() if hasattr(error, "details") else None) or str(error)
    if code == grpc.StatusCode.UNAVAILABLE and target:
        details = f"cannot reach the orchestrator at {target} ({details})"
    return _BY_CODE.get(code, CosimoError)(details, code, what)
