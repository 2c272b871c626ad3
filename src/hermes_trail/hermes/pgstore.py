"""Rows of a Hermes store kept in PostgreSQL (``sessiondb.provider: postgresql``), read-only, exactly as
:class:`~hermes_trail.hermes.store.SqliteStore` gives a ``state.db``'s.

The tables are Hermes' own (``sessions``, ``messages``, ``session_model_usage``, ``system_prompts``,
``state_meta``, ``schema_version``), found by name through the connection's ``search_path``, and their
columns are read from the catalog, so an older or a newer schema reads and unknown columns stay on the
row. Column *types* are whatever the provider chose (RFC #23717 sketches ``TIMESTAMPTZ`` times; a
straight port of the SQLite schema keeps ``DOUBLE PRECISION`` epochs and ``INTEGER`` flags), and each
value comes back as the storage class Hermes' SQLite schema gives it, so the decode layer reads both alike:

- ``timestamptz``/``timestamp``/``date``: epoch seconds (a ``REAL``); ``boolean``: ``0``/``1``;
  ``numeric``/``real``: a float; ``json``/``jsonb``: the JSON text; other types: their text;
- ``messages.content``: PostgreSQL text cannot hold the NUL of Hermes' ``\\x00json:`` marker for
  structured content, so a ``json``/``jsonb`` content column holds it as JSON (a JSON string is plain text,
  anything else is structured and gets the marker back) and a ``bytea`` one as Hermes' bytes (UTF-8).

Every read runs in a read-only transaction of its own (``SET TRANSACTION READ ONLY`` sent before the query
in one string, which the server runs as one transaction: one round trip, and a failed query leaves no
transaction open), never a characteristic of the server's session, which through a connection
pooler in transaction mode (Supabase's and Neon's pooled addresses, PgBouncer) stays with a server
connection the pooler then gives another client, Hermes' own writes among them. Table-wide reads go
through a server-side cursor, fetched :data:`FETCH_ROWS` at a time, so a large store
streams instead of landing in memory twice. A connection is never shared across ``fork``: a child process
leaves the parent's connections alone and opens its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import weakref
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from hermes_trail.errors import StoreUnreadable
from hermes_trail.hermes import dsn as dsns
from hermes_trail.hermes.store import InvalidText, Row

if TYPE_CHECKING:
    import psycopg

MessageStats = tuple[int, Any, int]

# How long opening a connection may take before the store is reported unreachable and skipped.
CONNECT_TIMEOUT_SECONDS = 5
# Rows per round trip of a server-side cursor.
FETCH_ROWS = 2000
TABLES = ("sessions", "messages", "session_model_usage", "system_prompts", "state_meta", "schema_version")
REQUIRED = ("sessions", "messages")
JSON_MARKER = "\x00json:"  # hermes_state.SessionDB._CONTENT_JSON_PREFIX

# Column types and the expression that gives the value as Hermes' SQLite store holds it ({} is the column,
# or an aggregate of it).
_EPOCH = "extract(epoch from {})::float8"
_CASTS = {
    **dict.fromkeys(("timestamptz", "timestamp", "date"), _EPOCH),
    "bool": "({})::int",
    **dict.fromkeys(("float4", "numeric"), "({})::float8"),
    **dict.fromkeys(("json", "jsonb"), "({})::text"),
}
_AS_IS = {"text", "varchar", "bpchar", "name", "int2", "int4", "int8", "float8", "bytea"}

# Queries and rows read by every PgStore of this process: what a test counts to prove a sync that found
# nothing new read next to nothing.
COUNTS = {"connections": 0, "queries": 0, "rows": 0}

_OPEN: weakref.WeakSet[PgStore] = weakref.WeakSet()
_INHERITED: list[Any] = []


def _forget_after_fork() -> None:
    """In a forked child: the parent's connections are the parent's. They are kept referenced (a collected
    one would send libpq's Terminate on the shared socket and end the parent's session) and never used."""
    for store in list(_OPEN):
        if store._conn is not None:
            _INHERITED.append(store._conn)
            store._conn = None


os.register_at_fork(after_in_child=_forget_after_fork)


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0].strip() if text else type(exc).__name__


class PgStore:
    """One Hermes PostgreSQL database opened read-only. Use as a context manager, or call :meth:`close`.

    :param dsn: a libpq connection string or ``postgresql://`` URI; only its shown form (password hidden)
        is ever printed or kept (``path``).
    :raises StoreUnreadable: when psycopg is missing, the server cannot be reached or refuses the login,
        ``sessions`` or ``messages`` is missing, or the role may not read them.
    """

    def __init__(self, dsn: str) -> None:
        self._dsn = dsn
        self.path = dsns.shown(dsn)
        self.how_opened = "postgresql (read-only transactions)"
        self._conn: psycopg.Connection[Any] | None = None
        self._types: dict[str, dict[str, str]] = {}
        self._readable: set[str] = set()
        self._kinds: dict[str, str] = {}
        try:
            import psycopg
        except ImportError as exc:
            why = "psycopg is not installed (pip install 'psycopg[binary]')"
            raise StoreUnreadable(self.path, why) from exc
        self._psycopg = psycopg
        self._connect()
        try:
            self._introspect()
        except StoreUnreadable:
            self.close()
            raise
        _OPEN.add(self)

    # -- opening -------------------------------------------------------------------------------------
    def _connect(self) -> None:
        psycopg = self._psycopg
        extra: dict[str, Any] = {}
        try:
            given = psycopg.conninfo.conninfo_to_dict(self._dsn)
        except psycopg.ProgrammingError as exc:
            raise StoreUnreadable(self.path, f"not a valid PostgreSQL DSN ({self._clean(exc)})") from exc
        if "connect_timeout" not in given:
            extra["connect_timeout"] = CONNECT_TIMEOUT_SECONDS
        if "application_name" not in given:
            extra["application_name"] = "hermes-trail"
        try:
            conn = psycopg.connect(self._dsn, autocommit=True, **extra)
        except psycopg.Error as exc:
            raise StoreUnreadable(self.path, f"cannot connect ({self._clean(exc)})") from exc
        COUNTS["connections"] += 1
        self._conn = conn
        # The transaction a table-wide read's cursor runs in begins READ ONLY (:meth:`_stream`); every
        # other read says so itself (:meth:`_fetch`).
        conn.read_only = True

    def _introspect(self) -> None:
        """Hermes' tables by name (as ``search_path`` resolves them), their columns in table order with
        their base types, and whether this role may read each."""
        sql = (
            "SELECT n.name, c.oid IS NOT NULL, coalesce(has_table_privilege(c.oid, 'SELECT'), false), "
            "a.attname, coalesce(bt.typname, t.typname), c.relkind "
            "FROM unnest(%s::text[]) WITH ORDINALITY AS n(name, ord) "
            "LEFT JOIN pg_class c ON c.oid = to_regclass(n.name) "
            "LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped "
            "LEFT JOIN pg_type t ON t.oid = a.atttypid "
            "LEFT JOIN pg_type bt ON bt.oid = t.typbasetype AND t.typtype = 'd' "
            "ORDER BY n.ord, a.attnum"
        )
        found: set[str] = set()
        denied: list[str] = []
        for name, exists, readable, column, type_name, kind in self._fetch(sql, (list(TABLES),)):
            if not exists:
                continue
            found.add(name)
            self._kinds[name] = str(kind)
            if not readable:
                if name not in denied:
                    denied.append(name)
                continue
            self._readable.add(name)
            if column is not None:
                self._types.setdefault(name, {})[column] = type_name
        missing = [t for t in REQUIRED if t not in found]
        if missing:
            raise StoreUnreadable(
                self.path,
                "not a Hermes store: no " + " or ".join(missing) + " table "
                f"(search_path: {self._search_path()})",
            )
        blocked = [t for t in REQUIRED if t in denied]
        if blocked:
            role = self._scalar("SELECT current_user")
            raise StoreUnreadable(
                self.path, f"permission denied: role {role!r} may not read table " + " or ".join(blocked)
            )

    def _search_path(self) -> str:
        try:
            return str(self._scalar("SELECT current_setting('search_path')"))
        except StoreUnreadable:
            return "?"

    def _clean(self, exc: BaseException) -> str:
        return dsns.scrub(_first_line(exc), self._dsn)

    # -- querying ------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _guard(self) -> Iterator[psycopg.Connection[Any]]:
        """The open connection; a driver error becomes :class:`StoreUnreadable` with a one-line reason."""
        if self._conn is None:
            raise StoreUnreadable(self.path, "store is closed")
        psycopg = self._psycopg
        try:
            yield self._conn
        except psycopg.errors.InsufficientPrivilege as exc:
            raise StoreUnreadable(self.path, f"permission denied ({self._clean(exc)})") from exc
        except psycopg.OperationalError as exc:
            raise StoreUnreadable(self.path, f"connection lost ({self._clean(exc)})") from exc
        except psycopg.Error as exc:
            raise StoreUnreadable(self.path, self._clean(exc)) from exc

    def _fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """All rows of a query as tuples, in a read-only transaction of its own, in one round trip: the
        query after ``SET TRANSACTION READ ONLY`` in one string, the parameters bound here (a string of
        several statements takes none from the server). A transaction psycopg begins would take two round
        trips more, or a pipeline of them twice the time of the query on a local server."""
        with self._guard() as conn, self._psycopg.ClientCursor(conn) as cursor:
            cursor.execute(f"SET TRANSACTION READ ONLY; {sql}", params)
            cursor.nextset()
            rows = cursor.fetchall()
        COUNTS["queries"] += 1
        COUNTS["rows"] += len(rows)
        return rows

    def _scalar(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        rows = self._fetch(sql, params)
        return rows[0][0] if rows else None

    def _stream(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """All rows of a table-wide query, through a server-side cursor :data:`FETCH_ROWS` at a time."""
        out: list[tuple[Any, ...]] = []
        with self._guard() as conn, conn.transaction(), conn.cursor(name="trail_read") as cursor:
            cursor.itersize = FETCH_ROWS
            cursor.execute(sql, params)
            out.extend(cursor)
        COUNTS["queries"] += 1
        COUNTS["rows"] += len(out)
        return out

    def _dicts(self, table: str, names: list[str], rows: list[tuple[Any, ...]]) -> list[Row]:
        fix = self._content_fix(table)
        out = [dict(zip(names, row, strict=True)) for row in rows]
        if fix is not None:
            for row in out:
                row["content"] = fix(row.get("content"))
        return out

    def _content_fix(self, table: str) -> Any:
        """How a ``messages.content`` value of a JSON or binary column becomes Hermes' text, if it must."""
        kind = self._types.get(table, {}).get("content") if table == "messages" else None
        if kind in ("json", "jsonb"):
            return _content_from_json
        if kind == "bytea":
            return _content_from_bytes
        return None

    def _select(self, table: str, light: bool = False) -> tuple[str, list[str]]:
        """The select list that gives every column of ``table`` as SQLite would hold it, and the names."""
        names = [c for c in self._types.get(table, {}) if not (light and c == "system_prompt")]
        return ", ".join(self._expr(table, c) + " AS " + _quote(c) for c in names), names

    def _expr(self, table: str, column: str, inner: str | None = None) -> str:
        """``column`` (or an aggregate of it) as a value of the storage class SQLite gives it."""
        kind = self._types.get(table, {}).get(column, "text")
        body = inner or _quote(column)
        if kind in _CASTS:
            return _CASTS[kind].format(body)
        return body if kind in _AS_IS else f"({body})::text"

    def _table_rows(
        self,
        table: str,
        where: str = "",
        params: tuple[Any, ...] = (),
        *,
        order: str = "",
        light: bool = False,
        stream: bool = False,
    ) -> list[Row]:
        select, names = self._select(table, light)
        if not names:
            return []
        sql = f"SELECT {select} FROM {_quote(table)}" + (f" WHERE {where}" if where else "")
        sql += f" ORDER BY {order}" if order else ""
        rows = self._stream(sql, params) if stream else self._fetch(sql, params)
        return self._dicts(table, names, rows)

    # -- what Hermes stores --------------------------------------------------------------------------
    def has_table(self, name: str) -> bool:
        """Whether the table exists and this role may read it (an optional one it may not read is absent)."""
        return name in self._readable

    def columns(self, table: str) -> list[str]:
        return list(self._types.get(table, {}))

    @property
    def schema_version(self) -> int | None:
        if not self.has_table("schema_version") or "version" not in self.columns("schema_version"):
            return None
        try:
            value = self._scalar('SELECT max("version") FROM "schema_version"')
        except StoreUnreadable:
            return None
        return value if isinstance(value, int) else None

    def _session_order(self) -> str:
        """Insertion order as near as PostgreSQL keeps it: by start, then id (bytewise, as SQLite sorts)."""
        start = '"started_at", ' if "started_at" in self.columns("sessions") else ""
        return start + '"id" COLLATE "C"'

    def session_rows(self, light: bool = False) -> list[Row]:
        return self._table_rows("sessions", order=self._session_order(), light=light, stream=True)

    def session_marks(self) -> list[tuple[Any, bytes]]:
        """Each row's values as PostgreSQL writes a row (``ROW(...)::text``), digested by the server: the
        rows' values never cross the connection."""
        light = sorted(c for c in self.columns("sessions") if c != "system_prompt")
        if "id" not in light:
            return []
        row = "ROW(" + ", ".join(_quote(c) for c in light) + ")::text"
        sql = f'SELECT "id", md5({row}) FROM "sessions" ORDER BY {self._session_order()}'
        return [(sid, mark.encode()) for sid, mark in self._stream(sql, ())]

    def session_rows_by(self, column: str, values: list[Any], light: bool = True) -> list[Row]:
        assert column in ("id", "parent_session_id"), column
        if column not in self.columns("sessions") or not values:
            return []
        return self._table_rows("sessions", f"{_quote(column)} = ANY(%s)", (list(values),), light=light)

    def session_row(self, session_id: str) -> Row | None:
        found = self._table_rows("sessions", '"id" = %s', (session_id,))
        return found[0] if found else None

    def sessions_by_prefix(self, prefix: str) -> list[Row]:
        return self._table_rows("sessions", 'starts_with("id", %s)', (prefix,), order='"id" COLLATE "C"')

    def message_rows(self, session_id: str) -> list[Row]:
        return self._table_rows("messages", '"session_id" = %s', (session_id,), order='"id"')

    def message_ids_of(self, session_id: Any) -> list[int]:
        sql = 'SELECT "id" FROM "messages" WHERE "session_id" IS NOT DISTINCT FROM %s ORDER BY "id"'
        return [int(r[0]) for r in self._fetch(sql, (session_id,))]

    def _stats_columns(self) -> str:
        columns = self.columns("messages")
        newest = self._expr("messages", "timestamp", 'max("timestamp")') if "timestamp" in columns else "NULL"
        active = self._expr("messages", "active")
        inactive = f"count(*) FILTER (WHERE {active} = 0)" if "active" in columns else "0"
        return f"count(*), {newest}, {inactive}"

    def message_stats_of(self, session_id: Any) -> MessageStats:
        sql = f'SELECT {self._stats_columns()} FROM "messages" WHERE "session_id" = %s'
        row = self._fetch(sql, (session_id,))[0]
        return (int(row[0]), row[1], int(row[2]))

    def message_stats(self) -> dict[Any, MessageStats]:
        sql = f'SELECT "session_id", {self._stats_columns()} FROM "messages" GROUP BY "session_id"'
        return {r[0]: (int(r[1]), r[2], int(r[3])) for r in self._stream(sql)}

    def model_usage_rows(self, session_id: str) -> list[Row]:
        if not self.has_table("session_model_usage"):
            return []
        return self._table_rows("session_model_usage", '"session_id" = %s', (session_id,))

    def meta_rows(self, prefix: str) -> list[Row]:
        """``state_meta`` rows whose key starts with ``prefix`` (none when the store has no such table)."""
        if not self.has_table("state_meta") or "key" not in self.columns("state_meta"):
            return []
        return self._table_rows(
            "state_meta", '"key" >= %s AND "key" < %s', (prefix, prefix + "\U0010ffff"), order='"key"'
        )

    def first_prompts(self, session_ids: list[str]) -> dict[str, Any]:
        if not session_ids:
            return {}
        columns = self.columns("messages")
        live = ' AND "active" = 1' if "active" in columns else ""
        order = '"timestamp", "id"' if "timestamp" in columns else '"id"'
        sql = (
            'SELECT DISTINCT ON ("session_id") "session_id", "content" FROM "messages"'
            f' WHERE "session_id" = ANY(%s) AND "role" = \'user\' AND "content" IS NOT NULL{live}'
            f' ORDER BY "session_id", {order}'
        )
        return {r[0]: r[1] for r in self._fetch(sql, (list(session_ids),))}

    def max_message_id(self) -> int:
        return int(self._scalar('SELECT coalesce(max("id"), 0) FROM "messages"'))

    def sessions_with_messages_after(self, message_id: int) -> set[Any]:
        sql = 'SELECT DISTINCT "session_id" FROM "messages" WHERE "id" > %s'
        return {r[0] for r in self._fetch(sql, (message_id,))}

    def compacted_flags(self, session_id: str) -> list[int]:
        columns = self.columns("messages")
        if "compacted" not in columns or "active" not in columns:
            return []
        compacted, active = self._expr("messages", "compacted"), self._expr("messages", "active")
        sql = (
            f'SELECT coalesce({compacted}, 0) FROM "messages" WHERE "session_id" = %s AND {active} = 0 '
            'ORDER BY "id"'
        )
        return [int(r[0]) for r in self._fetch(sql, (session_id,))]

    def change_marker(self) -> str:
        """What tells in one query that the store changed since a sync: the newest ``messages.id`` (new
        rows) and a digest of the ``sessions`` rows (Hermes updates a session's row whenever it changes
        old rows: counts, rewinds, titles, ends). Reads no message row.

        The digest is of each row's ``xmin``, the transaction that last wrote it: every insert or update
        gives a row a new one, whatever column changed, and reading it costs no column. A ``sessions``
        that is a view has none, so its rows (without the system prompt) are digested instead."""
        if self._kinds.get("sessions") in ("r", "p"):
            digest = "xmin::text"
        else:
            light = [c for c in self.columns("sessions") if c != "system_prompt"]
            digest = "md5(ROW(" + (", ".join(_quote(c) for c in light) or "NULL") + ")::text)"
        sql = (
            'SELECT (SELECT coalesce(max("id"), 0) FROM "messages"), count(*), '
            f"coalesce(md5(string_agg({digest}, ',' ORDER BY \"id\")), '') FROM \"sessions\""
        )
        top, count, digest_value = self._fetch(sql)[0]
        return f"pg:{top}:{count}:{digest_value}"

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None
        _OPEN.discard(self)

    def __enter__(self) -> PgStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _content_from_json(value: Any) -> Any:
    """A ``json``/``jsonb`` content cell as Hermes' text: a JSON string is the text, anything else is
    structured content and gets Hermes' marker back."""
    if not isinstance(value, str):
        return value
    stripped = value.lstrip()
    if stripped.startswith('"'):
        try:
            text = json.loads(stripped)
        except ValueError:
            return value
        return text if isinstance(text, str) else value
    if stripped == "null":
        return None
    return JSON_MARKER + value


def _content_from_bytes(value: Any) -> Any:
    """A ``bytea`` content cell as Hermes' text (marked :class:`InvalidText` when it is not UTF-8)."""
    if isinstance(value, memoryview):
        value = value.tobytes()
    if not isinstance(value, bytes):
        return value
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return InvalidText(value.decode("utf-8", errors="replace"))
