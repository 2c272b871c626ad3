"""Passage vectors: each session's text in passages of about a thousand characters, each encoded by the
full sentence model (:mod:`.encoder`), so a question asked in other words finds the session through its
nearest passage.

The word index is built and answers first; vectors fill in behind it. :func:`encode_pending` (run by
``trail index`` after its sync, and by the stage behind the queries that a sync which brought sessions in
starts, :mod:`.behind`) encodes the sessions that have no vectors yet, a few at a time, each batch
committed on its own, so an interrupted run loses at most the batch under way and the next run goes on
where it stopped. A session whose rows change is written again by the sync under a new ``sessions.id``,
and a trigger takes a removed session's passages with it, so "no vectors yet" is exactly "changed since
its vectors were made". A query never waits for encoding: it uses whatever vectors exist, and a session
without them is compared by its static gist instead.

A passage is the session's live docs joined in order of what says most about it: the prompts and
compaction summaries, then the replies, then commands and tool outputs; a doc longer than a passage is cut
into several. The session's title opens its first passage: Hermes' title is a summary of the whole
conversation in a few words, often the words a question about it uses ("Battery drain in suspend"). A
session contributes at most :data:`MAX_PASSAGES`, which bounds a first encode of a large history (the
figures are in ``docs/index.md``).

An index whose passages were made another way (an earlier ``schema.PASSAGES_FORMAT``) keeps them: each
session is made pending again (:func:`_renew`) and its passages replaced when its new ones are written,
newest sessions first, so a query meanwhile compares every session by the vectors it has.

Vectors are stored int8 (a unit vector scaled so its largest component is 127: 512 bytes a passage); a
query compares them as one matrix kept in memory, a row a passage, in sessions order, and each session
scores its best passage.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, ClassVar, TypeVar

from hermes_trail.index import encoder, schema
from hermes_trail.model import _Record

# A passage is about this many characters: a paragraph, what one vector says well.
PASSAGE_CHARS = 1000
# Passages an index gets in all, about: what a query keeps in memory as unit float32 rows (2 KB each, 80 MB
# in all: with the model, a query process stays under 300 MB) and compares in a few milliseconds; two cores
# encode them in about five minutes (160 a second measured, bench/README.md). Each session gets as many as
# that budget allows every session (:func:`bound`), at least MIN_PASSAGES and at most MAX_PASSAGES: a
# history of a few hundred sessions is encoded whole, a million messages in 10,000 sessions get the first
# four passages of each.
PASSAGE_BUDGET = 40_000
MIN_PASSAGES = 2
MAX_PASSAGES = 32
# Which docs make passages, in the order they are taken: what the person asked and what a compaction
# kept say most about a session, then what the agent answered, then what its tools returned. Hermes'
# memory entries and skill sections (rows of their own, ``knowledge.py``) are all they say, each one
# fact: a passage each, never joined (a question about one is not diluted by its neighbours).
KIND_ORDER = (("prompt", "summary", "memory", "skill"), ("reply",), ("command", "tool"))
ALONE = frozenset({"memory", "skill"})
# Passages encoded and committed together: a few seconds of work, what an interruption can lose.
BATCH_PASSAGES = 48
# A session's best passage below this cosine says nothing about the query (unrelated text scores about
# 0.1 to 0.3 with the multilingual Universal Sentence Encoder; a paraphrase, in any language, 0.5 and more).
PASSAGE_FLOOR = 0.3
# ... unless it is held in another language than the question, at least ACROSS_FLOOR near it and STANDOUT
# standard deviations above every session's best: the model places a question a little further from every
# passage in another language than its own, so the German question "Masern-Auffrischimpfung der Tochter vor
# der Einschulung" meets the English conversation about the daughter's MMR booster at 0.27, four deviations
# above the crowd (on the recall benchmark's tuning questions, 4 found that one question's answer and moved
# no other; 3.5 and 3 put other answers lower). In its own language the floor stands: among 10,000 sessions
# the best of an unrelated crowd is itself four or five deviations above it, at 0.25.
ACROSS_FLOOR = 0.25
STANDOUT = 4.0
# ... and a question about the asker ("my diet restrictions", "what role and team do you have on file for
# me": :func:`~hermes_trail.index.stopwords.speaks_of_self`) reads what Hermes keeps about them and their
# world (:data:`ABOUT_ASKER`) down to PERSON_FLOOR: an entry is one short fact, further in the model's
# space from a question than a conversation's passage is ("Vegetarian since 2019; eats fish occasionally."
# stood at 0.22 from "my diet restrictions", sixth of every session, and no word of it matched). On the
# recall benchmark's 2,338 tuning questions: five more first, one fewer, at 0.2 and 0.15 alike; 0.25: two
# more, none fewer.
PERSON_FLOOR = 0.2
ABOUT_ASKER = ("USER.md", "MEMORY.md")
Key = TypeVar("Key")


def unsure(cosine: float, standing: float) -> bool:
    """Whether a session's best passage (``cosine`` near the query, ``standing`` deviations above the crowd
    of every session's best) says something about the query only if it is held in another language than
    the question (:data:`ACROSS_FLOOR`, :data:`STANDOUT`), under the floor a passage is read at otherwise."""
    return ACROSS_FLOOR <= cosine < PASSAGE_FLOOR and standing >= STANDOUT


def floor(session: Key, about_asker: Collection[Key]) -> float:
    """The cosine a ``session``'s best passage is read at: :data:`PERSON_FLOOR` for one of the memory
    files a question about the asker reads (``about_asker``: none for any other question), else
    :data:`PASSAGE_FLOOR`."""
    return PERSON_FLOOR if session in about_asker else PASSAGE_FLOOR


def asks_about_asker(question: str) -> bool:
    """Whether ``question`` speaks of the asker, by its words as the word index reads them: the local
    meaning pass and the shared index's ask it alike."""
    from hermes_trail.index import query, stopwords

    return stopwords.speaks_of_self(query.terms(query.parse(question)))


def across(question: str, texts: dict[Key, str]) -> set[Key]:
    """Of the passages ``texts`` (by any key: their first doc's text), those held in another language than
    ``question``: the ones an unsure standing (:func:`unsure`) counts for. The local meaning pass and the
    shared index's read a passage so alike."""
    from hermes_trail.index import stopwords

    asked = stopwords.language(question)
    return {key for key, text in texts.items() if stopwords.language(text) != asked}


# Rows of the passage matrix converted from int8 to float32 at a time when it is loaded (a few MB).
CHUNK_ROWS = 16_384

Progress = Callable[[int, int], None]  # (sessions done, sessions to encode)


# Written out as the model's classes are (``model._Record``): what ``@dataclass`` made, without generating
# and compiling its methods at every start of a ``trail`` command that syncs or searches.
class VectorReport(_Record):
    """What a vector stage did."""

    _fields: ClassVar[tuple[str, ...]] = (
        "sessions",
        "passages",
        "sessions_seen",
        "pending",
        "seconds",
        "skipped",
    )
    __slots__ = _fields

    sessions: int
    passages: int
    sessions_seen: int  # sessions done, those without passages or gone included
    pending: int  # sessions still without vectors (another process holds the stage, or interrupted)
    seconds: float
    skipped: str | None  # why nothing was encoded (no encoder, another process at it)

    def __init__(
        self,
        sessions: int = 0,
        passages: int = 0,
        sessions_seen: int = 0,
        pending: int = 0,
        seconds: float = 0.0,
        skipped: str | None = None,
    ) -> None:
        self.sessions = sessions
        self.passages = passages
        self.sessions_seen = sessions_seen
        self.pending = pending
        self.seconds = seconds
        self.skipped = skipped


def passages(
    docs: list[tuple[int, str, str]], limit: int = MAX_PASSAGES, title: str | None = None
) -> list[tuple[int, str]]:
    """A session's passages from its live docs ``(id, kind, text)`` in id order: ``(doc, text)`` pairs, the
    doc being where the passage starts. Docs are joined while they fit in :data:`PASSAGE_CHARS`; a longer
    one is cut (at a space near the limit where there is one). The session's ``title`` opens the first,
    on a line of its own."""
    out = _joined(docs, limit)
    if out and title and (title := title.strip()):
        doc, text = out[0]
        out[0] = (doc, f"{title}\n{text}")
    return out


def _joined(docs: list[tuple[int, str, str]], limit: int) -> list[tuple[int, str]]:
    out: list[tuple[int, str]] = []
    for kinds in KIND_ORDER:
        start: int | None = None
        current = ""
        for doc, kind, text in docs:
            if kind not in kinds or not (text := text.strip()):
                continue
            for piece in _pieces(text):
                if current and (kind in ALONE or len(current) + 1 + len(piece) > PASSAGE_CHARS):
                    out.append((start or doc, current))
                    if len(out) >= limit:
                        return out
                    current, start = "", None
                if not current:
                    start = doc
                current = f"{current}\n{piece}" if current else piece
        if current and start is not None:
            out.append((start, current))
            if len(out) >= limit:
                return out
    return out


def _pieces(text: str) -> Iterator[str]:
    while len(text) > PASSAGE_CHARS:
        cut = text.rfind(" ", PASSAGE_CHARS * 3 // 4, PASSAGE_CHARS)
        cut = PASSAGE_CHARS if cut < 0 else cut
        yield text[:cut]
        text = text[cut:].lstrip()
    if text:
        yield text


def quantize(vectors: Any) -> list[bytes]:
    """Unit vectors as stored: int8, each scaled so its largest component is 127."""
    import numpy as np

    peak = np.abs(vectors).max(1, keepdims=True)
    peak[peak == 0] = 1.0
    return [row.tobytes() for row in np.round(vectors * (127.0 / peak)).astype(np.int8)]


def pending_sessions(conn: sqlite3.Connection) -> list[int]:
    """Sessions with no vectors yet, or with vectors of an earlier format (:func:`_renew`), newest activity
    first (what a person asks about first)."""
    return [
        r[0]
        for r in conn.execute(
            "SELECT s.id FROM sessions s "
            "WHERE NOT EXISTS (SELECT 1 FROM encoded e WHERE e.sess = s.id AND e.passages >= 0) "
            "ORDER BY s.last_activity IS NULL, s.last_activity DESC, s.id DESC"
        )
    ]


def bound(conn: sqlite3.Connection, budget: int = PASSAGE_BUDGET) -> int:
    """Passages a session gets at most: the largest number that keeps the whole index within ``budget``
    (each session's count estimated from the length of its docs, read without their text), between
    :data:`MIN_PASSAGES` and :data:`MAX_PASSAGES`."""
    group = " ".join(f"WHEN '{kind}' THEN {n}" for n, kinds in enumerate(KIND_ORDER) for kind in kinds)
    sizes = sorted(
        int(size)
        for (size,) in conn.execute(
            f"SELECT sum(({PASSAGE_CHARS - 1} + chars) / {PASSAGE_CHARS}) "
            "FROM (SELECT sess, sum(chars) AS chars "
            f"FROM docs WHERE rewound = 0 AND kind IN ({', '.join(repr(k) for g in KIND_ORDER for k in g)}) "
            f"GROUP BY sess, CASE kind {group} END) GROUP BY sess"
        )
    )
    # Water-filling: with a bound of b, sessions smaller than b give all theirs, the rest b each.
    used, level = 0, MAX_PASSAGES
    for i, size in enumerate(sizes):
        if used + size * (len(sizes) - i) > budget:
            level = (budget - used) // (len(sizes) - i)
            break
        used += size
    return max(MIN_PASSAGES, min(MAX_PASSAGES, level))


def _session_passages(conn: sqlite3.Connection, sess: int, limit: int) -> list[tuple[int, str]]:
    """The passages of session ``sess``, from its live docs and its title (:func:`passages`). Hermes' memory
    files are titled by their names ("USER.md (about the user)"), which say nothing of an entry: a title
    opens the passages of a conversation or a skill only."""
    kinds = [k for group in KIND_ORDER for k in group]
    marks = ", ".join("?" for _ in kinds)
    docs = conn.execute(
        f"SELECT id, kind, text FROM docs WHERE sess = ? AND rewound = 0 AND kind IN ({marks}) ORDER BY id",
        (sess, *kinds),
    ).fetchall()
    row = conn.execute("SELECT title FROM sessions WHERE id = ? AND kind != 'memory'", (sess,)).fetchone()
    return passages(docs, limit, row[0] if row else None)


def encode_pending(
    path: Path,
    progress: Progress | None = None,
    limit: int | None = None,
    wait: bool = False,
    workers: int | None = None,
    behind: bool = False,
    most: int | None = None,
) -> VectorReport:
    """Encode the passages of every session of the index at ``path`` that has none yet.

    One vector stage at a time per index (a lock file beside it): another finds it held and returns at
    once (``wait``: waits for it). Each batch of sessions is committed on its own; a session gets at most
    ``limit`` passages (default: :func:`bound`). The encoding runs in
    one worker process a core (``workers``; at most :data:`MAX_WORKERS`), each on one BLAS thread, at a
    lower scheduling priority, so a query meanwhile keeps its speed. ``most``: encode only that many of the
    sessions without vectors, the newest.

    A stage ``behind`` the queries (``index/behind.py``: started by a sync, nobody waiting for it) yields
    to one a person started: that one claims the stage first (a second lock file), and the stage behind
    stops after the batch under way, leaving the rest to it, which waits that long for the lock.
    """
    started = time.perf_counter()
    report = VectorReport()
    if not encoder.available():
        report.skipped = "no sentence encoder here (numpy or the model is missing)"
        return report
    claim = None if behind else _claim(path, wait)
    if not behind and claim is None:
        report.skipped = "another trail is encoding this index's passages"
        return report
    lock = _lock(path, wait=not behind)
    if lock is None:
        if claim is not None:
            _unlock(claim)
        report.skipped = "another trail is encoding this index's passages"
        return report
    conn = sqlite3.connect(path, timeout=30.0, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute(f"PRAGMA journal_size_limit = {schema.LOG_KEEP_BYTES}")
        build = _build(conn)
        _renew(conn)
        todo = pending_sessions(conn)
        report.pending = len(todo)
        todo = todo[:most] if most is not None else todo
        if progress is not None:
            progress(0, len(todo))
        if not todo:  # nothing to encode: not even the model is loaded
            report.seconds = time.perf_counter() - started
            return report
        if limit is None:
            limit = bound(conn)
        encoder.model()  # loaded here, shared by forked workers
        tried = set(todo)
        try:
            while _encode(conn, path, build, todo, limit, workers, behind, progress, report) and behind:
                # Sessions a sync brought in meanwhile (a conversation going on): this stage's too, up to
                # `most`.
                room = None if most is None else most - len(tried)
                todo = [sess for sess in pending_sessions(conn) if sess not in tried][:room]
                if not todo:
                    break
                tried.update(todo)
        except _Rebuilt:
            report.skipped = "the index was rebuilt meanwhile; its sessions wait for the next stage"
        report.pending = len(pending_sessions(conn))
    finally:
        conn.close()
        _unlock(lock)
        if claim is not None:
            _unlock(claim)
    report.seconds = time.perf_counter() - started
    return report


def _encode(
    conn: sqlite3.Connection,
    path: Path,
    build: str | None,
    todo: list[int],
    limit: int,
    workers: int | None,
    behind: bool,
    progress: Progress | None,
    report: VectorReport,
) -> bool:
    """Encode and write the passages of the sessions ``todo``; false when a stage behind the queries
    stopped for a person's (:func:`encode_pending`)."""
    auto = None if len(todo) >= PARALLEL_FROM else 1
    going = True
    with _encoders(auto if workers is None else workers) as encode:
        ahead: deque[tuple[Batch, int, Any]] = deque()
        for batch, done in _batches(conn, todo, limit):
            if behind and claimed(path):  # a person's `trail index` takes over after what is under way
                report.skipped = "`trail index` took over"
                going = False
                break
            ahead.append((batch, done, encode([text for _, found in batch for _, text in found])))
            while ahead and (len(ahead) > 2 * MAX_WORKERS or ahead[0][2].ready()):
                _write(conn, *_result(ahead.popleft()), report, build)
                if progress is not None:
                    progress(report.sessions_seen, len(todo))
        while ahead:
            _write(conn, *_result(ahead.popleft()), report, build)
            if progress is not None:
                progress(report.sessions_seen, len(todo))
    return going


# Worker processes of a vector stage at most, and how much lower their scheduling priority is. Fewer
# sessions than PARALLEL_FROM are encoded here: starting the workers would cost more than they save.
MAX_WORKERS = 4
PARALLEL_FROM = 64
WORKER_NICENESS = 10


def _batches(conn: sqlite3.Connection, todo: list[int], limit: int) -> Iterator[tuple[Batch, int]]:
    """The sessions to encode in batches of about :data:`BATCH_PASSAGES` passages, each with how many
    sessions are done once it is."""
    batch: Batch = []
    size = 0
    for done, sess in enumerate(todo, 1):
        made = _session_passages(conn, sess, limit)
        batch.append((sess, made))
        size += len(made)
        if size >= BATCH_PASSAGES or done == len(todo):
            yield batch, done
            batch, size = [], 0


def _result(item: tuple[Batch, int, Any]) -> tuple[Batch, Any]:
    return item[0], item[2].get()


class _Done:
    """A result made in this process, with the interface of a pool's pending one."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def ready(self) -> bool:
        return True

    def get(self) -> Any:
        return self.value


@contextlib.contextmanager
def _encoders(workers: int | None) -> Iterator[Callable[[list[str]], Any]]:
    """Something that encodes texts in the background, giving a pending result (``ready()``, ``get()``):
    a pool of forked worker processes where there are cores for it and this process may fork (no other
    threads: a child could inherit a held lock), else this process. However the stage ends, the workers
    are terminated: what they were encoding is not written anyway."""
    cores = min(os.cpu_count() or 1, MAX_WORKERS) if workers is None else workers
    if cores < 2 or threading.active_count() > 1 or sys.platform != "linux":
        yield lambda texts: _Done(encoder.model().encode(texts))
        return
    import multiprocessing

    pool = multiprocessing.get_context("fork").Pool(cores, initializer=_worker_start)
    try:
        yield lambda texts: pool.apply_async(_worker_encode, (texts,))
    finally:
        pool.terminate()
        pool.join()


def _worker_start() -> None:
    """A worker leaves Ctrl-C to the stage (which ends it) and yields the CPU to queries."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):
        os.nice(WORKER_NICENESS)


def _worker_encode(texts: list[str]) -> Any:
    return encoder.model().encode(texts)


Batch = list[tuple[int, list[tuple[int, str]]]]  # sessions and their passages (doc, text)


class _Rebuilt(Exception):
    """The index was rebuilt since the stage read which sessions to encode: its ids name other rows now."""


# A session's ``encoded.passages`` below zero: its passages (``STALE - passages`` of them) were made by an
# earlier format and wait to be made again.
STALE = -1


def _renew(conn: sqlite3.Connection) -> None:
    """Passages made by an earlier :data:`schema.PASSAGES_FORMAT` (or before the index recorded one): every
    session pending again (its ``encoded`` count made :data:`STALE`), its passages kept and compared by
    queries until :func:`_write` replaces them."""
    if schema.passages_format_of(conn) == schema.PASSAGES_FORMAT:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute(f"UPDATE encoded SET passages = {STALE} - passages WHERE passages >= 0")
        made_by = (schema.PASSAGES_FORMAT,)
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('passages_format', ?)", made_by)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _build(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'build'").fetchone()
    return None if row is None else str(row[0])


def _write(
    conn: sqlite3.Connection, batch: Batch, vectors: Any, report: VectorReport, build: str | None
) -> None:
    """One batch's vectors, for the sessions that are still there (a sync may have replaced one since its
    docs were read: its new row has another id and waits for the next run), unless the index is another
    ``build`` than the one they were read from (a rebuild copied over it: the same ids are other sessions).
    """
    blobs = iter(quantize(vectors))
    conn.execute("BEGIN IMMEDIATE")
    try:
        if _build(conn) != build:
            raise _Rebuilt
        marks = ", ".join("?" for _ in batch)
        alive = {
            r[0]
            for r in conn.execute(
                f"SELECT id FROM sessions WHERE id IN ({marks})", [sess for sess, _ in batch]
            )
        }
        for sess, found in batch:
            rows = [(sess, doc, next(blobs)) for doc, _ in found]
            if sess not in alive:
                continue
            conn.execute("DELETE FROM passages WHERE sess = ?", (sess,))  # made by an earlier format
            conn.executemany("INSERT INTO passages (sess, doc, vec) VALUES (?, ?, ?)", rows)
            conn.execute("INSERT OR REPLACE INTO encoded (sess, passages) VALUES (?, ?)", (sess, len(rows)))
            report.sessions += 1
            report.passages += len(rows)
        report.sessions_seen += len(batch)
        conn.execute("UPDATE meta SET value = value + 1 WHERE key = 'passages_version'")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


# The lock files beside an index: who encodes its passages now, and a stage a person started, which the
# stage behind the queries yields to.
LOCK = ".vectors-lock"
CLAIM = ".vectors-claim"


def _lock(path: Path, wait: bool, suffix: str = LOCK) -> IO[str] | None:
    """A lock file of the vector stage beside the index; ``None`` when another process holds it."""
    handle = path.with_name(path.name + suffix).open("a")
    try:
        import fcntl
    except ImportError:  # Windows: no advisory lock; two stages at once only repeat work, never corrupt
        return handle
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except BlockingIOError:
        handle.close()
        return None
    return handle


# How long a stage a person started tries to claim the index before it says another person's holds it:
# every check whether a claim is held (:func:`claimed`: the stage behind the queries between its batches,
# `trail index`) holds the claim file for a moment, and a claim tried in that moment found it taken.
CLAIM_PATIENCE = 1.0


def _claim(path: Path, wait: bool) -> IO[str] | None:
    """The claim of a stage a person started (:func:`_lock` of :data:`CLAIM`), tried for
    :data:`CLAIM_PATIENCE` before another holder is believed (``wait``: waited for as long as it takes)."""
    if wait:
        return _lock(path, True, CLAIM)
    until = time.monotonic() + CLAIM_PATIENCE
    while (handle := _lock(path, False, CLAIM)) is None and time.monotonic() < until:
        time.sleep(0.02)
    return handle


def _unlock(handle: IO[str]) -> None:
    with contextlib.suppress(ImportError, OSError):
        import fcntl

        fcntl.flock(handle, fcntl.LOCK_UN)
    handle.close()


def held(path: Path, suffix: str = LOCK) -> bool:
    """Whether a process holds this lock file of the index at ``path`` now (told by trying it)."""
    handle = _lock(path, wait=False, suffix=suffix)
    if handle is None:
        return True
    _unlock(handle)
    return False


def claimed(path: Path) -> bool:
    """Whether a stage a person started wants the index's vector stage (:func:`encode_pending`)."""
    return held(path, CLAIM)


def counts(conn: sqlite3.Connection) -> tuple[int, int]:
    """(sessions with vectors, sessions in all). A session waiting to have its passages made again
    (:func:`_renew`) has vectors: its old ones."""
    row = conn.execute("SELECT (SELECT count(*) FROM encoded), (SELECT count(*) FROM sessions)").fetchone()
    return int(row[0]), int(row[1])


class Matrix:
    """The passage vectors a query compares against (a filter's sessions): unit float32 rows in sessions
    order, in blocks, and where each session's rows start.

    Immutable once made: a vector stage's new passages make another (:meth:`extended`) that shares these
    blocks, so a query of another thread still comparing against this one is never disturbed."""

    def __init__(self, rows: list[tuple[Any, ...]] | Iterator[list[tuple[Any, ...]]]) -> None:
        """From ``(session, doc, vector[, passage id])`` rows in sessions order: a list, or chunks of one,
        so a large index is never held as Python rows and floats at once."""
        self.sessions: list[int] = []
        self.blocks: list[Any] = []  # float32 arrays, a row a passage; their rows in order are the matrix
        self.base = 0  # blocks made by a full load; those after it came from extensions
        self.docs: Any = None
        self.starts: Any = None
        self.top = 0  # the largest passage id read (rows that carry it)
        self.rows = 0
        self._add([rows] if isinstance(rows, list) else rows, [], [])
        self.base = len(self.blocks)

    def _add(self, chunks: Iterable[list[tuple[Any, ...]]], docs: list[int], starts: list[int]) -> None:
        import numpy as np

        for part in chunks:
            if not part:
                continue
            # Unit float32 rows, converted once: a query is then one matrix-vector product, bound by
            # memory bandwidth, where converting int8 at every query cost three quarters of its time.
            dims = len(part[0][2])
            packed = np.frombuffer(b"".join(r[2] for r in part), dtype=np.int8).reshape(len(part), dims)
            floats = packed.astype(np.float32)
            norms = np.linalg.norm(floats, axis=1, keepdims=True)
            floats /= np.where(norms > 0, norms, 1.0)
            self.blocks.append(floats)
            for i, row in enumerate(part, start=self.rows):
                docs.append(row[1])
                if not self.sessions or self.sessions[-1] != row[0]:
                    self.sessions.append(row[0])
                    starts.append(i)
                if len(row) > 3 and row[3] > self.top:
                    self.top = row[3]
            self.rows += len(part)
        old_docs = [] if self.docs is None else [self.docs]
        old_starts = [] if self.starts is None else [self.starts]
        self.docs = np.concatenate([*old_docs, np.array(docs, dtype=np.int64)])
        self.starts = np.concatenate([*old_starts, np.array(starts, dtype=np.int64)])

    def extended(self, rows: list[tuple[Any, ...]]) -> Matrix | None:
        """This matrix with the passages ``rows`` (with their ids) of sessions it does not hold yet, as
        another matrix sharing its blocks; ``None`` when a row's session is here already (then only a full
        load says what the session has now)."""
        import numpy as np

        known = set(self.sessions)
        if any(row[0] in known for row in rows):
            return None
        grown = Matrix.__new__(Matrix)
        grown.sessions, grown.blocks, grown.base = list(self.sessions), list(self.blocks), self.base
        grown.docs, grown.starts, grown.top, grown.rows = self.docs, self.starts, self.top, self.rows
        grown._add([rows], [], [])
        if len(grown.blocks) - grown.base > MAX_EXTENSIONS:  # each block is a product a query: few of them
            grown.blocks[grown.base :] = [np.concatenate(grown.blocks[grown.base :])]
        return grown

    def best(self, query: Any) -> tuple[Any, Any]:
        """Each session's best cosine with the unit vector ``query``, and the row of that passage."""
        import numpy as np

        vector = np.asarray(query, dtype=np.float32)
        if not self.rows:
            return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int64)
        products = [block @ vector for block in self.blocks]
        similarity = products[0] if len(products) == 1 else np.concatenate(products)
        best = np.maximum.reduceat(similarity, self.starts)
        # The row of each session's best: the first row of its span that reaches its maximum.
        hit = similarity >= np.repeat(best, np.diff(np.append(self.starts, len(similarity))))
        positions = np.flatnonzero(hit)
        first = positions[np.searchsorted(positions, self.starts)]
        return best, first


# Blocks an extended matrix keeps apart before they are joined into one; and the most passages a vector
# stage may have added for the kept matrix to be extended (more are read in a full load).
MAX_EXTENSIONS = 8
MAX_EXTENSION_ROWS = CHUNK_ROWS

_MATRICES: dict[tuple[Any, ...], Matrix] = {}


def matrix(conn: sqlite3.Connection, where: str, params: list[Any]) -> Matrix:
    """The passage vectors of the sessions ``where`` selects (``s`` is ``sessions``), kept between queries
    of a long-lived process while the index's sessions and passages are the same (its ``build`` id, its
    ``sessions_version`` and ``passages_version``). When only the passages moved on (a vector stage at
    work: it only adds, a batch at a time), the kept matrix is extended by what was added, not read again
    (a full load of 40,000 passages takes 0.1-0.4 s, every batch of a stage behind the queries)."""
    key = (*schema.state_key(conn, "sessions_version", "passages_version"), where, tuple(params))
    kept = _MATRICES.get(key)
    if kept is not None:
        return kept
    join = f"FROM passages p JOIN sessions s ON s.id = p.sess WHERE {where}"
    select = f"SELECT p.sess, p.doc, p.vec, p.id {join}"
    made: Matrix | None = None
    for old_key, old in list(_MATRICES.items()):
        if _only_passages_moved(old_key, key):
            added = conn.execute(f"{select} AND p.id > ? ORDER BY p.sess, p.id", (*params, old.top))
            rows = added.fetchmany(MAX_EXTENSION_ROWS + 1)
            # Nothing gone meanwhile (a passage removed some other way than with its session): the count
            # is what was kept and what was added, else only a full load says what is there.
            if len(rows) <= MAX_EXTENSION_ROWS and _count(conn, where, join, params) == old.rows + len(rows):
                made = old.extended(rows)
    if made is None:
        _MATRICES.clear()  # the old one goes before the new one is made
        cursor = conn.execute(f"{select} ORDER BY p.sess, p.id", params)
        made = Matrix(iter(lambda: cursor.fetchmany(CHUNK_ROWS), []))
    _MATRICES.clear()
    _MATRICES[key] = made
    return made


def _count(conn: sqlite3.Connection, where: str, join: str, params: list[Any]) -> int:
    """How many passages :func:`matrix` reads for ``where``: with no filter, counted off the passages'
    own smallest b-tree (every passage has its session: a trigger takes them together)."""
    sql = "SELECT count(*) FROM passages" if where == "1" else f"SELECT count(*) {join}"
    return int(conn.execute(sql, params).fetchone()[0])


def _only_passages_moved(old: tuple[Any, ...], new: tuple[Any, ...]) -> bool:
    """Whether two :func:`matrix` keys are of the same database, build, sessions and filter, the passages
    aside: sessions are removed only with their passages (a trigger), and that moves ``sessions_version``,
    so the passages of the newer can only be those of the older and more."""
    (database, state, *rest), (database2, state2, *rest2) = old, new
    if database != database2 or rest != rest2:
        return False
    before, after = dict(state), dict(state2)
    before.pop("passages_version", None)
    after.pop("passages_version", None)
    return before == after
