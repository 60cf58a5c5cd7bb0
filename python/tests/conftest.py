"""Fixtures for the hwrec module's tests: fresh stores in tmp_path and the
repository's example pools and observations."""

import hashlib
import json
import os
import pathlib
import sqlite3
import traceback

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


needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="this platform has no fork()")


def exit_code_in_fork(body):
    """Runs body() in a child forked from this process; returns the child's
    exit code: 0 when body returned, 1 when it raised (the child prints why)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            body()
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def make_legacy_store(path, pools=(), rows=()):
    """A store at schema 1 (site-keyed, hp:v1) as the site-keyed Runner left
    them: migrations/0001 applied as hwrec applies it, with `pools` (dicts of
    site_node_pools columns) and `rows` (of site_observations)."""
    sql = (REPO / "migrations" / "0001_legacy_site_keyed.sql").read_text()
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("CREATE TABLE IF NOT EXISTS schema_migrations (\n  version INTEGER PRIMARY KEY,\n"
               "  name TEXT NOT NULL,\n  checksum TEXT NOT NULL,\n  applied_at TEXT NOT NULL\n)")
    db.executescript(sql)
    db.execute("INSERT INTO schema_migrations VALUES (1, 'legacy_site_keyed', ?, "
               "'2026-12-01T00:00:00Z')", (hashlib.sha256(sql.encode()).hexdigest(),))
    db.execute("PRAGMA user_version = 1")
    for table, items in (("site_node_pools", pools), ("site_observations", rows)):
        for item in items:
            db.execute(f"INSERT INTO {table} ({', '.join(item)}) VALUES "
                       f"({', '.join('?' for _ in item)})", tuple(item.values()))
    db.commit()
    db.close()


A100_POOL = {"node_pool_id": "a100-pool", "site_id": "site-a", "instance_type": "dgx-a100",
             "architecture": "x86_64", "cpu_millicores": 64000, "memory_bytes": 549755813888,
             "gpu_count": 1, "gpu_mode": "full", "gpu_total": 8, "gpu_name": "A100 80GB"}


def legacy_row(execution_id, **fields):
    row = {"execution_id": execution_id, "site_id": "site-a", "action_image": "registry/train:1",
           "finished_at": 1788220800, "status": "success", "instance_type": "dgx-a100",
           "architecture": "x86_64", "cpu_millicores": 64000, "memory_bytes": 549755813888,
           "gpu_count": 1, "gpu_mode": "full", "gpu_total": 8, "gpu_memory_peak_gb": 10.0,
           "memory_peak_bytes": 4294967296, "cpu_millicores_p95": 1500}
    row.update(fields)
    return row


@pytest.fixture
def legacy_path(tmp_path):
    path = tmp_path / "legacy.db"
    make_legacy_store(path, pools=[A100_POOL], rows=[
        legacy_row("old-1", node_pool_id="a100-pool"),
        legacy_row("old-2", node_pool_id="a100-pool", finished_at=1788224400),
        legacy_row("old-3", node_pool_gpu="Tesla Z9"),
    ])
    return path


@pytest.fixture
def transfer_store(tmp_path):
    """Five workloads seen on an A100 and an H100 (half the share on the
    H100), and new:1 seen on the A100 only, with compute-share transfer on."""
    with hwrec.Store.init(tmp_path / "transfer.db") as s:
        s.register_pools(EXAMPLES / "pools.jsonl")
        records = []
        for w in range(5):
            for i in range(3):
                use = 0.5 + 0.1 * w
                for pool, utilization in (("sitea-a100-80gb", use), ("siteb-h100-80gb", use * 0.5)):
                    records.append({"execution_id": f"job-{w}-{pool}-{i}", "action_image": f"job-{w}:1",
                                    "finished_at": 1795968000 - 60 * i, "node_pool_id": pool,
                                    "gpu_utilization": utilization})
        for i in range(3):
            records.append({"execution_id": f"new-{i}", "action_image": "new:1",
                            "finished_at": 1795968000 - 60 * i, "node_pool_id": "sitea-a100-80gb",
                            "gpu_utilization": 0.9})
        summary = s.ingest(records)
        assert summary.rejected == 0, summary.rejects
        s.config_set("gpu_compute.transfer", True)
        yield s
