"""``trail fix --fleet``: what fixed this error before, from the shared index, by the local rules
(:mod:`hermes_trail.index.fix`: the error's rarest words weighed by idf, failures matched by the share of
that weight they show, what their conversation ran next until the failing command succeeded or the next
prompt, fixes ranked by the conversations they worked in), each failure and example saying its host.

Differences in the reading only: a word's docs are counted through the ``tsvector`` GIN index (up to
:data:`~hermes_trail.index.fix.DF_CAP`, exactly rather than estimated), of the hosts asked for; failures
are the live commands that exited non-zero (the local ``fails`` table's rows) found by the same index; the
BM25 tie-break is computed as the fleet search computes it; a conversation is its host's.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_trail.fleet import schema
from hermes_trail.fleet.how import host_clause, project_clause
from hermes_trail.fleet.search import _leaf_sql, bm25
from hermes_trail.index import query
from hermes_trail.index.fix import (
    DF_CAP,
    FOLLOW,
    MAX_FAILURES,
    MEANT_FAILURES,
    SCORED,
    WINDOW,
    EditExample,
    EditRow,
    Failure,
    FixExample,
    FixReport,
    Tallies,
    Term,
    _error_words,
    _rarest,
    _window,
    change_of,
    covering,
    nearest_failure,
    said_of,
)

if TYPE_CHECKING:
    import psycopg

_D = f"{schema.SCHEMA}.docs"
_S = f"{schema.SCHEMA}.sessions"
# A live command that failed: what the local index keeps in ``fails``.
_FAILED = "d.kind = 'command' AND d.exit_code <> 0 AND NOT d.rewound AND d.command IS NOT NULL"


@dataclass(slots=True)
class FleetFailure(Failure):
    host: str = ""


@dataclass(frozen=True, slots=True)
class FleetFixExample(FixExample):
    host: str = ""


@dataclass(frozen=True, slots=True)
class FleetEditExample(EditExample):
    host: str = ""


def _word(conn: psycopg.Connection[Any], word: str) -> str | None:
    """A word as tsquery text, matched as the docs are indexed (stemmed and as written)."""
    leaf = _leaf_sql(query.Term(word))
    if leaf is None:
        return None
    row = conn.execute(f"SELECT ({leaf[0]})::text", leaf[1]).fetchone()
    return str(row[0]) if row and row[0] else None


def _terms(
    conn: psycopg.Connection[Any], words: list[str], hosts: list[str] | None, missing: list[str] | None = None
) -> tuple[list[Term], dict[str, str]]:
    """The error's distinctive terms, rarest first, and each word's tsquery: each word's docs counted up
    to DF_CAP (of ``hosts``), the rarest :data:`~hermes_trail.index.fix.MAX_TERMS` kept; ``missing`` gets
    the words no doc has, as locally."""
    if hosts:
        row = conn.execute(
            f"SELECT coalesce(sum(docs), 0) FROM {schema.SCHEMA}.hosts WHERE host = ANY(%s)", (list(hosts),)
        ).fetchone()
    else:
        row = conn.execute(f"SELECT coalesce(sum(docs), 0) FROM {schema.SCHEMA}.hosts").fetchone()
    total = int(row[0]) if row else 0
    if total == 0 or not words:
        return [], {}
    tsqueries = {w: q for w in words if (q := _word(conn, w)) is not None}
    hosts_sql, host_params = host_clause("d.host", hosts)
    selects = [
        f"(SELECT count(*) FROM (SELECT 1 FROM {_D} d WHERE d.tsv @@ %s::tsquery AND {hosts_sql} "
        f"LIMIT {DF_CAP}) c)"
        for _ in tsqueries
    ]
    counted: list[tuple[str, int]] = []
    if selects:
        params = [v for q in tsqueries.values() for v in (q, *host_params)]
        found = conn.execute("SELECT " + ", ".join(selects), params).fetchone() or ()
        counted = [(w, int(n)) for w, n in zip(tsqueries, found, strict=True) if int(n) > 0]
        if missing is not None:
            missing += [w for w, n in zip(tsqueries, found, strict=True) if int(n) == 0]
    chosen = _rarest(counted, words)

    def idf(n: int) -> float:
        return math.log((total - n + 0.5) / (n + 0.5) + 1.0)

    return [Term(w, n, idf(n)) for w, n in chosen], tsqueries


def _holding(
    conn: psycopg.Connection[Any],
    tsquery: str,
    project: str | None,
    hosts: list[str] | None,
    *,
    floor: int = 0,
    limit: int | None = None,
) -> list[int]:
    """The failures (doc ids, newest first) matching ``tsquery``, of ``project`` and ``hosts``, from doc
    ``floor`` on, at most ``limit``."""
    clause, params = project_clause("s.project", project)
    hosts_sql, host_params = host_clause("d.host", hosts)
    join = f" JOIN {_S} s ON s.id = d.sess" if params else ""
    sql = (
        f"SELECT d.id FROM {_D} d{join} WHERE d.tsv @@ %s::tsquery AND {_FAILED} AND d.id >= %s "
        f"AND {clause} AND {hosts_sql} ORDER BY d.id DESC" + (" LIMIT %s" if limit is not None else "")
    )
    args = [tsquery, floor, *params, *host_params, *([limit] if limit is not None else [])]
    return [int(doc) for (doc,) in conn.execute(sql, args)]


def _either(queries: list[str]) -> str:
    return "(" + " | ".join(f"({q})" for q in queries) + ")"


def _matching(
    conn: psycopg.Connection[Any],
    terms: list[Term],
    tsq: dict[str, str],
    project: str | None,
    hosts: list[str] | None,
) -> dict[int, list[Term]]:
    """Failures holding the terms, and which terms each holds: the local windows (``_matching``)."""
    matched: dict[int, list[Term]] = defaultdict(list)
    rare = [t for t in terms if t.docs < DF_CAP]
    common = [t for t in terms if t.docs >= DF_CAP]
    if not rare:
        every = " & ".join(f"({tsq[t.word]})" for t in common)
        for doc in _holding(conn, every, project, hosts, limit=WINDOW):
            matched[doc] = list(common)
        return matched
    holding: dict[str, set[int]] = {}
    exact: list[Term] = []
    often: list[tuple[Term, list[int]]] = []
    for term in rare:
        docs = _holding(conn, tsq[term.word], project, hosts, limit=WINDOW + 1)
        if len(docs) <= WINDOW:
            exact.append(term)
            holding[term.word] = set(docs)
        else:
            often.append((term, docs[:WINDOW]))
    floor = max((docs[-1] for _, docs in often), default=0)
    for term, docs in often:
        holding[term.word] = {doc for doc in docs if doc >= floor}
    named = _either([tsq[t.word] for t in exact]) if exact else ""
    recent = _either([tsq[t.word] for t, _ in often]) if often else ""
    for term in [t for t, _ in often] + common:
        word = f"({tsq[term.word]})"
        held = holding.setdefault(term.word, set())
        if named:
            held.update(_holding(conn, f"{named} & {word}", project, hosts))
        if recent and term in common:
            held.update(_holding(conn, f"{recent} & {word}", project, hosts, floor=floor))
    for term in terms:
        for doc in holding.get(term.word, ()):
            matched[doc].append(term)
    return matched


_FAILURE_COLUMNS = (
    "d.id, s.store, s.session_id, s.ref, s.title, s.project, s.root, d.row, d.part, d.time, d.command, "
    "d.exit_code, d.sess, d.seq, s.host"
)


def _failures(
    conn: psycopg.Connection[Any],
    terms: list[Term],
    tsq: dict[str, str],
    least: int,
    project: str | None,
    hosts: list[str] | None,
) -> tuple[list[FleetFailure], int, int, dict[int, tuple[int, int]]]:
    """The failures matching, best first (at most SCORED), how many in all and in how many conversations,
    and each failure's (session, place in it)."""
    matched = _matching(conn, terms, tsq, project, hosts)
    coverage, passing = covering(matched, terms, least)
    if not passing:
        return [], 0, 0, {}
    rows = {
        int(r[0]): r
        for r in conn.execute(
            f"SELECT {_FAILURE_COLUMNS} FROM {_D} d JOIN {_S} s ON s.id = d.sess WHERE d.id = ANY(%s)",
            (passing,),
        )
    }
    passing = [doc for doc in passing if doc in rows]
    conversations = len({(rows[doc][14], rows[doc][1], rows[doc][6]) for doc in passing})
    total = len(passing)
    passing.sort(key=lambda doc: (-coverage[doc], -(rows[doc][9] or 0.0), -doc))
    passing = passing[:SCORED]
    rare = [t.word for t in terms if t.docs < DF_CAP] or [t.word for t in terms]
    scores = {doc: -score for doc, score in bm25(conn, passing, rare).items()}  # as FTS5's: lower better
    failures = []
    places: dict[int, tuple[int, int]] = {}
    for doc in passing:
        (doc_id, store, sid, ref, title, proj, root, row, part, when, command, exit_code, sess, seq, host) = (
            rows[doc]
        )
        places[doc_id] = (int(sess), int(seq))
        failures.append(
            FleetFailure(
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
                scores.get(doc, 0.0),
                [t.word for t in matched[doc]],
                host=host,
            )
        )
    failures.sort(key=lambda f: (-f.coverage, f.bm25, -(f.time or 0.0), -f.doc))
    return failures, total, conversations, places


# A step after a failure: (seq, kind, exit_code, command, time), and where it ran (ref, store, id, title).
_Row = tuple[int, str, int | None, str | None, float | None]
_Names = tuple[str, str, str, str | None]
_STEPS = (
    f"SELECT seq, kind, exit_code, command, time FROM {_D} WHERE sess = %s AND seq > %s AND row >= %s "
    "AND NOT rewound AND kind IN ('command', 'prompt') ORDER BY seq LIMIT %s"
)


def _session_steps(conn: psycopg.Connection[Any], sess: int, after: int, row: int) -> Iterator[_Row]:
    """A session's live commands and prompts after place ``after`` and from row ``row`` on, a batch at
    a time (as far as the window goes)."""
    batch = FOLLOW + 4
    while True:
        rows = conn.execute(_STEPS, (sess, after, row, batch)).fetchall()
        yield from rows
        if len(rows) < batch:
            return
        after = rows[-1][0]


def _following(
    conn: psycopg.Connection[Any],
    failure: FleetFailure,
    place: tuple[int, int],
    chains: dict[tuple[str, str, str], list[tuple[Any, ...]]],
) -> Iterator[tuple[_Row, _Names]]:
    """What its conversation did after ``failure``, in order: the rest of its session, then the later
    sessions of its chain (on its host)."""
    sess, seq = place
    names = (failure.ref, failure.store, failure.session_id, failure.title)
    yield from ((step, names) for step in _session_steps(conn, sess, seq, failure.row))
    key = (failure.host, failure.store, failure.root)
    if key not in chains:
        found = conn.execute(
            f"SELECT s.id, s.ref, s.session_id, s.title, min(d.row), max(d.row) FROM {_S} s "
            f"JOIN {_D} d ON d.sess = s.id WHERE s.host = %s AND s.store = %s AND s.root = %s "
            "GROUP BY s.id HAVING count(*) > 0",
            key,
        ).fetchall()
        chains[key] = sorted(found, key=lambda c: c[4]) if len(found) > 1 else []
    for other, ref, session_id, title, _first, last in chains[key]:
        if other != sess and last > failure.row:
            for step in _session_steps(conn, other, -1, failure.row + 1):
                yield step, (ref, failure.store, session_id, title)


def _tally(
    conn: psycopg.Connection[Any], failures: list[FleetFailure], places: dict[int, tuple[int, int]]
) -> Tallies:
    """The fixes that followed ``failures``, as the local tally counts them (a conversation: its host's)."""
    tallies = Tallies(FleetFixExample, FleetEditExample)
    chains: dict[tuple[str, str, str], list[tuple[Any, ...]]] = {}
    by_conversation: dict[tuple[str, str], list[FleetFailure]] = defaultdict(list)
    for failure in failures:
        by_conversation[(f"{failure.host}\x00{failure.store}", failure.root)].append(failure)
    for key, found in by_conversation.items():
        for failure in found:
            window, passed = _window(_following(conn, failure, places[failure.doc], chains), failure)
            edited = functools.partial(_edited, conn, *places[failure.doc])
            tallies.count(key, failure, window, passed, edited, host=failure.host)
    return tallies


# The files a session changed between two of its places, as the local index reads them.
_EDITED = (
    f"SELECT seq, path, time, text, removed, added FROM {_D} WHERE sess = %s AND seq > %s AND seq < %s "
    "AND kind = 'edit' AND NOT rewound AND path IS NOT NULL AND applied IS NOT FALSE ORDER BY seq"
)


def _edited(conn: psycopg.Connection[Any], sess: int, after: int, upto: int | None) -> list[EditRow]:
    """The edits of session ``sess`` after place ``after`` and before place ``upto`` (``None``: its end)."""
    rows = conn.execute(_EDITED, (sess, after, upto if upto is not None else 2**31 - 1)).fetchall()
    return [(int(seq), str(path), when, change_of(str(text), r, a)) for seq, path, when, text, r, a in rows]


def find_fixes(
    conn: psycopg.Connection[Any],
    error: str,
    *,
    project: str | None = None,
    limit: int = 10,
    hosts: list[str] | None = None,
) -> FixReport:
    """Past failures matching ``error`` in the shared index (of ``project``, of ``hosts``) and the commands
    that fixed them, best first, at most ``limit`` of each (0: all), as
    :func:`hermes_trail.index.fix.find_fixes` finds them locally."""
    words = _error_words(error)
    missing: list[str] = []
    terms, tsq = _terms(conn, words, hosts, missing)
    least = min(2, len(words))
    failures, total, conversations, places = (
        _failures(conn, terms, tsq, least, project, hosts) if terms else ([], 0, 0, {})
    )
    tallies = _tally(conn, failures[:MAX_FAILURES], places)
    report = tallies.report(error, terms, (list(failures), total, conversations), limit)
    report.missing = list(reversed(missing))  # in the error's order
    _said_after(conn, report.failures, places)
    return report


def _said_after(
    conn: psycopg.Connection[Any], failures: list[Any], places: dict[int, tuple[int, int]]
) -> None:
    """Each reported failure's ``said``: the agent's last reply in the turn it failed in, as locally; all of
    them in one statement."""
    asked = [(f.doc, *places[f.doc]) for f in failures if f.doc in places]
    if not asked:
        return
    docs, sessions, seqs = (list(column) for column in zip(*asked, strict=True))
    sql = (
        f"SELECT f.doc, (SELECT left(r.text, 4000) FROM {_D} r WHERE r.sess = f.sess AND r.seq > f.seq "
        f"AND NOT r.rewound AND r.kind = 'reply' AND r.seq < coalesce((SELECT p.seq FROM {_D} p "
        "WHERE p.sess = f.sess AND p.seq > f.seq AND NOT p.rewound AND p.kind = 'prompt' ORDER BY p.seq "
        "LIMIT 1), 2147483647) ORDER BY r.seq DESC LIMIT 1) "
        "FROM unnest(%s::bigint[], %s::bigint[], %s::integer[]) AS f(doc, sess, seq)"
    )
    said = dict(conn.execute(sql, (docs, sessions, seqs)).fetchall())
    for failure in failures:
        if failure.doc in said:
            failure.said = said_of(said[failure.doc])


def by_meaning(
    conn: psycopg.Connection[Any],
    error: str,
    *,
    project: str | None = None,
    limit: int = 10,
    hosts: list[str] | None = None,
) -> FixReport:
    """What fixed the failures of the conversations nearest ``error`` in meaning, for an error nothing in the
    shared index failed with the words of, as :func:`hermes_trail.index.fix.by_meaning` finds them locally
    (with pgvector; without it, nothing)."""
    from hermes_trail.fleet.meaning import nearest_places
    from hermes_trail.index.how import meant

    nothing = FixReport(error, [], [], 0, 0, [])
    standing = nearest_places(conn, error, project, hosts)
    if not standing:
        return nothing
    failed = {
        int(row[0])
        for row in conn.execute(
            f"SELECT DISTINCT d.sess FROM {_D} d WHERE d.sess = ANY(%s) AND {_FAILED}",
            ([sess for sess, _, _ in standing],),
        )
    }
    chosen: list[int] = []
    for sess, _, seq in meant(s for s in standing if s[0] in failed):
        rows = conn.execute(
            f"SELECT d.seq, d.id, left(d.text, 4000) FROM {_D} d WHERE d.sess = %s AND {_FAILED} "
            "ORDER BY d.seq LIMIT %s",
            (sess, MEANT_FAILURES),
        ).fetchall()
        ids = {int(at): int(doc) for at, doc, _ in rows}
        if rows and (at := nearest_failure(error, [(int(a), str(t)) for a, _, t in rows], seq)) is not None:
            chosen.append(ids[at])
    if not chosen:
        return nothing
    columns = conn.execute(
        f"SELECT {_FAILURE_COLUMNS} FROM {_D} d JOIN {_S} s ON s.id = d.sess WHERE d.id = ANY(%s)", (chosen,)
    ).fetchall()
    by_doc = {int(r[0]): r for r in columns}
    failures: list[FleetFailure] = []
    places: dict[int, tuple[int, int]] = {}
    for doc in chosen:
        if doc not in by_doc:
            continue
        (doc_id, store, sid, ref, title, proj, root, row, part, when, command, exit_code, sess, seq, host) = (
            by_doc[doc]
        )
        places[doc_id] = (int(sess), int(seq))
        failures.append(
            FleetFailure(
                doc_id, store, sid, ref, title, proj, root, row, part, when, command, exit_code, 0.0, 0.0,
                host=host,
            )
        )  # fmt: skip
    conversations = len({(f.host, f.store, f.root) for f in failures})
    report = _tally(conn, failures, places).report(
        error, [], (list(failures), len(failures), conversations), limit
    )
    report.by_meaning = bool(failures)
    _said_after(conn, report.failures, places)
    return report
