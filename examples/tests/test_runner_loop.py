"""examples/runner_loop.py, run as a user would with the bundled sample: it
places, runs and ingests a stream of executions, retries an OOM with a floor
and routes a width-8 job down to a narrower width, and prints each decision.

    PYTHONPATH=build/dev/python /usr/bin/python3 -m pytest examples/tests
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "runner_loop.py"


def run_example(*args):
    return subprocess.run([sys.executable, str(EXAMPLE), "--data", "/nonexistent", *args],
                          capture_output=True, text=True, env=os.environ.copy(), timeout=300)


@pytest.fixture(scope="module")
def log():
    result = run_example()
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_the_absent_trace_is_said_in_one_line_and_the_bundled_sample_is_used(log):
    assert "/nonexistent not found; using the bundled synthetic sample genai_sample.csv" in log


def test_the_runner_node_pools_are_all_registered(log):
    assert "registered 5 RunnerNodePool records" in log
    assert "rejected 0" in log


def test_each_execution_is_placed_with_its_request_and_the_reasons_pools_were_passed_over(log):
    placed = re.findall(r"^  placed on (\S+): ", log, re.MULTILINE)
    assert len(placed) >= 12
    # a100-mig is feasible for sd-serve but its compute share there is unknown (no
    # history on that card), so best_fit ranks it after pools whose score is known.
    assert {"a30-mig", "h100-full", "cpu-only"} <= set(placed)
    assert re.search(r"gpu_memory [\d.]+ GiB \[exact\]", log)
    assert "not feasible: " in log


def test_every_finished_execution_is_ingested_in_the_runner_form(log):
    assert "REJECTED by ingest" not in log
    assert log.count("-> Success, ingested") >= 12


def test_a_gpu_oom_is_ingested_and_retried_with_a_floor_on_a_larger_partition(log):
    oom = re.search(r"^  OOM: needed ([\d.]+) GiB, the (\d+) GiB partition ran out.*"
                    r"GPUOOMKilled ingested; retrying with retry_floor gpu_memory_gb ([\d.]+)$",
                    log, re.MULTILINE)
    assert oom, log
    needed, held, floor = float(oom.group(1)), float(oom.group(2)), float(oom.group(3))
    assert needed > held and floor > held
    retry = log[oom.end():].split("\n[")[1]
    assert retry.splitlines()[0].endswith(" retry")
    assert "-> Success" in retry


def test_the_width_8_job_degrades_to_a_narrower_width_after_capacity_misses(log):
    assert "route capture-7b, width 8" in log
    assert "capacity_miss" in log
    assert re.search(r"selected gcp/\S+: realized width 2 of 8 \(degraded\)", log)


def test_the_same_data_and_seed_print_the_same_log(log):
    again = run_example()
    assert again.returncode == 0
    assert again.stdout == log
