"""Fixtures for the hwrec module's tests: fresh stores in tmp_path and the
repository's example pools and observations."""

import json
import os
import pathlib

import pytest

import hwrec

REPO = pathlib.Path(os.environ.get("HWREC_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
EXAMPLES = REPO / "examples"
WHISPER = "ghcr.io/acme/whisper-batch:1.2"


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "hwrec.db"


@pytest.fixture
def store(store_path):
    with hwrec.Store.init(store_path) as s:
        yield s


@pytest.fixture
def loaded(store):
    """A store with the example pools and observations."""
    store.register_pools(EXAMPLES / "pools.jsonl")
    store.ingest(EXAMPLES / "observations.jsonl")
    return store


def example_records(name):
    with open(EXAMPLES / name) as f:
        return [json.loads(line) for line in f if line.strip()]


def observation(execution_id, **fields):
    """A good hwrec-form observation on the example L4 pool shape."""
    record = {
        "execution_id": execution_id,
        "action_image": WHISPER,
        "finished_at": "2026-11-28T09:32:42Z",
        "status": "success",
        "hardware": {
            "instance_type": "g2-standard-8",
            "architecture": "x86_64",
            "cpu_millicores": 8000,
            "memory_bytes": 34359738368,
            "gpu_count": 1,
            "gpu_mode": "full",
            "gpu_total": 1,
            "gpu_brand": "NVIDIA",
            "gpu_model": "L4",
        },
        "gpu_memory_peak_gb": 11.0,
        "cpu_millicores_p95": 3000,
        "memory_peak_bytes": 8 << 30,
    }
    record.update(fields)
    return record
