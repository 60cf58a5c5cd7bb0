"""One store, several processes, as a fleet uses it: Runner workers started
by multiprocessing ingest into one SQLite file while a long-lived Store in
another process keeps answering from it; and a Store carried into a forked
process refuses there, leaving its opener's connection alone."""

import multiprocessing
import threading

import pytest

import hwrec
from conftest import WHISPER, exit_code_in_fork, needs_fork, observation

WORKERS = 3
RECORDS = 40


def runner_worker(path, worker):
    """A Runner process: its own Store, one record per call as executions end.
    Every worker also re-sends the first two records of the fleet."""
    with hwrec.Store(path, busy_timeout_ms=60000) as store:
        accepted = duplicates = 0
        for i in range(RECORDS):
            summary = store.ingest([observation(f"ex-w{worker}-{i}", gpu_memory_peak_gb=12.0 + i % 5)])
            accepted += summary.accepted
        for shared in ("ex-shared-0", "ex-shared-1"):
            summary = store.ingest([observation(shared)])
            accepted += summary.accepted
            duplicates += summary.duplicates
        return accepted, duplicates


def test_runner_processes_ingest_into_one_store_and_a_kept_store_sees_them(store_path):
    with hwrec.Store.init(store_path) as kept:
        kept.ingest([observation("ex-before")])
        before = kept.recommend(WHISPER, gpu_model="L4").figures["gpu_memory_gb"]
        assert before.samples == 1
        with multiprocessing.get_context("spawn").Pool(WORKERS) as pool:
            results = pool.starmap(runner_worker, [(str(store_path), w) for w in range(WORKERS)])
        accepted = sum(a for a, _ in results)
        duplicates = sum(d for _, d in results)
        # Each shared record was stored once, whichever worker came first.
        assert accepted == WORKERS * RECORDS + 2
        assert duplicates == WORKERS * 2 - 2
        # The kept Store (its kept query among them) answers from what the
        # other processes committed, without reload().
        after = kept.recommend(WHISPER, gpu_model="L4").figures["gpu_memory_gb"]
        assert after.samples == 1 + WORKERS * RECORDS + 2
        assert after.value > before.value  # the workers' peaks reached 16 GB
        status = kept.status()
        assert status.tables["observations"] == 1 + WORKERS * RECORDS + 2
        assert status.tables["ingest_rejects"] == 0
    with hwrec.Store(store_path) as fresh:
        assert fresh.recommend(WHISPER, gpu_model="L4").figures["gpu_memory_gb"].value == after.value
    assert hwrec.check(store_path).sound


@needs_fork
def test_a_store_used_in_a_forked_process_refuses_and_its_opener_goes_on(store_path):
    with hwrec.Store.init(store_path) as store:
        store.ingest([observation("ex-parent-1")])
        store.recommend(WHISPER, gpu_model="L4")  # a kept query, carried into the child too

        def child():
            with pytest.raises(hwrec.Error, match="forked from it") as refused:
                store.recommend(WHISPER, gpu_model="L4")
            assert refused.value.code == "forked"
            assert "hwrec.Store(path)" in str(refused.value)
            # Its own Store works.
            with hwrec.Store(store_path) as own:
                assert own.ingest([observation("ex-child")]).accepted == 1
            store.close()  # forgets the opener's connection
            assert store.closed

        assert exit_code_in_fork(child) == 0
        assert store.ingest([observation("ex-parent-2")]).accepted == 1
        assert store.status().tables["observations"] == 3
        assert store.recommend(WHISPER, gpu_model="L4").figures["gpu_memory_gb"].samples == 3


@needs_fork
def test_a_fork_taken_while_another_thread_held_the_store_says_forked_not_busy(store_path):
    with hwrec.Store.init(store_path) as store:
        started, proceed = threading.Event(), threading.Event()

        def records():
            yield observation("ex-held-1")
            started.set()
            proceed.wait(10)
            yield observation("ex-held-2")

        worker = threading.Thread(target=lambda: store.ingest(records()))
        worker.start()
        try:
            assert started.wait(10)

            def child():
                with pytest.raises(hwrec.Error) as refused:
                    store.status()
                assert refused.value.code == "forked"

            assert exit_code_in_fork(child) == 0
        finally:
            proceed.set()
            worker.join(10)
        assert store.status().tables["observations"] == 2
