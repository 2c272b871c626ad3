"""Keeping the index fresh: before every query, only what changed is read again.

A store whose file and WAL have the same size and mtime as at the last sync is not opened at all, so a sync
that finds nothing new costs a few ``stat`` calls. A PostgreSQL store has no file to ``stat``: its identity
is one query (:meth:`~hermes_trail.hermes.pgstore.PgStore.change_marker`: the newest ``messages.id`` and a
digest of the ``sessions`` rows, no message row read), and a store whose marker did not change is read no
further. In a store that changed, a session is read again only when its fingerprint changed: its row count,
newest timestamp and inactive rows (a rewind or a compaction flips ``active``/``compacted`` on old rows)
and its ``sessions`` row. Sessions that disappeared (deleted, pruned) leave the index; a store that cannot
be read keeps what was indexed from it.

A store Hermes is writing can fail a read for a moment: a read-only reader that finds the write-ahead log's
index mid-update is answered ``SQLITE_READONLY_RECOVERY``. A read is tried again (:data:`READ_TRIES`), and
a session still unread is not passed over: the store is recorded with an empty identity (so the next sync
looks at it even if nothing changes) and the session without a fingerprint (so it is read then), while the
watermark moves on for the others. Recording the store as read up to its newest row lost the session's
new rows until Hermes next changed it.

Two ``trail`` processes at once: each store's changes are written in one ``BEGIN IMMEDIATE`` transaction,
so the second waits for the first and then finds nothing left to do. A damaged index, or one of another
format, is rebuilt beside the old file and swapped in, with one line saying so (:mod:`.opening`).

A big read (a first build) is decoded by a worker process per core while this process writes, and the new
docs go into the full-text indexes a batch at a time as they are written, so the cores stay busy to the end.

A build (a new index beside, :mod:`.opening`) commits every :data:`COMMIT_SECONDS` instead of once a store,
so that one cut short is taken up where it stopped: a store begun is recorded with an empty identity (it
still counts as changed) and the watermark it was begun at, and the build that takes it up reads it as any
sync reads a store that changed, skipping each session whose fingerprint it already holds.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_trail import readonly
from hermes_trail.errors import StoreLocked, StoreUnreadable
from hermes_trail.hermes import locate
from hermes_trail.hermes.changes import MARK_FORM, row_digest, store_marks
from hermes_trail.index import rowsnap, schema, semantic
from hermes_trail.index.opening import BUILD_MESSAGES, open_index
from hermes_trail.index.writer import (
    DOCS_DELETED,
    WAS,
    Prepared,
    SyncReport,
    Writer,
    delete_session,
    divert_identity,
    file_identity,
    fingerprint,
    fingerprint_now,
    prepare,
    read_docs_again,
)
from hermes_trail.model import Session, Store, Stray

if TYPE_CHECKING:  # what a sync with changes needs is imported when it comes: a no-change sync stays light
    from concurrent.futures import Future

    from hermes_trail.hermes.reader import StoreReader
    from hermes_trail.history import History

Progress = Callable[[int, int], None]  # (messages done, messages in all)


def store_identity(path: Path) -> str:
    """What tells cheaply that a store file changed (``hermes.changes``: each file's identity, size and
    times, and the header bytes a commit moves), as text kept in the index."""
    parts = []
    for mark in store_marks(path):
        if mark is None:
            parts.append("-")
            continue
        *stat, head = mark
        parts.append(":".join(str(x) for x in stat) + ":" + head.hex())
    return "|".join(parts)


def location_identity(location: locate.StoreLocation) -> str:
    """What tells cheaply that a store changed: :func:`store_identity` of a file, the change marker of a
    PostgreSQL database.

    :raises StoreUnreadable: the database cannot be reached or read (a file's problems show when it is read).
    """
    if location.dsn is None:
        assert location.path is not None
        # A divert file beside the store holds rows of its sessions too (decode/diverted.py).
        diverted = [f"{p.name}={file_identity(p)}" for p in locate.divert_files(location.home)]
        return "|".join([store_identity(location.path), *diverted])
    from hermes_trail.hermes.pgstore import PgStore

    with PgStore(location.dsn) as reader:
        return reader.change_marker()


# Up to this many changed sessions are read by walking each one's family; more (a first build, a big
# import) read and link the store's whole catalog at once.
TARGETED_LIMIT = 300


class _Changes:
    """What a sync found changed in one store, before the sessions are read (a plain class: no
    ``dataclasses`` on a command's start)."""

    __slots__ = ("digests", "gone", "indexed", "restamp", "snapshot", "wanted")

    def __init__(
        self,
        wanted: list[str],
        indexed: dict[str, tuple[int, str]],
        digests: dict[str, str],
        gone: list[int],
        restamp: list[tuple[int, str]] | None = None,
    ) -> None:
        self.wanted = wanted  # the ids of the sessions to read again
        # (index row id, fingerprint) by session id: of every session the index holds of the store, or (a
        # pass by the snapshot) of every one it marked
        self.indexed = indexed
        self.digests = digests  # each session's fingerprint now, by id: every session's, or those marked
        self.gone = gone  # the index rows of sessions the store no longer holds
        self.restamp = restamp or []  # unchanged sessions whose earlier-form fingerprint is replaced
        # The columns of the snapshot this pass wrote the rows it marked into (:mod:`.rowsnap`), which the
        # sync records as its own once it has read the sessions; ``None``: none (not a SQLite store).
        self.snapshot: list[str] | None = None


def _changed_sessions(
    conn: sqlite3.Connection, store: Store, reader: StoreReader, watermark: int
) -> _Changes:
    """The sessions to read again, and what tells the next sync what this one saw.

    A session is read again when its ``sessions`` row changed or it has rows above the watermark; nothing
    else in the store is decoded, so a sync after a few new messages costs a pass over the session rows:
    over their marks, or, when the index keeps what the last sync saw of them (:mod:`.rowsnap`), a
    comparison with that and the marks of the rows that differ.
    """
    from hermes_trail.hermes.store import SqliteStore

    diverted = {p.name[: -len(".jsonl")] for p in locate.divert_files(store.home)}

    def divert(sid: str) -> str:
        return divert_identity(store.home, sid) if sid in diverted else ""

    found = _by_snapshot(conn, store, reader, watermark, diverted, divert)
    if found is not None:
        return found
    indexed = _indexed(conn, store.key)
    if not isinstance(reader, SqliteStore):
        return _by_marks(store, reader.session_marks(), indexed, reader, watermark, divert)
    columns = reader.light_columns()
    rowsnap.create(conn, store.key, columns)  # every row marked: the snapshot is made anew
    found = _by_marks(
        store, _kept(conn, store, reader.marked_rows(columns)), indexed, reader, watermark, divert
    )
    found.snapshot = columns
    return found


def _kept(
    conn: sqlite3.Connection, store: Store, chunks: Iterable[list[tuple[Any, ...]]]
) -> Iterator[tuple[Any, bytes]]:
    """Each row's ``(id, mark)`` of ``(id, mark, rowid, *values)`` chunks, whose values are written into
    the store's snapshot on the way (the values and the mark of a row read by one statement)."""
    for chunk in chunks:
        rowsnap.put(conn, store.key, (row[2:] for row in chunk))
        for row in chunk:
            yield row[0], row[1]


def _read_again(history: History, store: Store, reader: StoreReader, wanted: list[str]) -> list[Session]:
    """The sessions to read again, their families linked: each found by its id, or, when there are many,
    the store's whole catalog read at once."""
    from hermes_trail.hermes.decode.sessions import decode_session, id_text

    if len(wanted) > TARGETED_LIMIT:
        chosen = set(wanted)
        return [s for s in history.read_catalog(store) if s.id in chosen]
    changed = []
    for row in reader.session_rows_by("id", wanted, light=True):
        session = decode_session(row, store, reader.message_stats_of(id_text(row.get("id")) or ""))
        history.family(session)
        changed.append(session)
    return changed


def _indexed(
    conn: sqlite3.Connection, store_key: str, among: list[str] | None = None
) -> dict[str, tuple[int, str]]:
    """(index row id, fingerprint) of each session of the store the index holds, or of those ``among``."""
    sql = "SELECT id, session_id, fingerprint FROM sessions WHERE store = ?"
    if among is None:
        return {sid: (sess, fp) for sess, sid, fp in conn.execute(sql, (store_key,))}
    found: dict[str, tuple[int, str]] = {}
    for start in range(0, len(among), 500):
        chunk = among[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        rows = conn.execute(f"{sql} AND session_id IN ({marks})", (store_key, *chunk))
        found.update((sid, (sess, fp)) for sess, sid, fp in rows)
    return found


def _digested(marks: Iterable[tuple[Any, bytes]], divert: Callable[[str], str]) -> dict[str, str]:
    """Each session's fingerprint now, by id, from its row's mark (``marks``: ``(id, mark)``)."""
    from hermes_trail.hermes.decode.sessions import id_text

    digests: dict[str, str] = {}
    for value, mark in marks:
        if (sid := id_text(value)) is not None:
            digests[sid] = row_digest(mark, divert(sid))
    return digests


def _by_marks(
    store: Store,
    marks: Iterable[tuple[Any, bytes]],
    indexed: dict[str, tuple[int, str]],
    reader: StoreReader,
    watermark: int,
    divert: Callable[[str], str],
) -> _Changes:
    """Every row's mark (``marks``: ``(id, mark)``) digested, and compared with its session's fingerprint."""
    digests = _digested(marks, divert)
    fresh = reader.sessions_with_messages_after(watermark) if indexed else set(digests)
    unknown: tuple[int | None, str] = (None, "")
    earlier = [
        sid
        for sid in digests
        if sid not in fresh and (fp := indexed.get(sid, unknown)[1]) and not fp.startswith(MARK_FORM)
    ]
    restamp = _same_as_before(reader, indexed, digests, earlier, divert) if earlier else []
    kept = {sess for sess, _ in restamp}
    wanted = []
    for sid, digest in digests.items():
        sess, before = indexed.get(sid, unknown)
        if sid in fresh or (fingerprint_now(before) != digest and sess not in kept):
            wanted.append(sid)
    gone = [sess for sid, (sess, _) in indexed.items() if sid not in digests]
    return _Changes(wanted, indexed, digests, gone, restamp)


def _by_snapshot(
    conn: sqlite3.Connection,
    store: Store,
    reader: StoreReader,
    watermark: int,
    diverted: set[str],
    divert: Callable[[str], str],
) -> _Changes | None:
    """The rows that are not as the last sync saw them marked (a session the last sync could not read has
    no row there: :func:`_keep_snapshot`), and those of sessions with new rows or a divert file; ``None``
    when the index keeps no snapshot of the store it can believe (:func:`.rowsnap.believed`: made by the
    last sync, so every fingerprint is of this form) or cannot compare with it."""
    from hermes_trail.hermes.decode.sessions import id_text
    from hermes_trail.hermes.store import SqliteStore

    if not isinstance(reader, SqliteStore):
        return None
    columns = reader.light_columns()
    if not rowsnap.believed(conn, store.key, columns):
        return None
    database = conn.execute("PRAGMA database_list").fetchone()[2]
    compared = reader.rows_unlike(Path(database), rowsnap.table_for(store.key), rowsnap.ROWID, columns)
    if compared is None:
        return None
    present = {sid for value in reader.session_ids() if (sid := id_text(value)) is not None}
    held = {row[0] for row in conn.execute("SELECT session_id FROM sessions WHERE store = ?", (store.key,))}
    unlike = {sid for _, value in compared if (sid := id_text(value)) is not None}
    fresh = reader.sessions_with_messages_after(watermark)
    marked = sorted((unlike | fresh | diverted | (present - held)) & present)
    indexed = _indexed(conn, store.key, marked)
    digests = _digested(_kept(conn, store, reader.marked_rows(columns, marked)), divert)
    wanted = [
        sid
        for sid in marked
        if sid in fresh or fingerprint_now(indexed.get(sid, (0, ""))[1]) != digests.get(sid)
    ]
    gone_ids = sorted(held - present)
    gone = list(_indexed(conn, store.key, gone_ids).values()) if gone_ids else []
    rowsnap.forget(conn, store.key, gone_ids)
    found = _Changes(wanted, indexed, digests, [sess for sess, _ in gone])
    found.snapshot = columns
    return found


def _keep_snapshot(
    conn: sqlite3.Connection, store: Store, found: _Changes, synced_at: float, unwritten: set[str]
) -> None:
    """Record the snapshot this sync wrote as what it saw (:mod:`.rowsnap`), without the rows of the
    sessions it was to read and did not (``unwritten``: unreadable now, gone meanwhile), which the next
    sync then marks as new."""
    if found.snapshot is None:
        return
    rowsnap.forget(conn, store.key, sorted(unwritten))
    rowsnap.record(conn, store.key, found.snapshot, synced_at)


def _same_as_before(
    reader: StoreReader,
    indexed: dict[str, tuple[int, str]],
    digests: dict[str, str],
    sids: list[str],
    divert: Callable[[str], str],
) -> list[tuple[int, str]]:
    """Of these sessions, indexed with a fingerprint of the earlier form, the ones whose row that form
    still matches, with their fingerprint now: an index written by an earlier trail is compared so once,
    and reads no session again because the form changed (every session of it would have looked
    changed)."""
    from hermes_trail.hermes.decode.sessions import id_text

    same = []
    for row in reader.session_rows_by("id", sids, light=True):
        sid = id_text(row.get("id"))
        if sid is None or sid not in digests:
            continue
        sess, before = indexed[sid]
        if fingerprint(row, divert(sid)) == before:
            same.append((sess, digests[sid] + WAS + before))
    return same


class _MostChanged(Exception):
    """Most of what the index holds is to be read again: building anew beside is faster than replacing."""


# Reading again at least this many indexed messages, and at least this share of the index's docs (after a
# Hermes upgrade that adds a session column, every session's fingerprint changes), builds a new index beside
# instead: replacing a doc costs taking its words out of the full-text indexes and putting new ones in,
# about twice what a fresh build pays.
REBUILD_FROM_MESSAGES = 50_000
REBUILD_FROM_SHARE = 0.5


def _check_not_most(conn: sqlite3.Connection, replaced: list[Session]) -> None:
    """:raises _MostChanged: the sessions to replace hold most of the index."""
    messages = sum((s.row_stats or (0,))[0] for s in replaced)
    if messages < REBUILD_FROM_MESSAGES:
        return
    docs = conn.execute("SELECT count(*) FROM docs").fetchone()[0]
    if messages >= REBUILD_FROM_SHARE * docs:
        raise _MostChanged(f"most of it changed ({len(replaced):,} sessions to read again)")


# A read of a store is tried this many times before what it was for is left to the next sync, the tries
# this many seconds apart (times the try's number).
READ_TRIES = 3
READ_PAUSE = 0.05


def _load(history: History, session: Session) -> StoreUnreadable | None:
    """Read a session's messages, again when a read fails (:data:`READ_TRIES`); why it could not be read."""
    attempt = 1
    while True:
        try:
            history.load(session)
            return None
        except StoreUnreadable as exc:
            session.turns, session.hidden, session.loaded = [], [], False
            if attempt == READ_TRIES or isinstance(exc, StoreLocked):  # locked: it waited for the writer
                return exc
        time.sleep(READ_PAUSE * attempt)
        attempt += 1


# A build commits what it wrote at least this often (seconds), so one cut short loses no more. Each commit
# ends a transaction, and the next copies into the journal each page it changes that was there before (the
# full-text indexes' merges free pages that later ones fill): some megabytes, a page at a time, and about
# 45 ms of the writer's time (200,000 messages built with and without commits, side by side).
COMMIT_SECONDS = 10.0


def _commit_batch(conn: sqlite3.Connection, messages: int) -> None:
    """Commit what a build wrote so far (its docs all in the full-text indexes) and go on writing."""
    conn.execute("UPDATE meta SET value = value + ? WHERE key = ?", (messages, BUILD_MESSAGES))
    conn.execute("COMMIT")
    conn.execute("BEGIN IMMEDIATE")


def _sync_store(
    conn: sqlite3.Connection,
    history: History,
    store: Store,
    report: SyncReport,
    progress: Progress | None,
    total: list[int],
    parallel: bool = True,
    building: bool = False,
    synced_at: float = 0.0,
) -> tuple[int, bool]:
    """Index what changed in one store; returns the store's newest message id (the next watermark), and
    whether every session to read was read (else the ones that were not have lost their fingerprint).

    :param building: ``conn`` is a build's (:mod:`.opening`): commit every :data:`COMMIT_SECONDS`, and
        mark the store begun so that the build that takes this one up reads what is left of it.
    :param synced_at: the time the caller records in the store's ``stores`` row, which the snapshot of
        its session rows is recorded with (:mod:`.rowsnap`).
    """
    reader = history.reader(store)
    top = reader.max_message_id()
    row = conn.execute("SELECT watermark FROM stores WHERE key = ?", (store.key,)).fetchone()
    found = _changed_sessions(conn, store, reader, row[0] if row else 0)
    indexed, digests = found.indexed, found.digests
    changed = _read_again(history, store, reader, found.wanted)
    updates = [(fp, sess) for sess, fp in found.restamp]
    conn.executemany("UPDATE sessions SET fingerprint = ? WHERE id = ?", updates)
    # Oldest activity first, so newer conversations get higher doc ids: the id order is the recency order
    # that ranking by recency leans on.
    changed.sort(key=lambda s: (s.last_activity_at.timestamp() if s.last_activity_at else 0.0, s.id))
    if not building:  # a build replaces as it goes: there is nothing cheaper to fall back on
        _check_not_most(conn, [s for s in changed if s.id in indexed])
    total[1] += sum((s.row_stats or (0,))[0] for s in changed)
    for sess in found.gone:
        delete_session(conn, sess)
        report.sessions_removed += 1
    if building:
        # Begun: changed until it is complete (no identity matches ''), read again from the watermark it
        # had, or this read's when it had none: a session written before a commit and changed after it has
        # rows above that, or another fingerprint.
        conn.execute(
            "INSERT INTO stores (key, name, path, profile, identity, watermark, synced_at) "
            "VALUES (?, ?, ?, ?, '', ?, ?) ON CONFLICT (key) DO UPDATE SET identity = ''",
            (store.key, store.name, store.path, store.profile, top, time.time()),
        )
    writer = Writer(conn)
    committed_at, uncommitted = time.monotonic(), 0
    unread: list[str] = []
    written: set[str] = set()
    for (session, sess), prepared in _prepared(history, writer.number(changed), parallel):
        if isinstance(prepared, StoreUnreadable):
            report.strays.append(Stray(where=session.store.path, reason=prepared.reason, kind="store"))
            unread.append(session.id)
            continue
        old = indexed.get(session.id, (None, None))[0]
        report.docs += writer.replace(store.key, session, old, sess, prepared, digests.get(session.id))
        written.add(session.id)
        report.sessions_indexed += 1
        rows = (session.row_stats or (0,))[0]
        report.messages_read += rows
        total[0] += rows
        if building:
            uncommitted += rows
            if time.monotonic() - committed_at >= COMMIT_SECONDS:
                writer.flush()
                _commit_batch(conn, uncommitted)
                committed_at, uncommitted = time.monotonic(), 0
        if progress is not None:
            progress(total[0], total[1])
    writer.flush()
    if building:  # committed with the store's row, by the caller
        conn.execute("UPDATE meta SET value = value + ? WHERE key = ?", (uncommitted, BUILD_MESSAGES))
    for sid in unread:  # read by the next sync, whatever the watermark says (one not indexed yet is anyway)
        if sid in indexed:
            conn.execute("UPDATE sessions SET fingerprint = '' WHERE id = ?", (indexed[sid][0],))
    _keep_snapshot(conn, store, found, synced_at, set(found.wanted) - written)
    return top, not unread


# Below this many messages to read, starting worker processes costs more than it saves.
PARALLEL_FROM = 20_000
# Sessions are handed to workers in batches of about this many messages (a batch's docs are held in
# memory twice: in the worker and in this process).
BATCH_MESSAGES = 2_000
# How much lower a worker's scheduling priority is than the writer's.
WORKER_NICENESS = 10
# Batches a worker may have made or be making that the writer has not taken yet.
AHEAD_PER_WORKER = 2


def _prepared(
    history: History, sessions: list[tuple[Session, int]], parallel: bool = True
) -> Iterator[tuple[tuple[Session, int], Prepared | StoreUnreadable]]:
    """Each numbered session made ready to write, in the order given: here, or by one worker process per
    core when there is a lot to read (decoding is the cost of a build; the writer keeps this process busy
    meanwhile) and ``parallel`` allows it."""
    rows = sum((s.row_stats or (0,))[0] for s, _ in sessions)
    # Forking a process that runs other threads (the MCP server answers in worker threads; Hermes, around
    # the plugin, has its own) can leave a child waiting forever on a lock another thread held at the
    # fork: such a process reads everything itself.
    workers = min(os.cpu_count() or 1, 2) if parallel and threading.active_count() == 1 else 1
    if rows < PARALLEL_FROM or workers < 2 or not sessions:
        semantic.expect(len(sessions))
        for item in sessions:
            session, sess = item
            failed = _load(history, session)
            if failed is not None:
                yield item, failed
                continue
            yield item, prepare(session, sess)
            session.turns, session.hidden, session.loaded = [], [], False  # let the rows go
        return
    batches: list[list[tuple[Session, int]]] = [[]]
    size = 0
    for item in sessions:
        if size >= BATCH_MESSAGES:
            batches.append([])
            size = 0
        batches[-1].append(item)
        size += (item[0].row_stats or (0,))[0]
    location = history.location(sessions[0][0].store)
    path = location.where
    # A worker opens the store itself (a PostgreSQL connection is never shared across fork) and keeps it for
    # its later batches.
    jobs = [(location, [(s.id, sess) for s, sess in batch]) for batch in batches]
    if semantic.available():
        semantic.warm()  # loaded once here, shared by the forked workers
    # Imported only here: the few sessions of a sync after a Hermes turn are read in this process, and
    # these imports (with logging) were 12 ms of such a `trail` command.
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork on Linux: workers inherit the decoder without re-importing __main__ (which may be a -c script).
    context = multiprocessing.get_context("fork" if sys.platform == "linux" else "spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_worker_start) as pool:
        # A few batches ahead of the writer, no more: results waiting to be written are held in memory.
        ahead: deque[Future[list[Prepared | str]]] = deque()
        queued = iter(jobs)
        for batch in batches:
            while len(ahead) < workers * AHEAD_PER_WORKER and (job := next(queued, None)) is not None:
                ahead.append(pool.submit(_worker_prepare, job))
            for item, prepared in zip(batch, ahead.popleft().result(), strict=True):
                yield item, (StoreUnreadable(path, prepared) if isinstance(prepared, str) else prepared)


# A worker process's open readers, by store key: opened on its first batch of a store, closed when the
# worker exits (multiprocessing runs its finalizers then).
_WORKER_READERS: dict[str, StoreReader] = {}


def _worker_start() -> None:
    """A worker yields the CPU to the writer: the writer is the build's critical path (every doc passes
    through it), a worker that falls behind only has less made ahead."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WORKER_NICENESS)


def _worker_reader(location: locate.StoreLocation) -> StoreReader:
    reader = _WORKER_READERS.get(location.key)
    if reader is None:
        from multiprocessing import util

        from hermes_trail.hermes.reader import open_store

        reader = open_store(location)
        _WORKER_READERS[location.key] = reader
        util.Finalize(None, reader.close, exitpriority=10)
    return reader


def _worker_prepare(job: tuple[locate.StoreLocation, list[tuple[str, int]]]) -> list[Prepared | str]:
    """In a worker process: some numbered sessions of one store made ready to write (or why a session
    could not be read)."""
    from hermes_trail.hermes.decode.sessions import decode_session
    from hermes_trail.history import read_messages

    location, items = job
    try:
        reader = _worker_reader(location)
    except StoreUnreadable as exc:
        return [exc.reason for _ in items]
    path = location.where
    out: list[Prepared | str] = []
    store = Store(key=path, name="", path=path, profile="", home=None, schema_version=None)
    for sid, sess in items:
        for attempt in range(1, READ_TRIES + 1):  # as :func:`_load` does
            try:
                row = reader.session_row(sid)
                if row is None:
                    out.append("session vanished while indexing")
                    break
                session = decode_session(row, store)
                read_messages(session, reader, locate.divert_file(location.home, sid))
                out.append(prepare(session, sess))
                break
            except StoreUnreadable as exc:
                if attempt == READ_TRIES or isinstance(exc, StoreLocked):
                    out.append(exc.reason)
                    break
                time.sleep(READ_PAUSE * attempt)
    return out


# How long a sync waits for another process's sync of the same index before searching what is there.
BUSY_WAIT_SECONDS = 10.0


def _held_by_another(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused because another connection holds the index (locked, busy), not for a fault."""
    return "locked" in str(exc) or "busy" in str(exc)


def _begin(conn: sqlite3.Connection, what: str, report: SyncReport) -> bool:
    """Start writing; when another ``trail`` holds the index longer than :data:`BUSY_WAIT_SECONDS` (a first
    build of a big store), say so and go on with what is indexed instead of failing the query."""
    conn.execute(f"PRAGMA busy_timeout = {int(BUSY_WAIT_SECONDS * 1000)}")
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if not _held_by_another(exc):
            raise
        reason = "the index is being updated by another trail; results may be behind"
        report.strays.append(Stray(where=what, reason=reason, kind="index"))
        return False
    return True


def sync_index(
    index_path: Path | None = None,
    *,
    homes: Iterable[str | Path] = (),
    dbs: Iterable[str | Path] = (),
    pgs: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
    parallel: bool = True,
    include_recovered: bool | None = None,
    rebuild: bool = False,
) -> SyncReport:
    """Bring the index up to date with every store, reading only what changed.

    :param progress: called with (messages done, messages to read) while sessions are read.
    :param notify: called with one line when the index had to be rebuilt, and when a large build merges
        its word index at its end.
    :param parallel: allow worker processes for a big read (not inside a process that must not fork).
    :param include_recovered: also index sessions only a snapshot or divert holds (``None``: keep doing
        what the index already does); see :mod:`hermes_trail.index.recovered`.
    :param rebuild: build a new index beside the old one and swap it in (searches meanwhile read the old).
    :raises TrailError: the index path names another kind of database, or another process is building
        the first index there (see :func:`~hermes_trail.index.opening.open_index`).
    """
    started = time.perf_counter()
    env = os.environ if env is None else env
    homes, dbs, pgs = list(homes), list(dbs), list(pgs)
    path = index_path or schema.default_index_path(env)
    opened = open_index(path, rebuild)
    if include_recovered is None and opened.building is not None:
        include_recovered = _recovered_was_indexed(path)  # a rebuild keeps doing what the old index did
    report = SyncReport(rebuilt=opened.rebuilt)
    if opened.rebuilt and notify is not None:
        notify(f"rebuilding the search index: {opened.rebuilt}")
    if opened.resumed and notify is not None:
        sessions, messages = opened.resumed
        notify(
            f"taking up the index build that was cut short: {messages:,} messages of {sessions:,} sessions "
            "are indexed already"
        )
    building = opened.building is not None
    try:
        if not building:
            read_docs_again(opened.conn)
            schema.add_later_parts(opened.conn)
        _sync_all(opened.conn, report, env, homes, dbs, pgs, progress, parallel, include_recovered, building)
        fill_gists(opened.conn, None if building else gists_marker(path))
        if not building:
            report.reclaimed = reclaim(opened.conn)
            trim_log(opened.conn, opened.path)
    except _MostChanged as most:
        opened.abandon()  # what other stores committed stays; the new index reads them again anyway
        if notify is not None:
            notify(f"rebuilding the search index: {most}")
        again = sync_index(
            path,
            homes=homes,
            dbs=dbs,
            pgs=pgs,
            env=env,
            progress=progress,
            parallel=parallel,
            include_recovered=include_recovered,
            rebuild=True,
        )
        again.rebuilt = str(most)
        again.seconds = time.perf_counter() - started
        return again
    except BaseException as exc:
        # What a build committed stays for the next one to take up, unless it cannot be built on.
        opened.abandon(discard=_damaged(exc))
        raise
    report.state = sessions_state(opened.conn)
    report.awaiting = schema.awaiting_passages(opened.conn)
    if building and notify is not None and report.docs >= MERGE_NOTICE_DOCS:
        notify(f"merging the word index of {report.docs:,} docs (a tenth of the build's time)")
    opened.finish()
    report.seconds = time.perf_counter() - started
    return report


# A build of at least this many docs says it is merging its word index as it finishes (about 1.5 s; 4-5 s
# at a million messages), so that a progress bar at its end does not look stuck.
MERGE_NOTICE_DOCS = 300_000


# The index gives its free pages back once they are past this many bytes and as many as it uses.
RECLAIM_MIN_BYTES = 8 << 20
# Its word indexes are merged whole once this many docs were deleted, and as many as they hold.
MERGE_MIN_DELETED = 1_000
# An index built by a trail whose builds did not end merged (18 segments at a million messages) is merged
# whole once, at its first sync, when its word index is in more segments than this (an index in use,
# merged four at a time, keeps fewer).
MERGE_SEGMENTS = 16


def trim_log(conn: sqlite3.Connection, path: Path) -> bool:
    """Cut the index's write-ahead log back to nothing when a sync left it past
    :data:`~hermes_trail.index.schema.LOG_KEEP_BYTES` (a checkpoint that truncates it), without waiting:
    while another process reads or writes the index, the log is left for SQLite to cut back when it next
    starts over. Whether it was cut."""
    log = Path(f"{path}-wal")
    try:
        if log.stat().st_size <= schema.LOG_KEEP_BYTES:
            return False
    except OSError:
        return False
    try:
        with _not_waiting(conn):
            busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    except sqlite3.OperationalError as exc:
        if not _held_by_another(exc):
            raise
        return False
    return not busy


@contextlib.contextmanager
def _not_waiting(conn: sqlite3.Connection) -> Iterator[None]:
    """``conn`` with no busy wait (what another process holds is left for a later sync), then as it was."""
    timeout = conn.execute("PRAGMA busy_timeout").fetchone()[0]
    conn.execute("PRAGMA busy_timeout = 0")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout)}")


def reclaim(conn: sqlite3.Connection) -> int:
    """Give back to the disk what deleted docs still take (the bytes given back, or 0).

    An index only grows, but for a store that is gone (a home moved, a profile deleted, another
    ``--home`` read), a history pruned, and each session read again when it changed, whose docs the sync
    deletes. Their entries stay in the word indexes (FTS5 marks them deleted, in segments that merge only
    with segments of their size), and the pages they free stay in the file for later rows: the index of
    a 10,000-session home (147 MB) pointed at a home of 23 sessions grew to 171 MB; it is 240 KB so.

    Once the docs deleted since the last time (counted in ``meta``) are as many as those the word index
    holds, each word index is merged whole (FTS5's ``optimize``); once the free pages outnumber those in
    use, the file is copied without them (``VACUUM``). Either costs no more than the deletes that made it
    due: 4 s to merge the word index of a million messages. Both are skipped, for a later sync, when
    another process is writing the index (a vector stage): nothing waits for them. Row ids are kept
    (every table read by row id has an ``INTEGER PRIMARY KEY``)."""
    try:
        with _not_waiting(conn):
            _merge_word_indexes(conn)
            free = conn.execute("PRAGMA freelist_count").fetchone()[0]
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            size = conn.execute("PRAGMA page_size").fetchone()[0]
            if free * size < RECLAIM_MIN_BYTES or free < pages - free:
                return 0
            conn.execute("VACUUM")
    except sqlite3.OperationalError as exc:
        if not _held_by_another(exc):
            raise
        return 0
    with contextlib.suppress(sqlite3.OperationalError):  # the copy went through the WAL: end it there
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    after = int(conn.execute("PRAGMA page_count").fetchone()[0])
    return max(0, (int(pages) - after) * int(size))


def _merge_word_indexes(conn: sqlite3.Connection) -> None:
    """Merge each word index whole when the docs deleted since it last was are as many as it holds; and,
    once, an index a trail built before builds ended merged (:func:`schema.merge_whole`), when the
    segments it was left in are more than :data:`MERGE_SEGMENTS` (a search looks each term up in each)."""
    keys = (DOCS_DELETED, schema.WORDS_MERGED)
    found = dict(conn.execute("SELECT key, value FROM meta WHERE key IN (?, ?)", keys))
    deleted = int(found.get(DOCS_DELETED) or 0)
    due = deleted >= MERGE_MIN_DELETED and deleted >= schema.doc_total(conn)
    if not due and schema.WORDS_MERGED in found:
        return
    if not due and schema.segments(conn) <= MERGE_SEGMENTS:  # looked at once: few enough
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, 1)", (schema.WORDS_MERGED,))
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        schema.merge_whole(conn)
        conn.execute("UPDATE meta SET value = 0 WHERE key = ?", (DOCS_DELETED,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _damaged(exc: BaseException) -> bool:
    """Whether ``exc`` says the database itself is unusable (malformed, not a database), as opposed to a
    failure of the moment (locked, disk full, interrupted) after which the build can be taken up."""
    return isinstance(exc, sqlite3.DatabaseError) and not isinstance(exc, sqlite3.OperationalError)


def sessions_state(conn: sqlite3.Connection) -> str:
    """Which state of its sessions the index is in: its ``build`` id and ``sessions_version`` (every
    session written, by whichever trail, moves it on)."""
    found = dict(conn.execute("SELECT key, value FROM meta WHERE key IN ('build', 'sessions_version')"))
    return f"{found.get('build')} {found.get('sessions_version')}"


def gists_marker(index_path: Path) -> Path:
    """The file beside an index that says which state of it :func:`fill_gists` last found complete."""
    return index_path.with_name(index_path.name + ".gists")


def fill_gists(conn: sqlite3.Connection, marker: Path | None = None) -> int:
    """Give a gist to every session synced where none could be made (by a Hermes plugin of a trail before
    gists were made without numpy: issue 17), from its title and prompts as the index holds them (redacted
    already); how many got one. A session is written again only when its rows change, so without this its
    gist would wait for a rebuild.

    Looking for them reads every session row of the index: tens of milliseconds on 10,000 sessions, at
    every search. So a pass that finds none left writes the state it looked at (the index's ``build`` id
    and ``sessions_version``) to ``marker``, and the next pass looks again only once that moved (a session
    is written only by an insert, which bumps the version, whichever trail wrote it). The marker is a file
    beside the index rather than a row in it: it is no part of what the index holds.
    """
    if not semantic.can_gist():
        return 0
    state = sessions_state(conn)
    if marker is not None and schema.marked(marker, state):
        return 0
    todo = conn.execute(
        "SELECT s.id, s.title FROM sessions s WHERE s.gist IS NULL AND (coalesce(s.title, '') != '' OR "
        "EXISTS (SELECT 1 FROM docs d WHERE d.sess = s.id AND d.kind = 'prompt' AND d.rewound = 0))"
    ).fetchall()
    if not todo:
        if marker is not None:  # the state read before looking: a session added since moved it on
            schema.mark(marker, state)
        return 0
    from hermes_trail.redact import redact

    semantic.expect(len(todo))
    filled = 0
    conn.execute("BEGIN IMMEDIATE")
    try:
        for sess, title in todo:
            prompts = [
                t
                for (t,) in conn.execute(
                    "SELECT text FROM docs WHERE sess = ? AND kind = 'prompt' "
                    "AND rewound = 0 ORDER BY row, part",
                    (sess,),
                )
            ]
            gist = semantic.gist_blob([redact(title or ""), *prompts])
            if gist is not None:
                conn.execute("UPDATE sessions SET gist = ? WHERE id = ?", (gist, sess))
                filled += 1
        if filled:  # what long-lived processes derive from the gists is stale now (schema.state_key)
            conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'sessions_version'")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return filled


def _recovered_was_indexed(path: Path) -> bool | None:
    """Whether the index at ``path`` (read as it stands) holds recovered sessions; ``None`` when it cannot
    tell (no index, another kind of file)."""
    from hermes_trail.index import recovered as rec

    if not path.is_file():
        return None
    try:
        conn = readonly.connect(path)
        try:
            keys = [key for (key,) in conn.execute("SELECT key FROM stores")]
        finally:
            conn.close()
    except sqlite3.Error:
        return None
    return rec.indexes_recovered(keys)


def _sync_all(
    conn: sqlite3.Connection,
    report: SyncReport,
    env: Mapping[str, str],
    homes: Iterable[str | Path],
    dbs: Iterable[str | Path],
    pgs: list[str],
    progress: Progress | None,
    parallel: bool,
    include_recovered: bool | None,
    building: bool = False,
) -> None:
    """Every store that changed since the index last saw it, read again into ``conn`` (a build's when
    ``building``: see :func:`_sync_store`)."""
    known = {key: identity for key, identity in conn.execute("SELECT key, identity FROM stores")}
    discovery = locate.discover(env, homes=homes, dbs=dbs, pgs=pgs)
    # What could not be looked into (a profile denied, a symlink loop) is said on every sync, not only on
    # the one that first read the stores around it: a search must never be silently short of a profile.
    report.strays.extend(Stray(where=n.path, reason=n.reason, kind="directory") for n in discovery.notes)
    located = discovery.stores
    identities: dict[str, str] = {}
    unreachable: set[str] = set()
    for loc in located:
        try:
            identities[loc.key] = location_identity(loc)
        except StoreUnreadable as exc:  # a database that cannot be reached keeps what was indexed
            unreachable.add(loc.key)
            report.strays.append(Stray(where=loc.where, reason=exc.reason, kind="store"))
    report.stores = len(located)
    from hermes_trail.index import recovered as rec

    if include_recovered is None:
        include_recovered = rec.indexes_recovered(known)
    extra = rec.recovered_homes(env, homes, dbs, store_identity) if include_recovered else {}
    identities.update({key: found.identity for key, found in extra.items()})
    from hermes_trail.index import knowledge  # each home's memory and skills: a pseudo-store

    knowing = knowledge.knowledge_homes(discovery)
    identities.update({key: found.identity for key, found in knowing.items()})
    changed = {key for key, ident in identities.items() if known.get(key) != ident}
    for key in set(known) - set(identities) - unreachable:  # a store that is gone takes its sessions
        if not _begin(conn, key, report):
            continue
        for (sess,) in conn.execute("SELECT id FROM sessions WHERE store = ?", (key,)).fetchall():
            delete_session(conn, sess)
            report.sessions_removed += 1
        conn.execute("DELETE FROM stores WHERE key = ?", (key,))
        rowsnap.drop(conn, key)
        conn.execute("COMMIT")
    for key in sorted(changed & set(extra)):
        rec.sync_recovered(conn, key, extra[key], report, _begin)
    changed -= set(extra)
    for key in sorted(changed & set(knowing)):
        knowledge.sync_knowledge(conn, key, knowing[key], report, _begin)
    changed -= set(knowing)
    if not changed:
        return
    from hermes_trail.history import open_history  # the decoders: only for a store that changed

    total = [0, 0]
    pending = set(changed)
    for attempt in range(1, READ_TRIES + 1):  # a store that could not be opened is tried again
        history = open_history(
            homes=homes, dbs=dbs, pgs=pgs, env=env, catalog=False, select=_among(frozenset(pending))
        )
        pending -= {store.key for store in history.stores}
        if not pending or attempt == READ_TRIES:  # directories are said above
            report.strays.extend(s for s in history.strays if s.kind != "directory")
        with history:
            for store in history.stores:
                _sync_one(conn, history, store, identities, report, progress, total, parallel, building)
        if not pending:
            return
        time.sleep(READ_PAUSE * attempt)


def _among(keys: frozenset[str]) -> Callable[[locate.StoreLocation], bool]:
    """Which stores to open: the ones with these keys."""
    return lambda location: location.key in keys


def _sync_one(
    conn: sqlite3.Connection,
    history: History,
    store: Store,
    identities: dict[str, str],
    report: SyncReport,
    progress: Progress | None,
    total: list[int],
    parallel: bool,
    building: bool,
) -> None:
    """One store that changed, in a transaction of its own (a build's commits along the way); its
    catalog read again when it fails, and left as indexed when it fails every time."""
    for attempt in range(1, READ_TRIES + 1):
        if not _begin(conn, store.path, report):
            return
        try:
            _sync_changed(conn, history, store, identities, report, progress, total, parallel, building)
            conn.execute("COMMIT")
            return
        except StoreUnreadable as exc:
            conn.execute("ROLLBACK")
            if attempt == READ_TRIES or isinstance(exc, StoreLocked):
                report.strays.append(Stray(where=store.path, reason=exc.reason, kind="store"))
                return
            time.sleep(READ_PAUSE * attempt)
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _sync_changed(
    conn: sqlite3.Connection,
    history: History,
    store: Store,
    identities: dict[str, str],
    report: SyncReport,
    progress: Progress | None,
    total: list[int],
    parallel: bool,
    building: bool,
) -> None:
    """Read one store again, in the transaction begun, unless another process did while this one waited
    for the lock; then record what the next sync compares."""
    now = conn.execute("SELECT identity FROM stores WHERE key = ?", (store.key,)).fetchone()
    if now is not None and now[0] == identities.get(store.key):
        return
    synced_at = time.time()
    top, complete = _sync_store(conn, history, store, report, progress, total, parallel, building, synced_at)
    conn.execute(
        "INSERT OR REPLACE INTO stores (key, name, path, profile, identity, watermark, synced_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            store.key,
            store.name,
            store.path,
            store.profile,
            identities[store.key] if complete else "",  # '' matches no store: looked at again next time
            top,
            synced_at,
        ),
    )
    report.changed_stores += 1
