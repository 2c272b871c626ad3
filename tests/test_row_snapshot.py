"""The sync's snapshot of each store's session rows (index/rowsnap.py): a row that changed without new
messages is still read again, whichever way the sync found it, and a snapshot that is not what the last
sync saw is never believed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from hermes_trail.errors import StoreUnreadable
from hermes_trail.index import rowsnap, sync
from hermes_trail.index.sync import sync_index

hermes_state = pytest.importorskip("hermes_state")

SESSIONS = 12


def _sid(n: int) -> str:
    return f"20261101_{n:06d}_abcdef"


def _write(db_path: Path, start: int = 0, count: int = SESSIONS) -> None:
    db = hermes_state.SessionDB(db_path=db_path)
    try:
        for n in range(start, start + count):
            db.create_session(_sid(n), "cli", cwd=f"/src/project{n % 3}")
            base = 1_800_000_000.0 + n * 1000
            db.append_message(_sid(n), "user", f"why does widget{n} fail to deploy?", timestamp=base)
            db.append_message(_sid(n), "assistant", f"widget{n} lost its port.", timestamp=base + 10)
    finally:
        db.close()


def _title(db_path: Path, n: int, title: str) -> None:
    db = hermes_state.SessionDB(db_path=db_path)
    try:
        assert db.set_session_title(_sid(n), title)
    finally:
        db.close()


def _append(db_path: Path, n: int, text: str) -> None:
    """A new message in session ``n``, as Hermes writes one."""
    db = hermes_state.SessionDB(db_path=db_path)
    try:
        db.append_message(_sid(n), "user", text, timestamp=1_900_000_000.0)
    finally:
        db.close()


def _indexed_title(index: Path, n: int) -> str | None:
    with sqlite3.connect(index) as conn:
        row = conn.execute("SELECT title FROM sessions WHERE session_id = ?", (_sid(n),)).fetchone()
    return row[0] if row else None


@pytest.fixture
def store(tmp_path: Path) -> Path:
    root = tmp_path / "hermes"
    root.mkdir()
    _write(root / "state.db")
    return root / "state.db"


@pytest.fixture
def index(tmp_path: Path) -> Path:
    return tmp_path / "index" / "index.db"


@pytest.fixture
def passes(monkeypatch) -> list[str]:
    """Which way each sync of a store found its changed rows: ``snapshot`` or every row ``marked``."""
    seen: list[str] = []
    by_marks, by_snapshot = sync._by_marks, sync._by_snapshot

    def marks(*args, **kwargs):
        seen.append("marked")
        return by_marks(*args, **kwargs)

    def snapshot(*args, **kwargs):
        found = by_snapshot(*args, **kwargs)
        if found is not None:
            seen.append("snapshot")
        return found

    monkeypatch.setattr(sync, "_by_marks", marks)
    monkeypatch.setattr(sync, "_by_snapshot", snapshot)
    return seen


def test_a_title_set_without_new_messages_is_read_again_by_the_snapshot(store, index, passes):
    sync_index(index, dbs=[store])
    assert passes == ["marked"]  # the first build marks every row, and keeps the snapshot
    _title(store, 3, "Widget three redeploy")
    report = sync_index(index, dbs=[store])
    assert passes == ["marked", "snapshot"]
    assert report.sessions_indexed == 1
    assert _indexed_title(index, 3) == "Widget three redeploy"
    db = hermes_state.SessionDB(db_path=store)
    try:  # a session ended and another given a new message: both read again, nothing else
        db.end_session(_sid(5), "user_exit")
        db.append_message(_sid(7), "user", "and widget7 again?", timestamp=1_900_000_000.0)
    finally:
        db.close()
    report = sync_index(index, dbs=[store])
    assert passes[-1] == "snapshot" and report.sessions_indexed == 2
    assert sync_index(index, dbs=[store]).sessions_indexed == 0


def test_a_snapshot_another_sync_did_not_keep_is_not_believed(store, index, passes, monkeypatch):
    """A trail that keeps no snapshot (an earlier version sharing the index) syncs a change; the row is
    then changed back as the snapshot holds it. Believed, the snapshot would say the row is as the index
    holds it, and the index would keep the other title for good."""
    _title(store, 2, "First title")
    sync_index(index, dbs=[store])
    _title(store, 2, "Second title")
    with monkeypatch.context() as keeps_none:
        keeps_none.setattr(sync, "_keep_snapshot", lambda *args: None)
        sync_index(index, dbs=[store])
    assert _indexed_title(index, 2) == "Second title"
    _title(store, 2, "First title")
    passes.clear()
    assert sync_index(index, dbs=[store]).sessions_indexed == 1
    assert passes == ["marked"]
    assert _indexed_title(index, 2) == "First title"
    _title(store, 2, "Third title")
    sync_index(index, dbs=[store])
    assert passes[-1] == "snapshot" and _indexed_title(index, 2) == "Third title"


def test_a_session_the_last_sync_could_not_read_is_read_again_though_its_row_is_the_same(
    store, index, passes, monkeypatch
):
    """A session the sync was to read and could not keeps no row in the snapshot: the next sync marks it
    as new, and reads it, with no change to its row."""
    sync_index(index, dbs=[store])
    _append(store, 4, "widget4 once more")
    prepared = sync._prepared

    def unreadable(history, sessions, parallel=True):
        for pair, made in prepared(history, sessions, parallel):
            yield (
                pair,
                (StoreUnreadable(str(store), "locked for the test") if pair[0].id == _sid(4) else made),
            )

    with monkeypatch.context() as failing:
        failing.setattr(sync, "_prepared", unreadable)
        report = sync_index(index, dbs=[store])
    assert passes[-1] == "snapshot" and report.sessions_indexed == 0 and report.strays
    report = sync_index(index, dbs=[store])
    assert passes[-1] == "snapshot" and report.sessions_indexed == 1
    with sqlite3.connect(index) as conn:
        fingerprint = conn.execute("SELECT fingerprint FROM sessions WHERE session_id = ?", (_sid(4),))
        assert fingerprint.fetchone()[0]
        found = conn.execute("SELECT count(*) FROM docs WHERE text LIKE '%widget4 once more%'").fetchone()
    assert found[0] == 1
    assert sync_index(index, dbs=[store]).sessions_indexed == 0


def test_rows_given_other_rowids_and_sessions_deleted_read_nothing_again(store, index, passes):
    """A table without an integer key may have its rows' rowids given out again (VACUUM may): the
    snapshot then matches none of them, every row is marked, and their fingerprints say nothing
    changed."""
    _write(store, start=SESSIONS, count=6)
    sync_index(index, dbs=[store])
    db = hermes_state.SessionDB(db_path=store)
    try:
        for n in (0, 1, 2):
            db.delete_session(_sid(n))
    finally:
        db.close()
    with sqlite3.connect(store) as conn:
        before = dict(conn.execute("SELECT id, rowid FROM sessions"))
    with sqlite3.connect(store) as conn:
        conn.execute("UPDATE sessions SET rowid = rowid + 1000")
        after = dict(conn.execute("SELECT id, rowid FROM sessions"))
    assert set(before) == set(after) and not set(before.values()) & set(after.values())
    report = sync_index(index, dbs=[store])
    assert passes[-1] == "snapshot"
    assert report.sessions_removed == 3 and report.sessions_indexed == 0
    with sqlite3.connect(index) as conn:
        table = rowsnap.table_for(conn.execute("SELECT key FROM stores").fetchone()[0])
        kept = {row[0] for row in conn.execute(f'SELECT "id" FROM "{table}"')}
    assert kept == set(after)
    _title(store, 14, "Fourteen")
    assert sync_index(index, dbs=[store]).sessions_indexed == 1
    assert passes[-1] == "snapshot" and _indexed_title(index, 14) == "Fourteen"


def test_a_snapshot_that_cannot_be_compared_falls_back_to_marking_every_row(store, index, passes):
    sync_index(index, dbs=[store])
    with sqlite3.connect(index) as conn:
        table = conn.execute("SELECT tbl FROM row_snapshots").fetchone()[0]
        conn.execute(f'ALTER TABLE "{table}" RENAME TO elsewhere')  # as if damaged
    _title(store, 6, "Six")
    assert sync_index(index, dbs=[store]).sessions_indexed == 1
    assert passes[-1] == "marked" and _indexed_title(index, 6) == "Six"
    _title(store, 6, "Six again")
    assert sync_index(index, dbs=[store]).sessions_indexed == 1
    assert passes[-1] == "snapshot" and _indexed_title(index, 6) == "Six again"


def test_a_row_hermes_changes_while_a_sync_reads_is_read_again_by_the_next(store, index, passes, monkeypatch):
    """Hermes sets a title (in its background thread) while a sync is reading the session of its new
    message: the snapshot holds the row as it was when the sync marked it, never as it is after the
    session was read, so the next sync finds the title and reads it."""
    sync_index(index, dbs=[store])
    _append(store, 8, "widget8 again")
    keep = sync._keep_snapshot

    def titled_meanwhile(*args, **kwargs):
        _title(store, 8, "Titled while the sync read")  # after the session was read, before it is recorded
        return keep(*args, **kwargs)

    with monkeypatch.context() as racing:
        racing.setattr(sync, "_keep_snapshot", titled_meanwhile)
        assert sync_index(index, dbs=[store]).sessions_indexed == 1
    assert _indexed_title(index, 8) is None
    report = sync_index(index, dbs=[store])
    assert passes[-1] == "snapshot" and report.sessions_indexed == 1
    assert _indexed_title(index, 8) == "Titled while the sync read"
