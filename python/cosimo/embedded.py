"""``cosimo.run``: a scenario run here, without a service, through the ``cosimo`` program.

``cosimo run`` starts an orchestrator inside itself on loopback and one ``cosimo-worker``
process per unit (at most one per core, with slots for the rest), and writes the results CSV and
its metadata; :func:`run` calls it in a temporary folder and reads both back as
:class:`cosimo.Results`, so the values are exactly the CLI's.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from cosimo.errors import CosimoError, InvalidScenario
from cosimo.results import Results
from cosimo.scenario import ScenarioLike, load_scenario, scenario_json

_REPOSITORY = Path(__file__).resolve().parent.parent.parent


def find_program(name: str = "cosimo") -> str:
    """The ``cosimo`` program: ``$COSIMO_BUILD_DIR/bin/cosimo`` when that variable is set, else
    the one on the PATH, else the repository's ``build/bin/cosimo`` when the package is used in
    place (``PYTHONPATH=python``). Raises FileNotFoundError saying where it looked."""
    places = []
    build = os.environ.get("COSIMO_BUILD_DIR")
    if build:
        places.append(Path(build) / "bin" / name)
    on_path = shutil.which(name)
    if on_path:
        places.append(Path(on_path))
    places.append(_REPOSITORY / "build" / "bin" / name)
    for place in places:
        if place.is_file() and os.access(place, os.X_OK):
            return str(place)
    raise FileNotFoundError(f"cosimo: no '{name}' program (looked in $COSIMO_BUILD_DIR/bin, "
                            f"the PATH and {_REPOSITORY / 'build' / 'bin'}); build it "
                            "(./deploy/demo.sh) or set COSIMO_BUILD_DIR")


def run(scenario: ScenarioLike, workers: int | None = None, *,
        base_dir: str | os.PathLike[str] | None = None, stop_time: float | None = None,
        step_size: float | None = None, program: str | None = None,
        timeout: float | None = None) -> Results:
    """Runs a scenario here, as ``cosimo run``: no orchestrator or worker needs to be running.

    Args:
        scenario: a dict, a path to a scenario JSON, an SSP (``.ssp``/``.ssd``) or one FMU
            (``.fmu``, run on its own from its DefaultExperiment), or a ``cosimo.v1.Scenario``.
            Files go to the program as they are; a dict or message is written to a temporary
            JSON with its relative paths taken from `base_dir` (default: the current folder).
        workers: spread the units over at most this many worker processes (``--workers``;
            default: one process holding all the units, per worker label, the master in it).
        stop_time, step_size: instead of the scenario's (``--stop-time`` / ``--step-size`` for
            an SSP or an FMU).
        program: the ``cosimo`` program (default: :func:`find_program`).
        timeout: s before the run is canceled (default: none).

    Returns the :class:`cosimo.Results`. Raises InvalidScenario where the CLI exits with 2 (its
    message names the field), CosimoError for a failed run. Interrupting (Ctrl-C) stops the run
    and its workers.
    """
    program = program or find_program()
    with tempfile.TemporaryDirectory(prefix="cosimo-run-") as tmp:
        argv = [program, "run"]
        if isinstance(scenario, (str, os.PathLike)):
            path = os.path.abspath(os.fspath(scenario))
            suffix = Path(path).suffix.lower()
            if suffix in (".ssp", ".ssd", ".fmu"):
                argv.append(path)
                if stop_time is not None:
                    argv += ["--stop-time", repr(float(stop_time))]
                if step_size is not None:
                    argv += ["--step-size", repr(float(step_size))]
                stop_time = step_size = None
            elif stop_time is None and step_size is None:
                argv.append(path)
            else:
                scenario = load_scenario(path).scenario
        if len(argv) == 2:
            message = load_scenario(scenario, base_dir, stop_time=stop_time,
                                    step_size=step_size).scenario
            written = os.path.join(tmp, "scenario.json")
            with open(written, "w", encoding="utf-8") as f:
                f.write(scenario_json(message))
            argv.append(written)
        out = os.path.join(tmp, "results.csv")
        argv += ["--out", out]
        if workers is not None:
            argv += ["--workers", str(int(workers))]
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True, cwd=tmp)
        try:
            _, stderr = process.communicate(timeout=timeout)
        except BaseException:
            # Ctrl-C or the timeout: `cosimo run` cancels its job and stops its workers on SIGINT.
            process.send_signal(signal.SIGINT)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            raise
        if process.returncode != 0:
            lines = [line.removeprefix("cosimo: ") for line in stderr.splitlines()
                     if line.startswith("cosimo: ")]
            message = "\n".join(lines) or stderr.strip() or f"exit code {process.returncode}"
            if process.returncode == 2:
                raise InvalidScenario(message, None, "cosimo run")
            raise CosimoError(message, None, f"cosimo run (exit code {process.returncode})")
        return Results.from_csv(out)
