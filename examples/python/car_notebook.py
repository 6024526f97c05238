#!/usr/bin/env python3
"""The car example from Python with the ``cosimo`` package, as one would in a notebook.

Submits examples/car.json to an orchestrator, follows its progress, takes the results as
arrays, compares them with the same scenario run here by ``cosimo.run`` (no service), and writes
the CSV the CLI would write (with its metadata) and, when matplotlib is installed, a plot.

    PYTHONPATH=python python3 examples/python/car_notebook.py --orchestrator localhost:7700 \\
        [--out car.csv] [--plot car.png]

The orchestrator defaults to $COSIMO_ORCHESTRATOR, TLS and the token to $COSIMO_TLS_CA and
$COSIMO_TOKEN_FILE, as for the CLI. examples/python/cosimo_submit.py does the same with gRPC
alone (no package), for a client written from scratch.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import cosimo

CAR = Path(__file__).resolve().parent.parent / "car.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--orchestrator", help="HOST:PORT (default: $COSIMO_ORCHESTRATOR)")
    parser.add_argument("--out", default="car.csv", help="results CSV (metadata beside it)")
    parser.add_argument("--plot", help="a PNG or SVG of the results (needs matplotlib)")
    args = parser.parse_args()

    client = cosimo.Client(args.orchestrator)
    print(f"{len(client.workers())} workers attached to {client.address}")

    # The scenario as a dict: change it as you like before submitting.
    import json
    scenario = json.loads(CAR.read_text())
    scenario["units"][0]["builtin"]["parameters"]["k"] = 1000.0
    job = client.submit(scenario)
    for status in job.watch(min_interval=0.1):
        print(status)
    job.wait()  # raises cosimo.JobFailed with the orchestrator's message if it failed

    results = job.results()
    print(results)
    v = results["vehicle.v"]
    print(f"top speed {v.max():.3f} m/s at t = {results.time[v.argmax()]:g} s")

    # The same scenario without any service: the same numbers.
    local = cosimo.run(scenario)
    same = all((results[c] == local[c]).all() for c in results.columns)
    print("the same values as cosimo.run" if same else "different values from cosimo.run!")

    results.to_csv(args.out)  # what `cosimo results JOB --out car.csv` writes
    print(f"results written to {args.out} (metadata in {args.out}.meta.json)")
    if args.plot:
        results.plot().savefig(args.plot)
        print(f"plot written to {args.plot}")


if __name__ == "__main__":
    main()
