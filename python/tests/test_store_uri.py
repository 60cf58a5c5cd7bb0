"""hwrec.Store on a PostgreSQL URI: the same calls as on a file, and a URI's
password never shown (Store.path, reprs, exception text).

The PostgreSQL cases run when HWREC_TEST_POSTGRESQL holds a base URI
(scripts/pg_server.sh prints one); each makes its own schema there."""

import os
import subprocess
import uuid

import pytest

import hwrec

from conftest import EXAMPLES, WHISPER, exit_code_in_fork, needs_fork, observation

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
@needs_fork
def test_a_forked_process_leaves_the_openers_postgresql_session_alone(pg_uri):
    with hwrec.Store.init(pg_uri) as store:
        store.ingest([observation("ex-parent-1")])

        def child():
            with pytest.raises(hwrec.Error) as refused:
                store.status()
            assert refused.value.code == "forked"
            # Forgets the connection: no Terminate on the opener's socket.
            store.close()

        assert exit_code_in_fork(child) == 0
        # The opener goes on: its next call, and the ones after.
        assert store.ingest([observation("ex-parent-2")]).accepted == 1
        assert store.status().tables["observations"] == 2


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


MARKER = "Zq9S3cret"
# The forms an outside trial saw printed, each naming a server that refuses
# connections; tests/store_secrets_test.cpp runs the same through the CLI and
# the bench.
UNREACHABLE_FORMS = [
    "postgresql://u:Zq9S3cret-a@127.0.0.1:1/db?sslpassword=Zq9S3cret-b",
    "postgresql://u@127.0.0.1:1/db?pass%77ord=Zq9S3cret-c",
    "postgresql://u:Sl/ash-Zq9S3cret-d@127.0.0.1:1/db",
    "postgresql://u:Qu?est-Zq9S3cret-e@127.0.0.1:1/db",
    "postgresql://u:p@Sign-Zq9S3cret-f@127.0.0.1:1/db",
    "postgresql://u:%5Aq9S3cret-g@127.0.0.1:1/db",
    "POSTGRESQL://u:Zq9S3cret-h@127.0.0.1:1/db",
    "Postgres://u:Zq9S3cret-i@127.0.0.1:1/db",
    "host=127.0.0.1 port=1 dbname=db user=u password=Zq9S3cret-j",
    "host=127.0.0.1 port=1 password='a b\\'Zq9S3cret-k' dbname=db",
    "hostaddr=127.0.0.1 port=1 sslpassword=Zq9S3cret-l",
    "postgresql://127.0.0.1:1/db?password=se@Zq9S3cret-m",
    "postgresql://u@127.0.0.1:1/db?password=Zq9S3cret-n&application_name=a@b",
    "postgresql://[::1]:1/db?application_name=a@b&password=Zq9S3cret-o",
    "postgresql://127.0.0.1:1/db?password=abcd&Zq9S3cret-p",
    "host=127.0.0.1 password=Zq9S3cret-q sslmod=require",
    "host=127.0.0.1 port=1 password='Zq9S3cret-r",
    "host=127.0.0.1 port=1 dbname=postgresql://u:Zq9S3cret-s@h/db",
    "host=127.0.0.1 port=1 dbname='host=h password=Zq9S3cret-t'",
]


@pytest.mark.parametrize("uri", UNREACHABLE_FORMS)
def test_no_form_of_a_location_shows_its_secret(uri, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for call in (lambda: hwrec.Store(uri), lambda: hwrec.Store.init(uri),
                 lambda: hwrec.Store(uri, read_only=True)):
        with pytest.raises(hwrec.Error) as e:
            call()
        assert MARKER not in str(e.value) and MARKER not in repr(e.value)
        assert "PostgreSQL" in str(e.value)  # taken for a server, never a file path
    with pytest.raises(TypeError) as wrong:
        hwrec.Store(uri, busy_timeout_ms="5000")
    assert MARKER not in str(wrong.value)
    assert list(tmp_path.iterdir()) == []


@needs_postgresql
def test_each_form_opens_the_server_without_showing_its_secret(pg_uri):
    hwrec.Store.init(pg_uri).close()
    scheme, rest = pg_uri.split("://", 1)
    user, server = rest.split("@", 1)
    host_port, path = server.split("/", 1)
    host, port = host_port.split(":")
    db, query = path.split("?", 1)
    schema = query.split("%3D", 1)[1]
    forms = [
        f"postgresql://{user}:Zq9S3cret-a@{server}&sslpassword=Zq9S3cret-b",
        f"{pg_uri}&pass%77ord=Zq9S3cret-c",
        f"POSTGRESQL://{user}:Zq9S3cret-h@{server}",
        f"host={host} port={port} user={user} dbname={db} password=Zq9S3cret-j "
        f"options='-csearch_path={schema}'",
    ]
    for uri in forms:
        with hwrec.Store(uri) as s:
            assert MARKER not in s.path and MARKER not in repr(s)
            assert s.status().engine == "postgresql"
            assert MARKER not in str(s.status().to_dict())
