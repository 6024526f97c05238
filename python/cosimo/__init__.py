"""Cosimo from Python: submit co-simulations to a Cosimo service, follow them, and get the
results as arrays.

    import cosimo

    client = cosimo.Client("localhost:7700")      # or $COSIMO_ORCHESTRATOR
    job = client.submit("examples/car.json")      # uploads FMUs, tables, weights by digest
    for status in job.watch():
        print(status)
    results = job.results()                       # after job.wait(), or at the end of watch
    results["vehicle.v"]                          # numpy array; results.time, .to_pandas() ...

    results = cosimo.run("examples/car.json")     # no service: through the `cosimo` program

Needs only gRPC and protobuf (Debian's python3-grpcio and python3-protobuf); numpy, pandas and
matplotlib are used when installed. The gRPC stubs are generated from proto/ by the build or
by ``pip install``, and checked on import (:class:`StaleStubs`). See docs/python.md.
"""

from cosimo._stubs import StaleStubs
from cosimo.client import Client, Job, JobStatus, TrainingResult, TrainingStatus, WorkerStatus
from cosimo.embedded import find_program, run
from cosimo.errors import (CosimoError, InvalidScenario, JobFailed, NotFound, PermissionDenied,
                           Timeout, Unavailable)
from cosimo.results import Results
from cosimo.scenario import load_scenario

__version__ = "0.1.0"

__all__ = [
    "Client", "Job", "JobStatus", "TrainingResult", "TrainingStatus", "WorkerStatus", "Results",
    "run", "find_program", "load_scenario", "CosimoError", "InvalidScenario", "JobFailed",
    "NotFound", "PermissionDenied", "Timeout", "Unavailable", "StaleStubs", "__version__",
]
