"""What fixed this error before: past commands that failed the same way, and what was run (and changed) after
them in the same conversation that then succeeded, ranked by how often that worked.

**The error.** What a person pastes is usually long: a traceback, paths, line numbers, addresses. Its
words are read the way the word index reads text (letters and digits; an underscore splits), after
dropping what differs between two occurrences of the same error: URLs, paths (a path keeps its file name),
UUIDs, hex addresses and hashes, numbers and anything starting with a digit (``60s``, ``3rd``), the
frames of a Python traceback (with the user's source lines under them) or a JavaScript stack, and a few
English function words. What is left is weighed by rarity: each term's
document frequency is counted in the word index (an FTS5 count, stopped at :data:`COUNTED`, so a common
word costs little, and a word counts as the index stems it: ``modules`` as ``module``). Terms no doc has
cannot help and are dropped; the :data:`MAX_TERMS` rarest are the error's distinctive terms, each weighted
by BM25's idf (a word in half the docs weighs next to nothing; one in :data:`DF_CAP` docs or more, as if
the cap were its count). A word counted to COUNTED is rarer than none of those under it, so it is only
looked at when fewer than MAX_TERMS are: it is then ranked by an estimate from both ends of the index
(:func:`_estimate`), and counted up to DF_CAP if chosen. What a process learns of the common words is
remembered per index (:data:`REMEMBERED`). No vocabulary table is needed, so the connection is only read.

**Matching failures.** A failure is a ``terminal`` command that ran and did not exit 0 (``kind =
'command'``, an exit code that is not 0 nor null: failed, killed and timed-out runs; a blocked command
never ran), not rewound, of the project when one is given, holding at least one of the error's rare terms
(those under the cap; when it has none, all of its common ones). Each is scored by how much of the error
it shows: the share of the distinctive terms' weight its command, output and error contain. A failure
must show at least :data:`MIN_COVERAGE` of it, two terms when the error has two words (one common word
of a long error is no match, even where it is the only one the index knows), and at least
:data:`RELATIVE` of what the best match shows, so a ``No module named 'numpy'`` does not stand in for
``No module named 'requests'`` when that very error is on record (and ``requests`` is the rarer word, as
in a real history), yet is taken when nothing closer is. Ties are broken by FTS5's BM25 over the rare
terms, then recency. (The share, not BM25, decides: BM25 rewards a short output repeating one word,
while the same error is the one showing the same words.)

The failures are read from their own word index (``fails_fts`` and ``fails``, a few percent of the docs),
and never more than :data:`WINDOW` of them for a term: a term in more failures than that (``failed``,
``error``; or every word of an error of common words) is looked for among its newest failures and among
the failures holding the error's rarer terms, at any age (:func:`_matching`). So the reading is bounded
on any history, and every failure read is scored on all of the error's terms it shows.

**What followed.** After each of the best :data:`MAX_FAILURES` matching failures, its conversation (the
same store and continuation root, in ``messages.id`` order, which is insertion order across a chain) is
read forward, command by command (from ``docs_steps``, a few at a time, no further than needed), until
the first of: the failing command succeeding again (the fix worked; that run confirms, it is not a
fix itself), the next typed user prompt (what the person asks next is another step of the work, or a
change of plan whose commands belong to it), or :data:`FOLLOW` commands. Within that window every command
that exited 0 is a candidate fix, grouped across conversations by its normalized text
(:func:`hermes_trail.index.how.normalize_command`), except commands that only look around (``ls``,
``cat``, ``git status``, ``cd``: every segment of the command in :data:`LOOKING`), which follow nearly
every failure and fix none.

**What was changed.** An agent's usual fix is no command: the test fails, it edits the code, the same test
passes. The files edited (live, applied or of unknown outcome) in the failure's session between the failure
and the failing command passing are the change that fixed it (``FixReport.edits``, counted by
conversation as commands are; to the session's end when it passed in a continuation); a command that
worked names the files changed before it (``FixExample.edited``). Read through ``docs_sess``, once a window
that has either, a few rows each.

**Ranking.** A fix ranks by the number of distinct conversations in which it ran after a matching failure
and succeeded (``worked``); then by those in which the failing command then succeeded (``confirmed``),
then by fewer conversations where it was tried and failed, then by the best match of the failures it
followed, then recency. One conversation stuck in a loop is one piece of evidence.
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache, partial
from typing import Any

from hermes_trail.index import cjk, schema
from hermes_trail.index.how import _stem, fts_string, normalize_command, project_clause

# Error terms searched for, the rarest; each more is one more query and rarely changes the matches.
MAX_TERMS = 8
# Unique words of the error whose frequency is counted (the last ones first: an error ends in its message).
MAX_WORDS = 60
# Document frequencies are counted up to this; a word in more docs is common however many more.
DF_CAP = 20_000
# Each word's docs are counted one by one up to this many; a word in more is ranked by an estimate
# (:func:`_estimate`): one dense enough at both ends of the index for COMMON docs counts as DF_CAP.
COUNTED = 256
COMMON = DF_CAP * 5 // 4
# A failure must show this share of the error's weighted terms, and this share of the best failure's.
MIN_COVERAGE = 0.5
RELATIVE = 0.85
# Failures read per term at most, the newest: an error of common words only is looked for among this many
# of the newest failures holding them all, and a term in more failures among its newest this many and
# among the failures holding the error's rarer terms (:func:`_matching`).
WINDOW = 500
# Failures whose conversations are read for fixes (the best by coverage, the newest first among equals),
# the same ones given a BM25 score; BM25 is computed over at most BM25_ROWS failures of their rowid range.
MAX_FAILURES = 200
SCORED = MAX_FAILURES
BM25_ROWS = 5 * SCORED
# Commands read after a failure at most.
FOLLOW = 8
# Docs after each failure whose steps are read for all the failures in one statement (a window usually
# ends within them); a window still open after them is read on from its session, a few steps at a time.
AHEAD = 8
# Examples kept per fix.
EXAMPLES = 3
# Programs that look around and change nothing: a command made only of these is no fix.
LOOKING = frozenset(
    {
        "ls",
        "ll",
        "la",
        "dir",
        "cat",
        "less",
        "more",
        "head",
        "tail",
        "pwd",
        "echo",
        "printf",
        "which",
        "whereis",
        "type",
        "file",
        "stat",
        "wc",
        "grep",
        "egrep",
        "rg",
        "ag",
        "find",
        "fd",
        "tree",
        "du",
        "df",
        "env",
        "printenv",
        "whoami",
        "id",
        "date",
        "uname",
        "true",
        "cd",
        "clear",
        "history",
        "sleep",
    }
)
LOOKING_GIT = frozenset({"status", "diff", "log", "show", "blame"})
_STOPWORDS = frozenset(
    {
        "the",
        "a",
        "an",
        "of",
        "to",
        "in",
        "on",
        "at",
        "for",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "it",
        "its",
        "this",
        "that",
        "with",
        "as",
        "by",
        "from",
        "but",
        "if",
        "then",
        "than",
        "so",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "you",
        "your",
        "we",
        "our",
        "please",
        "see",
        "above",
        "traceback",
        "most",
        "recent",
        "call",
        "last",
    }
)

# What differs between two occurrences of one error, in the order it is removed.
# A Python frame (its header and the indented source and caret lines under it: the user's own code, which
# another occurrence of the error does not share) and a JavaScript one.
_FRAME = re.compile(
    r'^[ \t]*File "[^"\n]*", line \d+[^\n]*(?:\n[ \t]+(?![ \t]*File ")[^\n]*)*'
    r"|^[ \t]+at [^\n]*\([^\n]*:\d+(?::\d+)?\)[ \t]*$",
    re.M,
)
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.I)
_UUID = re.compile(r"\b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b", re.I)
_HEX = re.compile(r"\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b", re.I)
# A path: at least one separator between path characters; it is replaced by its file name.
_PATH = re.compile(
    r"(?:[A-Za-z]:)?[~.]{0,2}(?:[\\/][\w.@+~-]+)+[\\/]?|\b[\w.@+~-]+(?:[\\/][\w.@+~-]+)+[\\/]?"
)
_TOKEN = re.compile(r"[^\W_]+")
_SEGMENTS = re.compile(r"&&|\|\||[;|\n]")
_ASSIGNMENT = re.compile(r"\A[A-Za-z_][A-Za-z0-9_]*=\S*\Z")


@dataclass(frozen=True, slots=True)
class Term:
    """A distinctive term of the error: the word as it appears (lowercased), the docs holding it (counted up
    to :data:`DF_CAP`) and its weight (BM25's idf)."""

    word: str
    docs: int
    weight: float


@dataclass(slots=True)
class Failure:
    """A past command whose failure matches the error.

    :param coverage: the share (0 to 1) of the error's weighted terms its command, output and error show;
        ``matched`` names them.
    :param bm25: FTS5's BM25 over the error's rare terms (lower is better), the tie-break.
    """

    doc: int
    store: str
    session_id: str
    ref: str
    title: str | None
    project: str
    root: str
    row: int
    part: int
    time: float | None
    command: str
    exit_code: int
    coverage: float
    bm25: float
    matched: list[str] = field(default_factory=list)
    # What the agent said last in the turn the command failed in (before the next prompt), cut at
    # :data:`SAID_CHARS`: often the fix no command shows ("reset the role's password with ALTER ROLE").
    said: str | None = None


@dataclass(frozen=True, slots=True)
class FixExample:
    """One time a fix followed a matching failure and succeeded.

    :param time: when the fix ran; ``command`` is it exactly as typed.
    :param failed_command: the failure it followed, its ``exit_code`` and ``failed_time``.
    :param confirmed: the failing command succeeded after it, in the same window.
    """

    ref: str
    store: str
    session_id: str
    title: str | None
    time: float | None
    command: str
    failed_command: str
    exit_code: int
    failed_time: float | None
    confirmed: bool
    edited: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class EditExample:
    """One time a file was changed after a matching failure and the failing command then passed.

    :param time: when the edit was made; ``path`` is the file as Hermes resolved it.
    :param failed_command: the failure it followed, its ``exit_code`` and ``failed_time``;
        ``passed_time``: when the failing command then passed.
    :param change: the first line it changed, ``- removed`` and ``+ added`` (:func:`change_of`).
    """

    ref: str
    store: str
    session_id: str
    title: str | None
    time: float | None
    path: str
    failed_command: str
    exit_code: int
    failed_time: float | None
    passed_time: float | None
    change: str = ""


@dataclass(slots=True)
class EditFix:
    """A file changed between matching failures and the failing command passing: the change that fixed it
    (an agent's usual fix is an edit, then the same command again, which no command in between tells).

    :param worked: distinct conversations where it was changed so.
    :param last_time: when it last was; ``examples`` the latest :data:`EXAMPLES`, newest first.
    """

    path: str
    worked: int
    last_time: float | None
    examples: list[EditExample] = field(default_factory=list)


@dataclass(slots=True)
class Fix:
    """A command that followed matching failures and succeeded, with how often.

    :param command: the normalized command (what fixes are grouped by).
    :param worked: distinct conversations where it ran after a matching failure and exited 0.
    :param confirmed: of those, the conversations where the failing command then succeeded.
    :param tried: distinct conversations where it ran after a matching failure at all; ``tried - worked``
        is where it only ever failed.
    :param last_time: when it last worked.
    :param examples: the latest :data:`EXAMPLES` times it worked, newest first.
    """

    command: str
    worked: int
    confirmed: int
    tried: int
    best_coverage: float
    last_time: float | None
    examples: list[FixExample] = field(default_factory=list)


@dataclass(slots=True)
class FixReport:
    """What :func:`find_fixes` found.

    :param terms: the error's distinctive terms, rarest first (empty: nothing in it could be searched).
    :param failures: the matching failures, best first, at most ``limit``.
    :param failures_total: how many failures matched; ``conversations`` how many conversations they are in.
    :param fixes: the fixes, best first, at most ``limit``.
    :param spelled: when nothing failed so as the error was typed, each of its words typed wrong (a word no
        turn has, one slip from one that many have) with the word it was looked for as
        (:func:`respelled_fixes`).
    :param edits: the files changed between a matching failure and the failing command passing, most
        often first, at most ``limit``.
    :param by_meaning: the failures are not the error's words but the conversations nearest it in meaning
        (:func:`by_meaning`).
    :param missing: the error's words no doc of the index has (a module, a host, a name the history never
        saw), so the failures are of errors like it, not of it: "No module named 'requests'" found the
        failure of ``yaml``'s, and its ``pip install pyyaml``, and did not say so.
    """

    error: str
    terms: list[Term]
    failures: list[Failure]
    failures_total: int
    conversations: int
    fixes: list[Fix]
    spelled: dict[str, list[str]] = field(default_factory=dict)
    edits: list[EditFix] = field(default_factory=list)
    # Nothing failed with the error's words: the failures are those of the conversations nearest it in
    # meaning (:func:`by_meaning`).
    by_meaning: bool = False
    missing: list[str] = field(default_factory=list)


def _error_words(error: str) -> list[str]:
    """The error's candidate words, lowercased, unique, the last occurrence first, at most
    :data:`MAX_WORDS`. Read as the word index reads a text: a word inside a run of Chinese or Japanese is
    a word ("无法连接Redis服务器")."""
    text = _FRAME.sub(" ", cjk.spaced(error))
    text = _URL.sub(" ", text)
    text = _UUID.sub(" ", text)
    text = _HEX.sub(" ", text)
    text = _PATH.sub(lambda m: " " + re.split(r"[\\/]", m.group().rstrip("/\\"))[-1] + " ", text)
    words: dict[str, None] = {}
    for token in reversed(_TOKEN.findall(text)):
        word = token.lower()
        if len(word) < 2 or word[0].isdigit() or word in _STOPWORDS or word in words:
            continue
        words[word] = None
        if len(words) >= MAX_WORDS:
            break
    return list(words)


def _same_stem(a: str, b: str) -> bool:
    common = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return common >= 3 and common >= max(len(a), len(b)) - 3


def _counted(conn: sqlite3.Connection, word: str, cap: int) -> tuple[int, int | None]:
    """The docs holding ``word`` counted up to ``cap``, and the rowid of the last one counted."""
    n, last = conn.execute(
        "SELECT count(*), max(rowid) FROM (SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?)",
        (fts_string(word), cap),
    ).fetchone()
    return int(n), last


def _estimate(conn: sqlite3.Connection, word: str, last: int, ids: tuple[int, int]) -> tuple[int, bool]:
    """How many docs hold a word counted to :data:`COUNTED` (``last``: the rowid of the last one counted;
    ``ids``: the lowest and highest doc id), and whether that is final.

    Counting a common word walks its posting list (2 ms to the cap of 20,000; sixty words would be the
    whole budget), so it is estimated instead, from how densely it fills both ends of the index: its
    COUNTED oldest docs span ``reach`` rowids, and the newest ``reach`` rowids are counted (up to COUNTED)
    too. Dense enough at both ends for :data:`COMMON` docs or more, it counts as :data:`DF_CAP`, final.
    Otherwise the lower of the two ends' estimates is its estimate (a word bunched at the old end, the
    first sessions' subject, is not taken for common): good enough to rank it, and a word chosen by it is
    counted. (Both ends are read upwards: FTS5 walks a posting list backwards several times slower.)"""
    lo, hi = ids
    span = max(1, hi - lo + 1)
    reach = max(1, last - lo + 1)
    newest = int(
        conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? AND rowid > ? LIMIT ?)",
            (fts_string(word), hi - reach, COUNTED),
        ).fetchone()[0]
    )
    oldest_estimate, newest_estimate = COUNTED * span // reach, newest * span // reach
    if min(oldest_estimate, newest_estimate) >= COMMON:
        return DF_CAP, True
    return max(COUNTED, min(DF_CAP, oldest_estimate, newest_estimate)), False


def _count(conn: sqlite3.Connection, word: str) -> int:
    """The docs holding ``word``, counted up to :data:`DF_CAP`."""
    return int(
        conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?)",
            (fts_string(word), DF_CAP),
        ).fetchone()[0]
    )


def _rarest(counted: list[tuple[str, int]], words: list[str]) -> list[tuple[str, int]]:
    """The :data:`MAX_TERMS` rarest words, one of two spellings the stemmer folds together (``module``,
    ``modules``; ``failed``, ``failing``: they count the same docs and differ only in their endings). At
    equal counts the longer first, then the one nearer the end of the error (first in ``words``)."""
    place = {word: i for i, word in enumerate(words)}
    kept: list[tuple[str, int]] = []
    for word, n in sorted(counted, key=lambda wn: (wn[1], -len(wn[0]), place.get(wn[0], 0))):
        if any(n == m and _same_stem(word, k) for k, m in kept):
            continue
        kept.append((word, n))
        if len(kept) == MAX_TERMS:
            break
    return kept


# What this process remembers of the words of an index counted to COUNTED or more (common words): from one
# error to the next they are the same (error, failed, not, found), and each is one or two FTS5 queries of
# fixed cost (a term is looked up in every segment). Per index (its file and build), forgotten when its docs
# move by more than FORGET or REMEMBERED words are held. Rare words are always counted: they are what
# names an error, and their counts move.
REMEMBERED = 20_000
FORGET = 0.05
# word -> (rowid of the last doc of the first COUNTED, what it is ranked by (None: not yet), its count
# up to DF_CAP (None: not counted))
_Memory = dict[str, tuple[int, int | None, int | None]]
_memories: dict[tuple[object, ...], tuple[int, _Memory]] = {}
_memories_lock = threading.Lock()


def _memory(conn: sqlite3.Connection, total: int) -> _Memory:
    """This process's memory of the index's common words (:data:`REMEMBERED`)."""
    key = (schema.state_key(conn), COUNTED, DF_CAP)
    with _memories_lock:
        found = _memories.get(key)
        if found is None or abs(total - found[0]) > found[0] * FORGET or len(found[1]) > REMEMBERED:
            if len(_memories) >= 4:
                _memories.clear()
            found = _memories[key] = (total, {})
        return found[1]


def forget() -> None:
    """Forget what this process remembers of every index's common words (benchmarks time a first sight)."""
    with _memories_lock:
        _memories.clear()


def distinctive_terms(
    conn: sqlite3.Connection, error: str, words: list[str] | None = None, missing: list[str] | None = None
) -> list[Term]:
    """The error's distinctive terms, rarest first, as this module's docstring chooses them (``words``:
    :func:`_error_words` of it, when the caller has them; ``missing`` gets the words no doc has).

    Each word's docs are counted up to :data:`COUNTED` (one short FTS5 query). A word in more is in more
    docs than any of those, so its count matters only when fewer than :data:`MAX_TERMS` are rarer: then
    the rarest are chosen by estimates (:func:`_estimate`, the same whatever this process remembers),
    and the chosen are counted (up to :data:`DF_CAP`) unless the estimate is the cap itself."""
    total = schema.doc_total(conn)
    if total == 0:
        return []
    words = _error_words(error) if words is None else words
    memory = _memory(conn, total)
    cap = min(COUNTED, DF_CAP)
    rare: list[tuple[str, int]] = []
    many: list[str] = []
    for word in words:
        if word in memory:
            many.append(word)
            continue
        n, last = _counted(conn, word, cap)
        if n == 0 and missing is not None:
            missing.append(word)
        if 0 < n < cap:
            rare.append((word, n))
        elif n and last is not None:
            memory[word] = (last, None, None)
            many.append(word)
    chosen = _rarest(rare, words)
    if len(chosen) < MAX_TERMS and many:
        ids: tuple[int, int] | None = None
        ranked = []
        for word in many:
            last, rank, count = memory[word]
            if rank is None and cap == DF_CAP:  # counted to the cap itself
                rank = count = DF_CAP
            elif rank is None:
                if ids is None:
                    lo = int(conn.execute("SELECT min(id) FROM docs").fetchone()[0] or 0)
                    ids = (lo, int(conn.execute("SELECT max(id) FROM docs").fetchone()[0] or 0))
                rank, final = _estimate(conn, word, last, ids)
                count = rank if final else None
            memory[word] = (last, rank, count)
            ranked.append((word, rank))
        counts = dict(rare)
        chosen = []
        for word, n in _rarest(rare + ranked, words):
            if word not in counts:
                last, rank, count = memory[word]
                if count is None:
                    count = _count(conn, word)
                    memory[word] = (last, rank, count)
                n = count
            chosen.append((word, n))
        place = {word: i for i, word in enumerate(words)}
        chosen.sort(key=lambda wn: (wn[1], -len(wn[0]), place[wn[0]]))

    def idf(n: int) -> float:
        return math.log((total - n + 0.5) / (n + 0.5) + 1.0)

    return [Term(w, n, idf(n)) for w, n in chosen]


_FAILURE_COLUMNS = (
    "f.id, s.store, s.session_id, s.ref, s.title, s.project, s.root, f.row, f.part, f.time, f.command, "
    "f.exit_code, f.sess"
)
# Doc ids bound into one statement at most (SQLite before 3.32 allows 999 parameters).
_CHUNK = 500


def _holding(
    conn: sqlite3.Connection, expression: str, project: str | None, *, floor: int = 0, limit: int = -1
) -> list[int]:
    """The failures (doc ids, newest first) matching ``expression`` in ``fails_fts``, of ``project``'s
    sessions when given, from doc ``floor`` on, at most ``limit`` (-1: all)."""
    clause, params = project_clause("s.project", project)
    if params:
        # CROSS JOIN keeps the full-text match the outer loop, in its own (rowid) order.
        sql = (
            "SELECT m.rowid FROM fails_fts m CROSS JOIN fails f ON f.id = m.rowid CROSS JOIN sessions s "
            f"ON s.id = f.sess WHERE fails_fts MATCH ? AND m.rowid >= ? AND {clause} "
            "ORDER BY m.rowid DESC LIMIT ?"
        )
    else:
        sql = "SELECT rowid FROM fails_fts WHERE fails_fts MATCH ? AND rowid >= ? ORDER BY rowid DESC LIMIT ?"
    return [doc for (doc,) in conn.execute(sql, (expression, floor, *params, limit))]


def _matching(conn: sqlite3.Connection, terms: list[Term], project: str | None) -> dict[int, list[Term]]:
    """Failed commands holding the terms (doc ids), and which terms each holds.

    Only ``fails_fts`` is read: the failures, a few percent of the docs. A common word (in :data:`DF_CAP`
    docs or more) is only looked for among failures holding a rarer term (``(rare OR ...) AND common``:
    FTS5 walks the rare lists), since common words alone do not name an error; an error of common words
    only is matched by all of them at once, among the newest :data:`WINDOW` failures.

    A word rare among the docs may still be in most failures (``failed``, ``error``). So each rare term's
    failures are read newest first, at most WINDOW of them. A term in no more than that (``exact``) is
    read whole, at any age: these are what name the error. A term in more (``often``) is read among its
    WINDOW newest failures and, at any age, among the failures holding an exact term; and every term is
    looked for in both sets (from the oldest of those windows on, ``floor``, for the second). So every
    failure holding an exact term, and every recent one holding an often term, is matched on all the
    terms it holds: its coverage is exact. Only old failures holding none of the exact terms are passed
    over, and the reading is bounded however many failures hold a word.
    """
    matched: dict[int, list[Term]] = defaultdict(list)
    rare = [t for t in terms if t.docs < DF_CAP]
    common = [t for t in terms if t.docs >= DF_CAP]
    if not rare:
        every = " AND ".join(fts_string(t.word) for t in common)
        for doc in _holding(conn, every, project, limit=WINDOW):
            matched[doc] = list(common)
        return matched
    holding: dict[str, set[int]] = {}  # term -> the failures read holding it
    exact: list[Term] = []
    often: list[tuple[Term, list[int]]] = []
    for term in rare:
        docs = _holding(conn, fts_string(term.word), project, limit=WINDOW + 1)
        if len(docs) <= WINDOW:
            exact.append(term)
            holding[term.word] = set(docs)
        else:
            often.append((term, docs[:WINDOW]))
    floor = max((docs[-1] for _, docs in often), default=0)
    for term, docs in often:
        holding[term.word] = {doc for doc in docs if doc >= floor}
    named = "(" + " OR ".join(fts_string(t.word) for t in exact) + ")" if exact else ""
    recent = "(" + " OR ".join(fts_string(t.word) for t, _ in often) + ")" if often else ""
    for term in [t for t, _ in often] + common:
        word = fts_string(term.word)
        held = holding.setdefault(term.word, set())
        if named:  # every failure naming the error, at any age
            held.update(_holding(conn, f"{named} AND {word}", project))
        if recent and term in common:  # the recent ones holding an often term (an often term's own are read)
            held.update(_holding(conn, f"{recent} AND {word}", project, floor=floor))
    for term in terms:
        for doc in holding.get(term.word, ()):
            matched[doc].append(term)
    return matched


def _rows(conn: sqlite3.Connection, docs: list[int]) -> dict[int, tuple[Any, ...]]:
    """The failures' own and session columns (:data:`_FAILURE_COLUMNS`), by doc id, from ``fails`` (a
    doc's row carries its text: a page or more each)."""
    rows: dict[int, tuple[Any, ...]] = {}
    for i in range(0, len(docs), _CHUNK):
        chunk = docs[i : i + _CHUNK]
        marks = ", ".join("?" for _ in chunk)
        sql = (
            f"SELECT {_FAILURE_COLUMNS} FROM fails f CROSS JOIN sessions s ON s.id = f.sess "
            f"WHERE f.id IN ({marks})"
        )
        for row in conn.execute(sql, chunk):
            rows[row[0]] = row
    return rows


def _bm25(conn: sqlite3.Connection, terms: list[Term], docs: list[int]) -> dict[int, float]:
    """FTS5's BM25 (over ``fails_fts``) of the error's rare terms, or of all of its terms when none is
    rare, for ``docs``: one statement over their rowid range, newest first, at most :data:`BM25_ROWS`
    rows (FTS5 scores every failure it walks in the range, and counts each phrase's docs at every MATCH it
    runs, so one statement, bounded, not one per doc). A doc it did not reach has no score (0)."""
    if not docs:
        return {}
    rare = [t for t in terms if t.docs < DF_CAP]
    expression = (
        " OR ".join(fts_string(t.word) for t in rare)
        if rare
        else " AND ".join(fts_string(t.word) for t in terms)
    )
    wanted = set(docs)
    rows = conn.execute(
        "SELECT rowid, bm25(fails_fts) FROM fails_fts WHERE fails_fts MATCH ? AND rowid BETWEEN ? AND ? "
        "ORDER BY rowid DESC LIMIT ?",
        (expression, min(docs), max(docs), BM25_ROWS),
    )
    return {doc: float(score) for doc, score in rows if doc in wanted}


def covering(
    matched: dict[int, list[Term]], terms: list[Term], least: int
) -> tuple[dict[int, float], list[int]]:
    """Each matched failure's coverage of the error (the share of its terms' weight it has), and the
    failures that pass: at least :data:`MIN_COVERAGE` and ``least`` terms, and within :data:`RELATIVE` of
    the best. The local and the shared index choose the same way."""
    whole = sum(t.weight for t in terms)
    coverage = {doc: sum(t.weight for t in found) / whole for doc, found in matched.items()}
    passing = [doc for doc, c in coverage.items() if c >= MIN_COVERAGE and len(matched[doc]) >= least]
    if passing:
        best = max(coverage[doc] for doc in passing)
        passing = [doc for doc in passing if coverage[doc] >= RELATIVE * best - 1e-9]
    return coverage, passing


def _failures(
    conn: sqlite3.Connection, terms: list[Term], least: int, project: str | None
) -> tuple[list[Failure], int, int, dict[int, int]]:
    """The failures matching ``terms``, best first (at most :data:`SCORED`), how many matched in all and in
    how many conversations, and each failure's ``docs.sess``."""
    matched = _matching(conn, terms, project)
    coverage, passing = covering(matched, terms, least)
    if not passing:
        return [], 0, 0, {}
    rows = _rows(conn, passing)
    passing = [doc for doc in passing if doc in rows]
    conversations = len({(rows[doc][1], rows[doc][6]) for doc in passing})
    total = len(passing)
    # The best by coverage, the newest first among equals, are read for their fixes; BM25 orders them.
    passing.sort(key=lambda doc: (-coverage[doc], -(rows[doc][9] or 0.0), -doc))
    passing = passing[:SCORED]
    bm25 = _bm25(conn, terms, passing)
    failures = []
    sessions: dict[int, int] = {}
    for doc in passing:
        (doc_id, store, sid, ref, title, proj, root, row, part, when, command, exit_code, sess) = rows[doc]
        sessions[doc_id] = sess
        failures.append(
            Failure(
                doc_id,
                store,
                sid,
                ref,
                title,
                proj,
                root,
                row,
                part,
                when,
                command,
                exit_code,
                coverage[doc],
                bm25.get(doc, 0.0),
                [t.word for t in matched[doc]],
            )
        )
    failures.sort(key=lambda f: (-f.coverage, f.bm25, -(f.time or 0.0), -f.doc))
    return failures, total, conversations, sessions


# The same commands follow failures again and again: each is normalized and judged once per process.
_normalized = lru_cache(maxsize=4096)(normalize_command)


def is_looking(command: str) -> bool:
    """Whether a command only looks around: every segment (split at ``&&``, ``||``, ``;``, ``|``) runs a
    program of :data:`LOOKING` (after ``VAR=value`` assignments), or ``git`` with a subcommand of
    :data:`LOOKING_GIT`."""
    for segment in _SEGMENTS.split(command):
        words = [w for w in segment.split() if w]
        while words and _ASSIGNMENT.match(words[0]):
            words.pop(0)
        if not words:
            continue
        program = words[0].rsplit("/", 1)[-1]
        if program == "git" and len(words) > 1 and words[1] in LOOKING_GIT:
            continue
        if program not in LOOKING:
            return False
    return True


_looking = lru_cache(maxsize=4096)(is_looking)


# Where a step ran: its session's ref, store, session_id and title.
_Names = tuple[str, str, str, str | None]
# A step (a live command or typed prompt) as read: id, kind, exit_code, command, time.
_Row = tuple[int, str, int | None, str | None, float | None]


@dataclass(slots=True)
class _Step:
    doc: int  # the doc's place in its session's order: its id here, its seq in the shared index
    kind: str
    exit_code: int | None
    command: str | None
    time: float | None
    names: _Names


# Steps read at a time after a failure: most windows end within a few (at the next prompt).
_BATCH = 4
_STEPS = (
    "SELECT id, kind, exit_code, command, time FROM docs WHERE sess = ? AND id > ? AND row >= ? "
    "AND rewound = 0 AND kind IN ('command', 'prompt') ORDER BY id LIMIT ?"
)
# A conversation's sessions besides the first: (sessions.id, first row, last row, ref, session_id, title).
_Chain = list[tuple[int, int, int, str, str, str | None]]


def _session_steps(conn: sqlite3.Connection, sess: int, after: int, row: int) -> Iterator[_Row]:
    """Session ``sess``'s live commands and typed prompts after doc ``after`` and from row ``row`` on, in
    order, read a batch at a time (as far as the window goes). A session's docs are written together, in
    row order, so within a session doc ids follow ``(row, part)``; ``docs_steps`` holds what is read, in
    that order, so no doc's row (with its text) is read."""
    batch = _BATCH
    while True:
        rows = conn.execute(_STEPS, (sess, after, row, batch)).fetchall()
        yield from rows
        if len(rows) < batch:
            return
        after, batch = rows[-1][0], FOLLOW + 4


def _chain(conn: sqlite3.Connection, store: str, root: str, chains: dict[tuple[str, str], _Chain]) -> _Chain:
    """The sessions of a conversation (its continuation chain) with their first and last rows, in order."""
    key = (store, root)
    if key not in chains:
        found: _Chain = []
        sessions = conn.execute(
            "SELECT id, ref, session_id, title FROM sessions WHERE store = ? AND root = ?", key
        ).fetchall()
        if len(sessions) > 1:
            for sess, ref, session_id, title in sessions:
                first = conn.execute(
                    "SELECT row FROM docs WHERE sess = ? ORDER BY id LIMIT 1", (sess,)
                ).fetchone()
                last = conn.execute(
                    "SELECT row FROM docs WHERE sess = ? ORDER BY id DESC LIMIT 1", (sess,)
                ).fetchone()
                if first is not None and last is not None:
                    found.append((sess, first[0], last[0], ref, session_id, title))
            found.sort(key=lambda c: c[1])
        chains[key] = found
    return chains[key]


def _ahead(
    conn: sqlite3.Connection, failures: list[Failure], sessions: dict[int, int]
) -> dict[int, list[_Row]]:
    """Each failure's next steps in its session (its live commands and typed prompts among the
    :data:`AHEAD` docs after it, from ``docs_steps``), for all the failures in one statement a chunk."""
    ahead: dict[int, list[_Row]] = defaultdict(list)
    step = _CHUNK // 2
    for i in range(0, len(failures), step):
        chunk = failures[i : i + step]
        values = ", ".join("(?, ?)" for _ in chunk)
        sql = (
            f"WITH w (sess, doc) AS (VALUES {values}) SELECT w.doc, d.id, d.kind, d.exit_code, d.command, "
            "d.time FROM w CROSS JOIN docs d ON d.sess = w.sess AND d.id > w.doc AND d.id <= w.doc + ? "
            "WHERE d.rewound = 0 AND d.kind IN ('command', 'prompt')"
        )
        params = [n for f in chunk for n in (sessions[f.doc], f.doc)]
        for doc, d, kind, exit_code, command, when in conn.execute(sql, (*params, AHEAD)):
            ahead[doc].append((d, kind, exit_code, command, when))
    for rows in ahead.values():
        rows.sort()
    return ahead


def _following(
    conn: sqlite3.Connection,
    failure: Failure,
    sess: int,
    ahead: list[_Row],
    chains: dict[tuple[str, str], _Chain],
) -> Iterator[tuple[_Row, _Names]]:
    """What its conversation did after ``failure``, in order, read only as far as it is consumed: the steps
    ``ahead`` (:func:`_ahead`), the rest of its session, then the sessions of its chain that come after it
    (a continuation starts after the session it continues; messages.id, the row, is insertion order
    across a chain); each with where it ran."""
    names = (failure.ref, failure.store, failure.session_id, failure.title)
    for step in ahead:
        yield step, names
    for step in _session_steps(conn, sess, failure.doc + AHEAD, failure.row):
        yield step, names
    for other, _first, last, ref, session_id, title in _chain(conn, failure.store, failure.root, chains):
        if other != sess and last > failure.row:
            for step in _session_steps(conn, other, 0, failure.row + 1):
                yield step, (ref, failure.store, session_id, title)


@dataclass(slots=True)
class _Tally:
    command: str
    worked: set[tuple[str, str]] = field(default_factory=set)
    confirmed: set[tuple[str, str]] = field(default_factory=set)
    tried: set[tuple[str, str]] = field(default_factory=set)
    best_coverage: float = 0.0
    examples: list[FixExample] = field(default_factory=list)

    def fix(self) -> Fix:
        examples = sorted(self.examples, key=lambda e: e.time or 0.0, reverse=True)
        last = examples[0].time if examples else None
        return Fix(
            self.command,
            len(self.worked),
            len(self.confirmed),
            len(self.tried),
            self.best_coverage,
            last,
            examples[:EXAMPLES],
        )


def _window(after: Iterable[tuple[_Row, _Names]], failure: Failure) -> tuple[list[_Step], _Step | None]:
    """Of the steps ``after`` the failure (in order, read only as far as needed), the commands that may
    have fixed it, and the failing command succeeding (the end of the window), if it did."""
    failing = _normalized(failure.command)
    window: list[_Step] = []
    for (doc, kind, exit_code, command, when), names in after:
        if kind == "prompt" or len(window) >= FOLLOW:
            break
        if command is not None and _normalized(command) == failing:
            if exit_code == 0:
                return window, _Step(doc, kind, exit_code, command, when, names)
            continue  # a retry that failed again: not a fix, and not counted against the window
        window.append(_Step(doc, kind, exit_code, command, when, names))
    return window, None


# A file changed after a failure, as read: its place in its session's order, the path, when, and the first
# line it changed (:func:`change_of`).
EditRow = tuple[int, str, float | None, str]
# Characters of a changed line shown.
CHANGE_CHARS = 120


def change_of(text: str, removed: int | None, added: int | None) -> str:
    """The first line an edit changed, from its doc's text (the path, the path it moved to, the lines it
    removed, then those it added, ``removed`` and ``added`` of them): ``- line`` over ``+ line``, each cut
    to :data:`CHANGE_CHARS`; the first pair that differs, or what was only removed or only added. Empty
    when the counts are not known."""
    if removed is None or added is None:
        return ""
    lines = text.split("\n")[2:]
    gone, new = lines[:removed], lines[removed : removed + added]
    pairs = [(a, b) for a, b in zip(gone, new, strict=False) if a.strip() != b.strip()]
    # The first pair that differs, else the lines past the shorter side (only removed, or only added).
    old, made = pairs[0] if pairs else (_first(gone[len(new) :]), _first(new[len(gone) :]))
    shown = [f"- {_cut(old)}" if old.strip() else "", f"+ {_cut(made)}" if made.strip() else ""]
    return "\n".join(line for line in shown if line)


def _first(lines: list[str]) -> str:
    return next((line for line in lines if line.strip()), "")


def _cut(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= CHANGE_CHARS else line[: CHANGE_CHARS - 1] + "…"


@dataclass(slots=True)
class _EditTally:
    path: str
    worked: set[tuple[str, str]] = field(default_factory=set)
    examples: list[EditExample] = field(default_factory=list)

    def fix(self) -> EditFix:
        examples = sorted(self.examples, key=lambda e: e.time or 0.0, reverse=True)
        return EditFix(
            self.path, len(self.worked), examples[0].time if examples else None, examples[:EXAMPLES]
        )


@dataclass(slots=True)
class Tallies:
    """What the windows after the failures showed, as both indexes count it: the commands that then
    worked (by their normalized text) and the files changed before the failing command passed. The
    shared index counts into its own records, which add the host (``example``, ``edit_example``)."""

    example: type[FixExample] = FixExample
    edit_example: type[EditExample] = EditExample
    commands: dict[str, _Tally] = field(default_factory=dict)
    edits: dict[str, _EditTally] = field(default_factory=dict)

    def count(
        self,
        key: tuple[str, str],
        failure: Failure,
        window: list[_Step],
        passed: _Step | None,
        edited: Callable[[int | None], list[EditRow]],
        host: str = "",
    ) -> None:
        """Count one failure's window (``key``: its conversation). ``edited(upto)`` gives the files changed
        in the failure's session after it and before place ``upto`` (``None``: to the session's end),
        asked once a window, only of a window with a command that worked or the failing one passing."""
        steps = [s for s in window if s.command is not None and not _looking(s.command)]
        changed: list[EditRow] = []
        if passed is not None:  # the edits before it passed: the rest of the session when it passed later
            changed = edited(passed.doc if _in_session(passed, failure) else None)
        elif any(s.exit_code == 0 for s in steps) and (
            mine := [s.doc for s in steps if _in_session(s, failure)]
        ):
            changed = edited(max(mine))
        for step in steps:
            command = _normalized(step.command or "")
            tally = self.commands.setdefault(command, _Tally(command))
            tally.tried.add(key)
            if step.exit_code != 0:
                continue
            tally.worked.add(key)
            if passed is not None:
                tally.confirmed.add(key)
            tally.best_coverage = max(tally.best_coverage, failure.coverage)
            ref, store, session_id, title = step.names
            if _shown(tally.examples, store, session_id, host):
                continue
            before = [row[1] for row in changed if row[0] < step.doc] if _in_session(step, failure) else []
            example = (ref, store, session_id, title, step.time, step.command or "", failure.command)
            outcome = (failure.exit_code, failure.time, passed is not None, list(dict.fromkeys(before)))
            tally.examples.append(self.example(*example, *outcome, **_hosted(host)))
        if passed is None:
            return
        for _at, path, when, change in changed:
            edit = self.edits.setdefault(path, _EditTally(path))
            edit.worked.add(key)
            if _shown(edit.examples, failure.store, failure.session_id, host):
                continue
            where = (failure.ref, failure.store, failure.session_id, failure.title, when, path)
            after = (failure.command, failure.exit_code, failure.time, passed.time, change)
            edit.examples.append(self.edit_example(*where, *after, **_hosted(host)))

    def report(
        self, error: str, terms: list[Term], found: tuple[list[Any], int, int], limit: int
    ) -> FixReport:
        """The report: the fixes that worked and the files changed, best first, at most ``limit`` of each
        (0: all); ``found``: the failures (best first), how many matched, in how many conversations."""
        failures, total, conversations = found
        fixes = [t.fix() for t in self.commands.values() if t.worked]
        fixes.sort(
            key=lambda f: (
                -f.worked,
                -f.confirmed,
                f.tried - f.worked,
                -f.best_coverage,
                -(f.last_time or 0.0),
                f.command,
            )
        )
        edits = [t.fix() for t in self.edits.values()]
        edits.sort(key=lambda e: (-e.worked, -(e.last_time or 0.0), e.path))
        cut = limit if limit > 0 else None
        return FixReport(error, terms, failures[:cut], total, conversations, fixes[:cut], edits=edits[:cut])


def _shown(examples: list[Any], store: str, session_id: str, host: str) -> bool:
    """Whether ``examples`` already have one from this session (one example a session)."""
    return any(e.session_id == session_id and e.store == store and _host(e) == host for e in examples)


def _in_session(step: _Step | None, failure: Failure) -> bool:
    """Whether ``step`` ran in the failure's own session (a window may go on into a continuation)."""
    return step is not None and step.names[2] == failure.session_id and step.names[1] == failure.store


def _host(record: Any) -> str:
    return str(getattr(record, "host", "") or "")


def _hosted(host: str) -> dict[str, Any]:
    """The keyword a shared index's record takes its host by; none for a local one."""
    return {"host": host} if host else {}


def _tally(conn: sqlite3.Connection, failures: list[Failure], sessions: dict[int, int]) -> Tallies:
    """The fixes that followed ``failures`` (``sessions``: each failure's ``docs.sess``), read from what
    came after each, as far as its window goes: never a whole conversation."""
    tallies = Tallies()
    chains: dict[tuple[str, str], _Chain] = {}
    by_conversation: dict[tuple[str, str], list[Failure]] = defaultdict(list)
    for failure in failures:
        by_conversation[(failure.store, failure.root)].append(failure)
    ahead = _ahead(conn, failures, sessions)
    for key, found in by_conversation.items():
        for failure in found:
            steps = _following(conn, failure, sessions[failure.doc], ahead.get(failure.doc, []), chains)
            window, passed = _window(steps, failure)
            edited = partial(_edited, conn, sessions[failure.doc], failure.doc)
            tallies.count(key, failure, window, passed, edited)
    return tallies


# The files a session changed between two of its docs (live edits that applied, or whose outcome is
# not known), through ``docs_sess``.
_EDITED = (
    "SELECT id, path, time, text, removed, added FROM docs WHERE sess = ? AND id > ? AND id < ? "
    "AND kind = 'edit' AND rewound = 0 AND path IS NOT NULL AND coalesce(applied, 1) <> 0 ORDER BY id"
)


def _edited(conn: sqlite3.Connection, sess: int, after: int, upto: int | None) -> list[EditRow]:
    """The edits of session ``sess`` after doc ``after`` and before doc ``upto`` (``None``: to its end)."""
    rows = conn.execute(_EDITED, (sess, after, upto or 2**62))
    return [(int(d), str(p), t, change_of(str(x), r, a)) for d, p, t, x, r, a in rows]


def _searchable(conn: sqlite3.Connection) -> bool:
    """Whether the index is of this code's format: an older one has no ``fails_fts`` (it is rebuilt by the
    next sync, and until then nothing is found in it rather than something misread)."""
    return schema.format_of(conn) == schema.FORMAT


def find_fixes(
    conn: sqlite3.Connection, error: str, *, project: str | None = None, limit: int = 10
) -> FixReport:
    """Past failures matching ``error`` (of ``project``'s sessions, when given) and the commands that fixed
    them, best first, at most ``limit`` of each (0: all). How, in this module's docstring. Reads only."""
    words = _error_words(error)
    missing: list[str] = []
    terms = distinctive_terms(conn, error, words, missing) if _searchable(conn) else []
    least = min(2, len(words))
    failures, total, conversations, sessions = (
        _failures(conn, terms, least, project) if terms else ([], 0, 0, {})
    )
    tallies = _tally(conn, failures[:MAX_FAILURES], sessions)
    report = tallies.report(error, terms, (failures, total, conversations), limit)
    report.missing = list(reversed(missing))  # in the error's order
    _said_after(conn, report.failures, sessions)
    return report


# The most characters of what was said after a failure that a report keeps.
SAID_CHARS = 600


def said_of(text: str | None) -> str | None:
    """What the agent said at the end of the turn a command failed in (``text``: that turn's last reply),
    on one line, cut at :data:`SAID_CHARS`."""
    said = " ".join((text or "").split())
    if not said:
        return None
    return said if len(said) <= SAID_CHARS else said[: SAID_CHARS - 1].rstrip() + "…"


# The last live reply of a session after a doc and before its next live prompt (through ``docs_steps``).
_SAID = (
    "SELECT substr(text, 1, 4000) FROM docs WHERE sess = ?1 AND id > ?2 AND rewound = 0 AND kind = 'reply' "
    "AND id < coalesce((SELECT id FROM docs WHERE sess = ?1 AND id > ?2 AND rewound = 0 "
    "AND kind = 'prompt' ORDER BY id LIMIT 1), 9223372036854775807) ORDER BY id DESC LIMIT 1"
)


def _said_after(conn: sqlite3.Connection, failures: list[Failure], sessions: dict[int, int]) -> None:
    """Each reported failure's :attr:`Failure.said`, from its own session: two index lookups a failure."""
    for failure in failures:
        if (sess := sessions.get(failure.doc)) is not None:
            row = conn.execute(_SAID, (sess, failure.doc)).fetchone()
            failure.said = said_of(row[0] if row else None)


def respelled_fixes(
    find: Callable[[str], FixReport], error: str, respell: Callable[[str], list[str]] | None
) -> FixReport:
    """What ``find`` (the fixes of the local or the shared index) reports for ``error``; when nothing on
    record failed that way and a word of it is no word of the history but one slip of the fingers from
    one (``respell``: :func:`~hermes_trail.index.how.local_respelled`), the report for the error with that
    word as the history writes it (the most common of its readings), saying so in ``spelled``. Without
    ``respell`` (a command's own output, never typed wrong), the report for the error as given.

    Only then: a pasted error is written as it is, and a name in it that the history lacks (a module
    misspelled in the code, ``djnago``) is what failed, not a slip to mend while anything matches it. A
    person who types the error from memory ("conection refused") has the slip mended, as a search does."""
    report = find(error)
    if report.failures_total or respell is None:
        return report
    spelled = {word: read[:1] for word in reversed(_error_words(error)) if (read := respell(word))}
    if not spelled:
        return report
    again = find(_TOKEN.sub(lambda m: spelled.get(m.group().lower(), [m.group()])[0], error))
    if not again.failures_total:
        return report
    again.error = error
    again.spelled = spelled
    return again


def nearest_failure(error: str, failures: list[tuple[int, str]], near: int | None) -> int | None:
    """Of a conversation's failures (doc id and text, in order), the one ``error`` meant: the one with most
    of its words (as the error's words are read, :func:`_error_words`, each also without an ending), then
    the first at or after where its nearest passage starts (``near``), then the last; ``None`` when none
    has a word of it. The sentence model reads a command's output poorly: "port already taken" stood
    nearer a failed ``git push`` ("Permission denied (publickey)") than the ``EADDRINUSE: address already
    in use`` it meant, and a failure sharing no word with the error was as often another error as this one.
    The local and the shared index choose alike."""
    asked = {_stem(w) for w in _error_words(error)}

    def shared(text: str) -> int:
        return len(asked & {_stem(w) for w in _error_words(text)})

    after = [doc for doc, _ in failures if near is not None and doc >= near]
    anchor = after[0] if after else failures[-1][0]
    best = max(failures, key=lambda f: (shared(f[1]), f[0] == anchor, f[0]))
    return best[0] if shared(best[1]) else None


def by_meaning(
    conn: sqlite3.Connection, error: str, *, project: str | None = None, limit: int = 10
) -> FixReport:
    """What fixed the failures of the conversations nearest ``error`` in meaning, for an error nothing on
    record failed with the words of: one typed from memory in other words ("port already taken" for
    ``EADDRINUSE: address already in use``) or in another language (a German system's "Adresse wird
    bereits verwendet"). The conversations are those :func:`~hermes_trail.index.how.meant` takes of the
    meaning pass's; in each, the failure the error meant (:func:`nearest_failure`), followed as a matching
    failure is. ``by_meaning`` says so; nothing when no conversation with a failure is near."""
    from hermes_trail.index.how import local_standing, meant

    standing = local_standing(conn, error, project)
    with_failures = _failed_among(conn, [sess for sess, _, _ in standing])
    chosen: list[int] = []
    for sess, _, near in meant(s for s in standing if s[0] in with_failures):
        failed = conn.execute(
            "SELECT f.id, substr(d.text, 1, 4000) FROM fails f CROSS JOIN docs d ON d.id = f.id "
            "WHERE f.sess = ? ORDER BY f.id LIMIT ?",
            (sess, MEANT_FAILURES),
        ).fetchall()
        if failed and (meant_one := nearest_failure(error, failed, near)) is not None:
            chosen.append(meant_one)
    rows = _rows(conn, chosen)
    failures, sessions = [], {}
    for doc in chosen:
        if doc not in rows:
            continue
        (doc_id, store, sid, ref, title, proj, root, row, part, when, command, exit_code, sess) = rows[doc]
        sessions[doc_id] = sess
        failures.append(
            Failure(doc_id, store, sid, ref, title, proj, root, row, part, when, command, exit_code, 0.0, 0.0)
        )
    conversations = len({(f.store, f.root) for f in failures})
    found = (failures, len(failures), conversations)
    report = _tally(conn, failures, sessions).report(error, [], found, limit)
    report.by_meaning = bool(failures)
    _said_after(conn, report.failures, sessions)
    return report


# A conversation's failures read to tell which one an error meant.
MEANT_FAILURES = 200


def _failed_among(conn: sqlite3.Connection, sessions: list[int]) -> set[int]:
    """Which of ``sessions`` have a failure, asked of them together (a statement each :data:`_CHUNK`)."""
    failed: set[int] = set()
    for at in range(0, len(sessions), _CHUNK):
        chunk = sessions[at : at + _CHUNK]
        marks = ", ".join("?" for _ in chunk)
        sql = f"SELECT DISTINCT sess FROM fails WHERE sess IN ({marks})"
        failed |= {row[0] for row in conn.execute(sql, chunk)}
    return failed
