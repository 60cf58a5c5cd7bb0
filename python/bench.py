#!/usr/bin/python3
"""The Python side of `hwrec-bench python`: times store.recommend, store.place
over 100 candidates and store.ingest of one observation per call (one
transaction each) through `import hwrec`, on the store and inputs the C++ side
wrote (a JSON file: store, iterations, warmup, image, hardware, execution,
candidates, observations, and warm_observations, ingested untimed before the
timed ones as the C++ side does), and prints p50/p99 in ms as JSON.

    PYTHONPATH=build/dev/python /usr/bin/python3 python/bench.py INPUTS.json
"""

import json
import os
import sys
import time

# Python puts this script's folder first on the path, and that folder holds
# hwrec's sources, not the built module: import the one PYTHONPATH names.
if sys.path and os.path.abspath(sys.path[0]) == os.path.dirname(os.path.abspath(__file__)):
    del sys.path[0]

import hwrec  # noqa: E402


def percentile(values, p):
    """Linear interpolation between closest ranks, as hwrec-bench's C++ side."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = p / 100 * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def time_calls(iterations, warmup, call):
    laps = []
    for i in range(iterations + warmup):
        started = time.perf_counter()
        call(i)
        lap = time.perf_counter() - started
        if i >= warmup:
            laps.append(lap)
    return {"p50_ms": percentile(laps, 50) * 1000, "p99_ms": percentile(laps, 99) * 1000}


def main(inputs_path):
    with open(inputs_path) as f:
        inputs = json.load(f)
    iterations, warmup = inputs["iterations"], inputs["warmup"]
    hardware = inputs["hardware"]
    report = {"python": f"Python {sys.version.split()[0]}, hwrec {hwrec.__version__}"}
    with hwrec.Store(inputs["store"]) as store:
        report["recommend"] = time_calls(iterations, warmup, lambda _: store.recommend(
            inputs["image"], gpu_brand=hardware.get("gpu_brand"),
            gpu_model=hardware.get("gpu_model"), instance_type=hardware.get("instance_type"),
            cpu_only=hardware["cpu_only"]))

        chosen = []
        report["place_100"] = time_calls(iterations, warmup, lambda _: chosen.append(
            store.place(inputs["execution"], inputs["candidates"]).chosen))
        report["place_100"]["chosen"] = chosen[-1]

        for record in inputs["warm_observations"]:  # untimed, as in C++
            store.ingest(record)
        records = inputs["observations"]
        accepted = []
        report["ingest_1"] = time_calls(iterations, warmup, lambda i: accepted.append(
            store.ingest(records[i]).accepted))
        report["ingest_1"]["accepted"] = sum(accepted)
    if sum(accepted) != iterations + warmup:
        sys.exit(f"bench.py: {iterations + warmup - sum(accepted)} single-record ingests "
                 "were not accepted")
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: bench.py INPUTS.json (written by hwrec-bench python)")
    main(sys.argv[1])
