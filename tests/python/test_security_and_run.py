"""cosimo.Client with TLS and a token (as docs/deployment.md sets them up), and cosimo.run
without any service."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

import cosimo
from conftest import CAR, FMUS, Service, cli


@pytest.fixture(scope="module")
def secured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Service, Path]]:
    """An orchestrator with TLS (a self-signed certificate for 127.0.0.1) and a token, and two
    workers holding both; yields it and the folder with cert.pem and token."""
    folder = tmp_path_factory.mktemp("tls")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                    "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
                   check=True, capture_output=True, timeout=60)
    (folder / "token").write_text("correct horse battery staple\n")
    service = Service(folder, workers=2,
                      orchestrator_args=["--tls-cert", str(folder / "cert.pem"), "--tls-key",
                                         str(folder / "key.pem"), "--token-file",
                                         str(folder / "token")],
                      worker_args=["--tls-ca", str(folder / "cert.pem"), "--token-file",
                                   str(folder / "token")])
    try:
        yield service, folder
    finally:
        service.stop()


def test_tls_with_a_token(secured: tuple[Service, Path], tmp_path: Path,
                          monkeypatch: pytest.MonkeyPatch) -> None:
    service, certs = secured
    with cosimo.Client(service.address, tls_ca=certs / "cert.pem",
                       token_file=certs / "token") as client:
        service.wait_for_workers(client)
        job = client.submit(CAR)
        job.wait(timeout=120)
        results = job.results()
        assert client.jobs()[0].owner == "default"
    done = cli("results", job.id, "--orchestrator", service.address, "--tls-ca",
               str(certs / "cert.pem"), "--token-file", str(certs / "token"), "--out",
               str(tmp_path / "cli.csv"))
    assert done.returncode == 0, done.stderr
    assert results.csv() == (tmp_path / "cli.csv").read_text()

    # The token as a string, and the CLI's environment variables as defaults.
    with cosimo.Client(service.address, tls_ca=certs / "cert.pem",
                       token="correct horse battery staple") as client:
        assert client.job(job.id).status().state == "SUCCEEDED"
    monkeypatch.setenv("COSIMO_ORCHESTRATOR", service.address)
    monkeypatch.setenv("COSIMO_TLS_CA", str(certs / "cert.pem"))
    monkeypatch.setenv("COSIMO_TOKEN_FILE", str(certs / "token"))
    with cosimo.Client() as client:
        assert client.address == service.address
        assert client.job(job.id).results().csv() == results.csv()

    # Without the token, or with another: refused with the server's words, token not echoed.
    monkeypatch.delenv("COSIMO_TOKEN_FILE")
    with cosimo.Client(service.address) as client:
        with pytest.raises(cosimo.PermissionDenied, match="requires a token") as refused:
            client.submit(CAR)
        assert refused.value.code.name == "UNAUTHENTICATED"
    with cosimo.Client(service.address, token="wrong horse battery staple") as client:
        with pytest.raises(cosimo.PermissionDenied) as refused:
            client.jobs()
        assert "horse" not in str(refused.value)
    # A token is only sent over TLS; plain gRPC to a TLS port is unavailable.
    monkeypatch.delenv("COSIMO_TLS_CA")
    with pytest.raises(ValueError, match="needs tls_ca"):
        cosimo.Client(service.address, token_file=certs / "token")
    with cosimo.Client(service.address, timeout=5) as plain:
        with pytest.raises(cosimo.Unavailable):
            plain.jobs()


def test_run_without_a_service_gives_the_clis_results(tmp_path: Path) -> None:
    done = cli("run", str(CAR), "--out", str(tmp_path / "cli.csv"))
    assert done.returncode == 0, done.stderr
    results = cosimo.run(CAR, workers=2)
    assert results.job_id == ""
    assert results.csv() == (tmp_path / "cli.csv").read_text()
    cli_meta = json.loads((tmp_path / "cli.csv.meta.json").read_text())
    assert results.metadata["scenario_digest"] == cli_meta["scenario_digest"]
    assert results.metadata["variables"] == cli_meta["variables"]
    results.to_csv(tmp_path / "py.csv")
    assert (tmp_path / "py.csv").read_bytes() == (tmp_path / "cli.csv").read_bytes()

    # A dict with a path relative to base_dir, a stop time of our own; exact integers.
    scenario = {"name": "integers", "start_time": 0, "stop_time": 0.2,
                "units": [{"name": "p", "fmu": {"path": "fmi3_probe.fmu"}}],
                "algorithm": {"kind": "JACOBI", "step_size": 0.1},
                "record": ["p.big", "p.negative", "p.ubig"]}
    probe = cosimo.run(scenario, base_dir=FMUS, stop_time=0.3)
    assert len(probe) == 4 and probe.time[-1] == 0.3  # the stop time given here
    assert probe["p.ubig"].dtype.name == "uint64" and int(probe["p.ubig"][0]) == 2**64 - 1
    assert probe["p.big"].tolist() == [2**53 + 1] * 4
    # One FMU on its own, from its DefaultExperiment, as `cosimo run MODEL.fmu`.
    alone = cosimo.run(FMUS / "fmi2_msd.fmu")
    assert alone.time[-1] > 0 and len(alone.variables) > 0


def test_run_refuses_a_bad_scenario_with_invalid_scenario(tmp_path: Path) -> None:
    scenario = json.loads(CAR.read_text())
    scenario["units"][0]["builtin"]["parameters"]["kk"] = 1.0
    with pytest.raises(cosimo.InvalidScenario, match="kk"):
        cosimo.run(scenario)
    with pytest.raises(FileNotFoundError, match="no 'cosimo-no-such-program' program"):
        cosimo.find_program("cosimo-no-such-program")
