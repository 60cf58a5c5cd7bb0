"""The thread rule: a Store is one connection for one thread at a time. A call
made while another is under way on the same Store raises ConcurrentUseError at
once; one Store per thread works concurrently; the GIL is released while hwrec
works."""

import sys
import threading
import time

import pytest

import hwrec
from conftest import observation


def test_a_call_while_another_is_under_way_raises_concurrent_use_at_once(store):
    started, proceed = threading.Event(), threading.Event()
    outcome = {}

    def records():
        yield observation("ex-held-1")
        started.set()
        proceed.wait(10)
        yield observation("ex-held-2")

    def ingest():
        outcome["summary"] = store.ingest(records())

    worker = threading.Thread(target=ingest)
    worker.start()
    assert started.wait(10)
    with pytest.raises(hwrec.ConcurrentUseError, match="one thread at a time"):
        store.status()
    with pytest.raises(hwrec.ConcurrentUseError):
        store.close()
    proceed.set()
    worker.join(10)
    assert outcome["summary"].accepted == 2
    assert store.status().tables["observations"] == 2


def test_two_threads_hammering_one_store_lose_with_concurrent_use_and_counts_add_up(store):
    accepted, refused, failures = [0, 0], [0, 0], []

    def hammer(t):
        for i in range(150):
            try:
                if i % 3 == 2:
                    store.recommend("ghcr.io/acme/whisper-batch:1.2", gpu_model="L4")
                else:
                    accepted[t] += store.ingest([observation(f"ex-{t}-{i}")]).accepted
            except hwrec.ConcurrentUseError:
                refused[t] += 1
            except Exception as e:  # anything else is a broken promise
                failures.append(e)

    threads = [threading.Thread(target=hammer, args=(t,)) for t in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert failures == []
    tables = store.status().tables
    assert tables["observations"] == sum(accepted)
    assert tables["ingest_rejects"] == 0
    assert sum(accepted) + sum(refused) >= 200  # every ingest either stored or was refused whole
    print("accepted", accepted, "refused", refused)


def test_one_store_per_thread_works_concurrently(store_path):
    hwrec.Store.init(store_path).close()
    results, failures = [], []

    def writer(t):
        try:
            with hwrec.Store(store_path, busy_timeout_ms=30000) as s:
                for i in range(60):
                    results.append(s.ingest([observation(f"ex-{t}-{i}")]).accepted)
                    s.recommend("ghcr.io/acme/whisper-batch:1.2", gpu_model="L4")
        except Exception as e:
            failures.append(e)

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert failures == []
    assert sum(results) == 120
    with hwrec.Store(store_path) as s:
        assert s.status().tables["observations"] == 120


def test_another_python_thread_makes_progress_while_an_ingest_runs(store, tmp_path):
    import json
    path = tmp_path / "many.jsonl"
    with open(path, "w") as f:
        for i in range(6000):
            f.write(json.dumps(observation(f"ex-many-{i}")) + "\n")
    ticks = [0]
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.0005)  # gives the GIL back between ticks

    interval = sys.getswitchinterval()
    sys.setswitchinterval(30)  # this thread keeps the GIL unless hwrec releases it
    try:
        thread = threading.Thread(target=ticker)
        thread.start()
        time.sleep(0.05)
        before = ticks[0]
        summary = store.ingest(path)
        during = ticks[0] - before
    finally:
        stop.set()
        sys.setswitchinterval(interval)
    thread.join(10)
    assert summary.accepted == 6000
    assert during > 0
