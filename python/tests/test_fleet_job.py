"""The Runner's and the dispatcher's whole job through the module, with no
subprocess: a legacy store migrated, pools registered, an intent configured,
a setting changed, the Runner's records ingested, executions placed with the
Runner's units out and the fraction to stamp, a dispatch routed and walked,
a quarantined row resolved, and the store checked."""

import pytest

import hwrec

from conftest import A100_POOL

GIB = 2**30
IMAGE = "ghcr.io/acme/whisper-train:2"
POOLS = [
    {"id": "a100-mig", "name": "A100 80GB split 3g.40gb", "site_id": "site-a", "cpu": 96,
     "memory": 1024 * GIB, "gpu": 4, "architecture": "x86_64", "gpu_mode": "mig-3g.40gb",
     "gpu_num_total": 8, "gpu_brand": "NVIDIA", "gpu_model": "A100 80GB",
     "instance_type": "dgx-a100"},
    {"id": "h100-full", "name": "H100 80GB", "site_id": "site-b", "cpu": 208,
     "memory": 1862 * GIB, "gpu": 8, "architecture": "x86_64", "gpu_mode": "full",
     "gpu_num_total": 8, "gpu_brand": "NVIDIA", "gpu_model": "H100 80GB",
     "instance_type": "a3-highgpu-8g"},
]


def finished(execution_id, hour, gpu_memory_mib, status="Success"):
    """A CompleteExecutionMetric as the Runner sends it when an execution ends."""
    return {
        "execution_id": execution_id, "action_container_image": IMAGE, "site_id": "site-a",
        "node_pool_id": "a100-mig", "status": status,
        "started_at": f"2026-11-28T{hour:02d}:00:00Z", "ended_at": f"2026-11-28T{hour:02d}:40:00Z",
        "node_pool_gpu": 4, "node_pool_gpu_mode": "mig-3g.40gb", "node_pool_gpu_num_total": 8,
        "resources_allocation": {"cpu": 4, "memory": 16 * GIB, "gpu": 1, "gpu_memory_gb": 40},
        "metrics": {"gpu_util": 70, "gpu_memory_max_mib": gpu_memory_mib, "cpu_avg": 2.0,
                    "cpu_p95": 2.6, "cpu_max": 3.0, "memory_max": 9 * GIB,
                    "gpu_compute_fraction": 0.4286},
    }


def test_the_runner_and_the_dispatcher_do_their_whole_job_in_process(legacy_path):
    with hwrec.Store(legacy_path) as store:
        # Take over a legacy store: preview, then consent.
        assert store.plan_legacy_migration().quarantined == 1
        store.migrate_legacy(accept_hp_v2=True, backup=False)

        # The Runner registers its pools; the dispatcher its intent.
        assert store.register_pools(POOLS, form="runner").rejected == 0
        store.import_router_config({"intents": [{
            "intent": "whisper-train", "workload_image": IMAGE,
            "legacy_machine": "a2-ultragpu-1g"}]})
        store.config_set("gpu_memory.margin", 0.25)
        assert store.config_get("gpu_memory.margin").value == "0.25"

        # Executions end; the Runner ingests what they used, a bad one beside them.
        summary = store.ingest([finished(f"ex-{h}", h, 20000 + 500 * h) for h in range(8)]
                               + [dict(finished("ex-bad", 9, 1), status="Exploded")])
        assert (summary.accepted, summary.rejected) == (8, 1)
        assert summary.rejects[0].field == "status"

        # The next execution is placed; the Runner gets its own units back.
        placement = store.place({"image": IMAGE},
                                ["a100-mig", "h100-full"], record="ex-next")
        assert placement.chosen == "a100-mig"
        allocation = placement.runner_allocation
        assert allocation is not None and allocation["gpu"] == 1
        assert allocation["gpu_memory_gb"] == 40 and allocation["cpu"] > 0
        assert placement.compute_fraction == pytest.approx(3 / 7)
        figure = store.recommend(IMAGE, pool="a100-mig").figures["gpu_memory_gb"]
        assert figure.margin == 0.25
        assert [r.execution_id for r in store.placements("ex-next")] == ["ex-next"]

        # The dispatcher routes a wide job of the intent it configured.
        plan = store.route("whisper-train", 8, "6h", sharded=True)
        assert plan.ladder[0].width == 8
        walked = store.walk(plan, lambda rung: "launched" if rung.width <= 4 else "capacity_miss")
        assert walked.selected is not None and walked.realized_width == 4 and walked.degraded
        assert store.router_day().gcp_attempts >= 1

        # An operator resolves what the migration held back.
        [row] = store.quarantine(reason="gpu_name_not_in_catalog")
        assert store.resolve_quarantine(ids=[row.id], gpu_model=A100_POOL["gpu_name"]).moved == 1

        # And the store is sound, aggregates and figures equal to a rebuild.
        report = hwrec.check(store.path)
        assert report.sound, [c.to_dict() for c in report.checks if c.state != "ok"]
