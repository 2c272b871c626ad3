"""A live Hermes ``SessionDB`` appends, rewinds and compacts while the index syncs and searches (issue 9).

Bounded to about 20 s here; ``bench/soak.py`` runs it longer. See ``soak.py`` for what is checked.

The soak once failed about one run in four under load, a committed row missing after a sync. The cause,
made deterministic below: reading a store Hermes writes through a read-only write-ahead-log index, SQLite
answers ``SQLITE_READONLY_RECOVERY`` ("attempt to write a readonly database") now and then, when it reads
that index while the writer updates it. The sync took such a session as unreadable, passed over it, and yet
recorded the store as read up to its newest row: the session's new rows waited for Hermes to change it
again (and an error reading the store's catalog failed the whole sync). A read is now tried again, and a
session still unread leaves the store to be looked at by the next sync.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hermes_trail.errors import StoreUnreadable
from hermes_trail.index.sync import sync_index
from soak import run_soak

hermes_state = pytest.importorskip("hermes_state")

# What SQLite's read-only reader says when it catches the write-ahead log's index mid-update.
TRANSIENT = "attempt to write a readonly database"


@pytest.mark.slow
def test_every_committed_row_is_indexed_once_while_hermes_writes(tmp_path):
    home = tmp_path / "hermes_home"
    home.mkdir()
    report = run_soak(home, tmp_path / "index" / "index.db", seconds=15)
    assert report.problems == []
    assert report.writes > 100 and report.rewinds >= 1 and report.compactions >= 1
    assert report.syncs >= 3 and report.rows_checked > report.writes


@pytest.fixture
def home(tmp_path: Path) -> Path:
    home = tmp_path / "hermes"
    home.mkdir()
    db = hermes_state.SessionDB(db_path=home / "state.db")
    for n in range(3):
        sid = f"20261102_09000{n}_50a00{n}"
        db.create_session(sid, "cli", cwd="/home/dev/soak")
        db.append_message(sid, role="user", content=f"question soakword{n} please")
    db.close()
    return home


def _append(home: Path, sid: str, word: str) -> None:
    db = hermes_state.SessionDB(db_path=home / "state.db")
    db.append_message(sid, role="user", content=f"question {word} please")
    db.close()


def _rows(index: Path, sid: str) -> int:
    conn = sqlite3.connect(index)
    try:
        found = "SELECT count(*) FROM docs d JOIN sessions s ON s.id = d.sess WHERE s.session_id = ?"
        return int(conn.execute(found, (sid,)).fetchone()[0])
    finally:
        conn.close()


def _failing(real: Callable[..., Any], times: int, when: Callable[..., bool] = lambda *a: True) -> Any:
    """``real``, failing as SQLite's read-only reader can, the first ``times`` calls ``when`` accepts."""
    left = [times]

    def call(*args: Any, **kwargs: Any) -> Any:
        if left[0] and when(*args):
            left[0] -= 1
            raise StoreUnreadable("state.db", TRANSIENT)
        return real(*args, **kwargs)

    return call


def test_a_session_read_that_fails_for_a_moment_is_tried_again(home, tmp_path, monkeypatch):
    from hermes_trail.history import History

    index = tmp_path / "index.db"
    sync_index(index, homes=[home], env={})
    _append(home, "20261102_090001_50a001", "soakword7")
    when = lambda self, session, **_: session.id == "20261102_090001_50a001"  # noqa: E731
    monkeypatch.setattr(History, "load", _failing(History.load, 1, when))
    report = sync_index(index, homes=[home], env={})
    assert report.strays == [] and _rows(index, "20261102_090001_50a001") == 2


def test_a_session_left_unread_is_read_by_the_next_sync_though_nothing_changed(home, tmp_path, monkeypatch):
    """The loss itself: the store was recorded as read up to its newest row, so with nothing new written the
    next sync did not look at it, and the session's new row was never indexed."""
    from hermes_trail.history import History

    index = tmp_path / "index.db"
    sync_index(index, homes=[home], env={})
    _append(home, "20261102_090001_50a001", "soakword7")
    _append(home, "20261102_090002_50a002", "soakword8")
    real = History.load
    when = lambda self, session, **_: session.id == "20261102_090001_50a001"  # noqa: E731
    monkeypatch.setattr(History, "load", _failing(real, 99, when))
    report = sync_index(index, homes=[home], env={})
    assert [s.reason for s in report.strays] == [TRANSIENT]
    assert _rows(index, "20261102_090001_50a001") == 1 and _rows(index, "20261102_090002_50a002") == 2
    monkeypatch.setattr(History, "load", real)
    again = sync_index(index, homes=[home], env={})  # the store did not change since
    assert again.sessions_indexed == 1 and again.strays == []
    assert _rows(index, "20261102_090001_50a001") == 2
    assert sync_index(index, homes=[home], env={}).changed_stores == 0  # and then it is done


def test_a_store_whose_catalog_or_opening_fails_for_a_moment_is_read(home, tmp_path, monkeypatch):
    """A read of the store's catalog failing the same way failed the whole sync; its opening failing left
    the store out of it."""
    from hermes_trail import history
    from hermes_trail.hermes.store import SqliteStore

    index = tmp_path / "index.db"
    sync_index(index, homes=[home], env={})
    _append(home, "20261102_090000_50a000", "soakword7")
    monkeypatch.setattr(SqliteStore, "max_message_id", _failing(SqliteStore.max_message_id, 2))
    monkeypatch.setattr(history, "open_store", _failing(history.open_store, 1))
    report = sync_index(index, homes=[home], env={})
    assert report.strays == [] and report.sessions_indexed == 1
    assert _rows(index, "20261102_090000_50a000") == 2


class _Refusing:
    """A store connection that answers every statement as SQLite's read-only reader does when it catches
    the write-ahead log's index mid-update."""

    def __init__(self, real: sqlite3.Connection) -> None:
        self.real = real

    def execute(self, *args: Any) -> Any:
        error = sqlite3.OperationalError(TRANSIENT)
        error.sqlite_errorname = "SQLITE_READONLY_RECOVERY"  # type: ignore[attr-defined]
        raise error

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


@pytest.mark.parametrize(
    "read",
    [
        lambda s: s.columns("messages"),
        lambda s: s.compacted_flags("20261102_090000_50a000"),
        lambda s: s.session_rows(light=True),
        lambda s: s.session_row("20261102_090000_50a000"),
        lambda s: s.message_rows("20261102_090000_50a000"),
        lambda s: s.message_stats(),
        lambda s: s.message_stats_of("20261102_090000_50a000"),
        lambda s: s.first_prompts(["20261102_090000_50a000"]),
        lambda s: s.max_message_id(),
    ],
    ids=["columns", "compacted", "sessions", "session", "messages", "stats", "stats_of", "prompts", "max"],
)
def test_every_read_of_a_store_fails_as_one_the_sync_tries_again(home, read):
    """The soak in CI once stopped on a bare ``OperationalError``: the table-info and compacted-flags reads
    let SQLite's error through, where every other read names it as :class:`StoreUnreadable`, the one error
    a sync tries again. Each read is made on a store whose column lists were never read, as a sync's are."""
    from hermes_trail.hermes.store import SqliteStore

    store = SqliteStore(home / "state.db")
    try:
        store._conn = _Refusing(store._conn)  # type: ignore[assignment]
        with pytest.raises(StoreUnreadable) as raised:
            read(store)
        assert raised.value.reason == TRANSIENT
    finally:
        store.close()
