"""Store.recommend, Store.place and Store.placements."""

import json

import pytest

import hwrec
from conftest import WHISPER

L4 = {"gpu_brand": "NVIDIA", "gpu_model": "L4", "instance_type": "g2-standard-8"}
FIGURES = ["cpu_request_millicores", "cpu_limit_millicores", "memory_bytes", "gpu_memory_gb",
           "gpu_compute_fraction"]


def test_recommend_gives_every_figure_with_its_provenance(loaded):
    rec = loaded.recommend(WHISPER, **L4, as_of="2026-11-29T00:00:00Z")
    assert rec.workload == WHISPER
    assert rec.hardware == dict(L4, cpu_only=False)
    assert rec.as_of == 1795910400.0
    assert list(rec.figures) == FIGURES
    gpu = rec.figures["gpu_memory_gb"]
    assert gpu.kind == "gpu_memory_gb"
    assert gpu.provenance == "exact"
    assert gpu.value > 0 and gpu.samples >= 1 and 0 < gpu.confidence < 1
    assert gpu.lower <= gpu.value <= gpu.upper
    assert gpu.last_seen > 0 and gpu.statistic and gpu.margin == pytest.approx(0.10)
    assert gpu.half_life_hours == 12
    d = rec.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["figures"]["gpu_memory_gb"] == gpu.to_dict()
    assert repr(gpu).startswith("Figure(kind='gpu_memory_gb'")
    assert repr(rec).startswith("Recommendation(workload=")
    assert f"'gpu_memory_gb': {gpu.value!r}" in repr(rec)  # each figure shows its value


def test_recommend_with_explain_says_why_each_figure_is_what_it_is(loaded):
    plain = loaded.recommend(WHISPER, **L4)
    assert all(f.reason is None for f in plain.figures.values())
    assert plain.to_dict()["figures"]["gpu_memory_gb"]["reason"] is None
    rec = loaded.recommend(WHISPER, **L4, explain=True)
    gpu = rec.figures["gpu_memory_gb"]
    why = gpu.reason
    assert why.source == "max_of_recent" and why.statistic == "max of last 10"
    assert why.execution_id and why.finished_at > 0 and why.status
    assert why.oom_applied_to in (None, "requested", "observed")
    assert why.value == gpu.value
    assert why.with_margin == pytest.approx(why.statistic_value * (1 + why.margin))
    assert why.text.startswith("max of last 10 = ") and why.execution_id in why.text
    memory = rec.figures["memory_bytes"].reason
    assert memory.source == "percentile"
    assert memory.bucket_lower < memory.bucket_upper and 0.98 <= memory.share_at_or_below <= 1
    assert rec.to_dict()["figures"]["gpu_memory_gb"]["reason"] == why.to_dict()
    assert repr(why).startswith("FigureReason(source='max_of_recent'")


def test_an_unknown_workload_has_figures_of_provenance_none(loaded):
    rec = loaded.recommend("ghcr.io/acme/never-seen:1", **L4)
    assert all(f.provenance == "none" and f.value is None for f in rec.figures.values())


def test_recommend_on_a_pool_uses_its_hardware_key(loaded):
    loaded.register_pools({"site_id": "site-c", "node_pool_id": "sitec-l4", "name": "L4",
                           "instance_type": "g2-standard-8", "architecture": "x86_64",
                           "cpu_millicores": 8000, "memory_bytes": 34359738368,
                           "gpu_brand": "NVIDIA", "gpu_model": "L4", "gpu_count": 1,
                           "gpu_mode": "full", "gpu_total": 1})
    pool = next(p for p in loaded.pools() if p.hardware["gpu_model"] == "L4")
    by_pool = loaded.recommend(WHISPER, pool=pool.node_pool_id)
    assert by_pool.hardware == dict(L4, cpu_only=False)
    assert by_pool.figures["gpu_memory_gb"].to_dict() == loaded.recommend(
        WHISPER, **L4).figures["gpu_memory_gb"].to_dict()
    with pytest.raises(hwrec.NotFoundError, match="no-such-pool"):
        loaded.recommend(WHISPER, pool="no-such-pool")
    with pytest.raises(hwrec.InvalidArgumentError, match="not both"):
        loaded.recommend(WHISPER, pool=pool.node_pool_id, gpu_model="L4")
    with pytest.raises(hwrec.InvalidArgumentError, match="as_of"):
        loaded.recommend(WHISPER, as_of="yesterday")


def test_recommend_resolves_the_gpu_model_as_the_cli_does(loaded):
    # The model looked up in the catalog, its brand filled in: the same key
    # and figures as the full spelling.
    full = loaded.recommend(WHISPER, **L4)
    loose = loaded.recommend(WHISPER, gpu_model="L4", instance_type="g2-standard-8")
    assert loose.hardware == full.hardware
    assert {k: f.to_dict() for k, f in loose.figures.items()} == {
        k: f.to_dict() for k, f in full.figures.items()}
    assert full.figures["gpu_memory_gb"].provenance == "exact"
    with pytest.raises(hwrec.InvalidArgumentError, match="gpu_model"):
        loaded.recommend(WHISPER, gpu_model="no-such-card", instance_type="g2-standard-8")
    unknown = loaded.recommend(WHISPER, gpu_model="unknown", instance_type="g2-standard-8")
    assert unknown.hardware.get("gpu_model") is None
    with pytest.raises(hwrec.InvalidArgumentError, match="a CPU-only key names no GPU"):
        loaded.recommend(WHISPER, gpu_model="L4", cpu_only=True)


def test_place_chooses_a_pool_and_explains_every_candidate(loaded):
    pools = [p.node_pool_id for p in loaded.pools()]
    candidates = [{"node_pool_id": p, "free_partitions": 4, "free_cpu_millicores": 64000,
                   "free_memory_bytes": 1 << 38} for p in pools] + ["not-registered"]
    placement = loaded.place({"image": WHISPER, "declared": {"gpu_count": 1}}, candidates)
    assert placement.workload == WHISPER and placement.policy == "best_fit"
    assert placement.chosen in pools
    assert placement.placement_id is None
    assert len(placement.candidates) == len(candidates)
    first = placement.candidates[0]
    assert first.node_pool_id == placement.chosen and first.feasible and first.reason == "fits"
    assert placement.chosen_request.to_dict() == first.request.to_dict()
    assert set(first.request.origins) == set(FIGURES)
    assert first.request.gpu_count == 1
    # The pools the workload's own history sizes rank first; a chosen pool
    # always carries a CPU and a memory request.
    assert first.request.origins["cpu_request_millicores"] == "exact"
    assert first.request.cpu_request_millicores and first.request.memory_bytes
    scored = next(c for c in placement.candidates if c.waste.score is not None)
    assert isinstance(scored.waste.compute_shortfall, float)
    assert scored.waste.score == pytest.approx(scored.waste.card + 2 * scored.waste.compute_shortfall)
    assert placement.shape.gpu_count == 1 and placement.shape.gpu_count_source == "declared"
    assert first.needs.to_dict().keys() == {"gpu_memory_gb", "gpu_compute_fraction"}
    missing = next(c for c in placement.candidates if c.node_pool_id == "not-registered")
    assert not missing.feasible and missing.reason
    assert isinstance(missing.notes, list)
    d = placement.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["chosen"] == placement.chosen and len(d["candidates"]) == len(candidates)
    assert repr(placement).startswith("Placement(workload=")
    assert repr(first).startswith("CandidateEvaluation(node_pool_id=")
    assert repr(first.request).startswith("EffectiveRequest(")
    assert repr(first.waste).startswith("PlacementWaste(")


def test_what_is_not_declared_comes_from_the_workloads_history(loaded):
    pools = [p.node_pool_id for p in loaded.pools()]
    placement = loaded.place({"image": WHISPER}, pools)
    shape = placement.shape
    assert (shape.gpu_count, shape.gpu_count_source) == (1, "history")
    assert (shape.architectures, shape.architecture_source) == (["x86_64"], "history")
    assert shape.gpu_executions == shape.history_executions > 0
    assert placement.to_dict()["shape"] == shape.to_dict()
    assert placement.to_payload()["shape"] == shape.to_dict()
    assert repr(shape).startswith("ExecutionShape(gpu_count=1")
    chosen = placement.candidates[0]
    assert chosen.request.gpu_count == 1
    assert any(n.startswith("gpu_count 1 from history: ") for n in chosen.notes)
    assert shape.notes and chosen.notes[: len(shape.notes)] == shape.notes


def test_place_payload_is_the_placement_v1_json(loaded):
    pools = [p.node_pool_id for p in loaded.pools()]
    placement = loaded.place({"image": WHISPER}, pools, policy="first_fit", as_of=1795910400)
    payload = placement.to_payload()
    assert payload["schema"] == "hwrec.placement/v1"
    assert payload["policy"] == "first_fit"
    assert payload["chosen"]["node_pool_id"] == placement.chosen
    assert json.loads(placement.to_json(indent=2)) == payload
    assert "\n" in placement.to_json(indent=2) and "\n" not in placement.to_json()


def test_nothing_fits_gives_no_choice(loaded):
    pools = [p.node_pool_id for p in loaded.pools()]
    placement = loaded.place({"image": WHISPER, "declared": {"gpu_model": "B200"}}, pools)
    assert placement.chosen is None and placement.chosen_request is None
    assert not any(c.feasible for c in placement.candidates)


def test_a_recorded_placement_is_listed_for_its_execution(loaded):
    pools = [p.node_pool_id for p in loaded.pools()]
    placement = loaded.place({"image": WHISPER}, pools, record="ex-placed-1")
    assert placement.placement_id is not None
    records = loaded.placements("ex-placed-1")
    assert len(records) == 1
    r = records[0]
    assert (r.id, r.execution_id, r.workload, r.node_pool_id) == (
        placement.placement_id, "ex-placed-1", WHISPER, placement.chosen)
    assert r.policy == "best_fit" and r.placed_at > 0
    assert r.request.to_dict() == placement.chosen_request.to_dict()
    assert r.to_dict()["request"] == r.request.to_dict()
    assert repr(r).startswith("PlacementRecord(id=")
    assert loaded.placements("ex-other") == []


def test_the_retry_floor_raises_the_request(loaded):
    pools = [p.node_pool_id for p in loaded.pools()]
    floor = {"memory_bytes": 200 << 30}
    placement = loaded.place({"image": WHISPER, "retry_floor": floor}, pools)
    for c in placement.candidates:
        if c.feasible:
            assert c.request.memory_bytes >= 200 << 30
            assert c.request.origins["memory_bytes"] == "retry_floor"


def test_place_arguments_are_checked_naming_the_field(loaded):
    ex = {"image": WHISPER}
    with pytest.raises(hwrec.InvalidArgumentError, match=r"candidates\[1\]\.free_partitions"):
        loaded.place(ex, [{"node_pool_id": "a"}, {"node_pool_id": "b", "free_partitions": "2"}])
    with pytest.raises(hwrec.InvalidArgumentError, match=r"candidates\[0\]: 'free_gpus'"):
        loaded.place(ex, [{"node_pool_id": "a", "free_gpus": 2}])
    with pytest.raises(hwrec.InvalidArgumentError, match=r"candidates\[0\]\.node_pool_id"):
        loaded.place(ex, [{"free_partitions": 2}])
    with pytest.raises(hwrec.InvalidArgumentError, match="must not be negative"):
        loaded.place(ex, [{"node_pool_id": "a", "free_cpu_millicores": -1}])
    with pytest.raises(TypeError, match=r"candidates\[0\]"):
        loaded.place(ex, [3])
    with pytest.raises(TypeError, match="candidates"):
        loaded.place(ex, "sitea-a100-80gb")
    with pytest.raises(hwrec.InvalidArgumentError, match="execution.image"):
        loaded.place({}, ["a"])
    with pytest.raises(hwrec.InvalidArgumentError, match="'cpu'"):
        loaded.place({"image": WHISPER, "cpu": 1}, ["a"])
    with pytest.raises(hwrec.InvalidArgumentError, match="execution.declared") as e:
        loaded.place({"image": WHISPER, "declared": {"gpu_count": "two"}}, ["a"])
    assert "gpu_count" in e.value.message
    with pytest.raises(hwrec.InvalidArgumentError, match="policy"):
        loaded.place(ex, ["a"], policy="cheapest")
    with pytest.raises(hwrec.InvalidArgumentError):
        loaded.place(ex, [])


def test_pools_registered_through_this_store_are_seen_by_place(loaded):
    pools = [p.to_dict() for p in loaded.pools()]
    assert loaded.place({"image": WHISPER}, ["new-pool"]).chosen is None
    new = dict(pools[0]["hardware"], node_pool_id="new-pool", site_id="site-z", name="new")
    loaded.register_pools([new])
    assert loaded.place({"image": WHISPER}, ["new-pool"]).chosen == "new-pool"


def test_pools_another_connection_registers_or_repartitions_are_seen_without_reload(
        loaded, store_path):
    pools = {p.node_pool_id: p.to_dict() for p in loaded.pools()}
    assert loaded.place({"image": WHISPER}, ["other-pool"]).chosen is None
    mig = next(p for p in pools.values() if (p["hardware"].get("gpu_mode") or "").startswith("mig-"))
    before = loaded.place({"image": WHISPER}, [mig["node_pool_id"]]).candidates[0]
    with hwrec.Store(store_path) as other:
        new = dict(next(iter(pools.values()))["hardware"], node_pool_id="other-pool",
                   site_id="s", name="o")
        whole = dict(mig["hardware"], node_pool_id=mig["node_pool_id"], site_id=mig["site_id"],
                     name=mig["name"], gpu_mode="full", gpu_total=mig["hardware"]["gpu_count"])
        other.register_pools([new, whole])
    assert loaded.place({"image": WHISPER}, ["other-pool"]).chosen == "other-pool"
    after = loaded.place({"image": WHISPER}, [mig["node_pool_id"]]).candidates[0]
    assert before.request.gpu_config_id.endswith(mig["hardware"]["gpu_mode"])
    assert after.request.gpu_config_id.endswith("-full")


@pytest.mark.parametrize("execution, candidates, says", [
    ({"image\ud800": "x"}, ["sitea-l4"], "execution key: holds a lone surrogate"),
    ({"image": "x\ud800"}, ["sitea-l4"], "execution.image: holds a lone surrogate"),
    ({"image": WHISPER}, ["sitea-l4\ud800"], "candidates[0]: holds a lone surrogate"),
    ({"image": WHISPER}, [{"node_pool_id": "a\ud800"}], "candidates[0].node_pool_id: holds"),
    ({"image": WHISPER, 3: "x"}, ["sitea-l4"], "execution: the key 3 is not text"),
])
def test_text_python_cannot_give_as_utf8_is_an_invalid_argument_not_a_crash(
        loaded, execution, candidates, says):
    with pytest.raises(hwrec.InvalidArgumentError) as caught:
        loaded.place(execution, candidates)
    assert says in str(caught.value)


def test_candidates_follow_the_same_rules_as_the_cli(loaded):
    pool = loaded.pools()[0].node_pool_id
    with pytest.raises(hwrec.InvalidArgumentError,
                       match=f"candidate 2: node_pool_id '{pool}' is listed twice: list each pool "
                             "once"):
        loaded.place({"image": WHISPER}, [pool, {"node_pool_id": pool}])
    with pytest.raises(hwrec.InvalidArgumentError, match="candidate 1: node_pool_id is empty"):
        loaded.place({"image": WHISPER}, [""])


@pytest.mark.parametrize("as_of", [float("nan"), float("inf"), -1.0, 1e300, True, 10**400])
def test_a_time_that_is_not_a_date_is_refused_naming_the_argument(loaded, as_of):
    with pytest.raises(hwrec.InvalidArgumentError, match="as_of"):
        loaded.recommend(WHISPER, **L4, as_of=as_of)
    with pytest.raises(hwrec.InvalidArgumentError, match="as_of"):
        loaded.place({"image": WHISPER}, [loaded.pools()[0].node_pool_id], as_of=as_of)


def test_a_datetime_without_a_timezone_is_refused_as_ambiguous(loaded):
    import datetime

    with pytest.raises(hwrec.InvalidArgumentError, match="without a timezone"):
        loaded.recommend(WHISPER, **L4, as_of=datetime.datetime(2026, 11, 29))


def test_a_share_of_one_card_goes_on_the_tightest_card_with_room(loaded):
    pools = [p for p in loaded.pools()
             if p.hardware.get("gpu_mode") == "full" and (p.hardware.get("gpu_count") or 0) >= 2]
    pool = pools[0].node_pool_id
    cards = [1.0] * pools[0].hardware["gpu_count"]
    cards[1] = 0.6
    ex = {"image": WHISPER, "declared": {"gpu_count": 1, "gpu_compute_fraction": 0.5}}
    placement = loaded.place(ex, [{"node_pool_id": pool, "free_gpu_shares": cards}])
    chosen = placement.candidates[0]
    assert chosen.feasible, chosen.reason
    assert chosen.gpu_cards == [1]
    assert chosen.waste.gpu_left == pytest.approx(sum(cards) - 0.5)
    with pytest.raises(hwrec.InvalidArgumentError, match=r"candidates\[0\]\.free_gpu_shares"):
        loaded.place(ex, [{"node_pool_id": pool, "free_gpu_shares": "1"}])


def test_a_free_share_too_large_for_a_float_is_refused_naming_the_field(loaded):
    pool = loaded.pools()[0].node_pool_id
    with pytest.raises(hwrec.InvalidArgumentError,
                       match=r"candidates\[0\]\.free_gpu_shares\[1\]: the number is out of range"):
        loaded.place({"image": WHISPER}, [{"node_pool_id": pool, "free_gpu_shares": [1, 10**400]}])


def test_retry_floor_of_an_oom_comes_from_the_store_and_place_keeps_it(loaded):
    floor = loaded.retry_floor("ex-2026-11-28-1019", pools=["sitea-a30-mig", "sitea-a100-80gb"])
    assert floor.status == "gpu_oom" and floor.workload == "ghcr.io/acme/resnet-infer:1.8"
    assert floor.retry_floor == {"gpu_memory_gb": 14.4}  # 12 GiB x oom_bump_factor 1.2
    assert [p.holds for p in floor.pools] == [False, True]
    assert "2g.12gb (12 GiB)" in floor.pools[0].reason
    assert floor.to_dict()["retry_floor"] == floor.retry_floor
    retry = {"image": floor.workload, "retry_floor": floor}
    placed = loaded.place(retry, ["sitea-a30-mig", "sitea-a100-80gb"])
    assert placed.chosen == "sitea-a100-80gb"
    a30 = next(c for c in placed.candidates if c.node_pool_id == "sitea-a30-mig")
    assert not a30.feasible  # the history's own bump with its margin is above the floor here
    as_dict = loaded.place(dict(retry, retry_floor=floor.retry_floor), ["sitea-a30-mig"])
    assert as_dict.chosen is None
    with pytest.raises(hwrec.InvalidArgumentError, match="execution.retry_floor: the floor of"):
        loaded.place({"image": WHISPER, "retry_floor": floor}, ["sitea-a100-80gb"])
    with pytest.raises(hwrec.InvalidArgumentError, match="not oom or gpu_oom"):
        loaded.retry_floor("ex-2026-11-28-1040")
    with pytest.raises(hwrec.NotFoundError, match="no stored observation"):
        loaded.retry_floor("no-such-execution")


def test_nothing_fits_with_record_returns_the_reasons_and_records_nothing(loaded):
    pools = [p.node_pool_id for p in loaded.pools()]
    placement = loaded.place({"image": WHISPER, "declared": {"gpu_model": "B200"}}, pools,
                             record="ex-nowhere")
    assert placement.chosen is None and placement.placement_id is None
    assert placement.candidates and all(c.reason != "fits" for c in placement.candidates)
    assert placement.runner_allocation is None and placement.compute_fraction is None
    assert loaded.placements("ex-nowhere") == []


def test_the_chosen_request_in_the_runners_units(loaded):
    placement = loaded.place(
        {"image": WHISPER, "declared": {"gpu_count": 1, "gpu_memory_gb": 10,
                                        "cpu_millicores": 1500, "memory_bytes": 4 << 30}},
        ["siteb-a100-40gb-mig"])
    assert placement.chosen == "siteb-a100-40gb-mig"
    request = placement.chosen_request
    allocation = placement.runner_allocation
    assert allocation == {"cpu": request.cpu_request_millicores / 1000,
                          "memory": request.memory_bytes, "gpu": request.gpu_count,
                          "gpu_memory_gb": 20.0, "gpu_compute_fraction": 0.428571}
    assert placement.compute_fraction == pytest.approx(3 / 7, abs=1e-6)


def test_a_mig_partition_is_given_whole_even_when_shares_are_listed(loaded):
    # Shares of a card are of whole cards: a MIG pool gives its partition,
    # and the fraction stamped is the partition's, not a share made up.
    placement = loaded.place(
        {"image": WHISPER, "declared": {"gpu_count": 1, "gpu_memory_gb": 10,
                                        "gpu_compute_fraction": 0.1}},
        [{"node_pool_id": "siteb-a100-40gb-mig", "free_gpu_shares": [1.0] * 8}])
    assert placement.chosen == "siteb-a100-40gb-mig"
    assert placement.compute_fraction == pytest.approx(3 / 7, abs=1e-6)
    assert placement.runner_allocation["gpu_memory_gb"] == 20.0
    chosen = placement.candidates[0]
    assert any("free_gpu_shares not used" in note for note in chosen.notes)


def test_a_pool_of_unknown_partitioning_allocates_no_gpu_figures(store):
    store.register_pools([{"site_id": "s", "node_pool_id": "unknown-mode",
                           "cpu_millicores": 16000, "memory_bytes": 64 << 30,
                           "gpu_brand": "NVIDIA", "gpu_model": "A100 80GB", "gpu_count": 1}])
    placement = store.place({"image": WHISPER, "declared": {
        "gpu_count": 1, "gpu_memory_gb": 30, "gpu_compute_fraction": 0.3}}, ["unknown-mode"])
    assert placement.chosen == "unknown-mode"
    assert placement.compute_fraction is None
    assert placement.runner_allocation["gpu"] == 1
    assert "gpu_memory_gb" not in placement.runner_allocation
    assert "gpu_compute_fraction" not in placement.runner_allocation
