"""A store's identity (index/sync.py) changes with every commit, even one that leaves every file's size
and mtime as they were: file mtimes move in clock ticks of milliseconds, and a WAL written again from its
start after a checkpoint keeps its size. A missed commit is a row the next sync never indexes.

The stores here are plain SQLite files rather than Hermes' (the shape under test is SQLite's file format,
and the commits must be placed between checkpoints exactly); the index's own tests sync real Hermes stores.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from hermes_trail.index.sync import store_identity


def _put_back_times(path: Path, times: dict[str, tuple[int, int]]) -> None:
    """Give each file the mtime it had before, as a commit within one clock tick would leave it."""
    for suffix, (atime, mtime) in times.items():
        os.utime(f"{path}{suffix}", ns=(atime, mtime))


def _times(path: Path, suffixes: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    out = {}
    for suffix in suffixes:
        st = Path(f"{path}{suffix}").stat()
        out[suffix] = (st.st_atime_ns, st.st_mtime_ns)
    return out


def test_a_wal_commit_at_the_same_size_and_tick_changes_the_identity(tmp_path):
    db = tmp_path / "state.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA wal_autocheckpoint = 0")
    conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, content TEXT)")
    conn.execute("INSERT INTO messages (content) VALUES (?)", ("a" * 100,))
    conn.execute("PRAGMA wal_checkpoint(RESTART)")  # the next commit writes the WAL again from its start
    sizes = {s: Path(f"{db}{s}").stat().st_size for s in ("", "-wal")}
    times = _times(db, ("", "-wal", "-shm"))
    before = store_identity(db)
    conn.execute("UPDATE messages SET content = ? WHERE id = 1", ("b" * 100,))
    assert {s: Path(f"{db}{s}").stat().st_size for s in ("", "-wal")} == sizes  # same sizes
    _put_back_times(db, times)
    assert store_identity(db) != before
    conn.close()


def test_a_rollback_journal_commit_in_place_changes_the_identity(tmp_path):
    db = tmp_path / "state.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, content TEXT)")
    conn.execute("INSERT INTO messages (content) VALUES (?)", ("a" * 100,))
    size = db.stat().st_size
    times = _times(db, ("",))
    before = store_identity(db)
    conn.execute("UPDATE messages SET content = ? WHERE id = 1", ("b" * 100,))
    assert db.stat().st_size == size
    _put_back_times(db, times)
    assert store_identity(db) != before
    conn.close()


def test_reading_the_identity_changes_nothing(tmp_path):
    db = tmp_path / "state.db"
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("CREATE TABLE t (x)")
    conn.execute("INSERT INTO t VALUES (1)")
    files = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()}
    assert store_identity(db) == store_identity(db)
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()} == files
    conn.close()
