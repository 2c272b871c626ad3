"""The shared index's meaning pass: the passages nearest a question's meaning through pgvector, each
session standing against its crowd as the local pass stands it (exactly, up to a few thousand passages;
beyond, fitted from the nearest). Nothing without the ``vector`` extension."""

from __future__ import annotations

import itertools
import math
from typing import TYPE_CHECKING, Any

from hermes_trail.fleet import schema
from hermes_trail.fleet.connection import Statement, rows_after
from hermes_trail.fleet.hits import _D, _DOC_COLUMNS, _S, _group, _hit, _sessions
from hermes_trail.index.filters import SearchFilters
from hermes_trail.index.fusion import SESSION_WEIGHT, language_lifts, meaning_evidence
from hermes_trail.index.results import Conversation
from hermes_trail.index.search import _on_sessions
from hermes_trail.index.vectors import ABOUT_ASKER, across, asks_about_asker, floor, unsure

if TYPE_CHECKING:
    import psycopg

# How long what the server says of its pgvector (whether it has an iterative scan) is kept per connection,
# as the profile names are.
SETTINGS_SECONDS = 60.0
# Passages the meaning pass reads (nearest first), and the cosine below which a passage says nothing.
MEANING_TOP = 200


# Up to this many passages (of the sessions searched), each session's best passage is read (a scan of
# every passage): the crowd a session stands against is the local pass's exactly, where beyond it is
# fitted from the nearest (:func:`crowd`).
EXACT_CROWD_PASSAGES = 5000


SEMANTIC_TOP = 20


# The nearest sessions' standings are fitted to the crowd's tail past this many of them (the first are
# what the query is about, not the crowd).
CROWD_SKIP = 10


# Fewer nearest sessions than this say too little of the crowd to fit it: their own spread stands for it.
CROWD_FIT_FROM = 20


def crowd(values: list[float], total: int) -> tuple[float, float]:
    """The mean and standard deviation of every session's best similarity to the query, estimated from
    the ``values`` of the nearest ones (best first) among ``total`` sessions.

    The local pass compares each session with all of them; here only the nearest are read. Their own
    spread is the top of the crowd's: its mean is far above the crowd's and its deviation far below, so
    a session half as near as the first stood a third as far out as locally, and a later conversation
    that replaced the first one was not near enough to lead. Fitting the nearest to the tail of a normal
    crowd (the i-th nearest of N sits at the normal quantile 1 - (i - 1/2) / N) gives the crowd's mean and
    deviation back: on the recall benchmark the standings of the first five, each against the first's,
    came within 0.012 of the local ones on average, against 0.089 from the nearest ones' own spread."""
    count = len(values)
    if total > count and count >= CROWD_FIT_FROM:
        from statistics import NormalDist

        normal = NormalDist()
        skip = min(CROWD_SKIP, count // 4)
        xs = [normal.inv_cdf(1.0 - (i + 0.5) / total) for i in range(skip, count)]
        ys = values[skip:]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        spread = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / spread if spread else 0.0
        if slope > 0:
            return my - slope * mx, slope
    # All of the crowd at hand, too few to fit, or no fit (equal values): the nearest ones' own spread.
    mean = sum(values) / count
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / count) or 1.0


_HNSW: dict[tuple[int, int], tuple[float, bool]] = {}


def _nearest_settings(conn: psycopg.Connection[Any]) -> Statement:
    """pgvector's HNSW index gives at most ``hnsw.ef_search`` rows (40 unless set): once the planner used
    it (a large shared index), the nearest :data:`MEANING_TOP` passages asked for were 40, and each
    session's standing was fitted to the crowd from those. And it applies a filter (a host, a profile) to
    the nearest passages of every host: when other hosts' filled them, the host asked had none left, and
    its sessions no standing at all. pgvector 0.8 scans on until as many pass the filter
    (``hnsw.iterative_scan``, in order; at most ``hnsw.max_scan_tuples`` of the index, 20,000 unless set);
    an earlier pgvector has no such scan, and says what is lost in docs/fleet.md.

    The statement setting them for the query's own transaction (:func:`rows_after`): a setting of the
    session would stay with whichever server connection a pooler in transaction mode gave it, another
    client's next, and the query might run on one without it. Which pgvector the server has is kept a
    while per connection."""
    settings = "set_config('hnsw.ef_search', %s, true)"
    if schema.kept(_HNSW, conn, SETTINGS_SECONDS, lambda: _iterative_scan(conn)):
        settings += ", set_config('hnsw.iterative_scan', 'strict_order', true)"
    return f"SELECT {settings}", (str(MEANING_TOP),)


def _iterative_scan(conn: psycopg.Connection[Any]) -> bool:
    """Whether the server's pgvector scans an HNSW index on past a filter (0.8 and later)."""
    found = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
    return found is not None and _version(str(found[0])) >= (0, 8)


def _version(text: str) -> tuple[int, ...]:
    """An extension's version as numbers ("0.8.2": (0, 8, 2)); what is not a number ends it."""
    parts: list[int] = []
    for part in text.split("."):
        digits = "".join(itertools.takewhile(str.isdigit, part))
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def _meaning(
    conn: psycopg.Connection[Any],
    text: str,
    filters: SearchFilters,
    hosts: list[str] | None,
    info: schema.Info,
    weight: float,
) -> tuple[list[tuple[Conversation, float]], dict[tuple[str, str], float], int | None]:
    """Conversations nearest the query's meaning, through pgvector: each session's best passage among the
    :data:`MEANING_TOP` nearest, standing in standard deviations above the mean of every session with
    passages (as the local pass stands them; here only the nearest are read, and the crowd is fitted from
    them: :func:`crowd`); each one's standing (as the local pass gives :func:`newest_first`); and how many
    sessions have no passages yet (``None`` when it did not count them). Nothing without pgvector."""
    from hermes_trail.index import encoder, meaning_client

    if not info.vector or info.vector_schema is None or not encoder.available():
        return [], {}, None
    if filters.role or filters.tool or filters.since is not None or filters.until is not None:
        return [], {}, None
    # A one-shot command asks the meaning server, which keeps the model loaded (index/meaning_client).
    vector = meaning_client.vector(text)
    if vector is None:
        vector = encoder.model().encode([text])[0]
    literal = "[" + ",".join(f"{float(x):.6f}" for x in vector) + "]"
    op = f"OPERATOR({info.vector_schema}.<=>)"
    # The filters, said of the passages read (the host, on the passage's own column) and of the sessions
    # alone (the crowd below), with the same parameters.
    clauses: list[str] = []
    on_sessions: list[str] = []
    params: list[Any] = []
    if hosts:
        clauses.append("p.host = ANY(%s)")
        on_sessions.append("s.host = ANY(%s)")
        params.append(list(hosts))
    whole, more = _on_sessions(filters).clauses("%s")  # project, profile, source, session: of sessions
    clauses += whole
    on_sessions += whole
    params += more
    # The crowd (the sessions with passages this search stands against) and, in the same reading of the
    # sessions, how many have none yet (told to the caller).
    counted = " AND ".join(["s.passages > 0", *on_sessions])
    sql = (
        f"SELECT count(*) FILTER (WHERE {counted}), count(*) FILTER (WHERE s.passages = 0), "
        f"coalesce(sum(s.passages) FILTER (WHERE {counted}), 0) FROM {_S} s"
    )
    encoded, unencoded, passages = conn.execute(sql, params + params).fetchone() or (0, 0, 0)
    exact = int(passages) <= EXACT_CROWD_PASSAGES
    where = ("WHERE " + " AND ".join(clauses)) if clauses else ""
    similarity = f"1 - (p.vec {op} %s::{info.vector_schema}.vector)"
    if exact:
        # Few enough to read every session's best passage, as the local pass does: the crowd is exact.
        sql = (
            f"SELECT DISTINCT ON (p.sess) p.sess, p.seq, {similarity} AS near FROM "
            f"{schema.SCHEMA}.passages p JOIN {_S} s ON s.id = p.sess {where} ORDER BY p.sess, near DESC"
        )
        rows = conn.execute(sql, [literal, *params]).fetchall()
    else:
        sql = (
            f"SELECT p.sess, p.seq, {similarity} FROM "
            f"{schema.SCHEMA}.passages p JOIN {_S} s ON s.id = p.sess {where} "
            f"ORDER BY p.vec {op} %s::{info.vector_schema}.vector LIMIT {MEANING_TOP}"
        )
        rows = rows_after(conn, [_nearest_settings(conn)], sql, [literal, *params, literal])
    best: dict[int, tuple[float, int]] = {}
    for sess, seq, near in rows:
        if int(sess) not in best or float(near) > best[int(sess)][0]:
            best[int(sess)] = (float(near), int(seq))
    if len(best) < 2:
        return [], {}, None
    values = sorted((v for v, _ in best.values()), reverse=True)
    mean, deviation = crowd(values, len(values) if exact else int(encoded))
    asker: set[int] = set()
    if asks_about_asker(text):
        # What Hermes keeps about the asker, read down to its lower floor (as locally). Read whole, every
        # passage of it is in already: only which sessions those files are. Else it is among the nearest
        # only by chance, so its passages are read here, after the crowd was fitted without them.
        kept = f"{where}{' AND' if where else 'WHERE'} s.kind = 'memory' AND s.session_id = ANY(%s)"
        source = f"FROM {schema.SCHEMA}.passages p JOIN {_S} s ON s.id = p.sess {kept}"
        if exact:
            found = conn.execute(f"SELECT DISTINCT p.sess {source}", [*params, list(ABOUT_ASKER)])
            asker = {int(row[0]) for row in found}
        else:
            sql = f"SELECT p.sess, p.seq, {similarity} {source}"
            for sess, seq, near in conn.execute(sql, [literal, *params, list(ABOUT_ASKER)]):
                asker.add(int(sess))
                if int(sess) not in best or float(near) > best[int(sess)][0]:
                    best[int(sess)] = (float(near), int(seq))
    # The nearest sessions, then each at its floor, as the local pass reads them.
    nearest = sorted(best.items(), key=lambda item: -item[1][0])[:SEMANTIC_TOP]
    chosen = [(v, s, q) for s, (v, q) in nearest if v >= floor(s, asker)]
    maybe = {(s, q): v for s, (v, q) in nearest if v < floor(s, asker) and unsure(v, (v - mean) / deviation)}
    if maybe:  # under the floor: only a passage held in another language than the question
        under = conn.execute(
            f"SELECT d.sess, d.seq, d.text FROM {_D} d JOIN unnest(%s::bigint[], %s::int[]) AS k(sess, seq) "
            "ON d.sess = k.sess AND d.seq = k.seq",
            ([s for s, _ in maybe], [q for _, q in maybe]),
        ).fetchall()
        held = across(text, {(int(s), int(q)): str(t) for s, q, t in under})
        chosen += [(maybe[(s, q)], s, q) for s, q in held]
    chosen.sort(reverse=True)
    chosen = chosen[:SEMANTIC_TOP]
    if not chosen:
        return [], {}, int(unencoded)
    rows = conn.execute(
        f"SELECT {_DOC_COLUMNS} FROM {_D} d JOIN unnest(%s::bigint[], %s::int[]) AS k(sess, seq) "
        "ON d.sess = k.sess AND d.seq = k.seq",
        ([s for _, s, _ in chosen], [q for _, _, q in chosen]),
    ).fetchall()
    sessions = _sessions(conn, {int(r[1]) for r in rows})
    standing = {s: (v - mean) / deviation for v, s, _ in chosen}
    hits = [
        _hit(r, sessions[int(r[1])], standing[int(r[1])] * SESSION_WEIGHT.get(sessions[int(r[1])][7], 1.0))
        for r in rows
        if int(r[1]) in sessions
    ]
    near = sorted(_group(hits).values(), key=lambda c: -c.score)
    firsts = [c.hits[0].doc for c in near if c.hits]  # what each said, as the local pass tells it
    said = dict(conn.execute(f"SELECT id, text FROM {_D} WHERE id = ANY(%s)", (firsts,)).fetchall())
    lifts = language_lifts([said.get(c.hits[0].doc, "") if c.hits else "" for c in near], text)
    evidence = meaning_evidence(near, [c.score for c in near], weight)
    weighed = [(conv, part * lift) for (conv, part), lift in zip(evidence, lifts, strict=True)]
    return weighed, {(c.store, c.root): c.score for c in near}, int(unencoded)


def nearest_places(
    conn: psycopg.Connection[Any], text: str, project: str | None, hosts: list[str] | None
) -> list[tuple[int, float, int]]:
    """The sessions nearest ``text`` in meaning (:func:`_meaning`), each with its standing and the place
    (``seq``) of its nearest passage's first doc: what ``how`` and ``fix`` follow by meaning, as the local
    ``how.local_standing`` gives them. Nothing without pgvector."""
    near, _, _ = _meaning(conn, text, SearchFilters(project=project), hosts, schema.require(conn), 1.0)
    found = [(h.doc, h.score) for conv, _ in near for h in conv.hits]
    if not found:
        return []
    placed = {
        int(doc): (int(sess), int(seq))
        for doc, sess, seq in conn.execute(
            f"SELECT id, sess, seq FROM {_D} WHERE id = ANY(%s)", ([doc for doc, _ in found],)
        )
    }
    return [(placed[doc][0], z, placed[doc][1]) for doc, z in found if doc in placed]
