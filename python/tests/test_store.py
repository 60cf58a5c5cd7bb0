"""hwrec.Store: opening, status, migrations, closing, and the errors per class."""

import json
import sqlite3

import pytest

import hwrec


def test_init_creates_a_store_at_the_latest_schema(store_path):
    with hwrec.Store.init(store_path) as s:
        status = s.status()
        assert s.schema_version == status.latest_schema_version
        assert status.schema_version == status.latest_schema_version
        assert status.hp_version == "hp:v2"
        assert status.journal_mode == "wal"
        assert status.opened == "read-write"
        assert status.immutable is False
        assert status.tables["observations"] == 0
        assert status.path == str(store_path)
        assert s.path == str(store_path) and not s.read_only
        assert s.migrate() == []


def test_refusals_are_also_the_builtin_exceptions_python_code_catches(store):
    with pytest.raises(ValueError) as invalid:
        store.recommend("ghcr.io/acme/train:1", gpu_model="A30", width=0)
    assert isinstance(invalid.value, hwrec.InvalidArgumentError)
    assert invalid.value.code == "invalid_argument" and "width 0" in str(invalid.value)
    with pytest.raises(LookupError) as missing:
        store.recommend("ghcr.io/acme/train:1", pool="no-such-pool")
    assert isinstance(missing.value, hwrec.NotFoundError)
    assert not issubclass(hwrec.ConflictError, (ValueError, LookupError))


def test_status_to_dict_is_json_and_repr_names_fields(store):
    status = store.status()
    d = status.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["tables"] == status.tables
    assert repr(status).startswith("StoreStatus(path=")
    assert "StoreStatus" in repr(status) and "schema_version=" in repr(status)
    assert repr(store).startswith("Store(path=")


def test_opening_a_missing_store_raises_not_found(tmp_path):
    with pytest.raises(hwrec.NotFoundError) as e:
        hwrec.Store(tmp_path / "missing.db")
    assert e.value.code == "not_found"
    # The remedy in Python's words, naming the path as given.
    assert f"`hwrec.Store.init({str(tmp_path / 'missing.db')!r})`" in e.value.message
    assert str(e.value) == e.value.message
    assert isinstance(e.value, hwrec.Error)


def test_a_write_to_a_read_only_store_raises_read_only(store_path):
    hwrec.Store.init(store_path).close()
    with hwrec.Store(store_path, read_only=True) as s:
        assert s.read_only
        with pytest.raises(hwrec.ReadOnlyError) as e:
            s.ingest([])
        assert e.value.code == "read_only"


def test_a_store_newer_than_this_build_raises_schema_mismatch(store_path):
    hwrec.Store.init(store_path).close()
    db = sqlite3.connect(store_path)
    db.execute("PRAGMA user_version = 999")
    db.commit()
    db.close()
    with pytest.raises(hwrec.SchemaMismatchError) as e:
        hwrec.Store(store_path)
    assert e.value.code == "schema_mismatch"
    assert "999" in e.value.message


def test_a_file_that_is_not_a_store_raises_invalid_argument(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a database\n")
    with pytest.raises(hwrec.InvalidArgumentError):
        hwrec.Store(path)
    assert path.read_text() == "not a database\n"


def test_a_closed_store_says_it_is_closed(store_path):
    s = hwrec.Store.init(store_path)
    s.close()
    assert s.closed
    s.close()  # closing twice is harmless
    with pytest.raises(hwrec.Error, match="closed"):
        s.status()
    with pytest.raises(hwrec.Error, match="closed"):
        s.recommend("x")


def test_context_manager_closes_the_store(store_path):
    with hwrec.Store.init(store_path) as s:
        assert not s.closed
    assert s.closed


def test_every_status_code_has_its_class():
    for name in ["InvalidArgumentError", "NotFoundError", "ConflictError", "SchemaMismatchError",
                 "ReadOnlyError", "IoError", "InternalError", "ConcurrentUseError"]:
        cls = getattr(hwrec, name)
        assert issubclass(cls, hwrec.Error) and issubclass(cls, Exception)


def test_refresh_materialises_recommendations(loaded):
    assert loaded.refresh() > 0
    assert loaded.status().tables["recommendations"] > 0


def test_version_is_the_build_version():
    assert hwrec.__version__.count(".") == 2


def test_a_path_with_a_nul_character_is_refused_and_creates_nothing(tmp_path):
    with pytest.raises(hwrec.InvalidArgumentError, match="NUL"):
        hwrec.Store.init(str(tmp_path / "store") + "\0evil.db")
    assert list(tmp_path.iterdir()) == []


def test_settings_are_listed_read_and_set_as_the_cli_does(store_path):
    with hwrec.Store.init(store_path) as store:
        entries = store.config()
        keys = [e.key for e in entries]
        assert "memory.margin" in keys and "half_life_hours" in keys
        margin = store.config_get("memory.margin")
        assert margin.value == margin.default_value and margin.description
        assert margin.to_dict()["key"] == "memory.margin"
        store.config_set("memory.margin", 0.2)
        assert store.config_get("memory.margin").value == "0.2"
        store.config_set("half_life_hours", 24)
        assert store.config_get("half_life_hours").value == "24"
        with pytest.raises(hwrec.NotFoundError):
            store.config_get("memory.margn")
        with pytest.raises(ValueError, match="memory.margin"):
            store.config_set("memory.margin", -3)
        with pytest.raises(ValueError, match="value is a list"):
            store.config_set("memory.margin", [0.2])
        assert store.config_get("memory.margin").value == "0.2"  # nothing changed
    with hwrec.Store(store_path, read_only=True) as reader:
        assert reader.config_get("half_life_hours").value == "24"
        with pytest.raises(hwrec.ReadOnlyError):
            reader.config_set("memory.margin", 0.3)
