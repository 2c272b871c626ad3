"""``trail how --fleet``: the commands really run to do something, from the shared index, by the local
rules (:mod:`hermes_trail.index.how`: matched in the command first, then in the prompt or the assistant's
intent that led to it, then only in its output; then by sessions, success rate, runs and recency), each
entry saying the hosts that ran it.

The word index is PostgreSQL's ``tsvector`` (the query read as :mod:`hermes_trail.fleet.search` reads
it), command fragments are substrings of ``docs.key`` (``pg_trgm``), and a prompt's BM25 is computed as
the fleet search computes it (PostgreSQL has none). What a prompt led to is read by each doc's place in
its session (``seq``) rather than by consecutive ids.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hermes_trail.fleet import schema
from hermes_trail.fleet.search import (
    BM25_B,
    BM25_K1,
    _TooShort,
    _trigram_sql,
    _tsquery_sql,
    bm25,
    flag_in,
)
from hermes_trail.index import query
from hermes_trail.index.how import (
    MEANT_DOCS,
    PROMPT_CHARS,
    PROMPTS,
    SPAN,
    HowEntry,
    _Group,
    _Led,
    content,
    in_command,
    meant,
    nearest_prompt,
    normalize_command,
    prompt_line,
    prompt_nearness,
    prompts_that_ran,
    rank_meant,
    tally_led,
)

if TYPE_CHECKING:
    import psycopg

_D = f"{schema.SCHEMA}.docs"
_S = f"{schema.SCHEMA}.sessions"


@dataclass(slots=True)
class FleetHowEntry(HowEntry):
    """A command of the shared index: the local entry, the host of its last run (``last_ref``'s) and
    every host that ran it."""

    host: str = ""
    hosts: list[str] = field(default_factory=list)


def project_clause(column: str, project: str | None) -> tuple[str, list[Any]]:
    """:func:`hermes_trail.index.how.project_clause` in PostgreSQL's words: the project itself, a path
    under it, or a project whose trailing parts it names."""
    if not project or not project.strip():
        return "true", []
    wanted = project.strip().rstrip("/") or "/"
    under = wanted if wanted.endswith("/") else wanted + "/"
    clause = (
        f"({column} = %s OR left({column}, length(%s)) = %s "
        f"OR (length({column}) > length(%s) AND right({column}, length(%s)) = %s))"
    )
    return clause, [wanted, under, under, "/" + wanted, "/" + wanted, "/" + wanted]


def host_clause(column: str, hosts: list[str] | None) -> tuple[str, list[Any]]:
    return (f"{column} = ANY(%s)", [list(hosts)]) if hosts else ("true", [])


def tsquery_text(conn: psycopg.Connection[Any], node: query.Node | None) -> str | None:
    """The query as tsquery text (made once by the server), ``None`` when it has nothing to find."""
    made = _tsquery_sql(node)
    if made is None:
        return None
    row = conn.execute(f"SELECT ({made[0]})::text", made[1]).fetchone()
    return str(row[0]) if row and row[0] else None


_GROUPED = f"""
SELECT d.command, d.sess, s.ref, s.project, count(*), sum((d.exit_code = 0)::int),
       sum((d.exit_code IS NOT NULL AND d.exit_code <> 0)::int), max(d.time),
       (array_agg(d.exit_code ORDER BY d.time DESC NULLS LAST))[1], s.host
FROM {_D} d JOIN {_S} s ON s.id = d.sess
WHERE {{match}} AND d.kind = 'command' AND NOT d.rewound AND d.command IS NOT NULL AND {{project}}
  AND {{hosts}}
GROUP BY d.command, d.sess, s.ref, s.project, s.host
"""


def _grouped(
    conn: psycopg.Connection[Any], match: str, params: list[Any], project: str | None, hosts: list[str] | None
) -> list[tuple[Any, ...]]:
    """Matching commands by (command, session): the local pass's rows, then the session's host."""
    clause, project_params = project_clause("s.project", project)
    hosts_sql, host_params = host_clause("d.host", hosts)
    sql = _GROUPED.format(match=match, project=clause, hosts=hosts_sql)
    return conn.execute(sql, [*params, *project_params, *host_params]).fetchall()


def _scored_hits(
    conn: psycopg.Connection[Any],
    tsquery: str,
    project: str | None,
    hosts: list[str] | None,
    words: list[str],
) -> list[tuple[int, float]]:
    """The newest :data:`PROMPTS` live prompt and reply docs matching, each with its BM25 (lower better);
    a full window scored by length alone, as locally."""
    clause, project_params = project_clause("s.project", project)
    hosts_sql, host_params = host_clause("d.host", hosts)
    join = f" JOIN {_S} s ON s.id = d.sess" if project_params else ""
    rows = conn.execute(
        f"SELECT d.id, d.chars FROM {_D} d{join} WHERE d.tsv @@ %s::tsquery "
        "AND d.kind IN ('prompt', 'reply') "
        f"AND NOT d.rewound AND {clause} AND {hosts_sql} ORDER BY d.id DESC LIMIT %s",
        [tsquery, *project_params, *host_params, PROMPTS],
    ).fetchall()
    if len(rows) < PROMPTS:
        scores = bm25(conn, [int(r[0]) for r in rows], words)
        return [(int(doc), -scores.get(int(doc), 0.0)) for doc, _ in rows]  # as FTS5 gives it: lower better
    average = max(1.0, sum(chars for _, chars in rows) / len(rows))
    terms = max(1, len(words))
    return [
        (int(doc), -terms * (BM25_K1 + 1) / (1 + BM25_K1 * (1 - BM25_B + BM25_B * chars / average)))
        for doc, chars in rows
    ]


# For each hit, the commands after it in its session up to the next live prompt (a prompt's) or the next
# doc of another turn (a reply's), at most SPAN docs on; for a reply, those after its turn up to the next
# live prompt too, of the kind ``again`` (re-runs, ``how.tally_led``), as the local index reads them. The
# next live prompt is looked up once, a prompt's end and a reply's reach alike.
_LED = f"""
WITH hits(id, score) AS (SELECT * FROM unnest(%s::bigint[], %s::float8[])),
reach AS MATERIALIZED (
    SELECT d.id, d.sess, d.seq, d.kind, d.row, d.part, hits.score, coalesce((
        SELECT n.seq FROM {_D} n
        WHERE n.sess = d.sess AND n.seq > d.seq AND n.seq <= d.seq + %s
          AND n.kind = 'prompt' AND NOT n.rewound
        ORDER BY n.seq LIMIT 1), d.seq + %s + 1) AS until
    FROM hits JOIN {_D} d ON d.id = hits.id
),
spans AS MATERIALIZED (
    SELECT r.id, r.sess, r.seq, r.kind, r.score, r.until, CASE WHEN r.kind = 'prompt' THEN r.until
        ELSE coalesce((
            SELECT n.seq FROM {_D} n
            WHERE n.sess = r.sess AND n.seq > r.seq AND n.seq <= r.seq + %s
              AND (n.row <> r.row OR n.part <> r.part)
            ORDER BY n.seq LIMIT 1), r.seq + %s + 1) END AS stop
    FROM reach r
)
SELECT d.id, d.command, d.sess, s.ref, s.project, d.exit_code, d.time,
       CASE WHEN d.seq < sp.stop THEN sp.kind ELSE 'again' END, sp.score, sp.id, s.host
FROM spans sp JOIN {_D} d ON d.sess = sp.sess AND d.seq > sp.seq AND d.seq < sp.until
JOIN {_S} s ON s.id = d.sess
WHERE d.kind = 'command' AND NOT d.rewound AND d.command IS NOT NULL
"""


def _led(
    conn: psycopg.Connection[Any],
    tsquery: str,
    project: str | None,
    hosts: list[str] | None,
    root: query.Node | None,
    host_of: dict[int, str],
) -> dict[tuple[str, int], _Led]:
    """Commands that followed a matching prompt or intent, by (command, session), as the local pass."""
    words = query.terms(query.Query(root))
    hits = _scored_hits(conn, tsquery, project, hosts, words)
    if not hits:
        return {}
    params = [[h[0] for h in hits], [h[1] for h in hits], SPAN, SPAN, SPAN, SPAN]
    rows = conn.execute(_LED, params).fetchall()
    host_of.update((row[2], row[10]) for row in rows)  # a session is one host's
    return tally_led(rows, root)


def _prompt_texts(conn: psycopg.Connection[Any], ids: list[int]) -> dict[int, str]:
    if not ids:
        return {}
    rows = conn.execute(f"SELECT id, left(text, %s) FROM {_D} WHERE id = ANY(%s)", (PROMPT_CHARS * 4, ids))
    return {int(doc): prompt_line(str(text)) for doc, text in rows}


def how(
    conn: psycopg.Connection[Any],
    what: str,
    *,
    project: str | None = None,
    limit: int = 20,
    hosts: list[str] | None = None,
) -> list[FleetHowEntry]:
    """The commands matching ``what`` that sessions of the shared index (of ``hosts``, when given) ran,
    best first, as :func:`hermes_trail.index.how.how` ranks them locally."""
    parsed = query.with_flags(query.parse(what), what, functools.partial(flag_in, conn))
    if parsed.root is None:
        return []
    words_only = content(parsed.root)
    asked = query.Query(words_only) if words_only is not None else parsed
    rows: dict[tuple[str, int], tuple[tuple[Any, ...], bool]] = {}
    holds = functools.cache(lambda command: in_command(asked.root, command))  # once a command, as locally
    host_of: dict[int, str] = {}
    if query.to_fts(asked) and (words := tsquery_text(conn, asked.root)) is not None:
        for row in _grouped(conn, "d.tsv @@ %s::tsquery", [words], project, hosts):
            host_of[row[1]] = row[9]
            rows[(row[0], row[1])] = (row[:9], holds(row[0]))
    if query.to_trigram(asked) and (query.needs_trigram(asked) or not rows):
        try:
            substrings = _trigram_sql(asked.root)
        except _TooShort:
            substrings = None
        if substrings is not None:
            for row in _grouped(conn, substrings[0], substrings[1], project, hosts):
                host_of[row[1]] = row[9]
                rows[(row[0], row[1])] = (row[:9], True)  # a command doc's key is its command
    led: dict[tuple[str, int], _Led] = {}
    if words_only is not None and query.to_fts(query.Query(words_only)):
        prompt_words = tsquery_text(conn, words_only)
        if prompt_words is not None:
            led = _led(conn, prompt_words, project, hosts, words_only, host_of)
    for key, found in led.items():
        if key not in rows or found.row[4] > rows[key][0][4]:
            rows[key] = (found.row, rows[key][1] if key in rows else False)
    groups: dict[str, _Group] = {}
    members: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for key, (row, inside) in rows.items():
        name = normalize_command(row[0])
        group = groups.setdefault(name, _Group(name))
        group.add(row, inside)
        members[name].append(row)
        if key in led:
            group.led_by(led[key])
    best = min((g.score for g in groups.values() if g.matched_in() in ("prompt", "intent")), default=0.0)

    def rank(g: _Group) -> tuple[Any, ...]:
        tier = {"command": 2, "prompt": 1, "intent": 1}.get(g.matched_in(), 0)
        strength = round(g.score / best, 1) if tier == 1 and best < 0 else 0.0
        known = g.ok + g.failed
        return (tier, strength, len(g.sessions), g.ok / known if known else -1.0, g.runs, g.last_time or 0.0)

    ranked = sorted(groups.values(), key=rank, reverse=True)
    return _entries(conn, ranked[:limit] if limit > 0 else ranked, members, host_of)


def _entries(
    conn: psycopg.Connection[Any],
    ranked: list[_Group],
    members: dict[str, list[tuple[Any, ...]]],
    host_of: dict[int, str],
) -> list[FleetHowEntry]:
    """The entries of the groups ``ranked``, each with the host of its last run and every host that ran it
    (``members``: each group's rows; ``host_of``: each session's host)."""
    texts = _prompt_texts(conn, [g.hit for g in ranked if g.hit is not None])
    out = []
    for g in ranked:
        entry = g.entry(texts.get(g.hit) if g.hit is not None else None)
        last = _last_host(members[g.command], host_of)
        out.append(
            FleetHowEntry(
                **{name: getattr(entry, name) for name in HowEntry.__dataclass_fields__},
                host=last,
                hosts=sorted({host_of[r[1]] for r in members[g.command] if r[1] in host_of}),
            )
        )
    return out


def _last_host(rows: list[tuple[Any, ...]], host_of: dict[int, str]) -> str:
    """The host of the run a group names as its last (the rule of ``_Group.add``, in the same order)."""
    chosen: tuple[Any, ...] | None = None
    for row in rows:
        last = row[7]
        if chosen is None or (last is not None and (chosen[7] is None or last > chosen[7])):
            chosen = row
    return host_of.get(chosen[1], "") if chosen is not None else ""


def by_meaning(
    conn: psycopg.Connection[Any],
    what: str,
    *,
    project: str | None = None,
    limit: int = 20,
    hosts: list[str] | None = None,
) -> list[FleetHowEntry]:
    """The commands run after the prompts nearest ``what`` in meaning, for a question whose words nothing
    in the shared index has, as :func:`hermes_trail.index.how.by_meaning` finds them locally: the sessions
    of the shared meaning pass (pgvector; nothing without it), each followed from the prompt the question
    meant."""
    from hermes_trail.fleet.meaning import nearest_places

    hits: list[tuple[int, float]] = []
    for sess, z, seq in meant(nearest_places(conn, what, project, hosts)):
        docs = conn.execute(
            f"SELECT seq, id, kind, CASE WHEN kind = 'prompt' THEN left(text, 2000) END FROM {_D} "
            "WHERE sess = %s AND NOT rewound "
            "AND (kind = 'prompt' OR kind = 'command' AND command IS NOT NULL) ORDER BY seq LIMIT %s",
            (sess, MEANT_DOCS),
        ).fetchall()
        prompts = prompts_that_ran((int(at), str(kind), text) for at, _, kind, text in docs)
        if prompts:
            ids = {int(at): int(doc) for at, doc, _, _ in docs}
            hits.append((ids[nearest_prompt(what, prompts, seq, prompt_nearness)], -z))
    if not hits:
        return []
    params = [[h[0] for h in hits], [h[1] for h in hits], SPAN, SPAN, SPAN, SPAN]
    rows = conn.execute(_LED, params).fetchall()
    host_of = {int(row[2]): str(row[10]) for row in rows}
    groups: dict[str, _Group] = {}
    members: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for led in tally_led(rows, None).values():
        name = normalize_command(led.row[0])
        group = groups.setdefault(name, _Group(name, meant=True))
        group.add(led.row, False)
        group.led_by(led)
        members[name].append(led.row)
    ranked = rank_meant(groups.values())
    return _entries(conn, ranked[:limit] if limit > 0 else ranked, members, host_of)
