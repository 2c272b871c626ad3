"""The index syncs a PostgreSQL store as it syncs a file: one cheap query when nothing changed, only the
changed sessions read when something did, and worker processes that open their own connections."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import hermesdb
from hermes_trail.hermes.pgstore import COUNTS
from hermes_trail.index import sync
from hermes_trail.index.search import SearchFilters, search
from hermes_trail.index.sync import sync_index

pytestmark = pytest.mark.pg


def _session_ids(index: Path) -> set[str]:
    with sqlite3.connect(index) as conn:
        return {r[0] for r in conn.execute("SELECT session_id FROM sessions")}


def _found(index: Path, query: str) -> set[str]:
    result = search(index, query, SearchFilters(), limit=20)
    return {hit.session_id for conv in result.conversations for hit in conv.hits}


@pytest.fixture
def pg_home(hermes_home, pg_load) -> tuple[str, str]:
    """The root store of ``hermes_home`` in PostgreSQL (typed layout): its DSN and schema."""
    dsn = pg_load(hermes_home / "state.db")
    return dsn, dsn.rsplit("%3D", 1)[1]


def test_a_sync_that_finds_nothing_new_is_two_queries_and_no_message_row(pg_home, tmp_path):
    dsn, _ = pg_home
    index = tmp_path / "index.db"
    before = dict(COUNTS)
    first = sync_index(index, pgs=[dsn])
    assert first.changed_stores == 1 and first.sessions_indexed == 2
    assert COUNTS["rows"] - before["rows"] >= first.messages_read > 0
    columns = sum(len(v) for v in _catalog(dsn).values())
    for _ in range(3):
        before = dict(COUNTS)
        again = sync_index(index, pgs=[dsn])
        assert (again.changed_stores, again.sessions_indexed, again.messages_read) == (0, 0, 0)
        assert COUNTS["connections"] - before["connections"] == 1
        # The catalog of Hermes' tables, then the change marker: one row of three values.
        assert COUNTS["queries"] - before["queries"] == 2
        assert COUNTS["rows"] - before["rows"] <= columns + 6 + 1


def _catalog(dsn: str) -> dict[str, list[str]]:
    from hermes_trail.hermes.pgstore import TABLES, PgStore

    with PgStore(dsn) as store:
        return {t: store.columns(t) for t in TABLES}


def test_only_what_changed_is_read_again(pg_cluster, pg_home, tmp_path):
    """Hermes' writes, as its provider makes them: new rows, a retitle, a rewind, a deleted session."""
    dsn, schema = pg_home
    index = tmp_path / "index.db"
    sync_index(index, pgs=[dsn])
    assert _found(index, "zeppelin") == set()
    with pg_cluster.connect() as conn:
        conn.execute(f"SET search_path = {schema}")
        top = conn.execute("SELECT max(id) FROM messages").fetchone()[0]
        conn.execute(
            "INSERT INTO messages (id, session_id, role, content, timestamp, active, compacted) "
            "VALUES (%s, %s, 'user', to_jsonb('Is the zeppelin ready?'::text), now(), true, false)",
            (top + 1, hermesdb.CHAT_ID),
        )
        chat = (hermesdb.CHAT_ID,)
        conn.execute("UPDATE sessions SET message_count = message_count + 1 WHERE id = %s", chat)
        rows = conn.execute("SELECT count(*) FROM messages WHERE session_id = %s", chat).fetchone()
    report = sync_index(index, pgs=[dsn])
    assert (report.changed_stores, report.sessions_indexed, report.messages_read) == (1, 1, rows[0])
    assert _found(index, "zeppelin") == {hermesdb.CHAT_ID}

    with pg_cluster.connect() as conn:  # only the session row changes: a retitle
        conn.execute(f"UPDATE {schema}.sessions SET title = 'Airships' WHERE id = %s", (hermesdb.CODING_ID,))
    report = sync_index(index, pgs=[dsn])
    assert (report.sessions_indexed, report.sessions_removed) == (1, 0)
    with sqlite3.connect(index) as conn:
        titles = dict(conn.execute("SELECT session_id, title FROM sessions"))
    assert titles[hermesdb.CODING_ID] == "Airships"

    with pg_cluster.connect() as conn:  # a rewind: old rows flip inactive, the session row says so
        conn.execute(f"UPDATE {schema}.messages SET active = false WHERE id = %s", (top + 1,))
        conn.execute(
            f"UPDATE {schema}.sessions SET rewind_count = rewind_count + 1 WHERE id = %s", (hermesdb.CHAT_ID,)
        )
    assert sync_index(index, pgs=[dsn]).sessions_indexed == 1
    assert _found(index, "zeppelin") == set()  # rewound rows are searched only when asked for

    with pg_cluster.connect() as conn:  # a deleted session leaves the index
        conn.execute(f"DELETE FROM {schema}.messages WHERE session_id = %s", (hermesdb.CODING_ID,))
        conn.execute(f"DELETE FROM {schema}.sessions WHERE id = %s", (hermesdb.CODING_ID,))
    report = sync_index(index, pgs=[dsn])
    assert (report.sessions_indexed, report.sessions_removed) == (0, 1)
    assert _session_ids(index) == {hermesdb.CHAT_ID}


def test_an_unreachable_database_keeps_what_was_indexed(pg_cluster, pg_home, tmp_path):
    _, schema = pg_home
    reader = pg_cluster.reader(schema, "hermes_gone")
    index = tmp_path / "index.db"
    assert sync_index(index, pgs=[reader]).sessions_indexed == 2
    with pg_cluster.connect() as conn:
        conn.execute("ALTER ROLE hermes_gone NOLOGIN")
    report = sync_index(index, pgs=[reader])
    assert report.sessions_removed == 0 and _session_ids(index) == {hermesdb.CHAT_ID, hermesdb.CODING_ID}
    (stray,) = report.strays
    assert stray.kind == "store" and stray.reason.startswith("cannot connect (")
    assert "gone-pw" not in stray.where + stray.reason


def test_a_parallel_build_gives_the_index_a_serial_build_gives(pg_home, hermes_home, tmp_path, monkeypatch):
    """Worker processes (forked) each open their own connection; the result is the serial build's."""
    dsn, _ = pg_home
    serial = tmp_path / "serial.db"
    sync_index(serial, dbs=[hermes_home / "state.db"])
    monkeypatch.setattr(sync, "PARALLEL_FROM", 1)
    monkeypatch.setattr(sync, "BATCH_MESSAGES", 1)
    monkeypatch.setattr("os.cpu_count", lambda: 2)
    parallel = tmp_path / "parallel.db"
    report = sync_index(parallel, pgs=[dsn])
    assert report.sessions_indexed == 2 and not report.strays
    query = "SELECT s.session_id, d.row, d.part, d.kind, d.text FROM docs d JOIN sessions s ON s.id = d.sess"
    with sqlite3.connect(serial) as a, sqlite3.connect(parallel) as b:
        assert sorted(b.execute(query)) == sorted(a.execute(query))
    assert _found(parallel, "pytest") == _found(serial, "pytest") != set()


def test_a_store_served_through_views_is_synced_by_its_rows(pg_cluster, pg_home, tmp_path):
    """``sessions`` as a view has no ``xmin``: the marker digests its rows instead, and still moves with a
    retitle and stays put when nothing changed."""
    _, schema = pg_home
    with pg_cluster.connect() as conn:
        conn.execute("DROP SCHEMA IF EXISTS viewed CASCADE")
        conn.execute("CREATE SCHEMA viewed")
        for table in ("sessions", "messages", "session_model_usage"):
            conn.execute(f"CREATE VIEW viewed.{table} AS SELECT * FROM {schema}.{table}")
    dsn = pg_cluster.dsn("viewed")
    index = tmp_path / "index.db"
    assert sync_index(index, pgs=[dsn]).sessions_indexed == 2
    before = dict(COUNTS)
    assert sync_index(index, pgs=[dsn]).changed_stores == 0
    assert COUNTS["queries"] - before["queries"] == 2
    with pg_cluster.connect() as conn:
        conn.execute(f"UPDATE {schema}.sessions SET title = 'Via a view' WHERE id = %s", (hermesdb.CHAT_ID,))
    assert sync_index(index, pgs=[dsn]).sessions_indexed == 1
