"""Every result leaves the module one way: the properties a class exposes are
its to_dict() and its repr, in the order they are defined, nested results
through their own to_dict. A field bound in C++ reaches all three."""

import io
import json

import hwrec

from conftest import WHISPER

CATALOG_CSV = ("brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,compute_slices\n"
               "NVIDIA,B200 180GB,180,7,mig-9g.999gb,999,9\n")


def properties(cls):
    return [name for name, member in vars(cls).items()
            if isinstance(member, property) and not name.startswith("_")]


def plain(value):
    if hasattr(type(value), "to_dict") and not isinstance(value, (dict, list)):
        return value.to_dict()
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def check_value(value, seen):
    """Checks `value` and every result reachable from it; adds their classes to `seen`."""
    cls = type(value)
    seen.add(cls.__name__)
    d = value.to_dict()
    assert list(d) == properties(cls), cls.__name__
    json.dumps(d)  # plain data only
    text = repr(value)
    assert text.startswith(cls.__name__ + "(")
    for name in properties(cls):
        field = getattr(value, name)
        assert d[name] == plain(field), f"{cls.__name__}.{name}"
        assert f"{name}=" in text
        nested = field if isinstance(field, list) else list(field.values()) if isinstance(
            field, dict) else [field]
        for item in nested:
            if hasattr(type(item), "to_dict") and not isinstance(item, (dict, list)):
                check_value(item, seen)


def test_every_result_class_gives_its_properties_as_to_dict_and_repr(tmp_path, loaded, legacy_path,
                                                                    transfer_store):
    seen = set()
    pools = [p.node_pool_id for p in loaded.pools()]
    results = [
        loaded.status(),
        loaded.config()[0],
        loaded.pools()[0],
        loaded.register_pools([{"node_pool_id": "p-bad"}]),
        loaded.ingest([{"execution_id": "bad"}]),
        hwrec.catalog("a100")[0],
        loaded.recommend(WHISPER, pool="sitea-a30-mig", explain=True),
        transfer_store.recommend("new:1", pool="siteb-h100-80gb", explain=True),
        loaded.place({"image": WHISPER}, pools, record="ex-values-1"),
        loaded.placements("ex-values-1")[0],
        loaded.retry_floor("ex-2026-11-28-1019", pools=["sitea-a30-mig"]),
        loaded.route("capture-7b", 8, "2d", sharded=True),
        loaded.router_day(),
    ]
    for value in results:
        check_value(value, seen)
    walked = loaded.walk(loaded.route("capture-7b", 8, "2d", sharded=True),
                         lambda rung: "capacity_miss", dry_run=True)
    check_value(walked, seen)
    check_value(loaded.backtest(presets=["vpa"]), seen)
    check_value(hwrec.check(loaded.path), seen)
    check_value(loaded.import_catalog(io.StringIO(CATALOG_CSV)), seen)
    with hwrec.Store.init(tmp_path / "copy.db") as destination:
        check_value(loaded.copy_to(destination), seen)
    with hwrec.Store(legacy_path) as legacy:
        check_value(legacy.plan_legacy_migration(), seen)
        check_value(legacy.migrate_legacy(accept_hp_v2=True, backup=False), seen)
        [row] = legacy.quarantine()
        check_value(row, seen)
        check_value(legacy.resolve_quarantine(ids=[row.id], gpu_model="A100 80GB"), seen)
    classes = {name for name in hwrec.__all__
               if isinstance(getattr(hwrec, name), type) and hasattr(getattr(hwrec, name), "to_dict")}
    # Points are kept for the report only; the others need inputs this store lacks.
    assert classes - seen <= {"PoolReject", "IngestWarning", "PrunedRung", "QuotaBlock",
                              "BacktestPoint"}


def test_a_figure_transferred_from_another_card_names_its_source(transfer_store):
    figure = transfer_store.recommend("new:1", pool="siteb-h100-80gb").figures["gpu_compute_fraction"]
    assert figure.provenance == "transferred"
    t = figure.transfer
    assert t.source == {"gpu_brand": "NVIDIA", "gpu_model": "A100 80GB", "instance_type": None,
                        "cpu_only": False}
    assert t.workloads == 5 and t.neighbours == 0 and t.sources == 1
    assert abs(t.factor - 0.5) < 0.05
    assert abs(t.estimate - 0.45) < 0.03  # 0.9 of a whole A100, half of it on an H100
    assert figure.value >= t.estimate
    assert figure.to_dict()["transfer"]["factor"] == t.factor
    why = transfer_store.recommend("new:1", pool="siteb-h100-80gb", explain=True)
    text = why.figures["gpu_compute_fraction"].reason.text
    assert "learned on NVIDIA A100 80GB" in text and "5 workloads seen on both" in text
    # Off again: no history on the card, no figure.
    transfer_store.config_set("gpu_compute.transfer", False)
    off = transfer_store.recommend("new:1", pool="siteb-h100-80gb").figures["gpu_compute_fraction"]
    assert off.provenance == "none" and off.transfer is None


def test_a_placement_to_dict_carries_the_runners_units(loaded):
    pools = [p.node_pool_id for p in loaded.pools()]
    d = loaded.place({"image": WHISPER}, pools).to_dict()
    assert d["runner_allocation"]["gpu"] >= 1
    assert d["compute_fraction"] is None or 0 < d["compute_fraction"] <= 1
    assert d["chosen_request"] == d["candidates"][[c["node_pool_id"] for c in d["candidates"]].index(
        d["chosen"])]["request"]
