"""The package itself: its CSV numbers are the CLI's for awkward doubles, its stubs are checked
(a stale or edited stub is named), it installs offline with pip, it works without numpy, it
plots, and the examples run on it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cosimo
from conftest import CAR, REPOSITORY, Service, cli

PYTHON = "/usr/bin/python3"

# Doubles whose text is easy to get wrong: the choice of fixed or scientific notation, the
# shortest digits, the extremes, signed zero. (Not a subnormal such as 5e-324: the table source
# refuses it as "not a finite number".)
AWKWARD = [0.1, 0.30000000000000004, 1e5, 123456.0, 1e-4, 0.00012345, 1e15, 1e16, 1e22,
           1.2345678901234567e21, 2.2250738585072014e-308, 1.7976931348623157e308,
           -0.0, -1.5, 9007199254740993.0, 1 / 3, 2 / 3 * 1e-7, 100.0, 1e21]


def test_awkward_numbers_are_written_as_the_cli_writes_them(client: cosimo.Client,
                                                            service: Service,
                                                            tmp_path: Path) -> None:
    # A table unit replays them exactly (HOLD at its own sample times), so the CLI's CSV of the
    # same job is the reference for every value.
    lines = ["time,y"] + [f"{t},{v!r}" for t, v in enumerate(AWKWARD)]
    (tmp_path / "awkward.csv").write_text("\n".join(lines) + "\n")
    scenario = {"name": "awkward", "start_time": 0, "stop_time": len(AWKWARD) - 1,
                "units": [{"name": "t", "table": {"path": "awkward.csv", "interpolation": "HOLD"}}],
                "algorithm": {"kind": "JACOBI", "step_size": 1}}
    job = client.submit(scenario, base_dir=tmp_path)
    job.wait(timeout=60)
    results = job.results()
    assert results.values("t.y")[:len(AWKWARD)] == AWKWARD
    done = cli("results", job.id, "--orchestrator", service.address, "--out",
               str(tmp_path / "cli.csv"))
    assert done.returncode == 0, done.stderr
    assert results.csv() == (tmp_path / "cli.csv").read_text()
    # Read back from the CLI's files, the same values and the same text.
    again = cosimo.Results.from_csv(tmp_path / "cli.csv")
    assert again.values("t.y") == results.values("t.y")
    assert again.csv() == results.csv()
    # So does the example client written with gRPC alone.
    (tmp_path / "awkward.json").write_text(json.dumps(scenario))
    script = REPOSITORY / "examples" / "python" / "cosimo_submit.py"
    done = subprocess.run([PYTHON, "-B", str(script), str(tmp_path / "awkward.json"),
                           "--orchestrator", service.address, "--out",
                           str(tmp_path / "script.csv")], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COSIMO_BUILD_DIR": ""})
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "script.csv").read_text() == results.csv()


def copy_tree(tmp_path: Path) -> Path:
    """python/ and proto/ copied to `tmp_path`, as the repository lays them out."""
    shutil.copytree(REPOSITORY / "python", tmp_path / "python",
                    ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    shutil.copytree(REPOSITORY / "proto", tmp_path / "proto")
    return tmp_path


def import_cosimo(python_dir: Path, python: str = PYTHON,
                  cwd: Path = Path("/")) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if python_dir:
        env["PYTHONPATH"] = str(python_dir)
    return subprocess.run([python, "-B", "-c", "import cosimo; print(cosimo.__file__)"],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=60)


def test_a_stale_or_edited_stub_is_named(tmp_path: Path) -> None:
    tree = copy_tree(tmp_path)
    assert import_cosimo(tree / "python").returncode == 0
    # The proto changes after the stubs were generated: the stale stubs are named.
    proto = tree / "proto" / "cosimo" / "v1" / "job_service.proto"
    proto.write_text(proto.read_text() + "\n// a new comment\n")
    stale = import_cosimo(tree / "python")
    assert stale.returncode != 0
    assert "StaleStubs" in stale.stderr and "job_service_pb2.py" in stale.stderr
    assert "stale" in stale.stderr and str(proto) in stale.stderr
    # Generating again mends it.
    subprocess.run([PYTHON, "-B", str(tree / "python" / "cosimo" / "_generate.py")], check=True,
                   timeout=60)
    assert import_cosimo(tree / "python").returncode == 0
    # A stub edited by hand is named too.
    stub = tree / "python" / "cosimo" / "v1" / "scenario_pb2.py"
    stub.write_text(stub.read_text() + "# edited\n")
    edited = import_cosimo(tree / "python")
    assert edited.returncode != 0 and "scenario_pb2.py" in edited.stderr
    assert "edited by hand" in edited.stderr
    # And missing stubs say how to generate them.
    for f in (tree / "python" / "cosimo" / "v1").glob("*_pb2*.py"):
        f.unlink()
    (tree / "python" / "cosimo" / "v1" / "_stubs.json").unlink()
    missing = import_cosimo(tree / "python")
    assert missing.returncode != 0 and "not generated" in missing.stderr
    assert "cosimo_python_package" in missing.stderr


def test_pip_installs_offline_and_generates_the_stubs(tmp_path: Path) -> None:
    tree = copy_tree(tmp_path / "src")
    for f in (tree / "python" / "cosimo" / "v1").glob("*_pb2*.py"):
        f.unlink()  # the install must generate them
    venv = tmp_path / "venv"
    subprocess.run([PYTHON, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)],
                   check=True, timeout=120)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--no-index",
                           "--disable-pip-version-check", str(tree / "python")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    imported = import_cosimo(Path(""), python=str(venv / "bin" / "python"))
    assert imported.returncode == 0, imported.stderr
    assert str(venv) in imported.stdout
    installed = Path(imported.stdout.strip()).parent / "v1"
    assert (installed / "job_service_pb2_grpc.py").is_file()
    assert (installed / "_stubs.json").is_file()


def test_without_numpy_columns_are_lists(tmp_path: Path) -> None:
    results = cosimo.run(CAR)
    results.to_csv(tmp_path / "car.csv")
    script = ("import sys; sys.modules['numpy'] = None\n"
              "import cosimo\n"
              f"r = cosimo.Results.from_csv({str(tmp_path / 'car.csv')!r})\n"
              "v = r['vehicle.v']\n"
              "assert isinstance(v, list) and isinstance(v[1], float), type(v)\n"
              "try:\n    r.to_numpy()\nexcept ImportError as e:\n    print(e)\n")
    done = subprocess.run([PYTHON, "-B", "-c", script], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": str(REPOSITORY / "python")})
    assert done.returncode == 0, done.stderr
    assert "python3-numpy" in done.stdout
    assert cosimo.Results.from_csv(tmp_path / "car.csv").csv() == results.csv()


def test_plot_draws_one_panel_per_unit(tmp_path: Path) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    results = cosimo.run(CAR)
    figure = results.plot()
    assert [ax.get_title() for ax in figure.axes] == ["vehicle", "controller"]
    assert figure.axes[0].get_legend().get_texts()[0].get_text() == "vehicle.v [m/s]"
    figure.savefig(tmp_path / "car.png")
    assert (tmp_path / "car.png").stat().st_size > 1000
    one = results.plot(["vehicle.v"], one_panel=True)
    assert len(one.axes) == 1


def test_examples_run_on_the_package(service: Service, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPOSITORY / "python"),
           "COSIMO_ORCHESTRATOR": service.address}
    done = subprocess.run([sys.executable, "-B", str(REPOSITORY / "examples" / "python" /
                                                     "car_notebook.py"), "--out",
                           str(tmp_path / "car.csv")], capture_output=True, text=True,
                          timeout=180, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCEEDED" in done.stdout and "the same values as cosimo.run" in done.stdout
    reference = cli("run", str(CAR), "--out", str(tmp_path / "cli.csv"))
    assert reference.returncode == 0
    assert (tmp_path / "car.csv").read_text() == (tmp_path / "cli.csv").read_text()
