"""Store.ingest and Store.register_pools: every input kind, rejects beside
good records, warnings, and the summaries' values."""

import io
import json

import pytest

import hwrec
from conftest import EXAMPLES, example_records, observation


def test_ingest_takes_a_path_a_str_path_a_file_object_and_dicts(tmp_path):
    lines = (EXAMPLES / "observations.jsonl").read_text()
    results = []
    for i, make_input in enumerate([
        lambda: EXAMPLES / "observations.jsonl",
        lambda: str(EXAMPLES / "observations.jsonl"),
        lambda: io.StringIO(lines),
        lambda: open(EXAMPLES / "observations.jsonl"),
        lambda: example_records("observations.jsonl"),
        lambda: iter(example_records("observations.jsonl")),
    ]):
        with hwrec.Store.init(tmp_path / f"s{i}.db") as s:
            s.register_pools(EXAMPLES / "pools.jsonl")
            summary = s.ingest(make_input())
            results.append((summary.accepted, summary.duplicates, summary.rejected,
                            len(summary.warnings)))
    assert len(set(results)) == 1, results
    assert results[0][0] > 0


def test_one_dict_is_one_record(store):
    summary = store.ingest(observation("ex-one"))
    assert summary.accepted == 1
    assert store.ingest(observation("ex-one")).duplicates == 1


def test_a_bad_record_is_rejected_naming_its_field_and_the_good_ones_are_kept(store):
    records = [observation("ex-1"), observation("ex-2", gpu_utilization=1.7), observation("ex-3")]
    summary = store.ingest(records)
    assert summary.accepted == 2
    assert summary.rejected == 1
    reject = summary.rejects[0]
    assert reject.line == 2
    assert reject.execution_id == "ex-2"
    assert reject.field == "gpu_utilization"
    assert "between 0 and 1" in reject.reason
    assert [e.field for e in reject.errors] == ["gpu_utilization"]
    assert isinstance(reject.errors[0], hwrec.FieldError)
    assert repr(reject).startswith("IngestReject(line=2")
    assert reject.to_dict()["errors"][0]["field"] == "gpu_utilization"
    assert store.status().tables["ingest_rejects"] == 1


def test_an_unknown_field_is_a_warning_with_the_closest_name_and_strict_rejects_it(store):
    summary = store.ingest(observation("ex-w", gpu_utilisation=0.5))
    assert summary.accepted == 1
    warning = summary.warnings[0]
    assert warning.execution_id == "ex-w" and warning.line == 1
    assert warning.field == "gpu_utilisation"
    assert "gpu_utilization" in warning.message
    assert repr(warning).startswith("IngestWarning(")
    strict = store.ingest(observation("ex-s", gpu_utilisation=0.5), strict=True)
    assert strict.rejected == 1 and strict.accepted == 0


def test_a_resent_execution_with_other_content_is_a_conflict(store):
    store.ingest(observation("ex-c"))
    summary = store.ingest(observation("ex-c", gpu_memory_peak_gb=12.0))
    assert summary.conflicts == 1
    assert summary.conflict_execution_ids == ["ex-c"]


def test_ingest_summary_to_dict_is_json_and_repr_is_readable(loaded):
    summary = loaded.ingest(EXAMPLES / "observations.jsonl")
    d = summary.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert set(d) == {"accepted", "duplicates", "conflicts", "rejected", "profile_id_mismatches",
                      "unresolved_hardware", "retried_batches", "rejects", "warnings",
                      "conflict_execution_ids"}
    assert d["duplicates"] == summary.duplicates > 0
    assert repr(summary).startswith("IngestSummary(accepted=0")


def test_small_batches_store_the_same(tmp_path):
    records = [observation(f"ex-{i}") for i in range(25)]
    with hwrec.Store.init(tmp_path / "a.db") as s:
        assert s.ingest(records, batch_size=4).accepted == 25
        assert s.status().tables["observations"] == 25


def test_ingest_arguments_are_checked(store):
    with pytest.raises(TypeError, match=r"records\[1\]"):
        store.ingest([observation("ex-1"), "not a dict"])
    with pytest.raises(hwrec.InvalidArgumentError, match="form"):
        store.ingest([], form="csv")
    with pytest.raises(hwrec.InvalidArgumentError, match="batch_size"):
        store.ingest([], batch_size=0)
    with pytest.raises(hwrec.NotFoundError, match="missing.jsonl"):
        store.ingest(EXAMPLES / "missing.jsonl")
    with pytest.raises(TypeError):
        store.ingest(42)


def test_a_directory_given_as_input_raises_io_error(store, tmp_path):
    with pytest.raises(hwrec.IoError, match="is a directory") as e:
        store.ingest(tmp_path)
    assert e.value.code == "io_error"
    with pytest.raises(hwrec.IoError):
        store.register_pools(tmp_path)


def test_source_is_recorded_with_rejects(store_path):
    import sqlite3
    with hwrec.Store.init(store_path) as s:
        s.ingest([observation("ex-bad", gpu_utilization=3)], source="runner-7")
    db = sqlite3.connect(store_path)
    assert db.execute("SELECT source FROM ingest_rejects").fetchall() == [("runner-7",)]


def test_register_pools_takes_dicts_a_path_and_a_file_object(store):
    pools = example_records("pools.jsonl")
    summary = store.register_pools(pools[:2])
    assert (summary.registered, summary.updated, summary.unchanged) == (2, 0, 0)
    summary = store.register_pools(EXAMPLES / "pools.jsonl")
    assert (summary.registered, summary.unchanged) == (len(pools) - 2, 2)
    changed = dict(pools[0], name="renamed")
    summary = store.register_pools(io.StringIO(json.dumps(changed) + "\n"))
    assert summary.updated == 1
    assert summary.rejected == 0 and summary.rejects == []
    assert repr(summary).startswith("PoolImportSummary(registered=0, updated=1")
    assert summary.to_dict() == {"registered": 0, "updated": 1, "unchanged": 0, "rejected": 0,
                                 "rejects": [], "warnings": []}


def test_a_bad_pool_is_rejected_naming_its_field_and_the_others_registered(store):
    pools = example_records("pools.jsonl")[:2]
    bad = dict(pools[1], node_pool_id="bad-pool", gpu_model="A100 81GB")
    summary = store.register_pools([pools[0], bad])
    assert summary.registered == 1 and summary.rejected == 1
    reject = summary.rejects[0]
    assert (reject.line, reject.node_pool_id, reject.field) == (2, "bad-pool", "gpu_model")
    assert "A100" in reject.reason
    assert reject.to_dict()["field"] == "gpu_model"


def test_pools_lists_the_registered_pools_with_their_hardware(loaded):
    pools = {p.node_pool_id: p for p in loaded.pools()}
    a100 = pools["sitea-a100-80gb"]
    assert a100.site_id == "site-a"
    assert a100.hardware["gpu_model"] == "A100 80GB"
    assert a100.hardware["cpu_millicores"] == 12000
    assert a100.gpu_model_known
    assert a100.to_dict()["hardware"] == a100.hardware
    assert repr(a100).startswith("NodePool(node_pool_id='sitea-a100-80gb'")


def test_values_json_cannot_spell_are_converted_or_rejected_by_field_keeping_the_batch(store):
    import datetime

    class Count:  # e.g. a numpy integer
        def __index__(self):
            return 3000

    aware = datetime.datetime(2026, 11, 28, 9, 32, 42, tzinfo=datetime.timezone.utc)
    records = [observation("ex-dt", finished_at=aware, cpu_millicores_p95=Count()),
               observation("ex-naive", finished_at=datetime.datetime(2026, 11, 28, 9, 32)),
               observation("ex-nan", gpu_utilization=float("nan")),
               observation("ex-inf", gpu_memory_peak_gb=float("inf")),
               observation("ex-big", memory_peak_bytes=10**30),
               observation("ex-huge", cpu_millicores_avg=10**400),
               observation("ex-ok")]
    summary = store.ingest(records)
    assert summary.accepted == 2
    reasons = {(r.execution_id, r.field): r.reason for r in summary.rejects}
    assert set(reasons) == {
        ("ex-naive", "finished_at"), ("ex-nan", "gpu_utilization"),
        ("ex-inf", "gpu_memory_peak_gb"), ("ex-big", "memory_peak_bytes"),
        ("ex-huge", "cpu_millicores_avg")}
    assert "is NaN" in reasons[("ex-nan", "gpu_utilization")]
    assert "infinite" in reasons[("ex-inf", "gpu_memory_peak_gb")]


@pytest.mark.parametrize("value, says", [
    (b"ex-b", "is bytes, which has no JSON form: decode it to str"),
    (object(), "is a value of type 'object', which has no JSON form"),
    ({1, 2}, "is a value of type 'set'"),
    ("x\ud800", "holds a lone surrogate"),
])
def test_a_value_with_no_json_form_fails_the_call_naming_where_it_is_and_writes_nothing(
        store, value, says):
    records = [observation("ex-good"), observation("ex-bad", metrics_note={"deep": [1, value]})]
    with pytest.raises(hwrec.InvalidArgumentError) as caught:
        store.ingest(records)
    assert str(caught.value).startswith("records[1].metrics_note.deep[1]: ")
    assert says in str(caught.value) and "nothing was written" in str(caught.value)
    assert store.status().tables["observations"] == 0


def test_a_key_that_is_not_text_fails_the_call_naming_the_record(store):
    with pytest.raises(hwrec.InvalidArgumentError, match=r"records\[0\]: has the key 7"):
        store.ingest([{**observation("ex-key"), 7: "seven"}])


def test_a_file_object_whose_read_gives_no_text_is_a_type_error_naming_it(store):
    class Odd:
        def read(self):
            return 42

    with pytest.raises(TypeError, match=r"records: its read\(\) returned int"):
        store.ingest(Odd())
