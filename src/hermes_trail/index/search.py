"""Search the index: BM25 hits, grouped by conversation, reported on the session and turn that matched.

Ranking one BM25 over every matching row is what makes a common word slow on a big history (thousands of
matches to score). Here each index is first asked for its newest matches only, in descending doc id order,
which FTS5 answers without scoring (doc ids follow activity: the index writes older sessions first and
appends what is new). When a query has fewer matches than that window, every match is scored with BM25, so
rare terms are ranked over the whole history; when it has more, the newest window is ranked without it (by
each doc's length, or by which of the words it has), which is where a person's "what did I do about X"
usually lives and where an updated fact is. Scores are then weighed by what matched (a typed prompt, a
reply or a command above a tool's output) and by the session's class (cron runs and sub-agents lower,
never hidden), and the best hit of each conversation (a continuation chain is one) leads its group.

When every term together finds few conversations (a question asked in other words than the session used),
the weaker evidence is pooled below them: conversations with any of the terms, and sessions whose gist (a
static sentence vector of what was asked, ``semantic.py``) is close to the query's. Each counts by how far
it stands out from its own crowd, and ranks by its stronger evidence.
"""

from __future__ import annotations

import math
import re
import sqlite3
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from hermes_trail.index import (
    cjk,
    encoder,
    lexicon,
    meaning_client,
    plan,
    query,
    schema,
    semantic,
    spelling,
    stopwords,
    vectors,
    when,
)
from hermes_trail.index.filters import SearchFilters as SearchFilters
from hermes_trail.index.filters import active_in, like, unmatched
from hermes_trail.index.fusion import (
    COVERAGE_BIGRAMS,
    COVERAGE_POWER,
    COVERAGE_TERMS,
    CROSS_LINGUAL_LIFT,
    GIST_WEIGHT,
    LEXICAL_WEIGHT,
    RARE_CAP,
    RECENCY_BOOST,
    SEMANTIC_WEIGHT,
    SESSION_WEIGHT,
    STRICT_WEIGHT,
    TITLE_WEIGHT,
    TRANSLATED_WEIGHT,
    asked_file_lift,
    conversation_score,
    evidence_of,
    fused,
    kind_weight,
    language_lifts,
    lift_edits,
    lift_profiles,
    meaning_evidence,
    meaning_weight,
    rarity,
)
from hermes_trail.index.newest import (
    about_terms,
    asks_now,
    asks_present,
    later_of_people,
    names_word,
    newest_first,
    restating_query,
)
from hermes_trail.index.results import MARK_CLOSE, MARK_OPEN, Conversation, Hit, SearchResult

# How many of the newest matches each index gives before scoring; a query with more is ranked in this window.
WINDOW = 200
# When all the terms find fewer conversations than this, any of them is looked for too, whatever the limit
# asked for: a first answer must not change with how many are asked for (with `--limit 1`, one conversation
# with every word used to be enough, and the later one that replaced its fact was never looked for).
RELAX_BELOW = 5
# How many more windows, each past the sessions already in, a query looks at while its matches fill the
# window but make fewer than RELAX_BELOW conversations.
FURTHER_WINDOWS = 3
# Any-term matches are many: the relaxed pass looks further back before it ranks by occurrences.
RELAXED_WINDOW = 1000
# Sessions the semantic pass offers, and the cosine similarity below which a gist says nothing.
SEMANTIC_TOP = 20
SEMANTIC_FLOOR = 0.4
# Sessions a query's words may find by their titles, and how much a title with every word lifts a
# conversation the words found in its turns (one found by its title alone joins the weaker evidence).
TITLED = 50
TITLE_BOOST = 0.25
# A query's matches are counted up to this many (a count there says "at least"): counting costs about a
# millisecond a thousand matches.
COUNT_CAP = 500
# Characters of a doc's start in which a windowed query counts its terms.
HEAD = 600
# Hits scored in detail (snippets, grouping) after the first ranking.
SHORTLIST = 200


_DOC_COLUMNS = (
    "d.id, s.store, s.session_id, s.ref, s.profile, s.project, s.source, s.kind, s.root, s.title, d.row, "
    "d.part, d.role, d.kind, d.tool, d.time, d.exit_code, d.path, d.rewound"
)


# The same, read in two steps: the docs, then their sessions (a few, each once).
_DOC_ONLY = "d.id, d.sess, d.row, d.part, d.role, d.kind, d.tool, d.time, d.exit_code, d.path, d.rewound"
_SESSION_COLUMNS = "id, store, session_id, ref, profile, project, source, kind, root, title"


def _where(filters: SearchFilters) -> tuple[list[str], list[Any]]:
    return filters.clauses("?")


def _on_sessions(filters: SearchFilters) -> SearchFilters:
    """Only the filters a whole session answers (project, profile, source, session): what a search by
    what a session is about (its meaning, its title) can apply; a role, a tool or a time window is about
    turns."""
    return SearchFilters(
        project=filters.project,
        profile=filters.profile,
        source=filters.source,
        session=filters.session,
        include_rewound=True,
    )


def _unfiltered(filters: SearchFilters) -> bool:
    """Whether no filter but leaving rewound docs out applies: then a full-text index alone answers."""
    return filters == SearchFilters(include_rewound=filters.include_rewound)


def _source(table: str, clauses: list[str]) -> str:
    """The FROM of a match in ``table`` with its docs, and their sessions only for a filter on them (their
    columns are read once a session afterwards)."""
    join = f"FROM {table} f JOIN docs d ON d.id = f.rowid"
    return join + " JOIN sessions s ON s.id = d.sess" if any("s." in c for c in clauses) else join


def _time_span(conn: sqlite3.Connection, filters: SearchFilters) -> tuple[int, int] | None:
    """The doc ids every doc of the time ``filters`` starts at lies within, for a search kept to a time
    (``--since``, "yesterday"): the first and last doc of each session last active since then (every doc's
    time is its session's, which was last active at its newest). A bound on the full-text index's own
    row ids, which FTS5 reads a match within (``f.rowid``; a condition on the docs' time is read after
    every match: 750 ms for "error" at a million messages, against 2). ``None`` without a start; an
    empty span when no session was active since."""
    if filters.since is None:
        return None
    row = conn.execute(
        "SELECT min((SELECT min(d.id) FROM docs d WHERE d.sess = s.id)), "
        "max((SELECT max(d.id) FROM docs d WHERE d.sess = s.id)) "
        "FROM sessions s WHERE coalesce(s.last_activity, s.started) >= ?",
        [filters.since],
    ).fetchone()
    return (int(row[0]), int(row[1])) if row and row[0] is not None else (0, -1)


def _bounded(
    clauses: list[str], params: list[Any], span: tuple[int, int] | None
) -> tuple[list[str], list[Any]]:
    """The filters' conditions, with the full-text match kept to ``span`` (:func:`_time_span`)."""
    if span is None:
        return clauses, params
    return [*clauses, "f.rowid BETWEEN ? AND ?"], [*params, *span]


def _candidates(
    conn: sqlite3.Connection,
    table: str,
    expression: str,
    filters: SearchFilters,
    terms: list[str],
    window: int | None = None,
    any_of: list[str] | None = None,
    *,
    known: dict[int, tuple[Any, ...]],
    starts: list[str] | None = None,
    span: tuple[int, int] | None = None,
    beside_runs: str | None = None,
) -> tuple[list[tuple[Any, ...]], bool]:
    """Scored matches of one index, lower scores first (as ``bm25`` gives them). ``starts``: the word
    starts the query asks for (:func:`word_starts`), which a doc of the word index must have as typed;
    ``span``: the doc ids a time window's docs lie within (:func:`_time_span`); ``beside_runs``: what a doc
    of the bigram index must match in the word index too (:attr:`~hermes_trail.index.plan.Plan.beside_runs`).

    All matches are scored with BM25 when there are fewer than :data:`WINDOW`. With more, the newest
    :data:`WINDOW` are scored without it: BM25 would first count every match of each term over the whole
    index, which is exactly the cost this avoids, and for terms that common the inverse document frequency
    that count buys says little. Every doc of the window has every term, so its length tells (shorter is
    more about them), read from ``docs.chars`` without reading its text. When any of the terms may match,
    which of them a doc has counts first: for the relaxed pass (``any_of``, its words), each word's own
    matches within the window's span of ids, rarer words weighing more (an error's module name over
    "error"); for an ``OR`` typed by a person, how often the terms occur in the head of its text.
    """
    window = WINDOW if window is None else window
    clauses, params = _bounded(*_where(filters), span)
    if starts and table == "docs_fts":
        plan.starting_words(conn)
        clauses = [*clauses, *("trail_word_start(d.text, ?)" for _ in starts)]
        params = [*params, *starts]
    if beside_runs and table == "docs_cjk":
        clauses, params = [*clauses, _BESIDE_RUNS], [*params, beside_runs]
    where = " AND ".join([f"{table} MATCH ?", *clauses])
    join = _source(table, clauses)
    if any_of is not None:
        newest = _newest(conn, table, expression, filters, join, where, params, window)
        if len(newest) >= window:
            return _with_sessions(conn, _by_words(conn, table, any_of, newest, filters), known), True
        if not newest:
            return [], False
    else:
        counted = [t.lower() for t in terms if t.strip()][:8]
        if " OR " in expression:  # which of the terms a doc has tells most: count them in its start
            head, lowered = f"substr(d.text, 1, {HEAD})", counted
        else:  # every doc has every term: read without reading texts
            head, lowered = "''", []
        columns = f"SELECT {_DOC_ONLY}, {head}, d.chars {join} WHERE {where}"
        rows = _newest_docs(conn, columns, expression, params, window, known)
        if len(rows) >= window:
            floor = math.log(2.0) * max(1, len(counted))  # each term once, when they are not counted
            if not lowered:  # the score is the length's alone: the shortest, scored (same order, fewer made)
                rows = sorted(rows, key=lambda r: r[-1])[:SHORTLIST]
            scored = [(*row[:-2], _occurrence_score(row[-2], row[-1], lowered, floor)) for row in rows]
            return _with_sessions(conn, sorted(scored, key=lambda r: r[-1])[:SHORTLIST], known), True
        if not rows:
            return [], False
    rows = conn.execute(
        f"SELECT {_DOC_ONLY}, bm25({table}) {join} WHERE {where} ORDER BY bm25({table}) LIMIT ?",
        (expression, *params, SHORTLIST),
    ).fetchall()
    return _with_sessions(conn, rows, known), False


def _newest_docs(
    conn: sqlite3.Connection,
    columns: str,
    expression: str,
    params: list[Any],
    window: int,
    known: dict[int, tuple[Any, ...]],
) -> list[tuple[Any, ...]]:
    """The rows ``columns`` selects for the newest ``window`` matches, in the full-text index's own order
    (no sort), each doc read as it comes. A long active conversation can fill the window alone: then up to
    :data:`FURTHER_WINDOWS` more look past its sessions (each session's docs have consecutive ids) until a
    few conversations are in, so a common word finds them; not for a prefix, which each window would expand
    again (the cost of such a query)."""
    order = "ORDER BY f.rowid DESC LIMIT ?"
    rows = conn.execute(f"{columns} {order}", (expression, *params, window)).fetchall()
    further = FURTHER_WINDOWS if len(rows) >= window and '" *' not in expression else 0
    for _ in range(further):
        sessions = list({row[1] for row in rows})
        if _conversation_count(conn, sessions, known) >= RELAX_BELOW:
            break
        marks = ", ".join("?" for _ in sessions)
        first = conn.execute(f"SELECT min(id) FROM docs WHERE sess IN ({marks})", sessions).fetchone()[0]
        more = conn.execute(f"{columns} AND f.rowid < ? {order}", (expression, *params, first, window))
        if not (past := more.fetchall()):
            break
        rows += past
    return rows


# A doc the bigram index found by a question's runs, which must have its other words too (``beside_runs``).
_BESIDE_RUNS = "EXISTS (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? AND docs_fts.rowid = d.id)"


def _count(
    conn: sqlite3.Connection,
    plans: list[tuple[str, str]],
    filters: SearchFilters,
    span: tuple[int, int] | None = None,
    beside_runs: str | None = None,
) -> int | None:
    """How many docs match, for a query with more than a window of them (one that ranked its newest):
    counted in the full-text index alone when no filter needs the docs, up to :data:`COUNT_CAP`. A doc
    two indexes find is one match: the larger count stands for both. ``None`` for a phrase or a prefix,
    whose every match costs FTS5 a check of positions or a walk of many terms: counting them would cost
    more than the search."""
    if any('" *' in expression or re.search(r'"[^"]*\s[^"]*"', expression) for _, expression in plans):
        return None
    clauses, params = _bounded(*_where(filters), span)
    best = 0
    # The word index first: a trigram index's count costs several times more, and once one count reached
    # the cap, no other can say more.
    for table, expression in sorted(plans, key=lambda plan: plan[0] != "docs_fts"):
        if best >= COUNT_CAP:
            break
        beside = bool(beside_runs) and table == "docs_cjk"
        if _unfiltered(filters) and not beside:
            sql = f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT ?)"
            args: list[Any] = [expression, COUNT_CAP]
        else:
            these, given = ([*clauses, _BESIDE_RUNS], [*params, beside_runs]) if beside else (clauses, params)
            where = " AND ".join([f"{table} MATCH ?", *these])
            sql = f"SELECT count(*) FROM (SELECT 1 {_source(table, these)} WHERE {where} LIMIT ?)"
            args = [expression, *given, COUNT_CAP]
        best = max(best, int(conn.execute(sql, args).fetchone()[0]))
    return best


def _conversation_count(
    conn: sqlite3.Connection, sessions: list[int], known: dict[int, tuple[Any, ...]]
) -> int:
    """How many conversations (continuation chains) the sessions with these ids make up: read off their
    rows, which the hits are then made of (``known``)."""
    rows = _session_rows(conn, sessions, known)
    return len({(rows[s][0], rows[s][7]) for s in sessions if s in rows})


def _newest(
    conn: sqlite3.Connection,
    table: str,
    expression: str,
    filters: SearchFilters,
    join: str,
    where: str,
    params: list[Any],
    window: int,
) -> list[int]:
    """The ids of the newest ``window`` matches; from the full-text index alone (no doc read) when no
    filter but leaving rewound docs out applies, which the caller then does for the docs it reads."""
    if _unfiltered(filters):
        sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT ?"
        return [r[0] for r in conn.execute(sql, (expression, window))]
    sql = f"SELECT f.rowid {join} WHERE {where} ORDER BY f.rowid DESC LIMIT ?"
    return [r[0] for r in conn.execute(sql, (expression, *params, window))]


def _by_words(
    conn: sqlite3.Connection, table: str, words: list[str], newest: list[int], filters: SearchFilters
) -> list[tuple[Any, ...]]:
    """The any-term window ranked: the docs with the most telling words first (:func:`_word_weights`, from
    the full-text index alone), and only the best :data:`WINDOW` of them read, weighed by their length."""
    has = _word_weights(conn, table, words, newest[-1], newest[0])
    best = sorted(newest, key=lambda doc: (-has.get(doc, 0.0), -doc))[:WINDOW]
    marks = ", ".join("?" for _ in best)
    live = "" if filters.include_rewound else " AND d.rewound = 0"
    rows = conn.execute(f"SELECT {_DOC_ONLY}, d.chars FROM docs d WHERE d.id IN ({marks}){live}", best)
    scored = [(*row[:-1], -has.get(row[0], 0.0) / (1.0 + row[-1] / 4000.0)) for row in rows]
    return sorted(scored, key=lambda r: r[-1])[:SHORTLIST]


def _word_weights(
    conn: sqlite3.Connection, table: str, words: list[str], low: int, high: int
) -> dict[int, float]:
    """For each doc with ids from ``low`` to ``high``: the summed weight of the ``words`` it has, each word
    weighing by how rare it is in that span (its own matches there, read from the full-text index)."""
    span = high - low + 1
    weights: dict[int, float] = {}
    for word in words[:8]:
        found = [
            r[0]
            for r in conn.execute(
                f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid >= ? AND rowid <= ?",
                (_fts_string(word), low, high),
            )
        ]
        weight = math.log1p(span / (1.0 + len(found)))
        for doc in found:
            weights[doc] = weights.get(doc, 0.0) + weight
    return weights


def _meaning_pool(
    conn: sqlite3.Connection, near: list[tuple[Conversation, float]], text: str, weight: float
) -> list[tuple[Conversation, float]]:
    """The meaning list ``near`` (the conversations nearest ``text``, with their standings) as evidence
    weighing ``weight`` (:func:`meaning_evidence`), each lifted as its language asks
    (:func:`_across_languages`)."""
    weighed = meaning_evidence([g for g, _ in near], [z for _, z in near], weight)
    lifts = _across_languages(conn, near, text)
    return [(conv, part * lift) for (conv, part), lift in zip(weighed, lifts, strict=True)]


def _across_languages(
    conn: sqlite3.Connection, near: list[tuple[Conversation, float]], text: str
) -> list[float]:
    """How much each conversation's meaning counts (:func:`language_lifts`), told by its first hit's text."""
    if not near or not CROSS_LINGUAL_LIFT:
        return [1.0] * len(near)
    docs = [c.hits[0].doc for c, _ in near if c.hits]
    marks = ", ".join("?" for _ in docs)
    texts = (
        dict(conn.execute(f"SELECT id, text FROM docs WHERE id IN ({marks})", docs).fetchall())
        if docs
        else {}
    )
    return language_lifts([texts.get(c.hits[0].doc, "") if c.hits else "" for c, _ in near], text)


class _DocCounts:
    """How many docs a word is in, up to :data:`RARE_CAP`, counted once a search: a question's coverage
    (:func:`_covered`) and the rule of the newest fact (:func:`_newest_first`) both weigh its words by it."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._known: dict[tuple[str, str], int] = {}

    def __call__(self, word: str, table: str = "docs_fts") -> int:
        """In ``docs_cjk`` a word of more than two characters is the phrase of its bigrams (one is one)."""
        if (table, word) not in self._known:
            sql = f"SELECT count(*) FROM (SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT {RARE_CAP})"
            asked = cjk.run_expression(word) if table == "docs_cjk" and len(word) > 2 else _fts_string(word)
            self._known[(table, word)] = int(self._conn.execute(sql, (asked,)).fetchone()[0])
        return self._known[(table, word)]


def _covered(
    conn: sqlite3.Connection,
    found: list[Conversation],
    words: list[str],
    table: str = "docs_fts",
    groups: list[list[str]] | None = None,
    *,
    doc_count: _DocCounts,
) -> tuple[list[float], list[int]]:
    """How much of the query each conversation covers, anywhere in its matching turns or its title
    (:func:`title_covers`; not in ``docs_cjk``, whose bigrams no title names): the share of the ``words``
    (in ``docs_cjk``: the bigrams) it has, each weighing by how rare it is in the index
    (:func:`~hermes_trail.index.fusion.rarity`, as the shared index weighs it). One turn with one rare
    word should not outrank a conversation that has most of what was asked, spread over its prompt, a
    command and its output. With ``groups`` (a question word's several readings), what is covered is the
    groups: a group is had when any of its words is. Also returned: how many of the words (or groups)
    each conversation has."""
    docs = [h.doc for conv in found for h in conv.hits]
    if not docs:
        return [0.0] * len(found), [0] * len(found)
    low, high = min(docs), max(docs)
    having: list[tuple[list[str], set[int], float]] = []  # each group, its docs and its weight
    sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid >= ? AND rowid <= ?"
    held = schema.doc_total(conn)
    cut = COVERAGE_TERMS if table == "docs_fts" else COVERAGE_BIGRAMS
    for group in groups[:cut] if groups is not None else [[w] for w in words[:cut]]:
        ids = {r[0] for word in group for r in conn.execute(sql, (_fts_string(word), low, high))}
        most = max(doc_count(word, table) for word in group)
        having.append((group, ids, rarity(held, most)))
    total = sum(weight for _, _, weight in having) or 1.0
    shares, counts = [], []
    titled = table == "docs_fts"
    for conv in found:
        mine = {h.doc for h in conv.hits}
        had = [
            weight
            for group, ids, weight in having
            if not ids.isdisjoint(mine) or (titled and title_covers(conv, group))
        ]
        shares.append(sum(had) / total)
        counts.append(len(had))
    return shares, counts


def title_covers(conv: Conversation, words: Iterable[str]) -> bool:
    """Whether the title Hermes gave ``conv``'s session (or a skill's name and description) names one of
    ``words`` (:func:`plan.title_names`): a word of the question a conversation covers, though no turn
    of it has the word ("Defunct processes", whose turns say "<defunct>" and "subprocesses"). Not a
    memory file's: its title is trail's own label ("MEMORY.md (the agent's notes)"). The local index and
    the shared one read titles alike."""
    hit = conv.hits[0] if conv.hits else None
    if hit is None or not hit.title or hit.session_kind == "memory":
        return False
    return any(plan.title_names(hit.title, w) for w in words)


# The session rows searches read (:func:`_session_rows`), kept between searches while the index's sessions
# are the same (its file, build id and sessions_version; a row of ``sessions`` never changes: a changed
# session is a new row). Most of the sessions a search reads are the newest, which the search before read
# too: 86 % of them over the 182 word queries of bench_index.py, a query's 0.4-0.5 ms of session reads.
_SESSION_ROWS: dict[tuple[object, ...], dict[int, tuple[Any, ...]]] = {}
# At most this many rows are kept (about 9 MB: 0.9 KB a row), then the kept ones are let go.
SESSION_ROWS_MOST = 10_000


def _kept_sessions(conn: sqlite3.Connection) -> dict[int, tuple[Any, ...]]:
    """The session rows kept for this index as it is now (read into by this search too)."""
    key = schema.state_key(conn, "sessions_version")
    kept = _SESSION_ROWS.get(key)
    if kept is None or len(kept) > SESSION_ROWS_MOST:
        _SESSION_ROWS.clear()
        kept = _SESSION_ROWS[key] = {}
    return kept


def _session_rows(
    conn: sqlite3.Connection, wanted: Iterable[int], known: dict[int, tuple[Any, ...]]
) -> dict[int, tuple[Any, ...]]:
    """The :data:`_SESSION_COLUMNS` (its id aside) of the sessions with these ids, each read once a search:
    ``known`` keeps those read before (a window's conversations counted, then its hits made)."""
    missing = [sess for sess in dict.fromkeys(wanted) if sess not in known]
    for start in range(0, len(missing), 500):
        chunk = missing[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        found = conn.execute(f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id IN ({marks})", chunk)
        known.update((r[0], r[1:]) for r in found)
    return known


def _with_sessions(
    conn: sqlite3.Connection, rows: list[tuple[Any, ...]], known: dict[int, tuple[Any, ...]]
) -> list[tuple[Any, ...]]:
    """Rows of :data:`_DOC_ONLY` (and what follows) as rows of :data:`_DOC_COLUMNS`: each doc's session
    read once for all its docs."""
    sessions = _session_rows(conn, (row[1] for row in rows), known)
    return [(row[0], *sessions[row[1]], *row[2:]) for row in rows if row[1] in sessions]


def _occurrence_score(head: str, length: int, terms: list[str], floor: float) -> float:
    """A cheap stand-in for BM25 inside a window, lower is better like ``bm25``: how often the ``terms``
    occur in the ``head`` of the text against its ``length``; with no terms to count, each counts once
    (``floor``) and the length alone tells."""
    if not terms:
        return -floor / (1.0 + length / 4000.0)
    text = head.lower()
    return -sum(math.log1p(text.count(t)) for t in terms) / (1.0 + length / 4000.0)


def _hit(row: tuple[Any, ...], score: float) -> Hit:
    """A hit from a row of :data:`_DOC_COLUMNS` (its first 19 columns are Hit's first fields, in order; the
    19th, ``rewound``, is stored as an integer), with its score."""
    fields = (*row[:18], bool(row[18]), score)  # positional: a dict of keywords cost as much as the rest
    return Hit(*fields)


def _score(
    rows: Iterable[tuple[Any, ...]], newest: float, oldest: float, edit_lift: float = 1.0
) -> list[Hit]:
    """Hits of rows of :data:`_DOC_COLUMNS` and their ``bm25``-like score (lower is better), weighed by
    what matched (an edit ``edit_lift`` more: :func:`asked_file_lift`), the session's class and recency."""
    hits = []
    span = max(newest - oldest, 1.0)
    for row in rows:
        kind, skind, when, bm25 = row[13], row[7], row[15], row[19]
        recency = ((when or oldest) - oldest) / span
        score = -float(bm25) * kind_weight(kind, edit_lift) * SESSION_WEIGHT.get(skind, 1.0)
        hits.append(_hit(row, score * (1.0 + RECENCY_BOOST * recency)))
    return hits


def _snippets(conn: sqlite3.Connection, hits: list[Hit], terms: list[str], chars: int) -> None:
    """Each hit's snippet: a window of its text around the first term, every term marked (one read)."""
    if not hits:
        return
    marks = ", ".join("?" for _ in hits)
    texts = dict(conn.execute(f"SELECT id, text FROM docs WHERE id IN ({marks})", [h.doc for h in hits]))
    marker = Highlighter(terms)
    for hit in hits:
        hit.snippet = marker.snippet(texts.get(hit.doc, ""), chars)


# Where a term's words are apart: a phrase's spaces, a hyphenated word's hyphens.
_APART = r"[\s\-\u2010\u2011\u2013\u2014]+"


def seen(text: str) -> str:
    """``text`` as the word index reads its letters, each character where it was (the same length, what a
    highlight is found in): full-width letters and digits as ASCII, letters without their accents ("é" as
    e, by the table of what FTS5's ``remove_diacritics`` makes of each letter, ``fleet.folding``, whose
    every letter is one). A search for "cafe" found "café", and its snippet marked nothing, so the web
    page, which tells a conversation the words reached by its marks, showed it as only near in meaning.
    A text without such a letter (most past ASCII: Chinese, Japanese, symbols) is not translated."""
    if text.isascii():
        return text
    from hermes_trail.fleet import folding

    narrow = cjk.narrowed(text)
    return narrow.translate(folding.table()) if re.search(folding.REGEX_CLASS, narrow) is not None else narrow


# What a word holds that Python's ``\w`` does not: the Indic marks and the Arabic and Hebrew points as the
# word index reads them (``cjk.narrowed``). Without them, "की" (its vowel sign read past) marked the "क"
# of "किताब", and a word started after a mark inside another.
_KEPT = f"{chr(cjk.MARK_PLANE)}-\U0010ffff{cjk.POINT_READ_AS}"
_STARTS = rf"(?<![^\W_])(?<![{_KEPT}])"
_ENDS = rf"(?![^\W_]|[{_KEPT}])"
# The marks at a term's ends that the word index reads past: all but letters, digits and what a word holds.
_EDGES = re.compile(rf"^(?:(?![{_KEPT}])[\W_])+|(?:(?![{_KEPT}])[\W_])+$")
# Letters that a text writes with points or without (Arabic, Hebrew; Syriac between them).
_POINTED = re.compile("[\u0590-\u08ff]")


def _body(term: str) -> str:
    """``term`` as a pattern, its words apart by anything but a letter or digit ("pre commit" is in
    "pre-commit" there) when it starts and ends with one, and an Arabic or Hebrew word with its points or
    without ("السلام" is in "السَّلَامُ"), as the word index reads both."""

    def part(text: str) -> str:
        if _POINTED.search(text) is None:
            return re.escape(text)
        letters = text.replace(cjk.POINT_READ_AS, "")
        return f"{cjk.POINT_READ_AS}*".join(map(re.escape, letters)) + f"{cjk.POINT_READ_AS}*"

    if not (term[:1].isalnum() and re.sub(f"[{_KEPT}]+$", "", term)[-1:].isalnum()):
        return part(term)
    return r"[\W_]+".join(map(part, re.split(_APART, term)))


def _stem_forms(words: Iterable[str]) -> list[tuple[str, str]]:
    """For each plain English word of ``words`` whose other forms do not all start with it ("authorized":
    "authorization"), the start they all share (:func:`~hermes_trail.index.plan.title_part`) and its stem."""
    out = []
    for word in words:
        low = word.lower()
        if len(low) >= plan.STEM_MIN and low.isascii() and low.isalpha():
            start = plan.title_part(low)
            if start != low and len(start) >= plan.STEM_MIN:
                out.append((start, plan.stem(low)))
    return out


class Highlighter:
    """Snippets for one query's terms: two patterns made once, each text searched once for the first term
    and its window marked in one pass (longer terms first, so a term inside another is not marked twice)."""

    def __init__(self, terms: list[str]) -> None:
        # Each term as the word index reads it (accents off: "cafe" and "café" are one word there, and an
        # accent typed apart from its letter, as macOS names files, is one with it) and its words apart by
        # anything but a letter or digit ("pre commit" is in "pre-commit" there).
        written = {seen(unicodedata.normalize("NFC", t)) for t in terms if t}
        # A term with marks at its ends ("#deploy", "$NODE_ENV", "-rf") marks its words too where the text
        # has them without those marks, as the word index found them ("deploy", "NODE_ENV"): the
        # snippet marked nothing there, and the web page took the answer for one only near in meaning.
        # Not a name its marks make (``c++``, ``C#``): its letters alone are another name ("C").
        cores = {
            core for t in written if (core := _EDGES.sub("", t)) and core != t and not query.is_marked_name(t)
        } - written
        words = sorted(written | cores, key=len, reverse=True)
        self.bodies = {t: _body(t) for t in words}
        # Those words whole only: the "h" of "-H" is no start of "https".
        self.bodies.update((core, self.bodies[core] + _ENDS) for core in cores)
        self.first = re.compile("|".join(self.bodies.values()), re.IGNORECASE) if words else None
        # A word term marks words that start with it (stems: "test" marks "tests"), not its inside of others;
        # Chinese and Japanese are written without spaces, so a word of theirs is marked wherever it is. A
        # word starts after anything but a letter or digit, an underscore too, as the word index reads it
        # ("period" is a word of "start_period" there).
        self.terms = words
        self.words = {t for t in words if t[:1].isalnum() and not cjk.has_cjk(t[:1])}
        marked = [(_STARTS if t in self.words else "") + self.bodies[t] for t in words]
        # A word in another form than typed, as the word index found it by their common stem
        # ("authorized" found "Authorization", "city" "cities", "migrate" "migrations"): the words that
        # start as the term and its stem both do, marked when theirs is the term's stem (checked by the
        # index's own stemmer). Each such form is a group of its own, after every term as typed.
        self.stems: dict[str, str] = {}
        for at, (start, stem) in enumerate(_stem_forms(self.words)):
            marked.append(rf"(?<![^\W_])(?P<s{at}>{re.escape(start)}[a-z]*)(?![^\W_])")
            self.stems[f"s{at}"] = stem
        # So is a phrase of plain English words, each in another form ("back up", the words a history
        # writes apart for "backup", found as "backed up"): the words as the word index found them, each
        # checked to have its word's stem. A snippet marked nothing there, and the web page took the answer
        # for one only near in meaning.
        self.phrase_stems: dict[str, list[str]] = {}
        self.phrase_words: list[str] = []
        for at, phrase in enumerate(t for t in words if " " in t and t.isascii()):
            parts = phrase.split()
            if all(part.isalpha() for part in parts):
                self.phrase_words.append(phrase)
                body = r"[\W_]+".join(re.escape(plan.title_part(part)) + "[a-z]*" for part in parts)
                marked.append(rf"(?<![^\W_])(?P<p{at}>{body})(?![^\W_])")
                self.phrase_stems[f"p{at}"] = [plan.stem(part) for part in parts]
        self.mark = re.compile("|".join(marked), re.IGNORECASE) if words else None
        # Where a mark may begin: every alternative of ``mark`` without the look behind that starts it (a
        # word's start), which keeps the regex engine from trying each alternative at every character (a
        # pattern led by a look behind has no first letters to skip ahead by): six times faster on a turn.
        starts = [*self.bodies.values(), *(re.escape(start) for start, _ in _stem_forms(self.words))]
        starts += [re.escape(plan.title_part(phrase.split()[0])) for phrase in self.phrase_words]
        self._may_begin = re.compile("|".join(starts), re.IGNORECASE) if words else None
        self._spaced: re.Pattern[str] | None = None

    def _verified(self, found: re.Match[str]) -> bool:
        """Whether a match marks: a term as typed always, a form of it when its stem is the term's (each
        word's, for a phrase)."""
        if found.lastgroup is None:
            return True
        if (stems := self.phrase_stems.get(found.lastgroup)) is not None:
            said = re.findall(r"[^\W_]+", found.group().lower())
            return len(said) == len(stems) and all(map(lambda w, s: plan.stem(w) == s, said, stems))
        return plan.stem(found.group().lower()) == self.stems[found.lastgroup]

    def _marks(self, pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
        """``pattern.finditer(text)``, the same matches; for :attr:`mark`, tried only where one may begin
        (:attr:`_may_begin`): the leftmost place ``mark`` matches is a place that pattern matches, and
        ``match`` there tries the alternatives in the order ``finditer`` would (its look behinds read the
        text before that place)."""
        if pattern is not self.mark or self._may_begin is None:
            yield from pattern.finditer(text)
            return
        at = 0
        while (begins := self._may_begin.search(text, at)) is not None:
            found = pattern.match(text, begins.start())
            if found is None:
                at = begins.start() + 1
                continue
            yield found
            at = found.end()  # every alternative holds a letter: no empty match

    def _first(self, pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
        return next((m for m in self._marks(pattern, text) if self._verified(m)), None)

    def _mark_in(self, text: str) -> re.Pattern[str] | None:
        """The pattern that marks ``text``: in a text past ASCII a word also starts where a run of Chinese,
        Japanese or Korean ends ("用Docker部署", as the word index reads it: ``cjk.spaced``)."""
        if self.mark is None or not self.words or text.isascii() or not cjk.has_cjk(text):
            return self.mark
        if self._spaced is None:
            # One start for every word term, and the case ignored in the terms alone: the class of those
            # scripts under IGNORECASE took 14 ms to compile for four terms, this 1 ms.
            words = "|".join(self.bodies[t] for t in self.terms if t in self.words)
            others = "|".join(self.bodies[t] for t in self.terms if t not in self.words)
            pattern = f"(?<![^\\W_{cjk.RANGES}])(?i:{words})" + (f"|(?i:{others})" if others else "")
            self._spaced = re.compile(pattern)
        return self._spaced

    def _found(self, text: str) -> re.Match[str] | None:
        """Where the window opens: the first term where a word starts, as written; in a text past ASCII
        where none is, as the word index reads it (full-width letters as ASCII, a word inside a run of
        Chinese or Japanese: the same length, so a match's place is its place in the text); else a term
        inside a word. Each text is read past ASCII only when the plain reading found nothing there."""
        assert self.mark is not None
        found = self._first(self.mark, text)
        if found is not None or text.isascii():
            return found if found is not None or self.first is None else self.first.search(text)
        read = seen(text)
        spaced = self._mark_in(text)
        if spaced is not None:
            found = self._first(spaced, read)
        if found is None and self.first is not None:
            found = self.first.search(read)
        return found

    def snippet(self, text: str, chars: int) -> str:
        """A window of ``text`` around the first term found where a word starts (inside another word when it
        is nowhere else: ``test`` in "pytest"), every term marked; the start when none is. Full-width letters
        are read as the ASCII they stand for ("ＡＰＩ" is marked for api), and shown as written."""
        found = self._found(text) if self.mark is not None else None
        if found is None or self.mark is None:
            return text[:chars].rstrip() + ("…" if len(text) > chars else "")
        start = max(0, found.start() - chars // 3)
        window = text[start : start + chars]
        # Read as the word index reads it (past ASCII), marked as written (the same length).
        mark = self._mark_in(window)
        assert mark is not None
        parts, at = [], 0
        for match in self._marks(mark, seen(window)):
            if not self._verified(match):
                continue
            begin, at_end = match.span()
            parts += [window[at:begin], MARK_OPEN, window[begin:at_end], MARK_CLOSE]
            at = at_end
        marked = "".join([*parts, window[at:]])
        # What ends the window is a word, not the line break an output ends with (shown as ⏎ on the web).
        return ("…" if start else "") + marked.rstrip() + ("…" if start + chars < len(text) else "")


def word_starts(reading: plan.Plan) -> list[str]:
    """The starts of words a match must have as typed: each prefix the query asks of every match
    (``kubern*``, or a last word still being typed), lower case, of a script with spaces between words.

    The word index holds each word by its Porter stem, and FTS5 stems a prefix too before it looks for
    it: "ins" is looked for as "in", so ``ins*`` matched "index" and "input", and "pars" every "par…"
    word. A doc it finds must then have a word starting with the prefix as typed (the shared index reads
    a prefix in ``simple``, unstemmed, so it has none of this). So must a name whose marks the word index
    drops (``c++``, ``C#``: :func:`~hermes_trail.index.query.marked_names`), which it holds as "c"."""
    typed = {reading.prefix_start: reading.prefix.lower()} if reading.prefix_start and reading.prefix else {}
    return [
        typed.get(t.text.lower(), t.text.lower())  # a start asked in place of the prefix: the prefix
        for t in query.conjuncts(reading.parsed)
        if t.prefix and len(t.text) >= plan.PREFIX_MIN and not cjk.has_cjk(t.text)
    ] + query.marked_names(reading.parsed)


def _fts_string(term: str) -> str:
    """A word (or words) as one FTS5 string: never an FTS5 syntax error. A trailing ``*`` (the word a
    person is still typing, in the any-word pass: :func:`_relaxed`) stays a prefix, outside the quotes."""
    if term.endswith("*") and term.strip("*"):
        return '"' + term.rstrip("*").replace('"', '""') + '"*'
    return '"' + term.replace('"', '""') + '"'


def _without_excluded(
    conn: sqlite3.Connection, pool: list[tuple[Conversation, float]], excluded: str
) -> list[tuple[Conversation, float]]:
    """``pool`` without the conversations reported on a turn that has an excluded word (``-rust``): the
    meaning and title lists find a conversation by what it is about, not by its words, and an exclusion
    still holds for the turn shown."""
    docs = sorted({h.doc for conv, _ in pool for h in conv.hits})
    if not docs:
        return pool
    gone: set[int] = set()
    for start in range(0, len(docs), 500):
        chunk = docs[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        sql = f"SELECT rowid FROM docs_fts WHERE docs_fts MATCH ? AND rowid IN ({marks})"
        gone.update(r[0] for r in conn.execute(sql, [excluded, *chunk]))
    if not gone:
        return pool
    return [(conv, score) for conv, score in pool if not any(h.doc in gone for h in conv.hits)]


def _relaxed(
    conn: sqlite3.Connection,
    terms: list[str],
    runs: list[str],
    loose: bool = False,
    prefix: str | None = None,
) -> list[tuple[str, list[str]]]:
    """The words to look for any of instead of all of them, per index: for words spread over a
    conversation, an error pasted from another run (other line numbers, sizes, ids), or a Chinese or
    Japanese question whose wording the history does not have as it is (its bigrams, in the bigram index).

    Words need two of them somewhere while all of them together found something: any of one word is that
    word alone, which drops what made the query (``mutex failed`` with no mutex anywhere would find every
    failure). When all together found nothing (``loose``), one is enough: something is better than "no
    match" while a word of the query is there, and the words that were not are reported. So for bigrams:
    a run of two characters is one bigram, a word beside the question's others. The word still
    being typed (``prefix``) is looked for as the start of words (``bea*``), as the words together were:
    typing "celery bea" found the one conversation with both, then "celery beat" ten.

    A name whose marks the word index drops (``c++``) is a list of its own, of the docs that write it so
    (:func:`marked_list`): among the others it was any doc with a "c".
    """
    out: list[tuple[str, list[str]]] = []
    words = list(dict.fromkeys(t for t in terms if any(c.isalnum() for c in t) and not cjk.has_cjk(t)))
    present: list[str] = []
    marked: list[str] = []
    for word in words:
        if word == prefix:
            if not prefix_relaxed(word):
                continue
            word += "*"
        if query.is_marked_name(word):  # C++: a list of its own, where the history writes it so
            if plan.holds_marked(conn, word):
                marked.append(word)
            continue
        if plan.exists(conn, "docs_fts", _fts_string(word)):
            present.append(word)
            continue
        # A path or name remembered wrong (``tax/vat_rates.yaml`` for ``tax/rates_eu.yaml``): its parts.
        parts = _parts(word)
        if len(parts) > 1:
            found = [part for part in parts if plan.exists(conn, "docs_fts", _fts_string(part))]
            present += [part for part in found if part not in present]
    if len(present) + len(marked) >= (1 if loose else 2):
        out += [("docs_fts", present)] if present else []
        out += [("docs_fts", [name]) for name in marked]
    grams = plan.run_bigrams(runs)
    if len(grams) >= (1 if loose else 2):  # a run of one bigram ("部署") is a word of its own, as above
        out.append(("docs_cjk", grams))
    return out


def marked_list(table: str, words: list[str]) -> list[str] | None:
    """The name an any-word list of :func:`_relaxed` is of, as a doc must write it, when it is one whose
    marks the word index drops (``c++``); ``None`` for any other list."""
    if table == "docs_fts" and len(words) == 1 and query.is_marked_name(words[0]):
        return [words[0].lower()]
    return None


def prefix_relaxed(word: str) -> bool:
    """Whether the word still being typed is one of the any-word list's words (as ``word*``). Not when
    its stem is the start of other words ("ins": in, index; "use": us): no list of any of the words can
    ask for it as typed (:func:`word_starts`), so it is none of them."""
    return plan.stem(word) == word.lower()


def _translated(conn: sqlite3.Connection, runs: list[str]) -> list[list[str]]:
    """A Chinese or Japanese question's words read as English (:mod:`lexicon`), those the index has, for
    one more any-word list: for each question word, its readings. Empty without the dictionary."""
    return lexicon.english_groups(
        runs, lambda words: [plan.exists(conn, "docs_fts", _fts_string(w)) for w in words]
    )


def holds_cjk(conn: sqlite3.Connection) -> bool:
    """Whether any doc of the index has Chinese, Japanese or Korean text: the bigram index has a segment
    (FTS5's list of them, one row a leaf page; empty while no doc gave it a term)."""
    return conn.execute("SELECT 1 FROM docs_cjk_idx LIMIT 1").fetchone() is not None


def prepare_dictionary() -> bool:
    """Compile the dictionary (:func:`lexicon.table`) now rather than in the first question that needs it
    (one to five seconds); whether it is there. Every index may need it: a question in another language
    reads it when the index holds Chinese or Japanese text, and a word the index lacks is looked up in it
    before it is read as a typo of one the index has (:func:`spelling.known`), in any language. What a
    process that has time runs (`trail index`, the stage behind the queries, the MCP server's warm-up); it
    never fails one: a dictionary that cannot be compiled now is compiled by the question that needs it,
    or the question is read as typed. The dictionary is the install's, shared by every index."""
    try:
        return lexicon.table() is not None
    except (OSError, sqlite3.Error):
        return False


def _in_chinese(conn: sqlite3.Connection, said: list[str]) -> tuple[list[list[str]], list[str]]:
    """An English question's words read as Chinese or Japanese (:mod:`lexicon`), those the index's text
    has, for one more any-word list: a question asked in English about a conversation held in Chinese or
    Japanese; and the question's words so read (:func:`lexicon.words_read`). Nothing is looked up when the
    index holds no Chinese or Japanese text."""
    if not holds_cjk(conn):
        return [], []
    words = lexicon.question_words(said)

    def exist(readings: list[str]) -> list[bool]:  # one lookup for a word none of whose readings is there
        expressions = [cjk.run_expression(w) for w in readings]
        if not plan.exists(conn, "docs_cjk", " OR ".join(expressions)):
            return [False] * len(readings)
        return [plan.exists(conn, "docs_cjk", e) for e in expressions]

    each = lexicon.chinese(words)
    groups = lexicon.chinese_groups(each, exist)
    return groups, lexicon.words_read(words, each, groups)


def _parts(term: str) -> list[str]:
    """The words a compound term is made of (``tax/vat_rates.yaml``: tax, vat, rates, yaml), function
    words and single characters left out."""
    found = re.findall(r"[^\W_]{2,}", term)
    return list(dict.fromkeys(w for w in found if not stopwords.is_stopword(w, found)))


def _newest_first(
    conn: sqlite3.Connection,
    ordered: list[Conversation],
    terms: list[str],
    meaning: dict[tuple[str, str], float],
    answered: dict[tuple[str, str], float],
    present: bool,
    doc_count: _DocCounts,
    now: bool = False,
    *,
    filters: SearchFilters,
    known: dict[int, tuple[Any, ...]],
) -> list[Conversation]:
    """:func:`newest_first` over this index: its docs' texts, its word counts and the later conversations
    of people with a turn that has one of each list of words (``restating``, in the search's ``filters``)."""

    def texts(docs: list[int]) -> dict[int, tuple[str, str]]:
        marks = ", ".join("?" for _ in docs)
        sql = f"SELECT id, kind, lower(text) FROM docs WHERE id IN ({marks})"
        return {doc: (kind, text) for doc, kind, text in conn.execute(sql, docs)}

    def counts(words: list[str]) -> dict[str, int]:
        # A word of Chinese or Japanese is in the docs that hold it inside a run, as the shared index counts
        # it: the word index holds a run as one word, and counted none of the docs of "定例会議は来週から".
        return {w: doc_count(w, "docs_cjk") if cjk.has_cjk(w) else doc_count(w) for w in words}

    def restating(held: list[str], facts: list[str], after: float) -> list[Conversation]:
        if (expression := query.to_fts(query.parse(restating_query(held, facts)))) is None:
            return []
        hits, _ = _ranked(conn, [("docs_fts", expression)], filters, [*held, *facts], known=known)
        return later_of_people(list(_group(hits).values()), after)

    return newest_first(ordered, terms, meaning, answered, texts, counts, present, now, restating)


def search(
    index: Path | sqlite3.Connection,
    text: str,
    filters: SearchFilters | None = None,
    limit: int = 20,
    per_conversation: int = 3,
    snippet_chars: int = 160,
) -> SearchResult:
    """Search the index for ``text`` (anything a person types; never an FTS5 syntax error).

    All the terms are looked for first; when that finds fewer than :data:`RELAX_BELOW` conversations, any
    of them (ranked below every conversation that had them all). A time the question names ("yesterday",
    "last week") is read as one (:mod:`~hermes_trail.index.when`): what it held comes first.

    :param limit: how many conversations to return.
    """
    filters = filters or SearchFilters()
    conn = index if isinstance(index, sqlite3.Connection) else sqlite3.connect(index)
    try:
        if (named := session_named(text)) is not None:
            found = _of_session(conn, text, named, filters, limit, per_conversation, snippet_chars)
            if found.conversations:
                return found
        return when.answered(
            text,
            filters,
            lambda asked, kept: _search(conn, asked, kept, limit, per_conversation, snippet_chars),
            lambda kept: _in_window(conn, text, kept, limit, per_conversation, snippet_chars),
            limit,
        )
    finally:
        if not isinstance(index, sqlite3.Connection):
            conn.close()


# The most prompts a question about a time that asks for nothing in particular reads, newest first.
LISTED_PROMPTS = 2_000

# A Hermes session id (``20261101_110000_a1b2c3``), alone or after its profile or store (``work:…``), as
# trail's answers, ``hermes --resume`` and Hermes' session list print it, quoted or not.
_SESSION_ID = re.compile(r"(?:[\w.@/-]+:)?(\d{8}_\d{6}_[0-9a-f]{6,12})")


def session_named(text: str) -> str | None:
    """The session id a question is, when it is one and nothing else: a person pastes one from an answer
    to find that conversation, and it was searched for as a word no turn has ("No match")."""
    found = _SESSION_ID.fullmatch(text.strip().strip("'\"`“”"))
    return found.group(1) if found else None


def _of_session(
    conn: sqlite3.Connection,
    text: str,
    session_id: str,
    filters: SearchFilters,
    limit: int,
    per_conversation: int,
    snippet_chars: int,
) -> SearchResult:
    """The conversation of the session ``session_id`` (:func:`session_named`), by its prompts, as a time's
    conversations are listed (:func:`listed`); none when no session of the filters has that id."""
    started = time.perf_counter()
    clauses, params = _where(filters)
    rows = conn.execute(
        f"SELECT {_DOC_COLUMNS} FROM sessions s JOIN docs d ON d.sess = s.id "
        f"WHERE s.session_id = ? AND d.kind = 'prompt' AND {' AND '.join(clauses) or '1'} "
        "ORDER BY d.time DESC, d.id DESC LIMIT ?",
        [session_id, *params, LISTED_PROMPTS],
    ).fetchall()
    hits = [_hit(row, 0.0) for row in rows]
    exact = len(rows) < LISTED_PROMPTS
    result = listed(conn, text, hits, exact, limit, per_conversation, snippet_chars, started)
    result.session = session_id
    return result


def _in_window(
    conn: sqlite3.Connection,
    text: str,
    filters: SearchFilters,
    limit: int,
    per_conversation: int,
    snippet_chars: int,
) -> SearchResult:
    """The conversations of the time ``filters`` is kept to ("what did I do yesterday":
    :mod:`~hermes_trail.index.when`), the one active last first, each with its first prompts of that
    time. Sessions are picked by their own times (started before its end, last active after its start),
    their prompts of that time through ``docs_steps`` (every live prompt, covered): no scan of the docs,
    which a join left to SQLite made (300 ms at a million messages, against 10)."""
    started = time.perf_counter()
    since, until = filters.since, filters.until
    sessions = [
        sess for (sess,) in conn.execute(f"SELECT s.id FROM sessions s WHERE {active_in()}", [until, since])
    ]
    # ``docs_steps``'s own condition spelled out, so that SQLite sees the index covers the query.
    live = "" if filters.include_rewound else "d.kind IN ('command', 'prompt') AND d.rewound = 0 AND "
    prompts = _in_chunks(
        conn,
        f"SELECT d.id, d.time FROM docs d WHERE d.sess IN ({{marks}}) AND {live}"
        "d.kind = 'prompt' AND d.time >= ? AND d.time < ?",
        sessions,
        [since, until],
    )
    prompts.sort(key=lambda p: (p[1] or 0.0, p[0]), reverse=True)
    wanted = [doc for doc, _ in prompts[:LISTED_PROMPTS]]
    clauses, params = _where(filters)
    hits = _hits_newest_first(conn, "d.id", wanted, " AND ".join(clauses) or "1", params)
    # Exact unless prompts were left out: then at least the newest ones' count.
    return listed(
        conn, text, hits, len(prompts) <= LISTED_PROMPTS, limit, per_conversation, snippet_chars, started
    )


def _of_places(
    conn: sqlite3.Connection,
    text: str,
    places: plan.Places,
    filters: SearchFilters,
    limit: int,
    per_conversation: int,
    snippet_chars: int,
) -> SearchResult:
    """The conversations held in ``places`` (a question of their names alone: ``plan.naming_places``), the
    one active last first, each by its first prompts, as a time's conversations are listed; its prompts
    counted in all of them: through ``docs_steps`` (every live prompt, covered), not the docs' rows (the
    count read every doc of Telegram's sessions: 40 ms at a million messages, against 4). Nothing for a
    search kept to a role or a tool: no prompt is listed there."""
    if filters.role or filters.tool:
        return SearchResult(text, [], 0, False, 0.0)
    clauses, params = _on_sessions(filters).clauses("?")
    if filters.since is not None and filters.until is not None:  # "discord yesterday": active then
        clauses.append(active_in())
        params += [filters.until, filters.since]
    for column, named in (("s.source", places.sources), ("s.profile", places.profiles)):
        if named:  # only those sessions' rows read (``sessions_places``), not every one
            clauses.append(f"{column} IN ({', '.join('?' for _ in named)})")
            params += named
    rows = conn.execute(
        "SELECT s.id, s.store, s.root, s.profile, s.source, s.project FROM sessions s "
        f"WHERE {' AND '.join(clauses) or '1'} ORDER BY coalesce(s.last_activity, s.started) DESC, s.id DESC",
        params,
    ).fetchall()
    shown, every = placed_sessions(rows, places, limit)
    # ``docs_steps``'s own condition spelled out, so that SQLite sees the index covers the count.
    where = "d.kind IN ('command', 'prompt') AND d.rewound = 0" if not filters.include_rewound else "1"
    where += " AND d.kind = 'prompt'"
    times: list[Any] = []
    for bound, said in ((filters.since, ">="), (filters.until, "<")):
        if bound is not None:
            where += f" AND d.time {said} ?"
            times.append(bound)
    counts = _in_chunks(
        conn, f"SELECT count(*) FROM docs d WHERE d.sess IN ({{marks}}) AND {where}", every, times
    )
    hits = _hits_newest_first(conn, "d.sess", shown, where, times)
    result = listed(conn, text, hits, True, limit, per_conversation, snippet_chars, time.perf_counter())
    result.matches, result.places = sum(n for (n,) in counts), places
    return result


def _hits_newest_first(
    conn: sqlite3.Connection, column: str, ids: list[Any], condition: str, params: list[Any]
) -> list[Hit]:
    """The docs whose ``column`` (``d.id``, ``d.sess``) is one of ``ids`` and that meet ``condition`` (with
    ``params``), as hits, the newest first: what a listing of conversations is made from."""
    rows = _in_chunks(
        conn,
        f"SELECT {_DOC_COLUMNS} FROM docs d JOIN sessions s ON s.id = d.sess "
        f"WHERE {column} IN ({{marks}}) AND {condition}",
        ids,
        params,
    )
    rows.sort(key=lambda r: (r[15] or 0.0, r[0]), reverse=True)
    return [_hit(row, 0.0) for row in rows]


def _in_chunks(conn: sqlite3.Connection, sql: str, ids: list[Any], params: list[Any]) -> list[Any]:
    """The rows ``sql`` reads for ``ids`` (its ``{marks}``, bound before ``params``), 500 ids a statement:
    under SQLite's bound-parameter limit."""
    rows: list[Any] = []
    for at in range(0, len(ids), 500):
        chunk = ids[at : at + 500]
        rows += conn.execute(sql.format(marks=", ".join("?" for _ in chunk)), [*chunk, *params]).fetchall()
    return rows


def placed_sessions(
    rows: Iterable[tuple[Any, ...]], places: plan.Places, limit: int
) -> tuple[list[Any], list[Any]]:
    """Of the sessions ``rows`` (id, store, root, profile, source, project; the one active last first),
    those in ``places``: the ids of the first ``limit`` conversations' sessions (a continuation chain is
    one conversation), and the ids of them all. The local index's and the shared one's."""
    shown: list[Any] = []
    every: list[Any] = []
    roots: set[tuple[Any, Any]] = set()
    for sess, store, root, profile, source, project in rows:
        if not places.hold(profile, source, project):
            continue
        every.append(sess)
        if (store, root) in roots or len(roots) < limit:
            roots.add((store, root))
            shown.append(sess)
    return shown, every


def listed(
    conn: Any,
    text: str,
    hits: list[Hit],
    exact: bool,
    limit: int,
    per_conversation: int,
    snippet_chars: int,
    started: float,
    group: Callable[[list[Any]], dict[tuple[str, str], Conversation]] | None = None,
    snippets: Callable[[Any, list[Hit], list[str], int], None] | None = None,
    openings: Callable[[Any, list[Conversation]], None] | None = None,
) -> SearchResult:
    """A time's conversations from their prompts ``hits`` (newest first), as a search's answer: the one
    active last first, each with its first prompts then, scored by that order; ``exact``: ``hits`` are all
    the time's prompts. The local index's and the shared one's (their own ``group``, ``snippets`` and
    ``openings``)."""
    groups = list((group or _group)(hits).values())[:limit]
    for rank, conv in enumerate(groups):
        conv.hits = sorted(conv.hits, key=lambda h: (h.time or 0.0, h.doc))[:per_conversation]
        for hit in conv.hits:
            hit.score = 1.0 / (rank + 1)
    (snippets or _snippets)(conn, [h for c in groups for h in c.hits], [], snippet_chars)
    (openings or _openings)(conn, groups)
    result = SearchResult(text, groups, len(hits), False, time.perf_counter() - started)
    result.matches_exact = exact
    return result


def _search(
    conn: sqlite3.Connection,
    text: str,
    filters: SearchFilters,
    limit: int,
    per_conversation: int,
    snippet_chars: int,
) -> SearchResult:
    """:func:`search` of words (and meaning), in the time ``filters`` names if any."""
    started = time.perf_counter()
    # Words as typed first (function words out): when they find enough, every word is in the history
    # and none needs looking up. Else each is looked up: a missing word, an unfinished last word.
    reading = plan.read(conn, text, checked=False)
    doc_count = _DocCounts(conn)
    known = _kept_sessions(conn)  # the sessions read, each once (:func:`_session_rows`)
    span = _time_span(conn, filters)
    starts = word_starts(reading)
    edit_lift = asked_file_lift(text)
    hits, windowed = _ranked(
        conn,
        reading.plans,
        filters,
        reading.terms + reading.runs,
        known=known,
        starts=starts,
        span=span,
        beside_runs=reading.beside_runs,
        edit_lift=edit_lift,
    )
    groups = _group(hits)
    if len(groups) < RELAX_BELOW:
        checked = plan.read(conn, text)
        if checked.missing:
            # A query with words no index holds has no conversation with all of them: it is answered
            # by the any-word and meaning passes alone, its word evidence weighed by how much of the
            # query it covers.
            hits, windowed = [], False
        elif checked.plans != reading.plans:  # the last word became a prefix
            hits, windowed = _ranked(
                conn,
                checked.plans,
                filters,
                checked.terms + checked.runs,
                known=known,
                starts=word_starts(checked),
                span=span,
                beside_runs=checked.beside_runs,
                edit_lift=edit_lift,
            )
        groups = _group(hits)
        reading = checked
        if checked.places is not None:  # names of places alone: their conversations, if they have any
            places = _of_places(conn, text, checked.places, filters, limit, per_conversation, snippet_chars)
            places.seconds = time.perf_counter() - started
            if places.conversations:
                return places
    terms, runs = reading.terms, reading.runs
    if reading.prefix_start and reading.prefix:  # marked, and weighed in titles and lists, as typed
        terms = [reading.prefix if t == reading.prefix_start else t for t in terms]
    lift_edits(hits, terms)
    matches: int | None = len({h.doc for h in hits})
    if windowed:  # more than a window matched: counted apart (None: at least the window)
        # Not when a match must write a name with marks the index drops (``c++``): it counts every "c".
        marked = query.marked_names(reading.parsed)
        matches = None if marked else _count(conn, reading.plans, filters, span, reading.beside_runs)
    # How well each conversation with every word answers them, before any fusion rescales it.
    answered = {key: conversation_score(conv.hits) for key, conv in groups.items()}
    ordered = sorted(groups.values(), key=lambda c: answered[(c.store, c.root)], reverse=True)
    # A title may hold the words no turn has: every typed word is looked for there first.
    # What was asked, function words out, a word typed wrong as the word read for it.
    said = [t for t in reading.meant if t not in reading.dropped]
    # A Chinese or Japanese run as the parts the index has; one it has nowhere as typed, so a title
    # must have it too (a title with "Leo" alone does not answer "提醒我去取 Leo 的处方药").
    typed = [t for t in said if not cjk.has_cjk(t)] + runs
    typed += [t for t in reading.missing if cjk.has_cjk(t)]
    few = len(groups) < RELAX_BELOW
    meaning: dict[tuple[str, str], float] = {}  # each conversation's standing in the meaning pass
    unencoded: int | None = None
    read_as: list[str] = []
    read_in_chinese: list[str] = []
    ordered, pool = _with_titles(conn, ordered, typed, filters, few)
    unfound = [] if pool else reading.unfound  # a title has the phrase
    if pool or not reading.missing:
        missing = [] if pool else reading.missing
    else:  # a title with the words that exist, when they are several (one word in a title says little)
        found_words = [t for t in terms if not cjk.has_cjk(t)] + runs
        if len(found_words) >= 2:
            ordered, pool = _with_titles(conn, ordered, found_words, filters, few)
        missing = reading.missing
    if few:
        # Few conversations have every word: they are one list of evidence among the others (any
        # of the words, meaning, titles), weighed more, not a ranking placed above them.
        pool += evidence_of(ordered, [conversation_score(c.hits) for c in ordered], STRICT_WEIGHT)
        ordered = []
        coverage = len(terms) / (len(terms) + len(reading.missing)) if terms else 1.0
        matched = {h.doc for h in hits}
        lists: list[tuple[str, list[str], float, list[list[str]] | None]] = [
            (table, some, LEXICAL_WEIGHT, None)
            for table, some in _relaxed(conn, terms, runs, loose=not groups, prefix=reading.prefix)
        ]
        # Read across languages, every Chinese or Japanese run typed: one no index holds as written
        # (a question about a conversation held in English) is the one a dictionary is for.
        typed_runs = cjk.question_runs(said)
        if readings := _translated(conn, typed_runs):
            read_as = lexicon.interleaved(readings)
            lists.append(("docs_fts", read_as, TRANSLATED_WEIGHT, readings))
            own = [[t] for t in said if not cjk.has_cjk(t)]
            pool += _titles_read_as(conn, [*readings, *own], filters)
            missing = lexicon.unread(missing, readings)
        elif not typed_runs and (found_in := _in_chinese(conn, said))[0]:
            readings, read_across = found_in
            read_in_chinese = lexicon.interleaved(readings)
            missing = lexicon.still_missing(missing, read_across)
            phrases = [[" ".join(cjk.bigrams(w)) for w in group] for group in readings]
            lists.append(("docs_cjk", lexicon.interleaved(phrases), TRANSLATED_WEIGHT, phrases))
        excluded = query.excluded_fts(reading.parsed)
        most_covered = 0  # the most of the question's words one conversation has, in the English lists
        for table, some, weight, senses in lists:
            relaxed = " OR ".join(_fts_string(w) for w in some)
            if excluded is not None and table == "docs_fts":
                relaxed = f"({relaxed}) NOT {excluded}"
            name_starts = marked_list(table, some)
            more, cut = _ranked(
                conn,
                [(table, relaxed)],
                filters,
                terms + runs,
                RELAXED_WINDOW,
                None if name_starts else some,
                known=known,
                starts=name_starts,
                span=span,
                edit_lift=edit_lift,
            )
            windowed = windowed or cut
            found = list(_group(more).values())
            matched |= {h.doc for h in more}
            if not windowed:  # every list was read whole: what any of them found is what matched
                matches = len(matched)
            scores = [conversation_score(g.hits) for g in found]
            weight *= coverage
            if table == "docs_cjk" and senses is not None:
                # An English question read as Chinese: the words its best conversation has through the
                # dictionary against those the English words' best has, so a conversation held in
                # Chinese that has all of them outweighs English ones with one each (as far as one
                # with every word typed weighs), and one that has fewer weighs less.
                shares, counts = _covered(conn, found, some, table, senses, doc_count=doc_count)
                ratio = min(max(counts, default=0), COVERAGE_TERMS) / max(most_covered, 1)  # as many read
                weight = min(STRICT_WEIGHT * coverage, weight * ratio**COVERAGE_POWER)
                scores = [s * share**COVERAGE_POWER for s, share in zip(scores, shares, strict=True)]
                pool += evidence_of(found, scores, weight)
            elif table == "docs_cjk":
                # A Chinese or Japanese question's bigrams: a conversation with two of its twenty
                # (a 的 phrase, 打开) is no answer, however much better than the other lists' best it
                # scores; its evidence is the share of the question it holds, after that list's best.
                shares = _covered(conn, found, some, table, doc_count=doc_count)[0]
                evidence = evidence_of(found, scores, weight)
                pool += [(c, e * s**COVERAGE_POWER) for (c, e), s in zip(evidence, shares, strict=True)]
            else:
                if len(some) > 1:
                    shares, counts = _covered(conn, found, some, table, senses, doc_count=doc_count)
                    scores = [s * share**COVERAGE_POWER for s, share in zip(scores, shares, strict=True)]
                    most_covered = max([most_covered, *counts])
                elif found:
                    most_covered = max(most_covered, 1)
                pool += evidence_of(found, scores, weight)
        # The sentence model reads the words as typed ("bağlantı", not the word indexes' "bağlanti").
        # In a question in another language, as typed: the model reads it (spelling.for_the_model).
        model_words = spelling.for_the_model(text, reading.typed, reading.spelled)
        if meaning_text := " ".join(query.as_typed(text, model_words)).strip():
            near, by_passages = _semantic(conn, meaning_text, filters)
            if encoder.available():
                done, total = vectors.counts(conn)
                unencoded = max(total - done, 0)
            meaning = {(g.store, g.root): z for g, z in near}
            weight = meaning_weight(reading.typed, reading.dropped)
            if not by_passages:  # the gists' model: static vectors, English only
                weight *= GIST_WEIGHT / SEMANTIC_WEIGHT
            pool += _meaning_pool(conn, near, meaning_text, weight)
            if read_as and by_passages:
                # A Chinese or Japanese question read as English through the dictionary: the sentence
                # model reads that too, where it misses a word typed (零花钱 is no nearer "pocket money"
                # than the babysitter's rate); its list weighs what the dictionary's word list does. Not
                # the gists' static vectors: they read the words as the word lists do, and a conversation
                # with three readings of one word (pocket, money, allowance) would count them thrice.
                read_text = " ".join(read_as)
                near, _ = _semantic(conn, read_text, filters)
                for conv, z in near:
                    meaning[(conv.store, conv.root)] = max(z, meaning.get((conv.store, conv.root), z))
                pool += _meaning_pool(conn, near, read_text, weight * TRANSLATED_WEIGHT)
        if excluded is not None:
            pool = _without_excluded(conn, pool, excluded)
    if pool:
        floor = min((conversation_score(c.hits) for c in ordered), default=1.0)
        ordered += fused(pool, floor, about_user=stopwords.speaks_of_self(reading.typed))
        for conv in ordered:
            groups.setdefault((conv.store, conv.root), conv)
    present = asks_present(reading.typed)
    lift_profiles(ordered, reading.profiles, reading.sources, reading.projects)
    asked = about_terms(terms, text)
    ordered = _newest_first(
        conn,
        ordered,
        asked,
        meaning,
        answered,
        present,
        doc_count,
        asks_now(reading.typed),
        filters=filters,
        known=known,
    )
    ordered = ordered[:limit]
    conversations = []
    for group in ordered:
        group.hits = sorted(group.hits, key=lambda h: h.score, reverse=True)[:per_conversation]
        conversations.append(group)
    marked = terms + runs + read_as + read_in_chinese + plan.unfound_words(unfound)
    _snippets(conn, [h for c in conversations for h in c.hits], marked, snippet_chars)
    _openings(conn, conversations)
    exact = matches is not None
    counted = matches if matches is not None else len({h.doc for h in hits})
    result = SearchResult(text, conversations, counted, windowed, time.perf_counter() - started)
    result.matches_exact = exact and counted < COUNT_CAP
    result.missing = query.as_typed(text, missing + unfound)
    result.dropped, result.prefix = reading.dropped, reading.prefix
    result.unencoded = unencoded
    result.read_as = read_as
    result.read_as_cjk = read_in_chinese
    result.spelled = reading.spelled
    if not conversations:
        result.unmatched = unmatched(conn, filters)
    return result


# Characters of an untitled conversation's first prompt kept as its heading.
OPENING_CHARS = 100


def opening_line(text: str, chars: int = OPENING_CHARS) -> str:
    """``text`` on one line, cut to ``chars`` at a space where one is near, with an ellipsis when cut."""
    line = " ".join(text.split())
    if len(line) <= chars:
        return line
    cut = line[: chars - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space >= chars // 2 else cut).rstrip(" ,;:.") + "…"


def untitled_sessions(conversations: list[Conversation]) -> dict[int, Conversation]:
    """The conversations whose best hit is a session without a title, by that hit's doc."""
    return {
        c.hits[0].doc: c
        for c in conversations
        if c.hits and not c.hits[0].title and c.hits[0].origin == "session"
    }


def _openings(conn: sqlite3.Connection, conversations: list[Conversation]) -> None:
    """Give each conversation whose session has no title its first prompt (the first live prompt the index
    holds, redacted as every doc is): a heading that says what it was about, where ``(untitled)`` says
    nothing. One query for all. A session's docs are written together, in the order of its rows (a changed
    session is written again whole), so the first prompt is the first one ``docs_sess`` gives in id order:
    the walk stops there instead of reading and sorting every doc of a long session."""
    wanted = untitled_sessions(conversations)
    if not wanted:
        return
    marks = ", ".join("?" for _ in wanted)
    rows = conn.execute(
        "SELECT d.id, (SELECT p.text FROM docs p WHERE p.sess = d.sess AND p.kind = 'prompt' "
        "AND p.rewound = 0 AND p.archived = 0 ORDER BY p.id LIMIT 1) "
        f"FROM docs d WHERE d.id IN ({marks})",
        list(wanted),
    )
    for doc, text in rows:
        if text and text.strip():
            wanted[doc].opening = opening_line(text)


def _ranked(
    conn: sqlite3.Connection,
    plans: list[tuple[str, str]],
    filters: SearchFilters,
    terms: list[str],
    window: int | None = None,
    any_of: list[str] | None = None,
    *,
    known: dict[int, tuple[Any, ...]],
    starts: list[str] | None = None,
    span: tuple[int, int] | None = None,
    beside_runs: str | None = None,
    edit_lift: float = 1.0,
) -> tuple[list[Hit], bool]:
    """The hits of every plan's index, best first, and whether any index had more than a window of
    matches. ``known``: the sessions read so far in this search (:func:`_session_rows`); ``starts``: the
    word starts a doc of the word index must have (:func:`word_starts`); ``edit_lift``: :func:`_score`'s."""
    rows: dict[int, tuple[Any, ...]] = {}
    windowed = False
    for table, expression in plans:
        if table == "docs_tri" and windowed:
            continue  # the words found a full window: the substrings of the same terms would add little
        found, cut = _candidates(
            conn,
            table,
            expression,
            filters,
            terms,
            window,
            any_of,
            known=known,
            starts=starts,
            span=span,
            beside_runs=beside_runs,
        )
        windowed = windowed or cut
        for row in found:  # a doc found by two indexes keeps its better (lower) score
            if row[0] not in rows or row[-1] < rows[row[0]][-1]:
                rows[row[0]] = row
    times = [r[15] for r in rows.values() if r[15] is not None]
    newest, oldest = (max(times), min(times)) if times else (0.0, 0.0)
    return sorted(
        _score(rows.values(), newest, oldest, edit_lift), key=lambda h: h.score, reverse=True
    ), windowed


def _semantic(
    conn: sqlite3.Connection, text: str, filters: SearchFilters
) -> tuple[list[tuple[Conversation, float]], bool]:
    """Conversations whose sessions are nearest the query's meaning, with how far each stands out from its
    crowd (standard deviations above the mean); and whether any stands by its passages (else all by their
    gists).

    A session with passage vectors (``vectors.py``: the full sentence model over its passages) scores its
    best passage, against every such session's best, and is reported on that passage's first doc. A
    session without them yet (the vector stage fills in behind the word index) is compared by its static
    gist, against every gist. Only the filters on sessions apply: a search narrowed to a role, a tool or a
    time window of docs gets no semantic matches.
    """
    if filters.role or filters.tool or filters.since is not None or filters.until is not None:
        return [], False
    served = meaning_client.standing(conn, text, _on_sessions(filters))
    standing = served if served is not None else meaning_standing(conn, text, _on_sessions(filters))
    if not standing:
        return [], False
    # Each session is reported on its best passage's first doc; one compared by its gist (or whose doc is
    # gone) on its first live prompt.
    docs = [doc for _, doc in standing.values() if doc is not None]
    marks = ", ".join("?" for _ in docs)
    found = (
        {
            row[0]: row
            for row in conn.execute(
                f"SELECT {_DOC_COLUMNS} FROM docs d JOIN sessions s ON s.id = d.sess WHERE d.id IN ({marks})",
                docs,
            )
        }
        if docs
        else {}
    )
    heads = _heads(conn, [sess for sess, (_, doc) in standing.items() if doc is None or doc not in found])
    hits = []
    for sess, (z, doc) in standing.items():
        row = found.get(doc) if doc is not None else None
        if row is None:
            row = heads.get(sess)
        if row is not None:
            hits.append(_hit(row, z * SESSION_WEIGHT.get(row[7], 1.0)))
    by_passages = any(doc is not None for _, doc in standing.values())
    return [(conv, conv.score) for conv in sorted(_group(hits).values(), key=lambda c: -c.score)], by_passages


def load_meaning(conn: sqlite3.Connection) -> None:
    """Load what a long-lived process's first meaning pass loads (the sentence model, the static gists and
    the passages a search without filters compares against), ahead of its first question."""
    meaning_standing(conn, "hermes", _on_sessions(SearchFilters()))


def meaning_standing(
    conn: sqlite3.Connection, text: str, filters: SearchFilters
) -> dict[int, tuple[float, int | None]]:
    """Each session near the query's meaning: how far it stands out from its crowd (standard deviations
    above the mean) and the doc it is reported on (its best passage's first doc; ``None`` for a session
    compared by its gist). The part of the meaning pass that needs numpy and the model: a one-shot
    command has the meaning server run it (``meaning_client``), a long-lived process runs it here."""
    if not semantic.available():
        return {}
    clauses, params = _where(filters)
    standing: dict[int, tuple[float, int | None]] = {}
    encoded: set[int] = set()  # sessions with passage vectors; the others are compared by their gists
    if encoder.available():
        try:
            passages = vectors.matrix(conn, " AND ".join(clauses) or "1", params)
        except sqlite3.OperationalError:  # an index without the tables (being replaced): gists only
            passages = None
        if passages is not None:
            encoded = set(passages.sessions)
            if len(passages.sessions) >= 2:
                best, rows = passages.best(encoder.model().encode([text])[0])
                mean, deviation = float(best.mean()), float(best.std()) or 1.0
                maybe: dict[int, tuple[int, float]] = {}  # doc: under the floor, held in another language?
                asker = _about_asker(conn) if vectors.asks_about_asker(text) else set()
                for i in semantic.top(best, SEMANTIC_TOP):
                    z = (float(best[i]) - mean) / deviation
                    if best[i] >= vectors.floor(passages.sessions[i], asker):
                        standing[passages.sessions[i]] = (z, int(passages.docs[rows[i]]))
                    elif vectors.unsure(float(best[i]), z):
                        maybe[int(passages.docs[rows[i]])] = (passages.sessions[i], z)
                if maybe:
                    marks = ", ".join("?" for _ in maybe)
                    said = dict(conn.execute(f"SELECT id, text FROM docs WHERE id IN ({marks})", list(maybe)))
                    for doc in vectors.across(text, said):
                        standing[maybe[doc][0]] = (maybe[doc][1], doc)
    if (vector := semantic.embed(text)) is not None:
        sessions, matrix = _gists(conn, " AND ".join(["s.gist IS NOT NULL", *clauses]), params)
        if len(sessions) >= 2:
            similarity = matrix @ vector
            mean, deviation = float(similarity.mean()), float(similarity.std()) or 1.0
            # The nearest SEMANTIC_TOP of the sessions without passages (as many more looked at as have
            # them), not every one of those looked at: while the vector stage fills in, 300 gists of a
            # million messages' sessions stood beside the passages' 20 (a tenth of them encoded).
            added = 0
            for i in semantic.top(similarity, SEMANTIC_TOP + len(encoded)):
                sess = sessions[i]
                if similarity[i] >= SEMANTIC_FLOOR and sess not in encoded and sess not in standing:
                    standing[sess] = ((float(similarity[i]) - mean) / deviation, None)
                    added += 1
                    if added == SEMANTIC_TOP:
                        break
    return standing


def _about_asker(conn: sqlite3.Connection) -> set[int]:
    """The index's ids of the memory files a question about the asker reads at a lower floor
    (:data:`~hermes_trail.index.vectors.ABOUT_ASKER`, of every profile)."""
    marks = ", ".join("?" for _ in vectors.ABOUT_ASKER)
    sql = f"SELECT id FROM sessions WHERE kind = 'memory' AND session_id IN ({marks})"
    return {int(row[0]) for row in conn.execute(sql, vectors.ABOUT_ASKER)}


def _heads(conn: sqlite3.Connection, sessions: list[int]) -> dict[int, tuple[Any, ...]]:
    """Each session's first live prompt (what it was about), else its first doc, as a row of
    :data:`_DOC_COLUMNS`: what a session found by what it is about (its gist, its title) is reported on.
    Found through the docs_sess index, not by reading every doc of a long session."""
    if not sessions:
        return {}
    marks = ", ".join("?" for _ in sessions)
    first: dict[int, tuple[Any, ...]] = {}
    for row in conn.execute(
        f"SELECT {_DOC_COLUMNS}, s.id FROM sessions s JOIN docs d ON d.id = coalesce("
        "(SELECT p.id FROM docs p WHERE p.sess = s.id AND p.kind = 'prompt' AND p.rewound = 0 "
        "ORDER BY p.id LIMIT 1), (SELECT min(a.id) FROM docs a WHERE a.sess = s.id)) "
        f"WHERE s.id IN ({marks})",
        sessions,
    ):
        first[row[-1]] = row[:-1]
    return first


def _titled(conn: sqlite3.Connection, words: list[str], filters: SearchFilters) -> list[int]:
    """The sessions whose title has every one of ``words`` in it (a substring, so the word a person is
    still typing counts): a title is what a person remembers a session by, and the word index does not
    hold it. At most :data:`TITLED` of them, newest first; none for a search narrowed to turns (a role, a
    tool, a time window), which a title says nothing about. The titles are read from their own index
    (``sessions_title``), never from the session rows, which carry their gists."""
    found = [sess for sess, _ in _titles_with(conn, words, filters, every=True)]
    return _passing(conn, found, filters, most=TITLED)


def _titles_with(
    conn: sqlite3.Connection, words: list[str], filters: SearchFilters, every: bool
) -> list[tuple[int, str]]:
    """(session, title) of the sessions whose title has every one of ``words`` (or, not ``every``, any of
    them), as typed or in another form (:func:`plan.title_has`), read from the titles' own index; none for
    a search narrowed to turns (a role, a tool, a time window), which a title says nothing about."""
    if not words or filters.role or filters.tool or filters.since is not None or filters.until is not None:
        return []
    likes = (" AND " if every else " OR ").join("title LIKE ? ESCAPE '\\'" for _ in words)
    patterns = ["%" + like(plan.title_part(w)) + "%" for w in words]
    if not every:
        sql = (
            f"SELECT id, title FROM sessions INDEXED BY sessions_title WHERE title IS NOT NULL AND ({likes})"
        )
        return [
            (sess, title) for sess, title in conn.execute(sql, patterns) if titled_with(title, words, False)
        ]
    # The titles with the words' starts as written, and (in the same read) those past ASCII, told by their
    # length in bytes, which SQLite reads at C speed (a GLOB of the accented letters read 7,300 titles in
    # 7 ms, this 0.5): those are read folded as the word index folds its words ("muller" in "Termin bei
    # Müller", which LIKE, blind to accents past ASCII, did not see), when no title has the words as written.
    # So are those with a word typed with accents as the word index holds it ("müller" in "Termin bei
    # Muller"), as the shared index reads every title folded.
    folded = ["%" + like(plan.title_part(plan.folded_title(w))) + "%" for w in words]
    refold = f" OR ({likes})" if folded != patterns else ""
    sql = (
        f"SELECT id, title, ({likes}) FROM sessions INDEXED BY sessions_title WHERE title IS NOT NULL "
        f"AND (({likes}){refold} OR length(CAST(title AS BLOB)) != length(title))"
    )
    rows = conn.execute(sql, patterns * 2 + (folded if refold else [])).fetchall()
    written = [(sess, title) for sess, title, typed in rows if typed and titled_with(title, words)]
    if written:
        return written
    return [(sess, title) for sess, title, typed in rows if not typed and titled_with(title, words)]


def titled_with(title: str, words: list[str], every: bool = True) -> bool:
    """Whether ``title`` has every one of ``words`` (or, not ``every``, any of them) in some form; the local
    index and the shared one read titles alike."""
    had = (plan.title_has(title, w) for w in words)
    return all(had) if every else any(had)


def _passing(
    conn: sqlite3.Connection, sessions: Iterable[int], filters: SearchFilters, most: int | None = None
) -> list[int]:
    """Of ``sessions``, those the search's session filters (project, profile, source) let through; with
    ``most``, at most that many, newest first."""
    found = list(sessions)
    if not found:
        return []
    clauses, params = _where(_on_sessions(filters))
    marks = ", ".join("?" for _ in found)
    where = " AND ".join([f"s.id IN ({marks})", *clauses])
    if most is None:
        return [r[0] for r in conn.execute(f"SELECT s.id FROM sessions s WHERE {where}", (*found, *params))]
    sql = f"SELECT s.id FROM sessions s WHERE {where} ORDER BY s.id DESC LIMIT ?"
    return [r[0] for r in conn.execute(sql, (*found, *params, most))]


def lift_titled(ordered: list[Conversation], words: list[str]) -> bool:
    """Lift the leading conversations whose title has every one of ``words`` (:data:`TITLE_BOOST`) and
    sort again; only the leading ones: a title lifts, it does not pull one from far below. ``False`` when
    no word is left to look for (the local index and the shared one lift alike)."""
    wanted = [w.casefold() for w in words if w.strip()]
    if not wanted:
        return False
    lifted = False
    for conv in ordered[:TITLED]:
        title = conv.hits[0].title if conv.hits else None
        if title and titled_with(title, wanted):
            lifted = True
            for hit in conv.hits:
                hit.score *= 1.0 + TITLE_BOOST
    if lifted:
        ordered.sort(key=lambda c: conversation_score(c.hits), reverse=True)
    return True


def _with_titles(
    conn: sqlite3.Connection, ordered: list[Conversation], words: list[str], filters: SearchFilters, few: bool
) -> tuple[list[Conversation], list[tuple[Conversation, float]]]:
    """Conversations whose session titles have every word: those already found rank higher
    (:data:`TITLE_BOOST`, told from the titles their hits carry); when the words found ``few``, every
    session whose title has them is strong evidence of its own, one of the lists fused, whether or not the
    words found it too (as the shared index weighs them): "Shell exit codes" answers "what did the shell
    exit with" before a reply that repeats "exit codes follow the usual shell conventions"."""
    if not lift_titled(ordered, words):
        return ordered, []
    titled = _titled(conn, words, filters) if few else []
    if not titled:
        return ordered, []
    hits = [_hit(row, SESSION_WEIGHT.get(row[7], 1.0)) for row in _heads(conn, titled).values()]
    titled_convs = list(_group(hits).values())
    return ordered, evidence_of(titled_convs, [1.0] * len(titled_convs), TITLE_WEIGHT)


def title_shares(titles: Iterable[tuple[int, str]], groups: list[list[str]]) -> dict[int, float]:
    """Of ``titles`` (session, title), those that have the words of a Chinese or Japanese question read as
    English, each with the share of the question it has: each of ``groups`` is one question word's
    readings (or a word typed in English, alone), had when one of them is in the title where a word
    starts; two of them at least. The local index and the shared one read titles alike."""
    shares: dict[int, float] = {}
    for sess, title in titles:
        low = title.lower()
        had = sum(any(names_word(low, w.lower()) for w in group) for group in groups)
        if had >= 2:
            shares[sess] = had / len(groups)
    return shares


def _titles_read_as(
    conn: sqlite3.Connection, groups: list[list[str]], filters: SearchFilters
) -> list[tuple[Conversation, float]]:
    """Sessions whose titles have the words of a Chinese or Japanese question read as English
    (:func:`title_shares`), each by the square of the share of the question it has, :data:`TITLE_WEIGHT`
    for a title with all: "提醒我去取 Leo 的处方药", read as remind, prescription and Leo, finds "Remind me
    to pick up Leo's prescription", whose turns do not have those words together. A title is what people
    name a session by; an English conversation's is in English."""
    if len(groups) < 2:
        return []
    words = list(dict.fromkeys(w for group in groups for w in group))
    shares = title_shares(_titles_with(conn, words, filters, every=False), groups)
    heads = _heads(conn, _passing(conn, shares, filters))
    found = [(_hit(row, SESSION_WEIGHT.get(row[7], 1.0)), shares[sess]) for sess, row in heads.items()]
    return titled_evidence(found)


def titled_evidence(
    found: list[tuple[Any, float]],
    group: Callable[[list[Any]], dict[tuple[str, str], Conversation]] | None = None,
) -> list[tuple[Conversation, float]]:
    """Sessions found by their titles read through the dictionary (each a hit and the share of the
    question its title has) as evidence: a conversation (a continuation chain is one, as ``group`` makes
    them) by its best title's share, squared, :data:`TITLE_WEIGHT` for a title with all."""
    best: dict[tuple[str, str], tuple[Conversation, float]] = {}
    for hit, share in found:
        for key, conv in (group or _group)([hit]).items():
            if key not in best or share > best[key][1]:
                best[key] = (conv, share)
    return [(conv, TITLE_WEIGHT * share**COVERAGE_POWER) for conv, share in best.values()]


_GISTS: dict[tuple[Any, ...], tuple[list[int], Any]] = {}


def _gists(conn: sqlite3.Connection, where: str, params: list[Any]) -> tuple[list[int], Any]:
    """The gists a semantic pass compares against: session ids and one float32 matrix.

    A long-lived caller (the MCP server, the Hermes plugin) asks many questions of an index that seldom
    changes, so the matrix of the last filter is kept while the sessions table is the same: the index's
    ``build`` id tells a rebuilt index, ``sessions_version`` (bumped by triggers) a session added or removed,
    and a changed session is a new row.
    """
    key = (*schema.state_key(conn, "sessions_version"), where, tuple(params))
    if key not in _GISTS:
        rows = conn.execute(f"SELECT s.id, s.gist FROM sessions s WHERE {where}", params).fetchall()
        _GISTS.clear()
        _GISTS[key] = ([r[0] for r in rows], semantic.matrix([r[1] for r in rows]))
    return _GISTS[key]


def _group(hits: list[Hit]) -> dict[tuple[str, str], Conversation]:
    groups: dict[tuple[str, str], Conversation] = {}
    for hit in hits:
        key = (hit.store, hit.root)
        conv = groups.get(key)
        if conv is None:
            conv = groups[key] = Conversation(hit.store, hit.root)
        conv.hits.append(hit)
    return groups
