"""The Runner's own records through the module: RunnerNodePool dicts in
register_pools and CompleteExecutionMetric dicts (with the worker's metrics)
in ingest, by form="runner" and told apart automatically."""

import pytest

import hwrec

RUNNER_POOL = {
    "id": "runner-a100-mig", "name": "A100 80GB MIG 3g", "site_id": "site-r",
    "cpu": 32, "memory": 274877906944, "gpu": 2, "architecture": "x86_64",
    "gpu_mode": "mig-3g.40gb", "gpu_num_total": 4, "gpu_brand": "NVIDIA",
    "gpu_model": "A100 80GB", "instance_type": "a2-ultragpu-2g", "maximum_time_in_sec": 86400,
}
RUNNER_CPU_POOL = {
    "id": "runner-cpu", "name": "CPU", "site_id": "site-r", "cpu": 16, "memory": 68719476736,
    "gpu": 0, "architecture": "x86_64", "gpu_mode": None, "instance_type": "n2-standard-16",
}
IMAGE = "ghcr.io/acme/runner-job:3"


def metric(execution_id, **fields):
    record = {
        "execution_id": execution_id,
        "action_container_image": IMAGE,
        "site_id": "site-r",
        "node_pool_id": "runner-a100-mig",
        "started_at": "2026-11-28T09:00:00Z",
        "ended_at": "2026-11-28T09:10:00Z",
        "status": "Success",
        "node_pool_gpu": 2,
        "node_pool_gpu_mode": "mig-3g.40gb",
        "node_pool_gpu_num_total": 4,
        "resources_allocation": {"cpu": 4, "memory": 17179869184, "gpu_memory_gb": 40},
        "metrics": {"gpu_util": 80, "gpu_memory_max_mib": 30720, "cpu_avg": 2.5, "cpu_p95": 3.1,
                    "cpu_max": 3.8, "memory_max": 12884901888, "gpu_compute_fraction": 0.4286},
    }
    record.update(fields)
    return record


@pytest.mark.parametrize("form", ["runner", "auto"])
def test_runner_node_pools_register_with_their_hardware(store, form):
    summary = store.register_pools([RUNNER_POOL, RUNNER_CPU_POOL], form=form)
    assert (summary.registered, summary.rejected) == (2, 0), summary.rejects
    pools = {p.node_pool_id: p for p in store.pools()}
    hw = pools["runner-a100-mig"].hardware
    assert hw["cpu_millicores"] == 32000 and hw["memory_bytes"] == 274877906944
    assert (hw["gpu_count"], hw["gpu_mode"], hw["gpu_total"]) == (2, "mig-3g.40gb", 4)
    assert (hw["gpu_brand"], hw["gpu_model"], hw["instance_type"]) == (
        "NVIDIA", "A100 80GB", "a2-ultragpu-2g")
    assert pools["runner-a100-mig"].site_id == "site-r"
    assert pools["runner-cpu"].hardware["gpu_mode"] is None


@pytest.mark.parametrize("form", ["runner", "auto"])
def test_complete_execution_metrics_ingest_and_are_recommended_from(store, form):
    store.register_pools([RUNNER_POOL])
    summary = store.ingest([metric("run-1"), metric("run-2", status="OOMKilled")], form=form)
    assert (summary.accepted, summary.rejected) == (2, 0), summary.rejects
    rec = store.recommend(IMAGE, pool="runner-a100-mig")
    gpu = rec.figures["gpu_memory_gb"]
    assert gpu.provenance == "exact" and gpu.samples == 2


def test_a_runner_record_with_a_bad_metric_names_the_runner_field(store):
    store.register_pools([RUNNER_POOL])
    bad = metric("run-bad")
    bad["metrics"] = dict(bad["metrics"], gpu_util="high")
    summary = store.ingest([metric("run-ok"), bad], form="runner")
    assert summary.accepted == 1 and summary.rejected == 1
    assert summary.rejects[0].field == "metrics.gpu_util"


def test_a_record_mixing_both_forms_is_rejected_in_auto(store):
    mixed = metric("run-mixed", action_image=IMAGE)
    summary = store.ingest([mixed])
    assert summary.rejected == 1 and summary.rejects[0].field == "json"


def test_an_unknown_runner_status_lists_the_accepted_values(store):
    summary = store.ingest([metric("run-s", status="Exploded")], form="runner")
    assert summary.rejected == 1 and "Success" in summary.rejects[0].reason


def test_a_runner_pool_field_hwrec_does_not_know_is_a_warning_and_the_pool_registers(store):
    summary = store.register_pools([dict(RUNNER_POOL, selection_rule="spread")])
    assert summary.registered == 1 and summary.rejected == 0
    [warning] = summary.warnings
    assert (warning.line, warning.node_pool_id, warning.field) == (1, RUNNER_POOL["id"],
                                                                   "selection_rule")
    assert "is not a known field" in warning.reason
    assert summary.to_dict()["warnings"] == [warning.to_dict()]
