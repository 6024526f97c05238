"""Scenarios from what a notebook has: a dict, a JSON file, an SSP, or a ``Scenario`` message.

:func:`load_scenario` returns a ``cosimo.v1.Scenario`` message with every file path (FMUs,
tables, a hybrid unit's FMU and weights) absolute, as the CLI's ``LoadScenarioFile`` does, and
a stop time or step size left out taken from the FMUs' DefaultExperiment (as ``cosimo submit``
does). Errors are :class:`cosimo.InvalidScenario` naming the field, or the line and column.

An SSP (``.ssp``, ``.ssd``) is imported by the ``cosimo`` program (``cosimo import``: the
import is written in C++ only), into a temporary folder that lives as long as the returned
:class:`LoadedScenario`.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import xml.etree.ElementTree as ElementTree
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Union

from google.protobuf import json_format

from cosimo._stubs import scenario_pb
from cosimo.errors import InvalidScenario

ScenarioLike = Union[dict, str, os.PathLike, Any]  # Any: a cosimo.v1.Scenario message


@dataclass
class LoadedScenario:
    """A scenario ready to submit, and the notices of how it was completed (as the CLI prints
    them). `temporary` is a folder to remove once submitted (an SSP's FMUs)."""

    scenario: Any
    notices: list[str] = field(default_factory=list)
    temporary: tempfile.TemporaryDirectory | None = None

    def close(self) -> None:
        """Removes the temporary folder, if any."""
        if self.temporary is not None:
            self.temporary.cleanup()
            self.temporary = None


def artifacts(unit: Any) -> Iterator[tuple[str, Any]]:
    """The files a unit names, as (field below the unit, message with `path` and `digest`):
    its FMU, its table, a hybrid unit's wrapped FMU and weights (common/scenario.h's
    MutableUnitArtifacts)."""
    if unit.HasField("fmu"):
        yield "fmu", unit.fmu
    if unit.HasField("table"):
        yield "table", unit.table
    if unit.HasField("hybrid"):
        if unit.hybrid.HasField("fmu"):
            yield "hybrid.fmu", unit.hybrid.fmu
        if unit.hybrid.HasField("weights"):
            yield "hybrid.weights", unit.hybrid.weights


def parse_scenario(data: dict[str, Any] | str, source: str = "scenario") -> Any:
    """A Scenario message from JSON text or its dict (protobuf's JSON mapping, unknown fields
    refused). Raises InvalidScenario naming `source` and the field, or the line and column."""
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as e:
            raise InvalidScenario(f"{source}: not valid JSON: {e.msg} at line {e.lineno} "
                                  f"column {e.colno}") from None
    if not isinstance(data, dict):
        raise InvalidScenario(f"{source}: a scenario is a JSON object, not "
                              f"{type(data).__name__}")
    scenario = scenario_pb.Scenario()
    try:
        json_format.ParseDict(data, scenario, ignore_unknown_fields=False)
    except json_format.ParseError as e:
        raise InvalidScenario(f"{source}: {e}") from None
    return scenario


def _resolve(scenario: Any, base: Path) -> None:
    for unit in scenario.units:
        for _, model in artifacts(unit):
            if model.path and not os.path.isabs(model.path):
                model.path = os.path.normpath(str(base / model.path))


def _default_experiment(fmu: str) -> tuple[float | None, float | None]:
    """The stopTime and stepSize of an FMU's DefaultExperiment (None when absent)."""
    with zipfile.ZipFile(fmu) as archive:
        root = ElementTree.fromstring(archive.read("modelDescription.xml"))
    experiment = root.find("DefaultExperiment")
    if experiment is None:
        return None, None

    def number(name: str) -> float | None:
        text = experiment.get(name)  # type: ignore[union-attr]
        return float(text) if text else None

    return number("stopTime"), number("stepSize")


def apply_default_experiments(scenario: Any) -> list[str]:
    """A scenario without stop_time (0) or algorithm.step_size (0) takes them from its FMUs'
    DefaultExperiment when every FMU unit has one: the earliest stopTime, the smallest stepSize
    (the CLI's ApplyDefaultExperiments). Returns notices saying what it set."""
    needs_stop = scenario.stop_time == 0.0
    needs_step = scenario.algorithm.step_size == 0.0
    fmus = [u for u in scenario.units if u.HasField("fmu")]
    if not (needs_stop or needs_step) or not fmus:
        return []
    stops: list[tuple[str, float]] = []
    steps: list[tuple[str, float]] = []
    every_stop = every_step = True
    for unit in fmus:
        try:
            stop, step = _default_experiment(unit.fmu.path)
        except (OSError, KeyError, zipfile.BadZipFile, ElementTree.ParseError, ValueError):
            return []  # the orchestrator's checks say what is wrong with it
        every_stop &= stop is not None
        every_step &= step is not None
        if stop is not None:
            stops.append((unit.name, stop))
        if step is not None:
            steps.append((unit.name, step))
    notices = []

    def listed(pairs: list[tuple[str, float]]) -> str:
        return ", ".join(f"{name} {value:g}" for name, value in pairs)

    if needs_stop and every_stop and stops:
        stop = min(v for _, v in stops)
        if stop > scenario.start_time:
            scenario.stop_time = stop
            notices.append(f"stop_time {stop:g} from the FMUs' DefaultExperiment "
                           f"({listed(stops)})")
    if needs_step and every_step and steps:
        step = min(v for _, v in steps)
        scenario.algorithm.step_size = step
        notices.append(f"algorithm.step_size {step:g} from the FMUs' DefaultExperiment "
                       f"({listed(steps)})")
    return notices


def import_ssp(path: str, program: str, stop_time: float | None = None,
               step_size: float | None = None) -> LoadedScenario:
    """An SSP system as a scenario, through ``cosimo import`` (the SSP import is the C++ CLI's):
    the scenario JSON and the FMUs go to a temporary folder that the result owns."""
    temporary = tempfile.TemporaryDirectory(prefix="cosimo-ssp-")
    out = os.path.join(temporary.name, "scenario.json")
    argv = [program, "import", os.path.abspath(path), "--out", out]
    if stop_time is not None:
        argv += ["--stop-time", repr(float(stop_time))]
    if step_size is not None:
        argv += ["--step-size", repr(float(step_size))]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        temporary.cleanup()
        message = done.stderr.strip().removeprefix("cosimo: ")
        raise InvalidScenario(message or f"cosimo import exited with {done.returncode}")
    with open(out, encoding="utf-8") as f:
        scenario = parse_scenario(f.read(), out)
    _resolve(scenario, Path(temporary.name))
    notices = [line.removeprefix("cosimo: ") for line in done.stderr.splitlines()
               if line.startswith("cosimo: ")]
    return LoadedScenario(scenario, notices, temporary)


def load_scenario(scenario: ScenarioLike, base_dir: str | os.PathLike[str] | None = None, *,
                  program: str | None = None, stop_time: float | None = None,
                  step_size: float | None = None) -> LoadedScenario:
    """The scenario to submit, from

    - a dict (protobuf's JSON mapping of the Scenario message, as the JSON files): relative
      paths are taken from `base_dir` (default: the current folder);
    - a path to a JSON file: relative paths from the file's folder;
    - a path to an SSP (``.ssp`` / ``.ssd``): imported by ``cosimo import`` (`program`, the
      ``cosimo`` binary; `stop_time` and `step_size` as its options);
    - a ``cosimo.v1.Scenario`` message (copied; relative paths from `base_dir`).

    Raises InvalidScenario for a scenario that cannot be read or mapped.
    """
    if isinstance(scenario, (str, os.PathLike)):
        path = os.fspath(scenario)
        suffix = Path(path).suffix.lower()
        if suffix in (".ssp", ".ssd"):
            if program is None:
                from cosimo.embedded import find_program
                program = find_program()
            return import_ssp(path, program, stop_time, step_size)
        if suffix == ".fmu":
            raise InvalidScenario(f"{path}: an FMU on its own is run by cosimo.run(\"{path}\"); "
                                  "to submit it, write a scenario with one unit "
                                  "(docs/scenario.md)")
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise InvalidScenario(f"cannot read scenario file '{path}': {e.strerror}") from None
        message = parse_scenario(text, path)
        _resolve(message, Path(path).resolve().parent)
    elif isinstance(scenario, dict):
        message = parse_scenario(scenario)
        _resolve(message, Path(base_dir or os.getcwd()).resolve())
    elif hasattr(scenario, "DESCRIPTOR") and scenario.DESCRIPTOR.full_name == "cosimo.v1.Scenario":
        message = scenario_pb.Scenario()
        message.CopyFrom(scenario)
        _resolve(message, Path(base_dir or os.getcwd()).resolve())
    else:
        raise TypeError("cosimo: a scenario is a dict, a path to a JSON or SSP file, or a "
                        f"cosimo.v1.Scenario message, not {type(scenario).__name__}")
    if stop_time is not None:
        message.stop_time = float(stop_time)
    if step_size is not None:
        message.algorithm.step_size = float(step_size)
    return LoadedScenario(message, apply_default_experiments(message))


def scenario_json(scenario: Any) -> str:
    """A Scenario message as JSON (proto field names), as ``cosimo import`` writes it."""
    return json_format.MessageToJson(scenario, preserving_proto_field_name=True)
