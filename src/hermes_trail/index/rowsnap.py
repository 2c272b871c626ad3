"""What the last sync saw of each ``sessions`` row of a SQLite store, kept in the index, so that the next
sync marks only the rows that are not as they were.

A sync must tell which sessions changed besides their new messages (a title set, a session ended,
archived, rewound): it digests each row's mark, every value of every row made text by SQLite (89 of the
135 ms a sync takes after one new prompt, on a store of 10,000 sessions). Kept here are the rows' values
as the last sync read them (all but the system prompt), one table a store; the store's reader attaches the
index read-only and SQLite compares each row with its copy value by value (30 ms), and only the rows that
differ, those with new messages and those the index does not hold as read are marked. The fingerprints
are the same as when every row is marked, so nothing else (the shared index's pushes among them) can
tell which way they were made.

A snapshot is only believed when it is what the last sync of its store saw: made with the store's
columns of now, and recorded with the time that sync wrote in the store's row of ``stores``. A trail that
keeps none (an earlier version, sharing the index) writes another time there, and the next sync marks
every row again and makes the snapshot anew (an index an earlier trail wrote has none: its first sync
marks every row, which also gives its fingerprints this form). A session a sync was to read and could not
keeps no row, so the next sync reads it as new. A row's copy is read by the statement that marks it, so
a row Hermes changes while the sync reads the session (a title set in its background thread) is a
difference the next sync finds.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable
from typing import Any

REGISTRY = """
CREATE TABLE IF NOT EXISTS row_snapshots (
    store TEXT PRIMARY KEY,
    tbl TEXT NOT NULL,
    columns TEXT NOT NULL,
    synced_at REAL NOT NULL
)"""
# The snapshot tables' key: the store row's rowid (a name no Hermes column has).
ROWID = "snapshot_rowid"


def table_for(store_key: str) -> str:
    """The snapshot table of a store: named from its key, which may hold any character."""
    return "rows_" + hashlib.blake2b(store_key.encode(), digest_size=8).hexdigest()


def believed(conn: sqlite3.Connection, store_key: str, columns: list[str]) -> bool:
    """Whether the store's snapshot (:func:`table_for`) holds what the last sync of the store saw, with
    these columns."""
    try:
        row = conn.execute(
            "SELECT r.columns, r.synced_at = s.synced_at FROM row_snapshots r "
            "JOIN stores s ON s.key = r.store WHERE r.store = ?",
            (store_key,),
        ).fetchone()
    except sqlite3.OperationalError:  # an index no trail kept snapshots in yet
        return False
    return row is not None and bool(row[1]) and json.loads(row[0]) == columns


def create(conn: sqlite3.Connection, store_key: str, columns: list[str]) -> None:
    """Make the store's snapshot table anew, empty, with these columns."""
    table = table_for(store_key)
    conn.execute(f'DROP TABLE IF EXISTS "{table}"')
    # No declared types: each value is kept as the store holds it, which is what SQLite compares.
    conn.execute(f'CREATE TABLE "{table}" ({ROWID} INTEGER PRIMARY KEY, {", ".join(map(_quote, columns))})')


def put(conn: sqlite3.Connection, store_key: str, rows: Iterable[tuple[Any, ...]]) -> None:
    """Write ``(rowid, *values)`` rows into the store's snapshot, replacing what it held at their rowids."""
    rows = list(rows)
    if rows:
        marks = ", ".join("?" for _ in rows[0])
        conn.executemany(f'INSERT OR REPLACE INTO "{table_for(store_key)}" VALUES ({marks})', rows)


def record(conn: sqlite3.Connection, store_key: str, columns: list[str], synced_at: float) -> None:
    """Record the store's snapshot as this sync's: ``synced_at`` is the time it writes in ``stores``."""
    conn.execute(REGISTRY)
    conn.execute(
        "INSERT OR REPLACE INTO row_snapshots (store, tbl, columns, synced_at) VALUES (?, ?, ?, ?)",
        (store_key, table_for(store_key), json.dumps(columns), synced_at),
    )


def forget(conn: sqlite3.Connection, store_key: str, session_ids: Iterable[Any]) -> None:
    """Take the rows of these sessions (gone from the store, or not read) out of the store's snapshot."""
    ids = list(session_ids)
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        conn.execute(f'DELETE FROM "{table_for(store_key)}" WHERE "id" IN ({marks})', chunk)


def drop(conn: sqlite3.Connection, store_key: str) -> None:
    """Take a store's snapshot out of the index (the store is gone, or read without one)."""
    try:
        conn.execute("DELETE FROM row_snapshots WHERE store = ?", (store_key,))
    except sqlite3.OperationalError:
        return
    conn.execute(f'DROP TABLE IF EXISTS "{table_for(store_key)}"')


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'
