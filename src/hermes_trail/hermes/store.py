"""Rows of a Hermes ``state.db``, read without ever writing to the Hermes home.

The reader interprets nothing: it yields rows as dicts keyed by column name (``PRAGMA table_info``
decides, so older and newer schemas both read and unknown columns stay on the row), in ``messages.id``
order as Hermes reads them. How the file is opened depends on what is beside it, so that no file in the
home is created or changed:

- rollback journal (``DELETE`` mode): ``mode=ro``; SQLite creates nothing to read such a file;
- WAL mode with ``-wal`` and ``-shm`` present (a live Hermes): ``mode=ro&readonly_shm=1``, which reads the
  uncheckpointed frames without touching the ``-shm`` (no read marks, no recovery, no checkpoint);
- WAL mode with no ``-wal`` (checkpointed, no writer): ``immutable=1``, and reopened as above as soon as
  a ``-wal`` appears, since ``mode=ro`` alone would create ``-wal`` and ``-shm`` beside the database;
- anything SQLite could only read by writing (a ``-wal`` without its ``-shm``, a hot journal left by a
  crash): a private copy in a temporary directory, so the recovery happens there. A ``-shm`` whose index
  another process is about to rebuild (``SQLITE_READONLY_RECOVERY``: a Hermes starting after a crash) is
  waited for first, up to :data:`RECOVERY_WAIT_SECONDS`, rather than copying a store of any size.
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hermes_trail import readonly
from hermes_trail.errors import StoreLocked, StoreUnreadable

Row = dict[str, Any]

SQLITE_MAGIC = b"SQLite format 3\x00"
# How long a read waits for a writer's lock before the store is reported as locked and skipped.
LOCK_WAIT_SECONDS = 2.0
# How long opening waits for another process to rebuild a WAL index a read-only reader cannot rebuild
# (SQLITE_READONLY_RECOVERY) before it reads a private copy instead.
RECOVERY_WAIT_SECONDS = 2.0


class InvalidText(str):
    """Text whose bytes were not UTF-8: kept with U+FFFD in place of the bad bytes, and so marked."""


def _lenient_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return InvalidText(data.decode("utf-8", errors="replace"))


def _describe(exc: sqlite3.Error) -> str:
    text = str(exc)
    if "malformed" in text or "not a database" in text:
        return f"damaged SQLite file ({text})"
    if "locked" in text or "busy" in text:
        return f"locked by a writer for over {LOCK_WAIT_SECONDS:g} s ({text})"
    return text


def _marked(column: str, declared: str) -> str:
    """How :meth:`SqliteStore.session_marks` reads a column: as it is, but a REAL as two integers (its whole
    part, and its fraction in units of 2^-53), which every SQLite writes alike where each writes a REAL's
    digits its own way, and a BLOB as its hex digits (``printf`` would stop at its first NUL byte). Only a
    column without text affinity (``CHAR``, ``CLOB``, ``TEXT`` in its declared type) can hold a REAL; any
    column can hold a BLOB."""
    quoted = _quoted(column)
    blob = f"WHEN 'blob' THEN 'X' || hex({quoted})"
    kind = declared.upper()
    if any(text in kind for text in ("CHAR", "CLOB", "TEXT")) and "INT" not in kind:
        return f"CASE typeof({quoted}) {blob} ELSE {quoted} END"
    whole = f"CAST({quoted} AS INTEGER)"
    real = f"WHEN 'real' THEN {whole} || ':' || CAST(({quoted} - {whole}) * 9007199254740992.0 AS INTEGER)"
    return f"CASE typeof({quoted}) {real} {blob} ELSE {quoted} END"


def _quoted(name: str) -> str:
    """A column's name as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _needs_recovery(exc: sqlite3.Error) -> bool:
    """Whether the WAL index must be rebuilt by a writer first (the live writer does it on its next read)."""
    return getattr(exc, "sqlite_errorname", "") == "SQLITE_READONLY_RECOVERY"


def _pause() -> None:
    """A moment for the process that rebuilds a WAL index to do it."""
    time.sleep(0.02)


def _read_header(path: Path) -> bytes:
    try:
        with path.open("rb") as fh:
            return fh.read(100)
    except IsADirectoryError as exc:
        raise StoreUnreadable(str(path), "is a directory, not a database") from exc
    except PermissionError as exc:
        raise StoreUnreadable(str(path), "permission denied") from exc
    except FileNotFoundError as exc:
        raise StoreUnreadable(str(path), "no such file") from exc
    except OSError as exc:
        raise StoreUnreadable(str(path), f"cannot be read ({exc.strerror or exc})") from exc


# Rows a read of every session's mark and values takes at a time (:meth:`SqliteStore.marked_rows`).
MARKED_CHUNK = 5_000


class SqliteStore:
    """One ``state.db`` opened read-only. Use as a context manager, or call :meth:`close`.

    :param path: the database file.
    :param required: the tables the file must hold to be read at all; a side store such as
        ``response_store.db`` names its own.
    :raises StoreUnreadable: when the file is not SQLite, is damaged, or lacks a required table.
    :raises StoreLocked: when a writer holds it locked past :data:`LOCK_WAIT_SECONDS`.
    """

    def __init__(self, path: str | Path, required: tuple[str, ...] = ("sessions", "messages")) -> None:
        self.path = Path(path)
        # Made once, for the check before every query of an immutable read (``_reopen_if_writer_appeared``):
        # made there each time, it took a fortieth of an index build's time.
        self._wal = self._sidecar("-wal")
        self.how_opened = ""
        self._tmpdir: str | None = None
        self._conn: sqlite3.Connection | None = None
        self._columns: dict[str, list[str]] = {}
        self._identity: tuple[int, int] | None = None
        header = _read_header(self.path)
        if len(header) < 100 or not header.startswith(SQLITE_MAGIC):
            reason = "empty file" if not header else "not a SQLite database"
            if header.startswith(SQLITE_MAGIC):
                reason = "truncated SQLite file (shorter than its header)"
            raise StoreUnreadable(str(self.path), reason)
        self._wal_mode = header[18] == 2 or header[19] == 2
        try:
            self._open()
        except sqlite3.Error as exc:
            self.close()
            raise self._error(exc) from exc
        except OSError as exc:  # the private copy could not be made
            self.close()
            why = f"cannot be copied to read ({exc.strerror or exc})"
            raise StoreUnreadable(str(self.path), why) from exc
        try:
            self._tables = {
                r[0] for r in self._query("SELECT name FROM sqlite_master WHERE type IN ('table','view')")
            }
        except StoreUnreadable:
            self.close()
            raise
        missing = [t for t in required if t not in self._tables]
        if missing:
            self.close()
            what = "not a Hermes store" if required == ("sessions", "messages") else "not the store expected"
            raise StoreUnreadable(str(self.path), f"{what}: no " + " or ".join(missing) + " table")

    # -- opening -------------------------------------------------------------------------------------
    def _sidecar(self, suffix: str) -> Path:
        return self.path.with_name(self.path.name + suffix)

    def _connect(self, uri_path: Path, params: str) -> sqlite3.Connection:
        conn = readonly.connect(uri_path, params, timeout=LOCK_WAIT_SECONDS, check_same_thread=False)
        conn.execute("PRAGMA query_only = 1")
        return conn

    def _open(self) -> None:
        wal, shm, journal = self._sidecar("-wal"), self._sidecar("-shm"), self._sidecar("-journal")
        if self._wal_mode:
            if wal.exists() and shm.exists():
                self._open_wal()
            elif wal.exists():
                self._open_copy("a -wal file without its -shm")
            else:
                self._identity = self._file_identity()
                self._conn, self.how_opened = self._connect(self.path, "immutable=1"), "immutable"
        else:
            self._conn, self.how_opened = self._connect(self.path, "mode=ro"), "ro"
            if journal.exists():
                try:  # a hot journal can only be rolled back by a writer: read a private copy instead
                    self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                except sqlite3.OperationalError as exc:
                    if "readonly" not in str(exc) and "read-only" not in str(exc):
                        raise self._error(exc) from exc
                    self._conn.close()
                    self._open_copy("a hot journal left by an interrupted write")

    def _open_wal(self) -> None:
        """Read the live store through its ``-wal`` and ``-shm``; a ``-shm`` SQLite cannot use without writing
        to it is read from a private copy, once no other process rebuilds its index within
        :data:`RECOVERY_WAIT_SECONDS`."""
        until = time.monotonic() + RECOVERY_WAIT_SECONDS
        while True:
            self._conn, self.how_opened = self._connect(self.path, "mode=ro&readonly_shm=1"), "wal"
            try:
                self._conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                return
            except sqlite3.OperationalError as exc:
                if "locked" in str(exc) or "busy" in str(exc):
                    raise
                self._conn.close()
                if _needs_recovery(exc) and time.monotonic() < until:
                    _pause()
                    continue
                self._open_copy(f"a -shm that cannot be read as it is ({exc})")
                return

    def _open_copy(self, why: str) -> None:
        self._tmpdir = tempfile.mkdtemp(prefix="trail-store-")
        target = Path(self._tmpdir) / self.path.name
        for suffix in ("", "-wal", "-journal"):
            src = self._sidecar(suffix) if suffix else self.path
            if src.exists():
                shutil.copyfile(src, Path(str(target) + suffix))
        self._conn = self._connect(target, "mode=rw")
        self.how_opened = f"copy ({why})"

    def _file_identity(self) -> tuple[int, int] | None:
        try:
            stat = self.path.stat()
        except OSError:
            return None
        return (stat.st_size, stat.st_mtime_ns)

    def _reopen_if_writer_appeared(self) -> None:
        """An immutable read must not race a writer: once a ``-wal`` exists, or the file changed under a
        checkpoint, the connection (and its page cache) is replaced."""
        if self.how_opened != "immutable":
            return
        if self._wal.exists() or self._file_identity() != self._identity:
            if self._conn is not None:
                self._conn.close()
            self._open()

    def _error(self, exc: sqlite3.Error) -> StoreUnreadable:
        text = str(exc)
        cls = StoreLocked if ("locked" in text or "busy" in text) else StoreUnreadable
        return cls(str(self.path), _describe(exc))

    # -- querying ------------------------------------------------------------------------------------
    def _execute(self, sql: str, params: tuple[Any, ...] = ()) -> tuple[list[str], list[tuple[Any, ...]]]:
        """Column names and rows; text that is not UTF-8 re-reads the query as :class:`InvalidText`.

        :raises StoreUnreadable: every failure of SQLite, named (:class:`StoreLocked` for a writer's lock),
            so that no read of the store, however small, lets a bare ``sqlite3`` error out: a live store's
            read-only reader is answered ``SQLITE_READONLY_RECOVERY`` now and then, and only an error
            the callers know is tried again.
        """
        assert self._conn is not None, "store is closed"
        try:
            self._reopen_if_writer_appeared()
            try:
                cursor = self._conn.execute(sql, params)
                return [d[0] for d in cursor.description], cursor.fetchall()
            except sqlite3.OperationalError as exc:
                if "decode" not in str(exc):
                    raise
            self._conn.text_factory = _lenient_text
            try:
                cursor = self._conn.execute(sql, params)
                return [d[0] for d in cursor.description], cursor.fetchall()
            finally:
                self._conn.text_factory = str
        except sqlite3.Error as exc:
            raise self._error(exc) from exc

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self._execute(sql, params)[1]

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Row]:
        """All rows of a query as dicts keyed by column name.

        :raises StoreUnreadable: when the read fails (a damaged page, a writer's lock), naming why.
        """
        names, values = self._execute(sql, params)
        return [dict(zip(names, row, strict=True)) for row in values]

    # -- what Hermes stores --------------------------------------------------------------------------
    def has_table(self, name: str) -> bool:
        return name in self._tables

    def columns(self, table: str) -> list[str]:
        """A table's columns by name, as ``PRAGMA table_info`` lists them; empty when there is no table."""
        if table not in self._columns:
            if table not in self._tables:
                self._columns[table] = []
            else:
                self._columns[table] = [r[1] for r in self._query(f'PRAGMA table_info("{table}")')]
        return self._columns[table]

    @property
    def schema_version(self) -> int | None:
        """``schema_version.version`` when the store records one."""
        if not self.has_table("schema_version"):
            return None
        try:
            row = self._query("SELECT max(version) FROM schema_version")
        except StoreUnreadable:
            return None
        value = row[0][0] if row else None
        return value if isinstance(value, int) else None

    def _session_columns(self, light: bool) -> str:
        if light and "system_prompt" in self.columns("sessions"):
            return ", ".join(f'"{c}"' for c in self.columns("sessions") if c != "system_prompt")
        return "*"

    def session_rows(self, light: bool = False) -> list[Row]:
        """Every row of ``sessions`` in table order.

        :param light: leave out ``system_prompt``, the one large column, when only the catalog is wanted.
        """
        return self.rows(f"SELECT {self._session_columns(light)} FROM sessions ORDER BY rowid")

    def session_marks(self) -> list[tuple[Any, bytes]]:
        """Each row's values as one string SQLite makes (``printf``'s ``%Q``, a value quoted, NULL bare): a
        sync after a Hermes turn digests every session row, and fetching them as values cost more
        (10,000 rows, alternately in one process: 137 ms fetched and digested value by value, 100 so). The
        columns in the order of their names, so a store whose columns were added in another order marks
        the same row the same.

        The same bytes from every SQLite: the Hermes plugin (in Hermes' Python) and a ``trail`` command
        may share an index with different SQLite libraries, and each would read again every row the other
        marked otherwise. SQLite writes a REAL as text with 15 digits before 3.43 and 17 since (JSON, quote
        and printf alike: 59,000 of 60,000 values differ), so a REAL is marked by its whole part and its
        fraction in 2^-53 units, integers both, the same in every SQLite. Text and integers are written
        the same by all; a column of text affinity holds no REAL (SQLite makes it text as it is stored).
        A BLOB is marked by its hex digits. ``printf`` is in every SQLite since 2014 (a JSON array, 25 ms
        faster on 10,000 rows, fails on a BLOB and is missing from SQLite before 3.38 built without it:
        a trail there would have marked every row otherwise)."""
        mark = self._mark_expression()
        if mark is None:
            return []
        return self._execute(f'SELECT "id", CAST({mark} AS BLOB) FROM sessions ORDER BY rowid')[1]

    def _mark_expression(self) -> str | None:
        """The SQL of a ``sessions`` row's mark (:meth:`session_marks`); ``None`` without an ``id``."""
        declared = {r[1]: str(r[2] or "") for r in self._query('PRAGMA table_info("sessions")')}
        light = sorted(c for c in declared if c != "system_prompt")
        if "id" not in light:
            return None
        values = [_marked(c, declared[c]) for c in light]
        # At most 100 values a printf: SQLite's limit on a function's arguments was 127 until 3.46.
        pieces = [values[at : at + 100] for at in range(0, len(values), 100)]
        return " || ".join(f"printf('{','.join(['%Q'] * len(p))}', {', '.join(p)})" for p in pieces)

    def light_columns(self) -> list[str]:
        """The ``sessions`` columns a mark covers (all but ``system_prompt``), in the order of their names."""
        return sorted(c for c in self.columns("sessions") if c != "system_prompt")

    def rows_unlike(
        self, snapshot: Path, table: str, key: str, columns: list[str]
    ) -> list[tuple[int, Any]] | None:
        """The ``(rowid, id)`` of each ``sessions`` row that ``table`` of the SQLite file ``snapshot`` does
        not hold as it is now (no row of its ``key`` column at that rowid, or one with any of ``columns``
        other), SQLite comparing value with value. Marking every row makes each of its values text (89
        ms for 10,000 rows); comparing them makes none (30 ms), so a sync marks only the rows this
        returns. The file is attached read-only for the one query (what was last committed to it).
        ``None`` when it cannot be compared (the file or its table not as expected).

        :raises StoreLocked: a writer holds the store.
        """
        other = " OR ".join(f"s.{c} IS NOT r.{c}" for c in map(_quoted, columns))
        sql = (
            f'SELECT s.rowid, s."id" FROM main.sessions s LEFT JOIN trail_snapshot."{table}" r '
            f'ON r."{key}" = s.rowid WHERE r."{key}" IS NULL OR {other}'
        )
        assert self._conn is not None, "store is closed"
        try:
            self._reopen_if_writer_appeared()
        except sqlite3.Error as exc:
            raise self._error(exc) from exc
        try:
            self._conn.execute(
                "ATTACH DATABASE ? AS trail_snapshot", (f"{snapshot.resolve().as_uri()}?mode=ro",)
            )
        except sqlite3.Error:
            return None
        try:
            return [(int(r[0]), r[1]) for r in self._conn.execute(sql).fetchall()]
        except sqlite3.Error as exc:
            if isinstance(self._error(exc), StoreLocked):
                raise self._error(exc) from exc
            return None
        finally:
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("DETACH DATABASE trail_snapshot")

    def marked_rows(
        self, columns: list[str], ids: list[Any] | None = None
    ) -> Iterator[list[tuple[Any, ...]]]:
        """``(id, mark, rowid, *values)`` of every ``sessions`` row, or of those whose ``id`` is one of
        ``ids``: its mark (:meth:`session_marks`) and the values of ``columns``, read by one statement, so
        that a row Hermes changes meanwhile gives both as they were before, or both as they are after. In
        chunks of at most :data:`MARKED_CHUNK` rows (a store of 100,000 sessions is never held whole)."""
        mark = self._mark_expression()
        if mark is None:
            return
        quoted = ", ".join(map(_quoted, columns))
        head = f'SELECT "id", CAST({mark} AS BLOB), rowid, {quoted} FROM sessions'
        if ids is not None:
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                marks = ", ".join("?" for _ in chunk)
                yield self._query(f'{head} WHERE "id" IN ({marks})', tuple(chunk))
            return
        after = None
        while True:
            if after is None:
                rows = self._query(f"{head} ORDER BY rowid LIMIT {MARKED_CHUNK}")
            else:
                rows = self._query(f"{head} WHERE rowid > ? ORDER BY rowid LIMIT {MARKED_CHUNK}", (after,))
            if not rows:
                return
            yield rows
            after = rows[-1][2]

    def session_ids(self) -> list[Any]:
        """Every ``sessions.id``, from the primary key's index alone (no row is read)."""
        return [r[0] for r in self._query('SELECT "id" FROM sessions')]

    def session_rows_by(self, column: str, values: list[Any], light: bool = True) -> list[Row]:
        """Session rows whose ``id`` or ``parent_session_id`` is one of ``values`` (through their indexes)."""
        assert column in ("id", "parent_session_id"), column
        if column not in self.columns("sessions") or not values:
            return []
        found: list[Row] = []
        for start in range(0, len(values), 500):  # stay under SQLite's bound-parameter limit
            chunk = values[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            sql = f'SELECT {self._session_columns(light)} FROM sessions WHERE "{column}" IN ({marks})'
            found.extend(self.rows(sql, tuple(chunk)))
        return found

    def session_row(self, session_id: str) -> Row | None:
        found = self.rows("SELECT * FROM sessions WHERE id = ?", (session_id,))
        return found[0] if found else None

    def message_rows(self, session_id: str) -> list[Row]:
        """Every row of one session, rewound and archived rows included, in ``messages.id`` order."""
        return self.rows("SELECT * FROM messages WHERE session_id = ? ORDER BY id", (session_id,))

    def message_ids_of(self, session_id: Any) -> list[int]:
        """The ``messages.id`` of every row whose ``session_id`` is this value (``None`` included)."""
        rows = self.rows("SELECT id FROM messages WHERE session_id IS ? ORDER BY id", (session_id,))
        return [r["id"] for r in rows]

    def sessions_by_prefix(self, prefix: str) -> list[Row]:
        """Session rows whose id is ``prefix`` or starts with it, through the primary-key index."""
        upper = prefix + "\U0010ffff"
        return self.rows("SELECT * FROM sessions WHERE id >= ? AND id < ? ORDER BY id", (prefix, upper))

    def meta_rows(self, prefix: str) -> list[Row]:
        """``state_meta`` rows whose key starts with ``prefix`` (none when the store has no such table)."""
        if "key" not in self.columns("state_meta"):
            return []
        upper = prefix + "\U0010ffff"
        return self.rows("SELECT * FROM state_meta WHERE key >= ? AND key < ? ORDER BY key", (prefix, upper))

    def message_stats_of(self, session_id: Any) -> tuple[int, Any, int]:
        """One session's row count, newest timestamp and inactive rows."""
        columns = self.columns("messages")
        newest = "max(timestamp)" if "timestamp" in columns else "NULL"
        inactive = "total(active = 0)" if "active" in columns else "0"
        sql = f"SELECT count(*), {newest}, {inactive} FROM messages WHERE session_id = ?"
        row = self._query(sql, (session_id,))
        return (row[0][0], row[0][1], int(row[0][2]))

    def model_usage_rows(self, session_id: str) -> list[Row]:
        """A session's rows of ``session_model_usage``, in table order."""
        return self.rows("SELECT * FROM session_model_usage WHERE session_id = ?", (session_id,))

    def max_message_id(self) -> int:
        """The newest ``messages.id``: ids only grow, so every row above a remembered one is new."""
        row = self._query("SELECT coalesce(max(id), 0) FROM messages")
        return int(row[0][0])

    def sessions_with_messages_after(self, message_id: int) -> set[Any]:
        """The sessions that have rows above ``message_id``, through the primary key (new rows only).

        ``NOT INDEXED``: asked for distinct sessions, SQLite's planner walks the whole ``session_id`` index
        (every row of the store, 46 ms at a million) rather than the few rows above the id."""
        sql = "SELECT DISTINCT session_id FROM messages NOT INDEXED WHERE id > ?"
        rows = self._query(sql, (message_id,))
        return {r[0] for r in rows}

    def message_stats(self) -> dict[Any, tuple[int, Any, int]]:
        """Per ``session_id`` in ``messages``: the row count, the newest timestamp, the inactive rows.

        One pass over Hermes' ``(session_id, active, timestamp)`` index; it also reveals rows whose session
        has no ``sessions`` row.
        """
        columns = self.columns("messages")
        newest = "max(timestamp)" if "timestamp" in columns else "NULL"
        inactive = "total(active = 0)" if "active" in columns else "0"
        sql = f"SELECT session_id, count(*), {newest}, {inactive} FROM messages GROUP BY session_id"
        return {r[0]: (r[1], r[2], int(r[3])) for r in self._query(sql)}

    def compacted_flags(self, session_id: str) -> list[int]:
        """A session's ``compacted`` flags of its inactive rows (empty without the column): whether it has
        archived rows, told without reading them."""
        if "compacted" not in self.columns("messages"):
            return []
        sql = "SELECT coalesce(compacted, 0) FROM messages WHERE session_id = ? AND active = 0 ORDER BY id"
        return [r[0] for r in self._query(sql, (session_id,))]

    def first_prompts(self, session_ids: list[str]) -> dict[str, Any]:
        if not session_ids:
            return {}
        columns = self.columns("messages")
        live = " AND active = 1" if "active" in columns else ""
        order = "timestamp, id" if "timestamp" in columns else "id"
        out: dict[str, Any] = {}
        for start in range(0, len(session_ids), 500):  # SQLite's bound parameters, in chunks
            chunk = session_ids[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            sql = (
                "SELECT session_id, (SELECT m.content FROM messages m WHERE m.session_id = s.session_id"
                f" AND m.role = 'user' AND m.content IS NOT NULL{live} ORDER BY {order} LIMIT 1)"
                f" FROM (SELECT DISTINCT session_id FROM messages WHERE session_id IN ({marks})) s"
            )
            out.update({r[0]: r[1] for r in self._query(sql, tuple(chunk)) if r[1] is not None})
        return out

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(sqlite3.Error):
                self._conn.close()
            self._conn = None
        if self._tmpdir is not None:
            shutil.rmtree(self._tmpdir, ignore_errors=True)
            self._tmpdir = None

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
