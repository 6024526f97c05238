"""cosimo.Client against a real orchestrator and workers: submit, watch, results equal to what
the CLI writes for the same job (value for value, the CSV byte for byte, the metadata), cancel,
refused scenarios, jobs, workers, delete, training."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

import cosimo
from conftest import CAR, FMUS, REPOSITORY, Service, cli


def cli_results(service: Service, job_id: str, out: Path) -> tuple[str, dict]:
    """`cosimo results JOB --out out`: the CSV text and the metadata it writes beside it."""
    done = cli("results", job_id, "--orchestrator", service.address, "--out", str(out))
    assert done.returncode == 0, done.stderr
    return out.read_text(), json.loads(Path(str(out) + ".meta.json").read_text())


def parse_cli_csv(text: str, types: list[str]) -> dict[str, list]:
    """The CLI's CSV as columns of Python values, read independently of the package."""
    import csv
    import io

    rows = list(csv.reader(io.StringIO(text)))
    columns: dict[str, list] = {name: [] for name in rows[0]}
    for row in rows[1:]:
        for (name, kind), cell in zip(zip(rows[0], types), row):
            columns[name].append(int(cell) if kind == "integer" else
                                 cell == "true" if kind == "boolean" else
                                 cell if kind == "string" else float(cell))
    return columns


def assert_same_values(results: cosimo.Results, cli_csv: str) -> None:
    expected = parse_cli_csv(cli_csv, results.types)
    assert list(expected) == results.columns
    for name, values in expected.items():
        got = results.values(name)
        assert len(got) == len(values), name
        for a, b in zip(got, values):
            assert a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b)), name
        if results.types[results.columns.index(name)] in ("real", "integer"):
            assert results[name].tolist() == values, name


def test_car_submitted_watched_and_its_results_are_the_clis(client: cosimo.Client,
                                                            service: Service,
                                                            tmp_path: Path) -> None:
    job = client.submit(str(CAR))
    assert job.id.startswith("job-")
    updates = list(job.watch(min_interval=0.01, timeout=120))
    assert updates, "no status"
    assert updates[-1].state == "SUCCEEDED", updates[-1]
    assert updates[-1].time == 10.0 and updates[-1].progress == 1.0
    times = [u.time for u in updates]
    assert times == sorted(times)
    assert job.wait(timeout=10).state == "SUCCEEDED"

    results = job.results()
    assert results.columns == ["time", "vehicle.v", "controller.F"]
    assert len(results) == 101 and results.time[0] == 0.0 and results.time[-1] == 10.0
    cli_csv, cli_meta = cli_results(service, job.id, tmp_path / "cli.csv")
    assert_same_values(results, cli_csv)
    results.to_csv(tmp_path / "py.csv")
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()
    assert results.metadata == cli_meta
    assert json.loads((tmp_path / "py.csv.meta.json").read_text()) == cli_meta
    assert results.metadata["variables"][0]["unit"] == "m/s"

    # Arrays, tables, the summary a notebook shows.
    array = results.to_numpy()
    assert array.dtype.names == ("time", "vehicle.v", "controller.F")
    assert array["vehicle.v"].tolist() == results["vehicle.v"].tolist()
    frame = results.to_pandas()
    assert list(frame.columns) == results.columns and len(frame) == 101
    assert frame["controller.F"].tolist() == results.values("controller.F")
    assert "101 rows" in repr(results) and "vehicle.v [m/s]" in repr(results)
    assert "<table>" in results._repr_html_()
    assert job.id in repr(job) and "SUCCEEDED" in repr(job)


def test_fmu_uploaded_by_digest_with_exact_integers_booleans_and_strings(
        client: cosimo.Client, service: Service, tmp_path: Path) -> None:
    # FMUs beside a scenario given as a dict: uploaded by SHA-256 (and not again the second time).
    shutil.copy(FMUS / "fmi3_probe.fmu", tmp_path / "probe.fmu")
    shutil.copy(FMUS / "fmi2_msd.fmu", tmp_path / "msd.fmu")
    scenario = {"name": "types", "start_time": 0, "stop_time": 0.2,
                "units": [{"name": "p", "fmu": {"path": "probe.fmu"}},
                          {"name": "msd", "fmu": {"path": "msd.fmu"},
                           "parameters": {"label": 'pump "A", left'}}],
                "algorithm": {"kind": "JACOBI", "step_size": 0.1},
                "record": ["p.big", "p.negative", "p.ubig", "msd.x", "msd.steps",
                           "msd.damping", "msd.label"]}
    job = client.submit(scenario, base_dir=tmp_path)
    job.wait(timeout=120)
    results = job.results()
    cli_csv, cli_meta = cli_results(service, job.id, tmp_path / "cli.csv")
    assert results.csv() == cli_csv
    assert results.metadata == cli_meta
    assert_same_values(results, cli_csv)
    assert results.types[1:] == ["integer", "integer", "integer", "real", "integer", "boolean",
                                 "string"]
    # Beyond 2^53, exact: FMI 3 Int64 and UInt64 (the CLI's CSV says which values they are).
    assert results["p.big"].dtype.name == "int64"
    assert results["p.big"].tolist() == parse_cli_csv(cli_csv, results.types)["p.big"]
    assert results["p.ubig"].dtype.name == "uint64"
    assert int(results["p.ubig"][0]) == int(cli_csv.splitlines()[1].split(",")[3])
    assert results["p.negative"].tolist() == [-int(v) for v in results["p.big"].tolist()]
    assert results["msd.damping"].dtype == bool
    assert results["msd.label"].tolist() == ['pump "A", left'] * 3
    assert results.to_numpy()["p.ubig"].dtype.name == "uint64"
    assert str(results.to_pandas()["p.big"].dtype) == "int64"
    # The second submit finds both FMUs stored: no upload, the same digests.
    again = client.submit(scenario, base_dir=tmp_path)
    again.wait(timeout=120)
    assert again.results().metadata["artifact_digests"] == results.metadata["artifact_digests"]


def test_running_job_shows_progress_and_is_canceled(client: cosimo.Client,
                                                    tmp_path: Path) -> None:
    scenario = json.loads(CAR.read_text())
    scenario["stop_time"] = 1e6  # hours of simulated time: canceled long before its end
    job = client.submit(scenario)
    seen = []
    for status in job.watch(min_interval=0.05, timeout=60):
        seen.append(status)
        if status.state == "RUNNING" and status.steps_accepted > 0:
            break
    assert seen[-1].state == "RUNNING" and 0 < seen[-1].time < 1e6, seen
    assert 0.0 < seen[-1].progress < 1.0
    job.cancel()
    with pytest.raises(cosimo.JobFailed) as failed:
        job.wait(timeout=30)
    assert failed.value.state == "CANCELED" and failed.value.job_id == job.id
    with pytest.raises(cosimo.CosimoError) as no_results:
        job.results()
    assert "CANCELED" in str(no_results.value)
    assert no_results.value.code.name == "FAILED_PRECONDITION"
    # A finished job is deleted; then it is unknown.
    client.delete(job)
    with pytest.raises(cosimo.NotFound):
        job.status()


def test_failed_job_raises_job_failed_with_the_servers_message(client: cosimo.Client) -> None:
    scenario = {"name": "msd-error", "start_time": 0, "stop_time": 1,
                "units": [{"name": "msd", "fmu": {"path": str(FMUS / "fmi2_error.fmu")}}],
                "algorithm": {"kind": "JACOBI", "step_size": 0.01}}
    job = client.submit(scenario)
    with pytest.raises(cosimo.JobFailed) as failed:
        job.wait(timeout=60)
    assert failed.value.state == "FAILED"
    assert "unit 'msd'" in failed.value.details and "fmi2DoStep" in failed.value.details
    assert failed.value.details == job.status().message


def test_a_jobs_log_has_what_its_units_said_and_printed(client: cosimo.Client) -> None:
    """job.logs(): fmi2_chatty's banner, and at 0.5 s its logger warning and its stdout and
    stderr lines, each naming the unit and the time of the call (issue 42)."""
    scenario = {"name": "chatty", "start_time": 0, "stop_time": 1,
                "units": [{"name": "msd", "fmu": {"path": str(FMUS / "fmi2_chatty.fmu")}}],
                "algorithm": {"kind": "JACOBI", "step_size": 0.01}}
    job = client.submit(scenario)
    assert job.wait(timeout=60).state == "SUCCEEDED"
    lines = job.logs()
    assert [(x["source"], x["text"]) for x in lines] == [
        ("stdout", "chatty banner: instance msd"), ("fmi", "half way at t=0.5"),
        ("stdout", "chatty stdout at t=0.5"), ("stderr", "chatty stderr at t=0.5")]
    assert lines[1]["status"] == "fmi2Warning" and lines[1]["category"] == "logStatusWarning"
    assert all(x["unit"] == "msd" for x in lines)
    assert all(abs(x["time"] - 0.49) < 1e-9 for x in lines[1:])
    assert job.logs(unit="other") == []


def test_bad_scenarios_raise_invalid_scenario_naming_the_field(client: cosimo.Client,
                                                               tmp_path: Path) -> None:
    scenario = json.loads(CAR.read_text())
    scenario["record"] = ["vehicle.v", "vehicle.speed"]
    with pytest.raises(cosimo.InvalidScenario) as refused:
        client.submit(scenario)
    assert refused.value.code.name == "INVALID_ARGUMENT"
    assert "record[1] 'vehicle.speed'" in str(refused.value)
    # The CLI refuses the same scenario with exit code 2 and the same words.
    (tmp_path / "bad.json").write_text(json.dumps(scenario))
    done = cli("submit", str(tmp_path / "bad.json"), "--orchestrator", "127.0.0.1:1")
    assert done.returncode == 2 and "record[1] 'vehicle.speed'" in done.stderr

    # Several problems at once, one each.
    scenario["connections"][0]["to"] = "controller.speed"
    with pytest.raises(cosimo.InvalidScenario) as refused:
        client.submit(scenario)
    assert len(refused.value.problems) == 2, refused.value.problems
    # Refused here, before any call: a misspelt field, bad JSON, a missing FMU.
    with pytest.raises(cosimo.InvalidScenario, match="stop_tme|stopTme"):
        client.submit({**json.loads(CAR.read_text()), "stop_tme": 3})
    (tmp_path / "syntax.json").write_text('{"name": "x",\n "units": [}')
    with pytest.raises(cosimo.InvalidScenario, match="line 2 column"):
        client.submit(tmp_path / "syntax.json")
    with pytest.raises(cosimo.InvalidScenario, match=r"units\[0\]\.fmu\.path"):
        client.submit({"name": "x", "stop_time": 1, "units": [{"name": "m", "fmu": {
            "path": "missing.fmu"}}], "algorithm": {"step_size": 0.1}})


def test_jobs_and_workers_are_listed(client: cosimo.Client, service: Service) -> None:
    job = client.submit(CAR)
    job.wait(timeout=120)
    listed = client.jobs()
    assert listed[0].job_id == job.id and listed[0].name == "car"
    assert {j.job_id for j in listed} >= {job.id}
    workers = client.workers()
    assert len(workers) == 2 and all(w.host and w.pid > 0 and w.slots == 1 for w in workers)
    done = cli("workers", "--orchestrator", service.address)
    assert all(w.worker_id in done.stdout for w in workers)


def test_unreachable_orchestrator_is_unavailable() -> None:
    with cosimo.Client("127.0.0.1:1", timeout=5) as c:
        with pytest.raises(cosimo.Unavailable, match="cannot reach the orchestrator at"):
            c.jobs()


def test_training_job_gives_the_weights_a_local_train_writes(client: cosimo.Client,
                                                             tmp_path: Path) -> None:
    hybrid = REPOSITORY / "examples" / "hybrid"
    reference = cosimo.run(hybrid / "pendulum_reference.json")
    reference.to_csv(tmp_path / "measured.csv")
    job = client.train(hybrid / "pendulum_hybrid.json", tmp_path / "measured.csv", "pendulum",
                       epochs=3)
    status = job.wait(timeout=300)
    assert status.training is not None and status.training.epoch == 3
    trained = job.training_result()
    assert trained.unit == "pendulum" and trained.epochs == 3
    assert trained.final_loss < trained.first_loss
    done = cli("train", str(hybrid / "pendulum_hybrid.json"), "--data",
               str(tmp_path / "measured.csv"), "--unit", "pendulum", "--epochs", "3", "--out",
               str(tmp_path / "local.json"), timeout=300)
    assert done.returncode == 0, done.stderr
    trained.save(tmp_path / "remote.json")
    assert (tmp_path / "remote.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    assert set(trained.weights) >= {"bottom"}


SSD = """<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription version="1.0" name="two-masses"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon">
  <ssd:System name="root">
    <ssd:Elements>
      <ssd:Component name="a" source="resources/msd.fmu">
        <ssd:Connectors>
          <ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="F" kind="input"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
      <ssd:Component name="b" source="resources/msd.fmu">
        <ssd:Connectors>
          <ssd:Connector name="x" kind="output"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="F" kind="input"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="a" startConnector="x" endElement="b" endConnector="F"/>
      <ssd:Connection startElement="b" startConnector="x" endElement="a" endConnector="F"/>
    </ssd:Connections>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0" stopTime="2"/>
</ssd:SystemStructureDescription>
"""


def test_ssp_is_submitted_through_cosimo_import(client: cosimo.Client, service: Service,
                                                tmp_path: Path) -> None:
    import zipfile

    with zipfile.ZipFile(tmp_path / "two.ssp", "w") as ssp:
        ssp.writestr("SystemStructure.ssd", SSD)
        ssp.write(FMUS / "fmi2_msd.fmu", "resources/msd.fmu")
    job = client.submit(tmp_path / "two.ssp", step_size=0.01)
    job.wait(timeout=120)
    results = job.results()
    done = cli("run", str(tmp_path / "two.ssp"), "--step-size", "0.01", "--out",
               str(tmp_path / "cli.csv"))
    assert done.returncode == 0, done.stderr
    assert results.csv() == (tmp_path / "cli.csv").read_text()
    assert len(results) == 201 and "a.x" in results


def test_a_sweep_is_one_job_and_its_table_is_the_local_sweeps(client: cosimo.Client,
                                                              tmp_path: Path) -> None:
    """client.sweep: the example's grid (3 masses x 2 gains) as one job of the service; its table
    equals `cosimo sweep` run here, every column but the wall time, and a refused sweep names
    the field."""
    sweep_file = REPOSITORY / "examples" / "car_sweep.json"
    table = client.sweep(str(sweep_file), timeout=300)
    local = tmp_path / "local.csv"
    done = cli("sweep", str(sweep_file), "--out", str(local))
    assert done.returncode == 0, done.stderr
    expected = parse_cli_csv(local.read_text(), ["real"] * 7 + ["string", "real", "string"])
    assert list(table.columns) == list(expected)
    assert len(table) == 6
    for name, values in expected.items():
        if name == "wall_time_s":
            continue
        got = [str(x) if isinstance(x, str) else float(x) for x in table[name]]
        assert got == [str(v) if isinstance(v, str) else v for v in values], name
    assert set(table["status"]) == {"SUCCEEDED"}
    # The variant's index is an integer column: int64 in pandas (as in numpy), ints in Python.
    assert str(table["index"].dtype) == "int64"
    assert table["index"].tolist() == list(range(6))
    bad = json.loads(sweep_file.read_text())
    bad["scenario_file"] = str(sweep_file.parent / bad["scenario_file"])
    bad["parameters"][0] = {"name": "vehicle.m", "linspace": [1000, 2000, 0]}
    with pytest.raises(cosimo.InvalidScenario, match=r"sweep\.parameters\[0\]\.linspace"):
        client.sweep(bad)


def test_a_canceled_sweep_keeps_its_rows_and_resumes(client: cosimo.Client) -> None:
    """Issue 41 item 3: a sweep canceled half way keeps the rows it finished (job.results() is
    its partial table, the others CANCELED "not run" rows) and job.resume() runs only the rest.
    Variants unit by unit (the service's workers have one slot), about a second each: the
    resumption's wait is bounded by that (40 variants of 100 s at 0.001 s, 6 to 18 s each here,
    outlasted it, which looked like a hang). The workers stay attached under their ids."""
    import time

    sweep = {"scenario_file": str(CAR),
             "parameters": [{"name": "controller.k", "linspace": [500, 1500, 12]},
                            {"name": "stop_time", "values": [20]},
                            {"name": "algorithm.step_size", "values": [0.001]}],
             "kpis": [{"variable": "vehicle.v"}]}
    workers = sorted(w.worker_id for w in client.workers())
    job = client.sweep(sweep, wait=False)
    deadline = time.monotonic() + 120
    while job.status().proto.sweep.variants_done < 1:
        assert time.monotonic() < deadline, "no variant finished"
        time.sleep(0.02)
    job.cancel()
    with pytest.raises(cosimo.JobFailed):
        job.wait(timeout=120)
    statuses = list(job.results()["status"])
    done = statuses.count("SUCCEEDED")
    assert len(statuses) == 12
    assert 1 <= done < 12, "the sweep ended before the cancel"
    assert statuses.count("CANCELED") == 12 - done
    assert sorted(w.worker_id for w in client.workers()) == workers
    assert job.resume().state == "QUEUED"
    job.wait(timeout=300)
    assert list(job.results()["status"]) == ["SUCCEEDED"] * 12
    assert sorted(w.worker_id for w in client.workers()) == workers


def test_a_fit_is_one_job_and_gives_the_estimates_of_cosimo_fit(client: cosimo.Client,
                                                                 service: Service,
                                                                 tmp_path: Path) -> None:
    """client.fit: the car's mass from its speed, one calibration job of the service; the
    estimates, standard errors and history are those `cosimo fit --orchestrator` writes."""
    (tmp_path / "car.json").write_text(CAR.read_text())
    # The example's car at m = 1000 measured (no noise) every second: the truth is recovered.
    truth = tmp_path / "truth.json"
    car = json.loads(CAR.read_text())
    car["units"][1]["builtin"].setdefault("parameters", {})["m"] = 1000.0
    truth.write_text(json.dumps(car))
    done = cli("run", str(truth), "--out", str(tmp_path / "truth.csv"))
    assert done.returncode == 0, done.stderr
    rows = (tmp_path / "truth.csv").read_text().splitlines()
    header = rows[0].split(",")
    v = header.index("vehicle.v")
    lines = ["time,v"] + [f"{r.split(',')[0]},{r.split(',')[v]}" for r in rows[1::10]]
    (tmp_path / "v.csv").write_text("\n".join(lines) + "\n")
    (tmp_path / "fit.json").write_text(json.dumps({
        "scenario_file": "car.json",
        "parameters": [{"name": "vehicle.m", "start": 1500, "lower": 500, "upper": 3000}],
        "data": {"csv": "v.csv", "columns": [{"column": "v", "variable": "vehicle.v",
                                               "standard_deviation": 0.01}]},
        "optimizer": {"kind": "levenberg_marquardt", "max_iterations": 20}}))
    fit = client.fit(tmp_path / "fit.json", timeout=300)
    assert fit["estimates"]["vehicle.m"] == pytest.approx(1000.0, rel=1e-4)
    assert fit["undetermined"] == {"vehicle.m": False}
    # The car's built-in units under Jacobi: auto takes their forward sensitivities.
    assert fit["jacobian"] == "forward sensitivities"
    assert len(fit["history"]) == fit["iterations"] >= 1
    assert list(fit["history"].columns) == ["iteration", "evaluations", "objective", "vehicle.m"]
    assert "vehicle.v" in fit["best"].columns
    out = tmp_path / "out"
    done = cli("fit", str(tmp_path / "fit.json"), "--out-dir", str(out), "--orchestrator",
               service.address, timeout=300)
    assert done.returncode == 0, done.stderr
    estimates = (out / "estimates.csv").read_text().splitlines()[1].split(",")
    assert float(estimates[1]) == fit["estimates"]["vehicle.m"]
    assert float(estimates[2]) == fit["standard_errors"]["vehicle.m"]
