"""hwrec.Store on a PostgreSQL URI: the same calls as on a file, and a URI's
password never shown (Store.path, reprs, exception text).

The PostgreSQL cases run when HWREC_TEST_POSTGRESQL holds a base URI
(scripts/pg_server.sh prints one); each makes its own schema there."""

import os
import subprocess
import uuid

import pytest

import hwrec

from conftest import EXAMPLES, WHISPER

BASE = os.environ.get("HWREC_TEST_POSTGRESQL", "")
needs_postgresql = pytest.mark.skipif(
    not BASE,
    reason="HWREC_TEST_POSTGRESQL is not set: start a server with "
    "`scripts/pg_server.sh start DIR` and set it to the URI it prints",
)
SECRET = "s3cret-do-not-print"


def with_password(uri):
    """`uri` with the password SECRET in its authority (trust auth ignores it)."""
    scheme, rest = uri.split("://", 1)
    user, host = rest.split("@", 1)
    return f"{scheme}://{user.split(':')[0]}:{SECRET}@{host}"


@pytest.fixture
def pg_uri():
    """A fresh, empty schema on the test server, dropped afterwards."""
    schema = "py_" + uuid.uuid4().hex[:12]
    subprocess.run(["psql", BASE, "-qc", f"CREATE SCHEMA {schema}"], check=True)
    sep = "&" if "?" in BASE else "?"
    yield f"{BASE}{sep}options=-csearch_path%3D{schema}"
    subprocess.run(["psql", BASE, "-qc", f"DROP SCHEMA {schema} CASCADE"], check=True)


def test_an_unreachable_uri_raises_without_its_password():
    uri = f"postgresql://hwrec:{SECRET}@127.0.0.1:1/hwrec"
    with pytest.raises(hwrec.Error) as e:
        hwrec.Store(uri)
    assert SECRET not in str(e.value)
    assert SECRET not in e.value.message
    assert SECRET not in repr(e.value)
    with pytest.raises(hwrec.Error) as e:
        hwrec.Store.init(uri)
    assert SECRET not in str(e.value)


@needs_postgresql
def test_a_postgresql_store_takes_the_same_calls_as_a_file(pg_uri):
    with hwrec.Store.init(pg_uri) as s:
        assert s.schema_version == s.status().latest_schema_version
        s.register_pools(EXAMPLES / "pools.jsonl")
        summary = s.ingest(EXAMPLES / "observations.jsonl")
        assert summary.accepted > 0
        status = s.status()
        assert status.tables["observations"] > 0
        assert status.path == s.path
    with hwrec.Store(pg_uri, read_only=True) as s:
        rec = s.recommend(WHISPER, gpu_brand="NVIDIA", gpu_model="L4")
        assert rec is not None


@needs_postgresql
def test_a_postgresql_password_is_never_shown(pg_uri):
    uri = with_password(pg_uri)
    with hwrec.Store.init(uri) as s:
        assert SECRET not in s.path
        assert "***" in s.path
        assert SECRET not in repr(s)
        assert SECRET not in repr(s.status())
        assert SECRET not in str(s.status().to_dict())
        s.close()
        with pytest.raises(hwrec.Error) as e:
            s.status()
        assert SECRET not in str(e.value)
