"""Pushing this machine's index into the shared one: only the sessions that changed, whole sessions at a
time, so a push cut short and run again ends with the same rows.

The local index is read, never written: opened read-only, in one read transaction (a sync in another
process meanwhile does not tear what is pushed). What it holds is already redacted (docs/secrets.md), so
nothing a local search would not show leaves the machine.

What changed is told by the fingerprints the local sync keeps per session (with the index's format, so an
upgrade of trail that changes what a doc holds pushes everything again): a session whose fingerprint the
shared index already has for this host is not sent; a new or changed one replaces its old rows; one gone
from the local index (deleted, pruned in Hermes) is deleted there. Passage vectors are made after the
words (``trail index``), so a session whose vectors came later is sent its passages alone.

Each transaction holds whole sessions (delete the old rows, insert the new, up to :data:`BATCH_DOCS` docs):
a push killed at any point leaves every session either as it was or as it is now, and the next push
compares fingerprints again and sends what is left. Several hosts push at once without waiting on each
other (each writes only its own rows); two pushes of one host take turns on an advisory lock, and the
second finds nothing left to send.

Nothing is kept in a server session between transactions (a pooler in transaction mode gives each to
whichever server connection is free: ``connection.py``): the lock is a transaction's, held open on a
connection of its own for the whole push, and the tables a batch is copied into are made in its
transaction and dropped at its end.
"""

from __future__ import annotations

import contextlib
import re
import shlex
import socket
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_trail import readonly
from hermes_trail.fleet import folding, growth, keys, schema
from hermes_trail.fleet.connection import (
    FleetError,
    Statement,
    clean,
    connect,
    pipelined,
    rolled_back_on_failure,
    unbounded,
)
from hermes_trail.hermes import dsn as dsns
from hermes_trail.index import cjk

if TYPE_CHECKING:
    import psycopg

# Docs and sessions per transaction: big enough that a commit's round trips do not dominate, small enough
# that a push cut short loses little, a transaction's locks are short, and a push of a few thousand docs
# gives both writers (:data:`WRITERS`) batches (5,000 pushed 1,900 docs/s, 1,000 3,500 on two cores).
BATCH_DOCS = 1_000
BATCH_SESSIONS = 500
# A word as the local word index (unicode61) counts one: a run of letters and digits. What a search's
# BM25 measures a doc's length in (each session's count, and each host's, are kept).
TOKEN = re.compile(r"[^\W_]+")
# An ASCII text's letters and digits as they are, every other byte a space: its words are then what
# ``split()`` gives (:func:`word_count`).
_ASCII_WORDS = bytes(c if chr(c).isascii() and chr(c).isalnum() else 32 for c in range(256))


def word_count(text: str) -> int:
    """How many words (:data:`TOKEN`) a doc's text has. An ASCII text, most docs, is counted by
    ``bytes.translate`` and ``split()``: 6 µs a doc of 800 characters where the regular expression's matches
    took 19-25, half of what a push's own process spent on a doc."""
    if text.isascii():
        return len(text.encode("ascii").translate(_ASCII_WORDS).split())
    return len(TOKEN.findall(text))


# Sessions deleted per statement.
DELETE_CHUNK = 1_000
# Connections writing batches at once that a push starts on, unless given a number (``trail share
# --writers``); it adds more while they make it faster (:mod:`growth`). A push's time is the server's (each
# doc's text made a tsvector in two configurations, its GIN entries), one core a connection: a second
# connection puts a two-core server's second core to work while this process reads the next batch; a
# server with more cores to spare takes more. Doc and session ids are reserved in the local order before a
# batch is written, so they follow the local ids whichever connection commits first.
WRITERS = growth.START
# At most this many (each one a connection of the server's, and a thread of this process).
MOST_WRITERS = 32

# (sessions sent so far, sessions to send, docs written so far)
Progress = Callable[[int, int, int], None]

_SESSION_COLUMNS = (
    "id, store, session_id, ref, profile, project, source, kind, relation, root, title, model, started, "
    "last_activity, fingerprint"
)
_DOC_COLUMNS = (
    "row, part, role, kind, tool, time, exit_code, path, moved_to, action, added, removed, applied, "
    "command, rewound, archived, chars, text, key"
)


@dataclass(slots=True)
class PushReport:
    """What a push did. ``dsn`` is the shown form (password as ``***``)."""

    dsn: str
    host: str
    sessions: int = 0  # sessions the local index holds
    pushed: int = 0  # sessions written (new or changed)
    vectors_only: int = 0  # sessions unchanged but for passages made since
    removed: int = 0  # sessions deleted there (gone from the local index)
    unchanged: int = 0
    docs: int = 0  # docs written
    passages: int = 0  # passages written
    vector: bool = False  # whether the shared index holds passages (pgvector)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)
    writers: int = WRITERS  # connections that wrote at once (at the end, when found by measuring)
    writers_found: bool = False  # whether that count was found by measuring (none given)


@dataclass(slots=True)
class _Local:
    """One local session to send: its row and how many docs and passages it has."""

    row: tuple[Any, ...]
    docs: int
    chars: int
    passages: int
    made: int  # how its passages were made: the local index's passages format, 0 when earlier or none
    was: str | None = None  # the fingerprint it had before the local index's took another form, if unchanged

    @property
    def key(self) -> tuple[str, str]:
        return (self.row[1], self.row[2])


def _text(value: Any) -> Any:
    """PostgreSQL text cannot hold NUL: a NUL a tool's output carried is shown as U+FFFD."""
    return value.replace("\x00", "\ufffd") if isinstance(value, str) and "\x00" in value else value


def open_local(index: Path) -> sqlite3.Connection:
    """The local index, read-only (a push never writes it).

    :raises FleetError: there is no index there, or the file is no hermes-trail index.
    """
    from hermes_trail.index import schema as local_schema

    found = local_schema.inspect(index)
    if found is None:
        raise FleetError(f"{index}: no index yet (`trail index` builds it)")
    if not found.startswith("trail-index"):
        raise FleetError(f"{index}: not a hermes-trail index ({found})")
    conn = readonly.connect(index, isolation_level=None)
    conn.execute("PRAGMA query_only = 1")
    return conn


def resolve_host(conn: psycopg.Connection[Any], wanted: str | None) -> str:
    """The host this push writes as: the one registered for the login role (it may push no other), else
    ``wanted``, else this machine's name (an administrator's login pushing for a host it names)."""
    row = conn.execute(f"SELECT {schema.SCHEMA}.my_host(), current_user").fetchone()
    mine, role = (row[0], row[1]) if row else (None, "?")
    if mine is not None:
        if wanted and wanted != mine:
            raise FleetError(f"role {role!r} pushes for host {mine!r} only, not {wanted!r}")
        return str(mine)
    return wanted or socket.gethostname()


class _Resumes:
    """The command that reopens each session on its own machine, made here (where Hermes' homes are)
    and shipped with it: a fleet hit of another host cannot work it out there. Made once per store,
    profile and origin (a session, or a memory file or skill, which has none): only the session id
    differs between a store's sessions, whatever their kind or source (finding the way into a store reads
    Hermes' profile settings and resolves its homes: 15 ms each)."""

    _PLACEHOLDER = "TRAILFLEETSESSION"

    def __init__(self) -> None:
        self.templates: dict[tuple[str, str, str], str] = {}

    def __call__(self, row: tuple[Any, ...]) -> str:
        from hermes_trail.index.knowledge import origin_of
        from hermes_trail.index.recovered import is_recovered
        from hermes_trail.index.results import Hit

        _, store, session_id, ref, profile, project, source, kind, _rel, root = row[:10]
        if is_recovered(store):
            return f"trail show {ref}"
        key = (store, profile, origin_of(store, kind))
        if key not in self.templates:
            probe = Hit(
                doc=0,
                store=store,
                session_id=self._PLACEHOLDER,
                ref=ref,
                profile=profile,
                project=project,
                source=source,
                session_kind=kind,
                root=root,
                title=None,
                row=0,
                part=0,
                role="user",
                kind="prompt",
                tool=None,
                time=None,
                exit_code=None,
                path=None,
                rewound=False,
                score=0.0,
            )
            try:
                self.templates[key] = probe.resume
            except Exception:  # a home that is gone, a profile refused: no command, as a local hit says
                self.templates[key] = ""
        return self.templates[key].replace(self._PLACEHOLDER, shlex.quote(session_id))


def push(
    index: Path,
    dsn: str,
    host: str | None = None,
    progress: Progress | None = None,
    batch_docs: int = BATCH_DOCS,
    writers: int | None = None,
) -> PushReport:
    """Send what changed in the local ``index`` to the shared index at ``dsn``, as ``host``, on ``writers``
    connections at once; when not given, on as many as make it faster, found by measuring from
    :data:`WRITERS` (:mod:`~hermes_trail.fleet.growth`).

    :raises FleetError: the index or the database cannot be read, the shared index is not migrated, or
        the login may not push for ``host`` (every message with the DSN's password hidden).
    """
    import psycopg

    if writers is not None and not 1 <= writers <= MOST_WRITERS:
        raise FleetError(f"writers must be 1 to {MOST_WRITERS}, not {writers}")
    started = time.perf_counter()
    local = open_local(index)
    conn = connect(dsn)
    try:
        info = schema.require(conn, dsn)
        name = resolve_host(conn, host)
        report = PushReport(dsns.shown(dsn), name, vector=info.vector, writers=writers or WRITERS)
        report.writers_found = writers is None
        if not info.vector:
            report.notes.append("the shared index has no pgvector: passages are not sent (words only)")
        if info.tsv_form < schema.TSV_FORM:
            report.notes.append(f"the shared index: {schema.OLDER_FORM}; {schema.REMAKE}")
        if keys.by_row(conn, schema.SCHEMA):
            report.notes.append(f"the shared index: {keys.BY_ROW}; {keys.BY_STATEMENT}")
        with _host_lock(dsn, name):
            _register(conn, name)
            _push(local, conn, dsn, name, info, report, progress, batch_docs, writers)
            _record(conn, name)
            if (report.docs or report.removed) and not settle(conn):
                report.notes.append(UNSETTLED)
    except psycopg.errors.InsufficientPrivilege as exc:
        raise FleetError(
            f"{dsns.shown(dsn)}: permission denied ({clean(exc, dsn)}): this login may push only for the "
            "host registered for it (trail_fleet.add_host), a reader login for none"
        ) from exc
    except psycopg.Error as exc:
        raise FleetError(f"{dsns.shown(dsn)}: push stopped ({clean(exc, dsn)})") from exc
    finally:
        local.close()
        conn.close()
    report.seconds = time.perf_counter() - started
    return report


@contextlib.contextmanager
def _host_lock(dsn: str, host: str) -> Iterator[None]:
    """The host's push lock, so that two pushes of one host take turns: an advisory lock of a transaction
    held open on a connection of its own for as long as the ``with``. A lock of the session would stay with
    whichever server connection a pooler in transaction mode gave the statement (another client's next),
    held until the pooler closed it; a transaction keeps its server connection to its end, and a client
    gone mid-transaction has it rolled back, the lock with it. The transaction is exempt from the server's
    ``idle_in_transaction_session_timeout`` (it is idle while the writers work) and its lock and statement
    limits (waiting for another push of the host is waiting one's turn)."""
    conn = connect(dsn)
    try:
        conn.execute("BEGIN")
        unbounded(conn, idle=True)
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (schema.HOST_LOCK + host,))
        yield
    finally:
        with contextlib.suppress(Exception):  # a connection the server ended has no transaction to end
            conn.execute("ROLLBACK")
        conn.close()


# What a push copies first: PostgreSQL refuses COPY into a table under row-level security, so the rows
# are copied into a temporary table (as fast) and inserted from there in one statement, which the policies
# check. The table is made in the batch's transaction and dropped at its end (:func:`_staged`), so it is
# never left on a server connection a pooler gives another client. Each doc's id is reserved in the local
# order before it is written (:func:`_reserve`), not taken in the order a scan of that table gives them
# (which depends on how their rows fit its pages) nor in the order concurrent writers commit: the shared
# index's doc ids follow activity as the local ones do, and a search's window of the newest matches is
# the local one. (Earlier trails kept tables named ``trail_docs_in`` and ``trail_passages_in`` for the
# session; these names are other.)
_DOCS_IN = "pg_temp.trail_docs_staged"
_PASSAGES_IN = "pg_temp.trail_passages_staged"
_STAGED_COLUMNS = {
    _DOCS_IN: (
        "id bigint, sess bigint, host text, profile text, store text, fingerprint text, seq integer, "
        "row bigint, part integer, role text, kind text, tool text, time double precision, "
        "exit_code integer, path text, moved_to text, action text, added integer, removed integer, "
        "applied boolean, command text, rewound boolean, archived boolean, chars integer, text text, "
        "key text, folded text"
    ),
    _PASSAGES_IN: "sess bigint, host text, seq integer, vec text",
}


def _staged(conn: psycopg.Connection[Any], table: str) -> None:
    """Make ``table`` (:data:`_DOCS_IN` or :data:`_PASSAGES_IN`) for the transaction ``conn`` is in."""
    name = table.split(".")[1]
    conn.execute(f"CREATE TEMPORARY TABLE {name} ({_STAGED_COLUMNS[table]}) ON COMMIT DROP")


def _register(conn: psycopg.Connection[Any], host: str) -> None:
    """The ``hosts`` row, made by an administrator's push for a host not registered (a registered host's
    role has its row already and may not insert one)."""
    found = conn.execute(f"SELECT 1 FROM {schema.SCHEMA}.hosts WHERE host = %s", (host,)).fetchone()
    if found is None:
        conn.execute(
            f"INSERT INTO {schema.SCHEMA}.hosts (host) VALUES (%s) ON CONFLICT (host) DO NOTHING", (host,)
        )


# What a push to a database without ``trail_fleet.settle()`` says.
UNSETTLED = f"the shared index was {schema.UNSETTLED}; to merge them at each push: {schema.SETTLE}"


def settle(conn: psycopg.Connection[Any]) -> bool:
    """Move what the push's inserts left in the GIN indexes' pending lists into the indexes
    (``trail_fleet.settle()``, made by ``--migrate``), so that a search right after the push reads no
    pending list; whether it was there to ask (a database migrated by an earlier trail has none, and
    settles when autovacuum runs)."""
    if not schema.settles(conn):
        return False
    with conn.transaction():
        unbounded(conn)
        conn.execute(f"SELECT {schema.SCHEMA}.settle()")
    return True


def _record(conn: psycopg.Connection[Any], host: str) -> None:
    from hermes_trail import __version__

    s = schema.SCHEMA
    conn.execute(
        f"UPDATE {s}.hosts h SET pushed_at = now(), trail_version = %s, sessions = t.sessions, "
        "docs = t.docs, chars = t.chars, tokens = t.tokens, passages = t.passages, cjk_docs = t.cjk_docs, "
        "bigrams = t.bigrams FROM (SELECT "
        "count(*) AS sessions, coalesce(sum(docs), 0) AS docs, coalesce(sum(chars), 0) AS chars, "
        "coalesce(sum(tokens), 0) AS tokens, coalesce(sum(cjk_docs), 0) AS cjk_docs, "
        "coalesce(sum(bigrams), 0) AS bigrams, "
        "coalesce(sum(passages), 0) AS passages "
        f"FROM {s}.sessions WHERE host = %s) t WHERE h.host = %s",
        (__version__, host, host),
    )


def _local_sessions(local: sqlite3.Connection, vector: bool) -> list[_Local]:
    from hermes_trail.index import schema as local_schema
    from hermes_trail.index.writer import WAS

    format_ = local_schema.format_of(local) or "?"
    docs = {
        sess: (int(n), int(chars or 0))
        for sess, n, chars in local.execute("SELECT sess, count(*), sum(chars) FROM docs GROUP BY sess")
    }
    passages = (
        dict(local.execute("SELECT sess, count(*) FROM passages GROUP BY sess").fetchall()) if vector else {}
    )
    made = _passages_made(local) if vector else {}
    out = []
    for row in local.execute(f"SELECT {_SESSION_COLUMNS} FROM sessions ORDER BY id"):
        # The format with the fingerprint: a trail whose docs hold something else sends every session again.
        # A session unchanged since its fingerprint took another form is still the one pushed with the
        # earlier (which the shared index holds): it is not sent again for that.
        now, _, was = row[14].partition(WAS)
        shared = (*row[:14], f"{format_}:{now}")
        n, chars = docs.get(row[0], (0, 0))
        count = passages.get(row[0], 0)
        earlier = f"{format_}:{was}" if was else None
        out.append(_Local(shared, n, chars, count, made.get(row[0], 0) if count else 0, earlier))
    return out


def _passages_made(local: sqlite3.Connection) -> dict[int, int]:
    """The sessions whose passages the local index's current passages format made, with that format
    (one made by an earlier format and waiting to be made again is left out: its passages are sent again
    once it is; an index from before formats were recorded has none)."""
    from hermes_trail.index import schema as local_schema

    made = local_schema.passages_format_of(local)
    if made is None:
        return {}
    return {int(sess): made for (sess,) in local.execute("SELECT sess FROM encoded WHERE passages >= 0")}


def _push(
    local: sqlite3.Connection,
    conn: psycopg.Connection[Any],
    dsn: str,
    host: str,
    info: schema.Info,
    report: PushReport,
    progress: Progress | None,
    batch_docs: int,
    writers: int | None,
) -> None:
    s = schema.SCHEMA
    local.execute("BEGIN")  # one snapshot of the local index for the whole push
    try:
        mine = _local_sessions(local, info.vector)
        remote = {
            (store, sid): (fingerprint, passages, sess, made)
            for store, sid, fingerprint, passages, sess, made in conn.execute(
                f"SELECT store, session_id, fingerprint, passages, id, passages_made FROM {s}.sessions "
                "WHERE host = %s",
                (host,),
            )
        }
        report.sessions = len(mine)
        changed, vectors_only = [], []
        for item in mine:
            there = remote.get(item.key)
            if there is None or there[0] not in (item.row[14], item.was):
                changed.append(item)
            elif info.vector and (there[1] != item.passages or (item.made and there[3] != item.made)):
                # Passages made since, or made again another way (a newer trail's passages format).
                vectors_only.append((item, int(there[2])))
            else:
                report.unchanged += 1
        gone = sorted(set(remote) - {item.key for item in mine})
        for start in range(0, len(gone), DELETE_CHUNK):
            chunk = gone[start : start + DELETE_CHUNK]
            with conn.transaction():
                unbounded(conn)
                _delete(conn, host, chunk)
            report.removed += len(chunk)
        total = len(changed) + len(vectors_only)
        resumes = _Resumes()
        grows = growth.Growth(time.perf_counter()) if writers is None else None
        with _Writers(dsn, host, info, writers or WRITERS) as writing:

            def written(done: list[tuple[int, int, int, float]], more: bool = True) -> None:
                """Count what the writers wrote; while ``more`` is to come, grow or retire one as
                measuring says when the count is not given."""
                for docs, passages, sessions, at in done:
                    report.docs += docs
                    report.passages += passages
                    report.pushed += sessions
                    if progress is not None:
                        progress(report.pushed, total, report.docs)
                    if grows is None or not more:
                        continue
                    step = grows.written(docs, at)
                    if step > 0 and not writing.grow():
                        grows.refused()
                        report.notes.append(
                            f"the server took no more connections: the push wrote on {writing.live} at once"
                        )
                    elif step:
                        if step < 0:
                            writing.retire()
                        grows.began(time.perf_counter())

            for batch in _batches(changed, batch_docs):
                written(writing.submit(_read_batch(local, conn, batch, info.vector, resumes)))
            written(writing.finish(), more=False)
        if grows is not None:
            report.writers = grows.writers
        for start in range(0, len(vectors_only), BATCH_SESSIONS):
            pairs = vectors_only[start : start + BATCH_SESSIONS]
            read = _read_passages(local, [i for i, _ in pairs])
            with conn.transaction():
                unbounded(conn)
                sess = [remote_id for _, remote_id in pairs]
                conn.execute(f"DELETE FROM {s}.passages WHERE sess = ANY(%s)", (sess,))
                remote_ids = {i.row[0]: r for i, r in pairs}
                report.passages += _write_passages(conn, host, info, read, remote_ids)
                conn.execute(
                    f"UPDATE {s}.sessions s SET passages_made = m.made "
                    "FROM unnest(%s::bigint[], %s::int[]) AS m(id, made) WHERE s.id = m.id",
                    (sess, [i.made for i, _ in pairs]),
                )
            report.vectors_only += len(pairs)
            if progress is not None:
                progress(report.pushed + report.vectors_only, total, report.docs)
    finally:
        local.execute("ROLLBACK")


def _batches(items: list[_Local], batch_docs: int) -> Iterator[list[_Local]]:
    """Whole sessions, up to ``batch_docs`` docs (a longer session alone) or :data:`BATCH_SESSIONS`."""
    batch: list[_Local] = []
    docs = 0
    for item in items:
        if batch and (docs + item.docs > batch_docs or len(batch) >= BATCH_SESSIONS):
            yield batch
            batch, docs = [], 0
        batch.append(item)
        docs += item.docs
    if batch:
        yield batch


def _delete(conn: psycopg.Connection[Any], host: str, keys: list[tuple[str, str]]) -> None:
    """Delete these sessions of ``host`` (their docs and passages go with them)."""
    conn.execute(
        f"DELETE FROM {schema.SCHEMA}.sessions s USING unnest(%s::text[], %s::text[]) AS k(store, sid) "
        "WHERE s.host = %s AND s.store = k.store AND s.session_id = k.sid",
        ([k[0] for k in keys], [k[1] for k in keys], host),
    )


def _insert_sessions(conn: psycopg.Connection[Any], host: str, job: _Job) -> dict[tuple[str, str], int]:
    """Insert the batch's session rows with their reserved ids; each one's id, by (store, session_id)."""
    batch = job.batch
    columns = list(zip(*(item.row[1:] for item in batch), strict=True))
    docs = [item.docs for item in batch]
    chars = [item.chars for item in batch]
    passages = [item.passages for item in batch]
    made = [item.made for item in batch]
    text = "::text[], ".join(["%s"] * 11) + "::text[]"
    names = ", ".join(f"k.c{i}" for i in range(19))
    sql = (
        f"INSERT INTO {schema.SCHEMA}.sessions (id, host, store, session_id, ref, profile, project, source, "
        "kind, relation, root, title, model, started, last_activity, fingerprint, resume, docs, chars, "
        f"passages, passages_made) OVERRIDING SYSTEM VALUE SELECT n.id, %s, {names} FROM unnest({text}, "
        "%s::float8[], %s::float8[], %s::text[], %s::text[], %s::int[], %s::bigint[], %s::int[], %s::int[]) "
        f"WITH ORDINALITY AS k({', '.join(f'c{i}' for i in range(19))}, i) "
        "JOIN unnest(%s::bigint[]) WITH ORDINALITY AS n(id, i) ON n.i = k.i"
    )
    params: list[Any] = [host, *[[_text(v) for v in col] for col in columns[:11]]]
    params += [list(columns[11]), list(columns[12]), list(columns[13]), job.resume, docs, chars, passages]
    params.append(made)
    params.append(job.session_ids)
    conn.execute(sql, params)
    return {item.key: sess for item, sess in zip(batch, job.session_ids, strict=True)}


@dataclass(slots=True)
class _Job:
    """One batch as read from the local index (in the push's one snapshot), with the ids it takes there."""

    batch: list[_Local]
    resume: list[str]
    session_ids: list[int]
    docs: list[tuple[Any, ...]]  # (local sess, *_DOC_COLUMNS), in local order
    doc_ids: list[int]
    passages: list[tuple[int, int, bytes]] | None  # (local sess, seq, vector), with pgvector


def _reserve(conn: psycopg.Connection[Any], sessions: int, docs: int) -> tuple[list[int], list[int]]:
    """``sessions`` ids of the sessions' identity and ``docs`` of the docs', each ascending (other hosts'
    pushes may take some in between), in one round trip."""
    taken = (
        "(SELECT array_agg(n ORDER BY n) FROM (SELECT nextval(pg_get_serial_sequence(%s, 'id')) AS n "
        "FROM generate_series(1, %s)) r)"
    )
    row = conn.execute(
        f"SELECT {taken}, {taken}",
        (f"{schema.SCHEMA}.sessions", sessions, f"{schema.SCHEMA}.docs", docs),
    ).fetchone()
    return ([int(n) for n in row[0] or ()], [int(n) for n in row[1] or ()]) if row else ([], [])


def _read_batch(
    local: sqlite3.Connection,
    conn: psycopg.Connection[Any],
    batch: list[_Local],
    vector: bool,
    resumes: _Resumes,
) -> _Job:
    """The batch's docs (and passages) read from the local index, and ids reserved for them."""
    by_local = {item.row[0]: item for item in batch}
    marks = ", ".join("?" for _ in by_local)
    docs = local.execute(
        f"SELECT sess, {_DOC_COLUMNS} FROM docs WHERE sess IN ({marks}) ORDER BY sess, id", list(by_local)
    ).fetchall()
    session_ids, doc_ids = _reserve(conn, len(batch), len(docs))
    return _Job(
        batch,
        [resumes(item.row) for item in batch],
        session_ids,
        docs,
        doc_ids,
        _read_passages(local, batch) if vector else None,
    )


class _Writers:
    """Threads writing batches, each on a connection of its own (``count``, then one more at each
    :meth:`grow`, one less at each :meth:`retire`); what each wrote comes back from :meth:`submit` and
    :meth:`finish` as (docs, passages, sessions, when it was committed)."""

    def __init__(self, dsn: str, host: str, info: schema.Info, count: int):
        import queue

        self.dsn, self.host, self.info = dsn, host, info
        # As many batches wait as there are writers: the reading runs that far ahead.
        self.jobs: queue.Queue[_Job | None] = queue.Queue(maxsize=count)
        self.done: queue.Queue[tuple[int, int, int, float]] = queue.Queue()
        self.failed: list[BaseException] = []
        # Connections of their own: the pushing one reserves ids meanwhile (another holds the host's lock).
        self.conns: list[psycopg.Connection[Any]] = []
        self.threads: list[threading.Thread] = []
        self.live = 0  # writers taking batches
        try:
            for _ in range(count):
                self._start()
        except BaseException:
            for made in self.conns:
                made.close()
            raise

    def _start(self) -> None:
        conn = connect(self.dsn)
        self.conns.append(conn)
        thread = threading.Thread(target=self._work, args=(conn,), daemon=True)
        self.threads.append(thread)
        thread.start()
        self.live += 1
        self.jobs.maxsize = self.live

    def grow(self) -> bool:
        """One writer more; False when the server takes no more connections (its limit reached)."""
        try:
            self._start()
        except FleetError:
            return False
        return True

    def retire(self) -> None:
        """One writer less: the first to finish its batch after those queued stops."""
        self.live -= 1
        self.jobs.maxsize = self.live
        self.jobs.put(None)

    def _work(self, conn: psycopg.Connection[Any]) -> None:
        while (job := self.jobs.get()) is not None:
            if self.failed:
                continue  # a writer failed: the rest are dropped, the push stops
            try:
                docs, passages = _write(conn, self.host, self.info, job)
                self.done.put((docs, passages, len(job.batch), time.perf_counter()))
            except BaseException as exc:  # re-raised by the pushing thread
                self.failed.append(exc)

    def _finished(self) -> list[tuple[int, int, int, float]]:
        if self.failed:
            raise self.failed[0]
        out = []
        while not self.done.empty():
            out.append(self.done.get())
        return out

    def submit(self, job: _Job) -> list[tuple[int, int, int, float]]:
        done = self._finished()  # a writer's error stops the push before more is queued
        self.jobs.put(job)
        return done + self._finished()

    def finish(self) -> list[tuple[int, int, int, float]]:
        self.jobs.maxsize = 0  # every writer's stop queued at once
        for _ in range(self.live):
            self.jobs.put(None)
        for thread in self.threads:
            thread.join()
        return self._finished()

    def __enter__(self) -> _Writers:
        return self

    def __exit__(self, *exc: object) -> None:
        if any(t.is_alive() for t in self.threads):  # stopped early: nothing more is written
            self.failed.append(RuntimeError("stopped"))
            while not self.jobs.empty():
                self.jobs.get_nowait()
            self.jobs.maxsize = 0  # every writer's stop queued at once
            for _ in self.threads:
                self.jobs.put(None)
            for thread in self.threads:
                thread.join(timeout=60)
        for made in self.conns:
            made.close()


def _write(conn: psycopg.Connection[Any], host: str, info: schema.Info, job: _Job) -> tuple[int, int]:
    """Write one batch in one transaction: its sessions (their old rows deleted), docs and passages; how
    many docs and passages.

    In as few round trips as the server allows, for a server far away, where each one costs a writer its
    time: what comes before the rows are copied is sent at once (psycopg's pipeline), the copies (which a
    pipeline cannot hold) follow, and what comes after them, with the commit, is sent at once again: three
    or four round trips where each statement waited for its answer in ten. The transaction is begun and
    ended by statements, which a pipeline holds, and rolled back when anything fails."""
    with rolled_back_on_failure(conn):
        with pipelined(conn):
            conn.execute("BEGIN")
            unbounded(conn)
            _delete(conn, host, [item.key for item in job.batch])
            ids = _insert_sessions(conn, host, job)
            _staged(conn, _DOCS_IN)
            if job.passages:
                _staged(conn, _PASSAGES_IN)
        docs, then = _copy_docs(conn, host, job, ids)
        passages = 0
        if job.passages:
            remote = {item.row[0]: ids[item.key] for item in job.batch}
            passages, more = _copy_passages(conn, host, info, job.passages, remote)
            then += more
        with pipelined(conn):
            for sql, params in then:
                conn.execute(sql, params)
            conn.execute("COMMIT")
    return docs, passages


def _copy_docs(
    conn: psycopg.Connection[Any], host: str, job: _Job, ids: dict[tuple[str, str], int]
) -> tuple[int, list[Statement]]:
    """Copy the batch's docs with their reserved ids, each session's in their local order (``seq``), into
    the staged table (:data:`_DOCS_IN`, made in the transaction); how many, and what then moves them into
    the docs and counts each session's words."""
    by_local = {item.row[0]: item for item in job.batch}
    tokens: dict[int, int] = {}
    runs: dict[int, tuple[int, int]] = {}  # the session's docs with runs and their bigrams
    columns = f"sess, host, profile, store, fingerprint, seq, {_DOC_COLUMNS}, folded"
    with conn.cursor() as cur, cur.copy(f"COPY {_DOCS_IN} (id, {columns}) FROM STDIN") as copy:
        last, seq = None, 0
        for doc, (sess, *row) in zip(job.doc_ids, job.docs, strict=True):
            item = by_local[sess]
            seq = seq + 1 if sess == last else 0
            last = sess
            session = item.row
            values = [_text(v) for v in row]
            values[12] = None if values[12] is None else bool(values[12])  # applied
            values[14], values[15] = bool(values[14]), bool(values[15])  # rewound, archived
            remote = ids[item.key]
            # The text's letters and words as the local index reads them, when that changes it (schema
            # versions 7 and 8); its words counted so, as the local word index counts them for BM25.
            folded = folding.fold(values[17])
            folded_or_none = None if folded == values[17] else folded
            copy.write_row(
                [doc, remote, host, session[4], session[1], session[14], seq, *values, folded_or_none]
            )
            tokens[remote] = tokens.get(remote, 0) + word_count(folded)
            if grams := len(cjk.index_tokens(values[17])):
                had = runs.get(remote, (0, 0))
                runs[remote] = (had[0] + 1, had[1] + grams)
    then: list[Statement] = [
        (
            f"INSERT INTO {schema.SCHEMA}.docs (id, {columns}) OVERRIDING SYSTEM VALUE "
            f"SELECT id, {columns} FROM {_DOCS_IN}",
            None,
        ),
        (
            f"UPDATE {schema.SCHEMA}.sessions s SET tokens = t.n FROM unnest(%s::bigint[], %s::bigint[]) "
            "AS t(id, n) WHERE s.id = t.id",
            (list(tokens), list(tokens.values())),
        ),
    ]
    if runs:
        then.append(
            (
                f"UPDATE {schema.SCHEMA}.sessions s SET cjk_docs = t.n, bigrams = t.grams "
                "FROM unnest(%s::bigint[], %s::integer[], %s::bigint[]) AS t(id, n, grams) WHERE s.id = t.id",
                (list(runs), [n for n, _ in runs.values()], [g for _, g in runs.values()]),
            )
        )
    return len(job.docs), then


def _read_passages(local: sqlite3.Connection, items: list[_Local]) -> list[tuple[int, int, bytes]]:
    """These sessions' passage vectors, each with the place in its session of the doc it starts in."""
    wanted = [item.row[0] for item in items if item.passages]
    if not wanted:
        return []
    marks = ", ".join("?" for _ in wanted)
    seqs: dict[int, int] = {}
    last, seq = None, 0
    for doc, sess in local.execute(
        f"SELECT id, sess FROM docs WHERE sess IN ({marks}) ORDER BY sess, id", wanted
    ):
        seq = seq + 1 if sess == last else 0
        last = sess
        seqs[doc] = seq
    rows = local.execute(
        f"SELECT sess, doc, vec FROM passages WHERE sess IN ({marks}) ORDER BY sess, id", wanted
    )
    return [(int(sess), seqs.get(doc, 0), bytes(vec)) for sess, doc, vec in rows]


def _write_passages(
    conn: psycopg.Connection[Any],
    host: str,
    info: schema.Info,
    rows: list[tuple[int, int, bytes]],
    remote: dict[int, int],
) -> int:
    """Write passage vectors in the transaction ``conn`` is in (``remote``: each local session's id in the
    shared index); how many, and each session's count set."""
    if not rows:
        return 0
    _staged(conn, _PASSAGES_IN)
    copied, then = _copy_passages(conn, host, info, rows, remote)
    for sql, params in then:
        conn.execute(sql, params)
    return copied


def _copy_passages(
    conn: psycopg.Connection[Any],
    host: str,
    info: schema.Info,
    rows: list[tuple[int, int, bytes]],
    remote: dict[int, int],
) -> tuple[int, list[Statement]]:
    """Copy passage vectors into the staged table (:data:`_PASSAGES_IN`, made in the transaction); how
    many, and what then moves them into the passages and sets each session's count."""
    import numpy as np

    copied = 0
    counts: dict[int, int] = {}
    with (
        conn.cursor() as cur,
        cur.copy(f"COPY {_PASSAGES_IN} (sess, host, seq, vec) FROM STDIN") as copy,
    ):
        for sess, seq, vec in rows:
            floats = np.frombuffer(vec, dtype=np.int8).astype(np.float32)
            if len(floats) != schema.DIMENSIONS:
                continue  # a model of other dimensions than the shared index holds
            norm = float(np.linalg.norm(floats)) or 1.0
            literal = "[" + ",".join(f"{x:.5f}" for x in floats / norm) + "]"
            copy.write_row([remote[sess], host, seq, literal])
            counts[remote[sess]] = counts.get(remote[sess], 0) + 1
            copied += 1
    then: list[Statement] = [
        (
            f"INSERT INTO {schema.SCHEMA}.passages (sess, host, seq, vec) "
            f"SELECT sess, host, seq, vec::{info.vector_schema}.vector FROM {_PASSAGES_IN}",
            None,
        )
    ]
    if counts:
        then.append(
            (
                f"UPDATE {schema.SCHEMA}.sessions s SET passages = c.n FROM unnest(%s::bigint[], %s::int[]) "
                "AS c(id, n) WHERE s.id = c.id",
                (list(counts), list(counts.values())),
            )
        )
    return copied, then
