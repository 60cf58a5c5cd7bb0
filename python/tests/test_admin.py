"""The store's upkeep from Python, as the CLI's admin commands do it: router
configuration, settings, the catalog, the quarantine, the legacy migration,
checks, copies and the schema."""

import io

import pytest

import hwrec

from conftest import EXAMPLES

def test_the_legacy_migration_plans_asks_consent_and_moves_the_history(legacy_path):
    with hwrec.Store(legacy_path) as store:
        plan = store.plan_legacy_migration()
        assert (plan.legacy_rows, plan.migrated, plan.quarantined) == (3, 2, 1)
        assert plan.from_version == 1 and plan.to_version == store.status().latest_schema_version
        [group_a, group_none] = sorted(plan.groups, key=lambda g: g.node_pool_id, reverse=True)
        assert (group_a.node_pool_id, group_a.via_node_pool) == ("a100-pool", 2)
        assert sum(group_none.quarantined.values()) == 1
        with pytest.raises(hwrec.SchemaMismatchError, match="accept"):
            store.migrate_legacy()
        assert store.schema_version == 1  # refused: nothing changed
        report = store.migrate_legacy(accept_hp_v2=True, backup=False)
        assert (report.migrated, report.quarantined, report.backup_path) == (2, 1, "")
        assert report.history[-1].legacy_rows == 3
        assert store.schema_version == report.to_version
        assert store.migrate_legacy(accept_hp_v2=True).nothing_to_do


def test_the_quarantine_lists_and_resolves_rows(legacy_path):
    with hwrec.Store(legacy_path) as store:
        store.migrate_legacy(accept_hp_v2=True, backup=False)
        [row] = store.quarantine()
        assert (row.execution_id, row.gpu_name, row.reason_code) == (
            "old-3", "Tesla Z9", "gpu_name_not_in_catalog")
        assert store.quarantine(site="site-b") == []
        with pytest.raises(hwrec.InvalidArgumentError, match="all"):
            store.resolve_quarantine()
        with pytest.raises(hwrec.InvalidArgumentError, match="A100 80GB"):
            store.resolve_quarantine(ids=[row.id], gpu_model="A100 80G")
        summary = store.resolve_quarantine(ids=[row.id], gpu_model="A100 80GB")
        assert (summary.matched, summary.moved, summary.kept) == (1, 1, [])
        assert store.quarantine() == []
        assert store.recommend("registry/train:1", gpu_model="A100 80GB").figures[
            "gpu_memory_gb"].samples == 3


def test_router_configuration_imports_lists_and_sets(store):
    with pytest.raises(hwrec.NotFoundError, match="lora-70b"):
        store.route("lora-70b", 4, "1d", sharded=True)
    store.import_router_config({"intents": [{"intent": "lora-70b",
                                             "workload_image": "ghcr.io/acme/lora-70b:1.0",
                                             "legacy_machine": "a2-ultragpu-1g"}]})
    config = store.router_config()
    [intent] = [i for i in config["intents"] if i["intent"] == "lora-70b"]
    assert intent["min_width"] == 1  # defaulted
    assert store.route("lora-70b", 4, "1d", sharded=True).ladder[0].width == 4
    store.set_router_setting("gcp_daily_attempt_cap", 3)
    assert store.router_config()["settings"]["gcp_daily_attempt_cap"] == 3
    with pytest.raises(hwrec.InvalidArgumentError, match="single-GPU"):
        store.import_router_config(io.StringIO(
            '{"intents": [{"intent": "capture-7b", "legacy_machine": "a2-ultragpu-8g"}]}'))
    assert store.router_config() == dict(config, settings=store.router_config()["settings"])


def test_the_stores_catalog_imports_cards_and_lists_them(store):
    assert store.catalog("B200") == []
    csv = ("brand,model,card_memory_gb,card_compute_slices,mode,memory_gb,compute_slices\n"
           "NVIDIA,B200 180GB,180,7,mig-1g.23gb,23,1\n"
           "NVIDIA,B200 180GB,180,7,mig-9g.999gb,999,9\n")
    summary = store.import_catalog(io.StringIO(csv))
    assert (summary.added, summary.rejected) == (2, 1)  # the whole card and one profile
    assert (summary.rejects[0].line, summary.rejects[0].field) == (3, "compute_slices")
    assert [p.mode for p in store.catalog("B200")] == ["full", "mig-1g.23gb"]
    assert hwrec.catalog("B200") == []  # the build's catalog is unchanged
    assert store.import_catalog(io.StringIO(csv)).unchanged == 1
    assert store.recommend("any:1", gpu_model="B200 180GB").hardware["gpu_brand"] == "NVIDIA"


def test_check_copy_schema_and_a_rebuild(tmp_path, store):
    store.register_pools(EXAMPLES / "pools.jsonl")
    store.ingest(EXAMPLES / "observations.jsonl")
    assert store.refresh(rebuild=True) > 0
    report = hwrec.check(store.path)
    assert report.sound and {c.state for c in report.checks} == {"ok"}
    with hwrec.Store.init(tmp_path / "copy.db") as destination:
        copied = store.copy_to(destination)
        assert copied.tables["observations"] == store.status().tables["observations"]
        assert copied.aggregates_checked > 0
        with pytest.raises(hwrec.ConflictError):
            store.copy_to(destination)
    with pytest.raises(hwrec.InvalidArgumentError, match="another store"):
        store.copy_to(store)
    assert hwrec.check(tmp_path / "copy.db").sound
    assert store.schema() == hwrec.schema()
    assert "CREATE TABLE observations" in hwrec.schema()


def test_the_report_is_the_page_the_cli_writes(loaded):
    page = loaded.report(image="ghcr.io/acme/whisper-batch:1.2", presets=["vpa"])
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "whisper-batch" in page and "VPA-like" in page
    assert "<script" not in page
