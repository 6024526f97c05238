"""A running job's rows so far from Python (issue 42): ``job.results()`` of a running job, the
chunks ``job.stream()`` yields (joined) and ``cosimo results --partial`` are the first rows of the
job's results, byte for byte. The car runs far longer than the test and is canceled; the same
car run to a stop time past every row read gives the results (a fixed-step run's rows do not
depend on its stop time before it)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import cosimo
from conftest import CAR, Service, cli


def last_time(csv_text: str) -> float:
    return float(csv_text.rstrip("\n").rsplit("\n", 1)[-1].split(",", 1)[0])


def test_rows_so_far_and_streamed_chunks_are_a_prefix_of_the_results(
        client: cosimo.Client, service: Service, tmp_path: Path) -> None:
    scenario = json.loads(CAR.read_text())
    scenario["stop_time"] = 1e9  # far past the test: canceled once read
    job = client.submit(scenario)
    so_far = None
    deadline = time.monotonic() + 60
    while so_far is None or len(so_far) < 100:
        assert time.monotonic() < deadline, "no rows recorded"
        try:
            so_far = job.results()
        except cosimo.CosimoError:  # still queued
            pass
        time.sleep(0.05)
    assert so_far.partial and so_far.first_row == 0
    assert so_far.columns == ["time", "vehicle.v", "controller.F"]
    with pytest.raises(cosimo.CosimoError) as refused:
        job.results(partial=False)
    assert "RUNNING" in str(refused.value)
    assert refused.value.code.name == "FAILED_PRECONDITION"

    chunks = []
    for chunk in job.stream(interval=0.2, timeout=120):
        chunks.append(chunk)
        if len(chunks) == 3:
            break
    partial_csv = tmp_path / "partial.csv"
    done = cli("results", job.id, "--partial", "--orchestrator", service.address, "--out",
               str(partial_csv))
    assert done.returncode == 0, done.stderr
    job.cancel()
    with pytest.raises(cosimo.JobFailed):  # the stream ends with the job's end
        for _ in job.stream(interval=0.2, timeout=60):
            pass

    # Every row once, in order: each chunk begins where the one before ended.
    first = 0
    for chunk in chunks:
        assert chunk.first_row == first and len(chunk) > 0
        first += len(chunk)
    streamed = chunks[0].csv() + "".join(c.csv().split("\n", 1)[1] for c in chunks[1:])
    reached = max(last_time(streamed), last_time(so_far.csv()),
                  last_time(partial_csv.read_text()))
    scenario["stop_time"] = reached + 1.0
    whole = client.submit(scenario)
    whole.wait(timeout=300)
    final = whole.results()
    assert not final.partial
    text = final.csv()
    assert len(text) > len(streamed)
    assert text.startswith(so_far.csv())
    assert text.startswith(streamed)
    assert text.startswith(partial_csv.read_text())
    try:
        import pandas
    except ImportError:
        return
    frame = pandas.concat([c.to_pandas() for c in chunks], ignore_index=True)
    pandas.testing.assert_frame_equal(frame, final.to_pandas().iloc[:len(frame)])
