"""What fixed this error before: past commands that failed the same way, and what was run after them in the
same conversation that then succeeded, ranked by how often that worked.

**The error.** What a person pastes is usually long: a traceback, paths, line numbers, addresses. Its
words are read the way the word index reads text (letters and digits; an underscore splits), after
dropping what differs between two occurrences of the same error: URLs, paths (a path keeps its file name),
UUIDs, hex addresses and hashes, numbers and anything starting with a digit (``60s``, ``3rd``), the
frames of a Python traceback (with the user's source lines under them) or a JavaScript stack, and a few
English function words. What is left is weighed by rarity: each term's
document frequency is counted in the word index (an FTS5 count, stopped at :data:`DF_CAP`, so a common
word costs little, and a word counts as the index stems it: ``modules`` as ``module``). Terms no doc has
cannot help and are dropped; the :data:`MAX_TERMS` rarest are the error's distinctive terms, each weighted
by BM25's idf (a word in half the docs weighs next to nothing; one counted to the cap, as if the cap were
its count). No vocabulary table is needed, so the connection is only read.

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

**What followed.** After each matching failure, its conversation (the same store and continuation root,
in ``messages.id`` order, which is insertion order across a chain) is read forward, command by command,
until the first of: the failing command succeeding again (the fix worked; that run confirms, it is not a
fix itself), the next typed user prompt (what the person asks next is another step of the work, or a
change of plan whose commands belong to it), or :data:`FOLLOW` commands. Within that window every command
that exited 0 is a candidate fix, grouped across conversations by its normalized text
(:func:`hermes_trail.index.how.normalize_command`), except commands that only look around (``ls``,
``cat``, ``git status``, ``cd``: every segment of the command in :data:`LOOKING`), which follow nearly
every failure and fix none.

**Ranking.** A fix ranks by the number of distinct conversations in which it ran after a matching failure
and succeeded (``worked``); then by those in which the failing command then succeeded (``confirmed``),
then by fewer conversations where it was tried and failed, then by the best match of the failures it
followed, then recency. One conversation stuck in a loop is one piece of evidence.
"""

from __future__ import annotations

import math
import re
import sqlite3
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from hermes_trail.index.how import fts_string, normalize_command, project_clause

# Error terms searched for, the rarest; each more is one more query and rarely changes the matches.
MAX_TERMS = 8
# Unique words of the error whose frequency is counted (the last ones first: an error ends in its message).
MAX_WORDS = 60
# Document frequencies are counted up to this; a word in more docs is common however many more.
DF_CAP = 20_000
# A failure must show this share of the error's weighted terms, and this share of the best failure's.
MIN_COVERAGE = 0.5
RELATIVE = 0.85
# An error of common words only is looked for among this many of the newest failures holding them all.
WINDOW = 2000
# Failures given a BM25 score (the best by coverage), and those whose conversations are read for fixes.
SCORED = 1000
MAX_FAILURES = 200
# Commands read after a failure at most.
FOLLOW = 8
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
    """

    error: str
    terms: list[Term]
    failures: list[Failure]
    failures_total: int
    conversations: int
    fixes: list[Fix]


def _error_words(error: str) -> list[str]:
    """The error's candidate words, lowercased, unique, the last occurrence first, at most
    :data:`MAX_WORDS`."""
    text = _FRAME.sub(" ", error)
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


def _df(conn: sqlite3.Connection, word: str) -> int:
    return int(
        conn.execute(
            "SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT ?)",
            (fts_string(word), DF_CAP),
        ).fetchone()[0]
    )


def distinctive_terms(conn: sqlite3.Connection, error: str) -> list[Term]:
    """The error's distinctive terms, rarest first, as this module's docstring chooses them."""
    total = int(conn.execute("SELECT count(*) FROM docs").fetchone()[0])
    if total == 0:
        return []
    counted = [(w, _df(conn, w)) for w in _error_words(error)]
    counted = [(w, n) for w, n in counted if n > 0]
    # Two spellings the stemmer folds together (module, modules; failed, failing) count the same docs and
    # differ only in their endings: keep one.
    kept: list[tuple[str, int]] = []
    for word, n in sorted(counted, key=lambda wn: (wn[1], -len(wn[0]))):  # at equal counts, longer first
        if any(n == m and _same_stem(word, k) for k, m in kept):
            continue
        kept.append((word, n))
    chosen = kept[:MAX_TERMS]

    def idf(n: int) -> float:
        return math.log((total - n + 0.5) / (n + 0.5) + 1.0)

    return [Term(w, n, idf(n)) for w, n in chosen]


_FAILURE_COLUMNS = (
    "d.id, s.store, s.session_id, s.ref, s.title, s.project, s.root, d.row, d.part, d.time, d.command, "
    "d.exit_code"
)


def _matching(
    conn: sqlite3.Connection, terms: list[Term], project: str | None
) -> tuple[dict[int, tuple[Any, ...]], dict[int, list[Term]]]:
    """Failed commands holding the terms, and which terms each holds.

    Each rare term's failures are one query (fewer than :data:`DF_CAP` docs hold it). A common word is only
    looked for among failures holding a rare one (``(rare OR ...) AND common``: FTS5 walks the rare lists),
    since common words alone do not name an error; an error of common words only is matched by all of them
    at once, among the newest :data:`WINDOW` failures.
    """
    clause, params = project_clause("s.project", project)
    # CROSS JOIN keeps the full-text match the outer loop: SQLite would otherwise walk every failed command
    # and run the MATCH for each.
    sql = (
        f"SELECT {_FAILURE_COLUMNS} FROM docs_fts f CROSS JOIN docs d ON d.id = f.rowid "
        "CROSS JOIN sessions s ON s.id = d.sess WHERE docs_fts MATCH ? AND d.kind = 'command' "
        f"AND d.exit_code <> 0 AND d.rewound = 0 AND d.command IS NOT NULL AND {clause}"
    )
    rows: dict[int, tuple[Any, ...]] = {}
    matched: dict[int, list[Term]] = defaultdict(list)
    rare = [t for t in terms if t.docs < DF_CAP]
    common = [t for t in terms if t.docs >= DF_CAP]
    if not rare:
        every = " AND ".join(fts_string(t.word) for t in common)
        for row in conn.execute(sql + " ORDER BY f.rowid DESC LIMIT ?", (every, *params, WINDOW)):
            rows[row[0]] = row
            matched[row[0]] = list(common)
        return rows, matched
    anchor = "(" + " OR ".join(fts_string(t.word) for t in rare) + ")"
    queries = [(t, fts_string(t.word)) for t in rare]
    queries += [(t, f"{anchor} AND {fts_string(t.word)}") for t in common]
    for term, expression in queries:
        for row in conn.execute(sql, (expression, *params)):
            rows[row[0]] = row
            matched[row[0]].append(term)
    return rows, matched


def _failures(
    conn: sqlite3.Connection, terms: list[Term], least: int, project: str | None
) -> tuple[list[Failure], int, int]:
    """The failures matching ``terms``, best first (at most :data:`SCORED`), how many matched in all and in
    how many conversations."""
    rows, matched = _matching(conn, terms, project)
    whole = sum(t.weight for t in terms)
    coverage = {doc: sum(t.weight for t in found) / whole for doc, found in matched.items()}
    passing = [doc for doc, c in coverage.items() if c >= MIN_COVERAGE and len(matched[doc]) >= least]
    if not passing:
        return [], 0, 0
    best = max(coverage[doc] for doc in passing)
    passing = [doc for doc in passing if coverage[doc] >= RELATIVE * best - 1e-9]
    conversations = len({(rows[doc][1], rows[doc][6]) for doc in passing})
    total = len(passing)
    # BM25 breaks ties among the best only. One statement over their rowid range, not a MATCH per doc: FTS5
    # counts each phrase's docs for BM25 at every MATCH it runs.
    passing.sort(key=lambda doc: (-coverage[doc], -(rows[doc][9] or 0.0), -doc))
    passing = passing[:SCORED]
    wanted = set(passing)
    rare = [t for t in terms if t.docs < DF_CAP]
    expression = (
        " OR ".join(fts_string(t.word) for t in rare)
        if rare
        else " AND ".join(fts_string(t.word) for t in terms)
    )
    bm25 = {
        rowid: score
        for rowid, score in conn.execute(
            "SELECT rowid, bm25(docs_fts) FROM docs_fts WHERE docs_fts MATCH ? AND rowid BETWEEN ? AND ?",
            (expression, min(passing), max(passing)),
        )
        if rowid in wanted
    }
    failures = []
    for doc in passing:
        (doc_id, store, sid, ref, title, proj, root, row, part, when, command, exit_code) = rows[doc]
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
                float(bm25.get(doc, 0.0)),
                [t.word for t in matched[doc]],
            )
        )
    failures.sort(key=lambda f: (-f.coverage, f.bm25, -(f.time or 0.0), -f.doc))
    return failures, total, conversations


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


@dataclass(slots=True)
class _Step:
    doc: int
    sess: int
    row: int
    part: int
    kind: str
    exit_code: int | None
    command: str | None
    time: float | None
    ref: str
    store: str
    session_id: str
    title: str | None

    @property
    def order(self) -> tuple[int, int, int]:
        return (self.row, self.part, self.doc)


def _conversation(conn: sqlite3.Connection, store: str, root: str) -> list[_Step]:
    """The commands and typed prompts of one conversation, in order."""
    rows = conn.execute(
        "SELECT d.id, d.sess, d.row, d.part, d.kind, d.exit_code, d.command, d.time, s.ref, s.store, "
        "s.session_id, s.title FROM sessions s CROSS JOIN docs d ON d.sess = s.id "
        "WHERE s.store = ? AND s.root = ? AND d.rewound = 0 AND d.kind IN ('command', 'prompt') "
        "ORDER BY d.row, d.part, d.id",
        (store, root),
    ).fetchall()
    return [_Step(*row) for row in rows]


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


def _window(steps: list[_Step], failure: Failure) -> tuple[list[_Step], bool]:
    """The commands after ``failure`` that may have fixed it, and whether the failing command then
    succeeded (the end of the window)."""
    after = [s for s in steps if s.order > (failure.row, failure.part, failure.doc)]
    failing = normalize_command(failure.command)
    window: list[_Step] = []
    for step in after:
        if step.kind == "prompt" or len(window) >= FOLLOW:
            break
        if step.command is not None and normalize_command(step.command) == failing:
            if step.exit_code == 0:
                return window, True
            continue  # a retry that failed again: not a fix, and not counted against the window
        window.append(step)
    return window, False


def _tally(conn: sqlite3.Connection, failures: list[Failure]) -> dict[str, _Tally]:
    tallies: dict[str, _Tally] = {}
    by_conversation: dict[tuple[str, str], list[Failure]] = defaultdict(list)
    for failure in failures:
        by_conversation[(failure.store, failure.root)].append(failure)
    for key, found in by_conversation.items():
        steps = _conversation(conn, *key)
        for failure in found:
            window, confirmed = _window(steps, failure)
            for step in window:
                if step.command is None or is_looking(step.command):
                    continue
                command = normalize_command(step.command)
                tally = tallies.setdefault(command, _Tally(command))
                tally.tried.add(key)
                if step.exit_code != 0:
                    continue
                tally.worked.add(key)
                if confirmed:
                    tally.confirmed.add(key)
                tally.best_coverage = max(tally.best_coverage, failure.coverage)
                if not any(e.session_id == step.session_id and e.store == step.store for e in tally.examples):
                    tally.examples.append(
                        FixExample(
                            step.ref,
                            step.store,
                            step.session_id,
                            step.title,
                            step.time,
                            step.command,
                            failure.command,
                            failure.exit_code,
                            failure.time,
                            confirmed,
                        )
                    )
    return tallies


def find_fixes(
    conn: sqlite3.Connection, error: str, *, project: str | None = None, limit: int = 10
) -> FixReport:
    """Past failures matching ``error`` (of ``project``'s sessions, when given) and the commands that fixed
    them, best first, at most ``limit`` of each (0: all). How, in this module's docstring. Reads only."""
    terms = distinctive_terms(conn, error)
    least = min(2, len(_error_words(error)))
    failures, total, conversations = _failures(conn, terms, least, project) if terms else ([], 0, 0)
    tallies = _tally(conn, failures[:MAX_FAILURES])
    fixes = [t.fix() for t in tallies.values() if t.worked]
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
    cut = limit if limit > 0 else None
    return FixReport(error, terms, failures[:cut], total, conversations, fixes[:cut])
