"""Writing sessions into the index: their rows, their docs into the full-text indexes a batch at a time,
and the fingerprint that tells a session changed.

Shared by every source of sessions the index holds: the live stores (``sync.py``), the sessions recovered
from snapshots and diverts (``recovered.py``) and Hermes' memory and skills (``knowledge.py``); so none of
those imports another to write.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from hermes_trail.hermes import locate
from hermes_trail.index import semantic
from hermes_trail.index.filters import HAS_TOOLS
from hermes_trail.model import Stray, _Record

if TYPE_CHECKING:
    from hermes_trail.index.documents import Doc
    from hermes_trail.model import Session


# Written out as the model's classes are (``model._Record``): what ``@dataclass`` made, without generating
# and compiling its methods at every start of a ``trail`` command that syncs or searches.
class SyncReport(_Record):
    """What a sync did."""

    _fields: ClassVar[tuple[str, ...]] = (
        "stores",
        "changed_stores",
        "sessions_indexed",
        "sessions_removed",
        "messages_read",
        "docs",
        "seconds",
        "rebuilt",
        "strays",
        "state",
        "awaiting",
        "reclaimed",
    )
    __slots__ = _fields

    stores: int
    changed_stores: int
    sessions_indexed: int
    sessions_removed: int
    messages_read: int
    docs: int
    seconds: float
    rebuilt: str | None
    strays: list[Stray]
    state: str | None  # the index's sessions as the sync left them: its build id and sessions_version
    awaiting: (
        int | None
    )  # sessions whose passages a vector stage has still to make (schema.awaiting_passages)
    reclaimed: int  # bytes of free pages the sync gave back to the disk (sync.reclaim)

    def __init__(
        self,
        stores: int = 0,
        changed_stores: int = 0,
        sessions_indexed: int = 0,
        sessions_removed: int = 0,
        messages_read: int = 0,
        docs: int = 0,
        seconds: float = 0.0,
        rebuilt: str | None = None,
        strays: list[Stray] | None = None,
        state: str | None = None,
        awaiting: int | None = None,
        reclaimed: int = 0,
    ) -> None:
        self.stores = stores
        self.changed_stores = changed_stores
        self.sessions_indexed = sessions_indexed
        self.sessions_removed = sessions_removed
        self.messages_read = messages_read
        self.docs = docs
        self.seconds = seconds
        self.rebuilt = rebuilt
        self.strays = [] if strays is None else strays
        self.state = state
        self.awaiting = awaiting
        self.reclaimed = reclaimed


def file_identity(path: Path) -> str:
    """A file's size and mtime: what tells cheaply that it changed ("-" when it is not there)."""
    try:
        st = path.stat()
    except OSError:
        return "-"
    return f"{st.st_size}:{st.st_mtime_ns}"


def divert_identity(home: str | Path | None, session_id: str) -> str:
    """What tells that a session's divert file changed (empty when it has none)."""
    path = locate.divert_file(home, session_id)
    return file_identity(path) if path is not None else ""


def fingerprint(row: dict[str, Any], divert: str = "") -> str:
    """The earlier form of a session's fingerprint: a digest of its ``sessions`` row (a dict, without the
    system prompt) made in Python. A sync now digests the row's mark (``changes.row_digest``) and compares an
    indexed fingerprint of this form this way once, to replace it; a recovered session, which no sync
    compares, keeps it."""
    digest = hashlib.blake2b(digest_size=12)
    # The values in the order of their column names (the names themselves are left out, which halves the
    # cost).
    digest.update(repr([row[name] for name in sorted(row)]).encode(errors="replace"))
    if divert:  # and its divert file's identity, when it has one (:func:`divert_identity`)
        digest.update(divert.encode())
    return digest.hexdigest()


# What joins a fingerprint given in place of one of the earlier form (the session unchanged) to that one,
# kept until the session changes: a shared index a push wrote before holds it (``fleet/push.py``), and
# would otherwise have every session sent again.
WAS = "|"


def fingerprint_now(stored: str) -> str:
    """A stored fingerprint without the earlier one it may carry (:data:`WAS`)."""
    return stored.partition(WAS)[0]


# Each full-text index over ``docs``, its column and what it is given: the word index a doc's ``words`` when
# it has them (its text as the word index reads it, ``Doc.words``), else its text; a doc whose value is
# NULL is not in that index. A doc is deleted from an index with the value it was given.
FTS_INDEXES = (
    ("docs_fts", "text", "coalesce(words, text)"),
    ("docs_tri", "key", "key"),
    ("docs_cjk", "cjk", "cjk"),
)


# The meta row counting the docs deleted since the word indexes were last merged whole.
DOCS_DELETED = "docs_deleted"


def read_docs_again(conn: sqlite3.Connection) -> int:
    """Give the docs with characters a later reading of a text added (``cjk.READ_AGAIN``: Thai, Lao,
    Myanmar and Khmer runs; letters such as Turkish ı, read as the i typed for it) their bigrams and their
    words as the word indexes read them now, once (``meta`` ``reading``); the number of docs read again.
    An index made before holds no bigram of them, so "ส้มตำ" inside a sentence stayed missing there, and
    "baglanti" found no "bağlantı". Its bigram index is made again with marks kept in its tokens
    (``schema.BIGRAM_INDEX``) from the docs that have bigrams, found with those to read again in one pass
    over the docs: a second at a million messages, once, where a rebuild would read every session again
    and make every vector again."""
    from hermes_trail.index import cjk
    from hermes_trail.index.schema import BIGRAM_INDEX, READING

    found = conn.execute("SELECT value FROM meta WHERE key = ?", (READING,)).fetchone()
    held = int(found[0]) if found is not None else 1
    if held >= cjk.READING:
        return 0
    from hermes_trail.index.documents import words_of  # only now: it imports dataclasses (a command's start)

    added = re.compile(
        "[" + "".join(cjk.READ_AGAIN[version] for version in range(held + 1, cjk.READING + 1)) + "]"
    )
    # In Python, not a GLOB of the characters: SQLite's tries the class at each character of every text
    # (21 s against half a second for the 850,000 docs of a million messages).
    conn.create_function(
        "trail_holds_added",
        1,
        lambda text: not text.isascii() and added.search(text) is not None,
        deterministic=True,
    )
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.execute("DROP TABLE docs_cjk")
        conn.execute(BIGRAM_INDEX)
        read = 0
        rows = conn.execute(
            "SELECT id, text, words, cjk FROM docs WHERE cjk IS NOT NULL OR trail_holds_added(text)"
        )
        for doc, text, words, grams in rows.fetchall():
            now = words_of(text), cjk.index_text(text)
            if now != (words, grams):
                # The failed commands' word index follows by its trigger on docs.
                was = (doc, words or text)
                conn.execute("INSERT INTO docs_fts (docs_fts, rowid, text) VALUES ('delete', ?, ?)", was)
                conn.execute("UPDATE docs SET words = ?, cjk = ? WHERE id = ?", (*now, doc))
                conn.execute("INSERT INTO docs_fts (rowid, text) VALUES (?, ?)", (doc, now[0] or text))
                read += 1
            if now[1] is not None:
                conn.execute("INSERT INTO docs_cjk (rowid, cjk) VALUES (?, ?)", (doc, now[1]))
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (READING, cjk.READING))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return read


def delete_session(conn: sqlite3.Connection, sess: int) -> None:
    for table, column, given in FTS_INDEXES:
        conn.execute(
            f"INSERT INTO {table} ({table}, rowid, {column}) "
            f"SELECT 'delete', id, {given} FROM docs WHERE sess = ? AND {column} IS NOT NULL",
            (sess,),
        )
    deleted = conn.execute("DELETE FROM docs WHERE sess = ?", (sess,)).rowcount
    conn.execute("DELETE FROM sessions WHERE id = ?", (sess,))
    if deleted > 0:  # the word indexes keep them until their segments merge (sync.reclaim)
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = value + excluded.value",
            (DOCS_DELETED, deleted),
        )


def _gist(session: Session, docs: list[Doc]) -> bytes | None:
    """The session's gist: what the person asked (its live prompts, redacted) and its title."""
    from hermes_trail.redact import redact

    if not semantic.can_gist():
        return None
    prompts = [d.text for d in docs if d.kind == "prompt" and not d.rewound]
    return semantic.gist_blob([redact(session.title or ""), *prompts])


# A session made ready to write: its gist and its ``docs`` rows (the first column is its ``sessions.id``).
# It is made where the session is decoded, in a worker process on a big read, so the writer only writes.
Prepared = tuple[bytes | None, list[tuple[Any, ...]]]


def prepare(session: Session, sess: int) -> Prepared:
    """The gist and doc rows of a loaded session that will be written as ``sessions.id`` ``sess``."""
    from hermes_trail.index.documents import session_docs

    docs = session_docs(session)
    return _gist(session, docs), doc_rows(sess, docs)


def _session_row(
    session: Session, store_key: str, sess: int, gist: bytes | None = None, digest: str | None = None
) -> tuple[Any, ...]:
    from hermes_trail.redact import redact

    root = session.chain[0] if session.chain else session.id
    started = session.started_at.timestamp() if session.started_at else None
    last = session.last_activity_at.timestamp() if session.last_activity_at else None
    return (
        sess,
        store_key,
        session.id,
        session.ref,
        session.profile,
        session.project,
        session.source,
        session.kind,
        session.relation,
        root,
        redact(session.title) if session.title else None,
        session.model,
        started,
        last,
        digest or fingerprint(session.raw, divert_identity(session.store.home, session.id)),
        gist,
    )


def doc_rows(sess: int, docs: Iterable[Doc]) -> list[tuple[Any, ...]]:
    return [
        (
            sess,
            d.row,
            d.part,
            d.role,
            d.kind,
            d.tool,
            d.time,
            d.exit_code,
            d.path,
            d.moved_to,
            d.action,
            d.added,
            d.removed,
            None if d.applied is None else int(d.applied),
            d.command,
            int(d.rewound),
            int(d.archived),
            len(d.text),
            d.text,
            d.key,
            d.cjk,
            d.words,
        )
        for d in docs
    ]


_INSERT_SESSION = (
    "INSERT INTO sessions (id, store, session_id, ref, profile, project, source, kind, relation, root, "
    "title, model, started, last_activity, fingerprint, gist) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
_INSERT_DOC = (
    "INSERT INTO docs (sess, row, part, role, kind, tool, time, exit_code, path, moved_to, action, added, "
    "removed, applied, command, rewound, archived, chars, text, key, cjk, words) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)

_TOOL = 5  # the place of ``tool`` in a row of :data:`_INSERT_DOC`

# New docs go into the full-text indexes this many at a time: while the workers decode what comes next,
# so a first build has no long full-text pass of its own at the end.
FTS_BATCH = 5_000


class Writer:
    """Writes one store's changes: the rows of each session, and the new docs into the full-text indexes
    a batch at a time."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.indexed_upto = self._top()  # every doc up to this id is in the full-text indexes
        self.pending = 0
        # The tools named so far (``schema.LATER_PARTS``); None: the index has no such table yet (a sync
        # that found it busy), whose making reads every doc's tool then.
        self.tools: set[str] | None = None
        if conn.execute(HAS_TOOLS).fetchone():
            self.tools = {row[0] for row in conn.execute("SELECT name FROM tools")}

    def number(self, sessions: Iterable[Session]) -> list[tuple[Session, int]]:
        """Each session with the ``sessions.id`` it will be written as, given out before it is read so
        its rows can be made where it is read."""
        base = self.next_id()
        return [(session, base + n) for n, session in enumerate(sessions)]

    def next_id(self) -> int:
        """The ``sessions.id`` the next session written gets."""
        return int(self.conn.execute("SELECT coalesce(max(id), 0) + 1 FROM sessions").fetchone()[0])

    def _top(self) -> int:
        return int(self.conn.execute("SELECT coalesce(max(id), 0) FROM docs").fetchone()[0])

    def replace(
        self,
        store_key: str,
        session: Session,
        old: int | None,
        sess: int,
        prepared: Prepared,
        digest: str | None = None,
    ) -> int:
        """Write ``session`` in place of ``old``, with ``digest`` (``changes.row_digest``, made when the sync
        compared its row) as its fingerprint, else one of the earlier form."""
        gist, rows = prepared
        return self.write(old, _session_row(session, store_key, sess, gist, digest), rows)

    def write(self, old: int | None, session_row: tuple[Any, ...], rows: list[tuple[Any, ...]]) -> int:
        """One session's rows in place of ``old`` (its ``sessions.id``, when it was indexed): the session
        row, then its docs, put into the full-text indexes a batch at a time. Returns the docs written."""
        if old is not None:
            delete_session(self.conn, old)  # its docs were indexed before this sync: none is pending
            # With nothing pending, the deleted docs may have held the highest ids, which are then given
            # out again; with docs pending, one of those holds the highest id and nothing is given again.
            self.indexed_upto = min(self.indexed_upto, self._top())
        self.conn.execute(_INSERT_SESSION, session_row)
        if rows:
            self.conn.executemany(_INSERT_DOC, rows)
            self.pending += len(rows)
            self._name_tools(rows)
            if self.pending >= FTS_BATCH:
                self.flush()
        return len(rows)

    def _name_tools(self, rows: list[tuple[Any, ...]]) -> None:
        """Keep the names of the tools ``rows`` (:data:`_INSERT_DOC`'s) used that the index did not know."""
        if self.tools is None:
            return
        new = {row[_TOOL] for row in rows if row[_TOOL]} - self.tools
        if new:
            self.conn.executemany("INSERT OR IGNORE INTO tools (name) VALUES (?)", [(name,) for name in new])
            self.tools |= new

    def flush(self) -> None:
        """Put the docs written since the last flush into the full-text indexes."""
        if not self.pending:
            return
        top = self._top()
        for table, column, given in FTS_INDEXES:
            self.conn.execute(
                f"INSERT INTO {table} (rowid, {column}) "
                f"SELECT id, {given} FROM docs WHERE id > ? AND id <= ? AND {column} IS NOT NULL",
                (self.indexed_upto, top),
            )
        self.indexed_upto, self.pending = top, 0
