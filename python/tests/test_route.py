"""Store.route, Store.walk with a Python launcher, and Store.router_day."""

import json

import pytest

import hwrec

DAY = "2026-07-08T12:00:00Z"


def test_route_builds_the_ladder_with_pruned_rungs(store):
    plan = store.route("capture-7b", 8, "2d", sharded=True)
    assert (plan.intent, plan.requested_width, plan.length_hours) == ("capture-7b", 8, 48.0)
    assert plan.length_class == "long"
    first = plan.ladder[0]
    assert first.backend == "gcp" and first.width == 8 and first.provisioning == "FLEX_START"
    assert first.id == "gcp/" + first.machine_type + "/flex-start"
    assert first.gpu_model == "A100 80GB"
    assert plan.ladder[-1].backend == "runpod" and plan.ladder[-1].provisioning is None
    assert plan.pruned and plan.pruned[0].reason
    assert plan.notes and plan.walk is None
    d = plan.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["ladder"][0] == first.to_dict()
    assert repr(first).startswith("Rung(id='gcp/")
    assert repr(plan.pruned[0]).startswith("PrunedRung(id=")
    assert repr(plan).startswith("RoutePlan(intent='capture-7b'")
    assert store.route("capture-7b", 8, 48, sharded=True).to_dict()["ladder"] == d["ladder"]


def test_route_errors_name_the_argument(store):
    with pytest.raises(hwrec.InvalidArgumentError, match="length"):
        store.route("capture-7b", 8, "forever")
    with pytest.raises(hwrec.Error):
        store.route("no-such-intent", 1, "1h")
    with pytest.raises(hwrec.InvalidArgumentError, match="simulate"):
        store.route("capture-7b", 8, "2d", simulate={"capacity": []})


def test_simulate_walks_the_ladder_as_a_dry_run(store):
    capacity = {"available": ["slurm/*"], "failures": {"gcp/a2-ultragpu-8g/*": "quota_exceeded"},
                "day": "2026-07-08"}
    plan = store.route("capture-7b", 8, "2d", simulate=capacity, sharded=True)
    walk = plan.walk
    assert walk.selected.id == "slurm/a100-80gb"
    assert walk.realized_width == 1 and walk.degraded and not walk.stopped
    assert walk.attempts[0].outcome == "quota_exceeded"
    assert walk.backend_selected_event["rung"] == "slurm/a100-80gb"
    assert plan.to_dict()["walk"] == walk.to_dict()
    day = store.router_day(now=DAY)
    assert day.gcp_attempts == 0 and day.exhausted_quotas == []


def test_walk_moves_past_capacity_misses_and_records_the_day(store):
    plan = store.route("capture-7b", 8, "2d", sharded=True)
    tried = []

    def launcher(rung):
        tried.append(rung.id)
        return "launched" if len(tried) == 3 else ("capacity_miss", "no " + rung.machine_type)

    result = store.walk(plan, launcher, now=DAY)
    assert tried == [r.id for r in plan.ladder[:3]]
    assert result.selected.id == plan.ladder[2].id
    assert [a.outcome for a in result.attempts] == ["capacity_miss", "capacity_miss", "launched"]
    assert result.attempts[0].detail == "no " + plan.ladder[0].machine_type
    assert result.attempts[0].rung.id == plan.ladder[0].id
    assert result.counted_gcp_attempt and result.realized_width == 8 and not result.degraded
    assert result.backend_selected_event["event"] == "backend-selected"
    assert result.to_dict()["attempts"][2]["outcome"] == "launched"
    assert repr(result.attempts[0]).startswith("RouteAttempt(rung=")
    assert repr(result).startswith("RouteResult(intent='capture-7b'")
    day = store.router_day(now=DAY)
    assert day.day == "2026-07-08" and day.gcp_attempts == 1
    assert day.to_dict() == {"day": "2026-07-08", "gcp_attempts": 1, "exhausted_quotas": [],
                             "quota_blocks": []}
    assert repr(day).startswith("RouterDayState(day='2026-07-08'")


def test_a_quota_exceeded_blocks_its_quota_for_the_day(store):
    plan = store.route("capture-7b", 8, "2d", sharded=True)
    first = plan.ladder[0]

    def launcher(rung):
        if rung.id == first.id:
            return ("quota_exceeded", "PREEMPTIBLE quota used up")
        return "launched" if rung.backend == "slurm" else "capacity_miss"

    store.walk(plan, launcher, now=DAY)
    day = store.router_day(now=DAY)
    assert len(day.exhausted_quotas) == 1
    assert first.gpu_model in day.exhausted_quotas[0]
    [block] = day.quota_blocks
    assert isinstance(block, hwrec.QuotaBlock)
    assert (block.gpu_model, block.quota_class, block.gpus) == (first.gpu_model, "preemptible", 8)
    assert block.reason == "PREEMPTIBLE quota used up"
    assert day.to_dict()["quota_blocks"] == [{"gpu_model": first.gpu_model,
                                              "quota_class": "preemptible", "gpus": 8,
                                              "reason": "PREEMPTIBLE quota used up"}]
    again = store.walk(plan, lambda rung: "capacity_miss", now=DAY)
    assert "skipped_quota_exhausted" in [a.outcome for a in again.attempts]


def test_a_dry_run_walk_writes_nothing(store):
    plan = store.route("capture-7b", 8, "2d", sharded=True)
    store.walk(plan, lambda rung: "quota_exceeded", dry_run=True, now=DAY)
    day = store.router_day(now=DAY)
    assert day.gcp_attempts == 0 and day.exhausted_quotas == []


def test_an_exception_from_the_launcher_propagates_and_leaves_the_store_consistent(store):
    plan = store.route("capture-7b", 8, "2d", sharded=True)

    class BackendDown(Exception):
        pass

    def launcher(rung):
        raise BackendDown("gcloud crashed")

    with pytest.raises(BackendDown, match="gcloud crashed"):
        store.walk(plan, launcher, now=DAY)
    assert store.router_day(now=DAY).gcp_attempts == 1  # the attempt was made
    result = store.walk(plan, lambda rung: "launched", now=DAY)
    assert result.selected.id == plan.ladder[0].id
    assert store.router_day(now=DAY).gcp_attempts == 2


def test_a_launcher_returning_an_unknown_outcome_is_an_invalid_argument(store):
    plan = store.route("capture-7b", 8, "2d", sharded=True)
    with pytest.raises(hwrec.InvalidArgumentError, match="launcher"):
        store.walk(plan, lambda rung: "maybe", now=DAY)


def test_a_launcher_calling_back_into_its_store_gets_concurrent_use(store):
    plan = store.route("capture-7b", 8, "2d", sharded=True)

    def launcher(rung):
        store.router_day()
        return "launched"

    with pytest.raises(hwrec.ConcurrentUseError):
        store.walk(plan, launcher, now=DAY)
    assert store.router_day(now=DAY).gcp_attempts == 1


@pytest.mark.parametrize("now", [float("nan"), float("inf"), -1e300, 1e300])
def test_a_walk_at_a_time_that_is_not_a_date_is_refused_and_writes_nothing(store, now):
    plan = store.route("capture-7b", 8, "6h", sharded=True)
    with pytest.raises(hwrec.InvalidArgumentError, match="now is"):
        store.walk(plan, lambda rung: "launched", now=now)
    with pytest.raises(hwrec.InvalidArgumentError, match="now is"):
        store.router_day(now=now)
    assert store.router_day().gcp_attempts == 0


def test_a_wide_route_without_a_sharded_launch_command_downsizes(store):
    plan = store.route("capture-7b", 8, "2d")
    assert not plan.sharded and plan.to_dict()["sharded"] is False
    assert {r.width for r in plan.ladder} == {1}
    assert any("needs a sharded launch command" in p.reason for p in plan.pruned)
    assert store.route("capture-7b", 8, "2d", sharded=True).sharded


def test_a_launcher_returning_not_tried_ends_the_walk(store):
    plan = store.route("capture-7b", 8, "2d", sharded=True)
    result = store.walk(plan, lambda rung: "not_tried", now=DAY)
    assert [a.outcome for a in result.attempts] == ["not_tried"]
    assert result.selected is None and not result.stopped


def test_a_width_that_is_no_machine_width_maps_down(store):
    plan = store.route("capture-7b", 6, "2d", sharded=True)
    assert (plan.requested_width, plan.planned_width) == (6, 4)
    assert plan.ladder[0].width == 4 and plan.no_fit is None
    assert plan.to_dict()["planned_width"] == 4 and plan.to_dict()["no_fit"] is None


def _ingest_eval_13b_peak_79(store, gpus):
    """eval-13b peaking at 79 GiB per GPU, holding `gpus` A100 80GB (a2-ultragpu-<gpus>g)."""
    store.ingest({"execution_id": f"big-{gpus}", "action_image": "ghcr.io/acme/eval-13b:1.0",
                  "finished_at": "2026-05-28T09:00:00Z", "status": "success",
                  "hardware": {"instance_type": f"a2-ultragpu-{gpus}g", "gpu_count": gpus,
                               "gpu_mode": "full", "gpu_total": gpus, "gpu_brand": "NVIDIA",
                               "gpu_model": "A100 80GB"},
                  "gpu_count_held": gpus, "gpu_memory_peak_gb": 79})


def test_no_card_holding_a_shard_is_a_plan_with_no_fit_not_an_error(store):
    _ingest_eval_13b_peak_79(store, 1)
    plan = store.route("eval-13b", 1, "2d")  # the 86.9 GiB was learned at width 1
    assert plan.ladder == [] and "86.9 GiB" in plan.no_fit
    assert all("GPU memory per shard" in p.reason for p in plan.pruned)


def test_a_figure_learned_at_width_8_leaves_no_rung_of_width_8_or_less(store):
    # 79 GiB peaks on 8x A100 80GB: 86.9 GiB per GPU at width 8, at least that on fewer GPUs.
    _ingest_eval_13b_peak_79(store, 8)
    plan = store.route("eval-13b", 8, "2d", sharded=True)
    assert plan.ladder == [] and plan.planned_width == 8
    assert "learned on A100 80GB at width 8" in plan.no_fit
    assert "shard the work" not in plan.no_fit  # 8 is the widest machine width
    reasons = {p.id: p.reason for p in plan.pruned}
    nearest = "(learned on A100 80GB at width 8, the nearest wider width it ran at)"
    assert nearest in reasons["gcp/a2-ultragpu-4g/flex-start"]
    assert nearest in reasons["slurm/a100-80gb"]


def test_gpus_held_size_each_width_and_placement_asks_for_them(store):
    """1-GPU pods on 8-GPU nodes are width 1; the Runner's resources_allocation.gpu says so."""
    store.register_pools([{"id": "a3-8g", "site_id": "gke", "cpu": 208, "memory": 2009749364736,
                           "gpu": 8, "gpu_mode": "full", "gpu_num_total": 8,
                           "gpu_brand": "NVIDIA", "gpu_model": "H100 80GB",
                           "instance_type": "a3-highgpu-8g"}], form="runner")
    runs = [{"execution_id": f"one-{i}", "action_container_image": "ghcr.io/acme/capture-13b:1.0",
             "node_pool_id": "a3-8g", "ended_at": 1795968000 + i, "status": "Success",
             "resources_allocation": {"gpu": 1}, "metrics": {"gpu_memory_max_mib": 60723}}
            for i in range(3)]
    runs += [{"execution_id": f"four-{i}", "action_container_image": "ghcr.io/acme/eval-7b:1.0",
              "node_pool_id": "a3-8g", "ended_at": 1795968000 + i, "status": "Success",
              "resources_allocation": {"gpu": 4}, "metrics": {"gpu_memory_max_mib": 30720}}
             for i in range(3)]
    assert store.ingest(runs, form="runner").accepted == 6

    at_eight = store.recommend("ghcr.io/acme/capture-13b:1.0", pool="a3-8g", width=8)
    assert at_eight.width == 8
    gpu = at_eight.figures["gpu_memory_gb"]
    assert gpu.learned_width == 1 and gpu.to_dict()["learned_width"] == 1
    assert store.recommend("ghcr.io/acme/eval-7b:1.0", pool="a3-8g",
                           width=4).figures["gpu_memory_gb"].value == pytest.approx(33)
    assert store.recommend("ghcr.io/acme/eval-7b:1.0", pool="a3-8g").width is None

    plan = store.route("capture-13b", 8, "2d", sharded=True)
    assert not any("at width 8" in p.reason for p in plan.pruned)
    assert any(r.id == "gcp/a2-highgpu-8g/flex-start" for r in plan.ladder)

    placed = store.place({"image": "ghcr.io/acme/eval-7b:1.0"}, [{"node_pool_id": "a3-8g"}])
    assert placed.shape.gpu_count == 4
