"""How did this project do X: the real commands it ran that match, by how many sessions ran them and how
often they worked.

A person asking "how do we run the tests here" wants the command that was actually typed, not a guess, and
the best evidence for it is that many sessions ran it and it usually succeeded. So matching ``terminal``
commands (``docs.kind = 'command'``; a ``blocked`` command never ran and is left out, and so are rewound
ones) are grouped by their normalized text (:func:`normalize_command`) and ranked by:

1. where the query matched: in the command itself first; then in what led to it (``prompt``: the nearest
   live prompt before it in its session; ``intent``: the assistant's own text in the turn that made the
   call, "I'll list the listening ports", or in the turn that ran the same program earlier in that
   prompt's work, :func:`tally_led`), ranked among themselves by how well that text matched (BM25,
   within a tenth of the best counts as equal); last only in its output. People ask in the words of the
   task ("convert this number to hexadecimal"), which the command (``printf '%x\n' 255``) rarely holds.
   The word index covers a command's output too, so ``how pytest`` also finds ``cat pyproject.toml``,
   whose output names pytest; that is a real answer to another question ("what produced this"), so it
   stays, after the commands that are themselves pytest runs.
2. how many distinct sessions ran it (one session looping on a command is one piece of evidence);
3. its success rate (exit code 0 among the runs whose exit code is known);
4. how many times it ran, then how recently.

Matching: the query is read as the search box reads it (:mod:`hermes_trail.index.query`: words, quoted
phrases, ``OR``, ``-exclusions``, ``prefix*``), without its stop-words (``how do I ... the ...``:
:mod:`~hermes_trail.index.stopwords`, never inside a quoted phrase), which would otherwise keep every command
from matching or let any prompt match; a query of stop-words only is kept whole for the command. It is matched
against the word index (``docs_fts``, over a command with its output: stemmed, so ``tests`` finds ``test``);
and, when it looks like a command fragment (``manage.py``, ``--no-cache``, ``./x``: what the word index
splits) or the words find nothing (the start of a word such as ``migrat``), its terms as substrings of the
command through the trigram index over ``docs.key`` (for a command doc, the command alone). A word of
Chinese, Japanese or Korean is found inside a run too, through the bigram index (:func:`_rowids`).

A question one word of which nothing on record has with the others (the prompt said "web-01 ran out of
disk", the question "server ran out of disk") is asked again without each word in turn (:func:`most_words`):
the commands that match all but one answer, each saying the word it lacks.

Prompts and intents are found in the word index too: the newest :data:`PROMPTS` live prompt and reply docs
that have every content word (each scored with BM25), then, through ``docs_sess`` (a session's docs have
consecutive ids in row order), the commands after each: up to the session's next live prompt for a prompt,
in the same turn for a reply, and never more than :data:`SPAN` docs on. The cost is bounded by those two
numbers, not by the size of the history.
"""

from __future__ import annotations

import functools
import itertools
import re
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from hermes_trail.formatting import shortened
from hermes_trail.index import cjk, query
from hermes_trail.index.stopwords import is_stopword

# A leading ``cd <dir> &&`` says where a command ran, not what it was: the same fix in two checkouts is one.
_LEADING_CD = re.compile(r"\A(?:cd\s+(?:\"[^\"]*\"|'[^']*'|[^\s;&|]+)\s*&&\s*)+")
_SPACES = re.compile(r"\s+")
# Endings a stemmer would drop, tried when telling whether a word matched in the command itself.
_ENDINGS = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s")

# The newest matching prompt and reply docs read, and how many docs after each the commands are looked
# for in: what bounds the cost of the prompt pass on a large history.
PROMPTS = 100
SPAN = 300
# How much of a matched prompt an entry carries.
PROMPT_CHARS = 200


@functools.lru_cache(maxsize=4096)
def normalize_command(command: str) -> str:
    """The form commands are grouped by: surrounding whitespace stripped, each run of whitespace (newlines
    included) one space, and a leading ``cd <dir> &&`` dropped (where it ran is not what it was)."""
    text = _SPACES.sub(" ", command.strip())
    return _LEADING_CD.sub("", text).strip() or text


def fts_string(text: str) -> str:
    """``text`` as one FTS5 string (a phrase of its tokens): never an FTS5 syntax error."""
    return '"' + text.replace('"', '""') + '"'


def project_clause(column: str, project: str | None) -> tuple[str, list[Any]]:
    """SQL (and its parameters) keeping sessions of ``project``: the project itself, a path under it, or a
    project whose trailing parts it names (``trail`` is ``/src/trail``, as ``trail list --project``)."""
    if not project or not project.strip():
        return "1", []
    wanted = project.strip().rstrip("/") or "/"
    under = wanted if wanted.endswith("/") else wanted + "/"
    clause = (
        f"({column} = ? OR substr({column}, 1, length(?)) = ? "
        f"OR (length({column}) > length(?) AND substr({column}, -length(?)) = ?))"
    )
    return clause, [wanted, under, under, "/" + wanted, "/" + wanted, "/" + wanted]


@dataclass(slots=True)
class HowEntry:
    """One command (normalized), with the evidence that it is how this project does the thing.

    :param command: the normalized command (:func:`normalize_command`): what the entries are grouped by.
    :param example: the latest run exactly as it was typed.
    :param matched_in: ``command`` when the query matched the command itself; else ``prompt`` when it
        matched the prompt that led to a run, ``intent`` the assistant's text in the turn that made the call;
        else ``output``, when only its output (or error) matched.
    :param sessions: distinct sessions that ran it.
    :param runs: times it ran; ``ok`` of them exited 0, ``failed`` with another code (killed and timed-out
        runs included); the rest have no exit code (still running in the background, no result).
    :param success_rate: ``ok / (ok + failed)``, ``None`` when no run has an exit code.
    :param last_time: when it last ran (epoch seconds), with that session's ``last_ref`` and the
        ``last_exit_code`` it had.
    :param prompt: the best matching prompt (or intent) that led to a run, its start; ``None`` when no
        prompt or intent matched.
    :param lacks: the word of the question it was not found with, when no command matched every word
        (:func:`most_words`); empty when it matched them all.
    :param spelled: the words of the question typed wrong, each with the words one slip away that the
        history has and that it was found with in its place (:func:`most_words`); empty when none was.
    """

    command: str
    example: str
    matched_in: str
    sessions: int
    runs: int
    ok: int
    failed: int
    success_rate: float | None
    last_time: float | None
    last_ref: str
    last_exit_code: int | None
    projects: list[str] = field(default_factory=list)
    prompt: str | None = None
    lacks: list[str] = field(default_factory=list)
    spelled: dict[str, list[str]] = field(default_factory=dict)


def _stem(word: str) -> str:
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= 3:
            return word[: -len(ending)]
    return word


def in_command(node: query.Node | None, command: str) -> bool:
    """Whether the query holds of the command text itself (its output aside): each term or phrase in it as
    typed, or without an ending a stemmer would drop (``tests`` in ``npm test``), with the query's AND and
    OR; exclusions were applied by the index already."""
    if node is None:
        return False
    if isinstance(node, query.Term | query.Phrase):
        text = node.text.lower()
        lowered = command.lower()
        return text in lowered or _stem(text) in lowered
    if isinstance(node, query.Not):
        return True
    results = [in_command(n, command) for n in node.nodes if not isinstance(n, query.Not)]
    return any(results) if isinstance(node, query.Or) else all(results)


def _bare(word: str) -> str:
    """A word as a stop-word list spells it: lower case, no punctuation around it, no ``'s``/``n't``."""
    word = word.lower().replace("\u2019", "'").strip("?!.,;:'\"()[]")
    return word.split("'", 1)[0]


# An English possessive at the end of a word of at least two letters ("shop's", "Redis’s").
_POSSESSIVE = re.compile(r"(?<=[^\W\d_]{2})['’]s$")


def content(node: query.Node | None, among: list[str] | None = None) -> query.Node | None:
    """``node`` without its bare stop-words (:mod:`hermes_trail.index.stopwords`): the words a command or
    prompt must have. A word of another language's function words is one only beside another of that
    language in the question (``among``: its words; the whole question's when not given), as a search
    reads it: "check how long the nas has been running" asks about the NAS, not Portuguese "in the".

    A phrase or prefix is kept as typed; an alternative that is a stop-word goes (it would match nearly
    everything); exclusions stay. ``None`` when no word to find is left."""
    if node is None or isinstance(node, query.Phrase | query.Not):
        return node
    if among is None:
        among = [_bare(text) for text in query.terms(query.Query(node))]
    if isinstance(node, query.Term):
        if not node.prefix and is_stopword(_bare(node.text), among):
            return None
        # An English possessive is the word alone: "restart the shop's celery" asks for "shop", which the
        # command says ("celery -A shop"), where the tokenizer reads "shop's" as "shop" then "s".
        word = _POSSESSIVE.sub("", node.text)
        return query.Term(word, node.prefix) if word != node.text else node
    kept = [c for n in node.nodes if (c := content(n, among)) is not None]
    if not any(not isinstance(n, query.Not) for n in kept):
        return None
    if len(kept) == 1:
        return kept[0]
    return query.Or(tuple(kept)) if isinstance(node, query.Or) else query.And(tuple(kept))


def _excluded(node: query.Node | None, command: str) -> bool:
    """Whether the command text has a term the query excludes (the index applied it to the prompt only)."""
    if not isinstance(node, query.And):
        return False
    return any(isinstance(n, query.Not) and in_command(n.node, command) for n in node.nodes)


_GROUPED = """
SELECT d.command, d.sess, s.ref, s.project, count(*), sum(d.exit_code = 0),
       sum(d.exit_code IS NOT NULL AND d.exit_code <> 0), max(d.time), d.exit_code
FROM hits CROSS JOIN docs d ON d.id = hits.id CROSS JOIN sessions s ON s.id = d.sess
WHERE d.kind = 'command' AND d.rewound = 0 AND d.command IS NOT NULL AND {project}
GROUP BY d.command, d.sess
"""


def _grouped(
    conn: sqlite3.Connection, table: str, expression: str, project: str | None
) -> list[tuple[Any, ...]]:
    """Matching commands by (command, session): runs, successes, failures, last run and its exit code."""
    return _grouped_ids(conn, (f"SELECT rowid FROM {table} WHERE {table} MATCH ?", [expression]), project)


def _grouped_ids(
    conn: sqlite3.Connection, ids: tuple[str, list[str]], project: str | None
) -> list[tuple[Any, ...]]:
    """:func:`_grouped` for a set of doc ids (a query of them and its parameters: :func:`_rowids`)."""
    clause, params = project_clause("s.project", project)
    # The bare ``d.exit_code`` beside ``max(d.time)`` is SQLite's: the value from the row holding the max.
    sql = f"WITH hits(id) AS ({ids[0]})" + _GROUPED.format(project=clause)
    return conn.execute(sql, (*ids[1], *params)).fetchall()


# The newest matching live prompts and replies (newest first: the word index walks its ids backwards).
_WINDOW = """
SELECT f.rowid, d.chars{bm25} FROM docs_fts f CROSS JOIN docs d ON d.id = f.rowid {join}
WHERE docs_fts MATCH ? AND d.kind IN ('prompt', 'reply') AND d.rewound = 0 AND {project}
ORDER BY f.rowid DESC LIMIT ?
"""
# For each hit, how far what it led to is looked for: up to its session's next live prompt (at most SPAN
# docs on), where a reply's re-runs end too (:func:`tally_led`); and the first doc id past its own turn:
# that same prompt for a prompt (looked up once), the next doc of another turn for a reply. Then the
# commands in between, through docs_sess (sess, id): a session's docs have consecutive ids, in row order; a
# command past a reply's own turn is of the kind ``again``.
_LED = """
WITH hits(id, score) AS (VALUES {values}),
reach(id, sess, kind, row, part, score, until) AS MATERIALIZED (
    SELECT d.id, d.sess, d.kind, d.row, d.part, hits.score, coalesce((
        SELECT n.id FROM docs n
        WHERE n.sess = d.sess AND n.id > d.id AND n.id <= d.id + ? AND n.kind = 'prompt' AND n.rewound = 0
        ORDER BY n.id LIMIT 1), d.id + ? + 1)
    FROM hits CROSS JOIN docs d ON d.id = hits.id
),
spans(id, sess, kind, score, stop, until) AS MATERIALIZED (
    SELECT r.id, r.sess, r.kind, r.score, CASE WHEN r.kind = 'prompt' THEN r.until ELSE coalesce((
        SELECT n.id FROM docs n
        WHERE n.sess = r.sess AND n.id > r.id AND n.id <= r.id + ? AND (n.row <> r.row OR n.part <> r.part)
        ORDER BY n.id LIMIT 1), r.id + ? + 1) END, r.until
    FROM reach r
)
SELECT d.id, d.command, d.sess, s.ref, s.project, d.exit_code, d.time,
       CASE WHEN d.id < sp.stop THEN sp.kind ELSE 'again' END, sp.score, sp.id
FROM spans sp CROSS JOIN docs d ON d.sess = sp.sess AND d.id > sp.id AND d.id < sp.until
CROSS JOIN sessions s ON s.id = d.sess
WHERE d.kind = 'command' AND d.rewound = 0 AND d.command IS NOT NULL
"""


def _rowids(node: query.Node | None) -> tuple[str, list[str]] | None:
    """The docs ``node`` matches, as a query of their ids: a word in the word index, and one of Chinese,
    Japanese or Korean inside a run too, through the bigram index (the phrase of its bigrams, as a search
    and the shared index find it: "端口被谁占用" in "查看8080端口被谁占用了", one word to the word index);
    AND, OR and exclusions as compound selects. ``None`` when it has nothing to find."""

    def leaf(term: query.Term | query.Phrase) -> tuple[str, list[str]] | None:
        parts: list[str] = []
        params: list[str] = []
        if (words := query.leaf_fts(term)) is not None:
            parts.append("SELECT rowid FROM docs_fts WHERE docs_fts MATCH ?")
            params.append(words)
        if runs := cjk.question_runs([term.text]):
            parts.append("SELECT rowid FROM docs_cjk WHERE docs_cjk MATCH ?")
            params.append(" AND ".join(cjk.run_expression(run) for run in runs))
        return (" UNION ".join(parts), params) if parts else None

    def join(parts: list[tuple[str, list[str]]], either: bool) -> tuple[str, list[str]]:
        joined = " UNION " if either else " INTERSECT "
        return joined.join(f"SELECT rowid FROM ({p[0]})" for p in parts), [v for p in parts for v in p[1]]

    def exclude(kept: tuple[str, list[str]], out: tuple[str, list[str]]) -> tuple[str, list[str]]:
        return f"SELECT rowid FROM ({kept[0]}) EXCEPT SELECT rowid FROM ({out[0]})", kept[1] + out[1]

    return query.fold(node, leaf, join, exclude)


def _asks_cjk(node: query.Node | None) -> bool:
    """Whether a word to find of ``node`` holds Chinese, Japanese or Korean (:func:`_rowids` then)."""
    return any(cjk.has_cjk(t) for t in query.terms(query.Query(node))) if node is not None else False


# The newest live prompts and replies among a set of doc ids (:func:`_rowids`), each with its length.
_WINDOW_OF = """
SELECT d.id, d.chars FROM docs d {join}
WHERE d.id IN ({ids}) AND d.kind IN ('prompt', 'reply') AND d.rewound = 0 AND {project}
ORDER BY d.id DESC LIMIT ?
"""


@dataclass(slots=True)
class _Led:
    """The runs of one command in one session that followed matching prompts or intents."""

    row: tuple[Any, ...]
    kind: str
    score: float
    hit: int


def _scored_hits(
    conn: sqlite3.Connection,
    expression: str | None,
    project: str | None,
    terms: int,
    ids: tuple[str, list[str]] | None = None,
) -> list[tuple[int, float]]:
    """The newest :data:`PROMPTS` prompt and reply docs matching ``expression`` (of ``project``), each with a
    BM25 score (lower is better).

    FTS5's own ``bm25`` when fewer match: it first counts every doc having each term, which is cheap for the
    words few prompts have. When the window is full the words are common and that count is the cost (tens
    of milliseconds a word on a million docs), so the window is scored by BM25's own formula with one
    occurrence of each term and equal weights: every doc in it has every term, its length tells (shorter
    is more about them), read from ``docs.chars`` without reading its text. So too for a set of doc ids
    (``ids``, :func:`_rowids`), which spans two indexes no one ``bm25`` scores."""
    clause, params = project_clause("s.project", project)
    join = "CROSS JOIN sessions s ON s.id = d.sess" if params else ""
    if expression is None:  # a set of doc ids (:func:`_rowids`), not one expression of the word index
        assert ids is not None
        sql = _WINDOW_OF.format(ids=ids[0], join=join, project=clause)
        rows = conn.execute(sql, (*ids[1], *params, PROMPTS)).fetchall()
    else:
        sql = _WINDOW.format(bm25="", join=join, project=clause)
        rows = conn.execute(sql, (expression, *params, PROMPTS)).fetchall()
    if expression is not None and len(rows) < PROMPTS:
        sql = _WINDOW.format(bm25=", bm25(docs_fts)", join=join, project=clause)
        return [(doc, float(score)) for doc, _, score in conn.execute(sql, (expression, *params, PROMPTS))]
    if not rows:
        return []
    average = max(1.0, sum(chars for _, chars in rows) / len(rows))
    k1, b = 1.2, 0.75  # FTS5's bm25 constants
    return [(doc, -terms * (k1 + 1) / (1 + k1 * (1 - b + b * chars / average))) for doc, chars in rows]


def _led(
    conn: sqlite3.Connection,
    expression: str | None,
    project: str | None,
    root: query.Node | None,
    ids: tuple[str, list[str]] | None = None,
) -> dict[tuple[str, int], _Led]:
    """Commands that followed a prompt or intent matching ``expression`` (``None``: among ``ids``), by
    (command, session): rows in :data:`_GROUPED`'s shape, with the best (lowest) BM25 of what led to them,
    its kind and its doc id."""
    hits = _scored_hits(conn, expression, project, max(1, len(query.terms(query.Query(root)))), ids)
    return _led_from(conn, hits, root)


def _led_from(
    conn: sqlite3.Connection, hits: list[tuple[int, float]], root: query.Node | None
) -> dict[tuple[str, int], _Led]:
    """:func:`_led` from the prompt and reply docs that led (each with its score, lower better)."""
    if not hits:
        return {}
    sql = _LED.format(values=", ".join("(?, ?)" for _ in hits))
    return tally_led(conn.execute(sql, (*(v for hit in hits for v in hit), SPAN, SPAN, SPAN, SPAN)), root)


def tally_led(rows: Iterable[tuple[Any, ...]], root: query.Node | None) -> dict[tuple[str, int], _Led]:
    """The commands of ``rows`` (a command doc reached from a prompt or intent: its id, command, session,
    ref, project, exit code, time, what led to it, that one's score and doc id; more columns after those
    are left alone) by (command, session): runs, successes, failures and the last run, with the best (lowest)
    score of what led to them. A command doc reached from two hits counts once, at its best; a command
    the query's ``-word`` excludes not at all. The local and the shared index both tally this way.

    A row of the kind ``again`` is a command run after the turn of a matching intent, before the next
    prompt: it counts, as led by that intent, when it is the same program run again (:func:`same_run`) as
    a command of that turn, the way an agent that said "let me run the test suite" runs ``pytest -q
    tests/test_x.py``, fixes something and runs ``pytest -q``, which worked, without saying so again."""
    rows = list(rows)
    said: dict[Any, list[str]] = {}  # each intent's commands in its own turn
    for row in rows:
        if row[7] != "again":
            said.setdefault(row[9], []).append(row[1])
    best: dict[int, tuple[Any, ...]] = {}
    for row in rows:
        if _excluded(root, row[1]):
            continue
        if row[7] == "again":
            if not any(same_run(row[1], other) for other in said.get(row[9], ())):
                continue
            row = (*row[:7], "reply", *row[8:])
        if row[0] not in best or row[8] < best[row[0]][8]:
            best[row[0]] = row
    led: dict[tuple[str, int], _Led] = {}
    for _doc, command, sess, ref, proj, exit_code, when, kind, score, hit in (
        r[:10] for r in sorted(best.values())
    ):
        known = led.get((command, sess))
        if known is None:
            known = led[(command, sess)] = _Led(
                (command, sess, ref, proj, 0, 0, 0, None, None), kind, score, hit
            )
        runs, ok, failed, last, last_exit = known.row[4:]
        later = last is None or (when is not None and when >= last)
        known.row = (
            command,
            sess,
            ref,
            proj,
            runs + 1,
            ok + (exit_code == 0),
            failed + (exit_code is not None and exit_code != 0),
            when if later else last,
            exit_code if later else last_exit,
        )
        if score < known.score:
            known.kind, known.score, known.hit = kind, score, hit
    return led


def same_run(one: str, other: str) -> bool:
    """Whether two commands are one program run again: the words of one (``python -m pytest -q``) start the
    other (``python -m pytest -q tests/test_x.py``), two words at least, so ``make build`` is not ``make
    test`` and ``ls`` is not ``ls -la /etc``."""
    a, b = normalize_command(one).split(" "), normalize_command(other).split(" ")
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    return len(shorter) >= 2 and longer[: len(shorter)] == shorter


def _prompt_texts(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str]:
    """The start of each matched prompt's text (its first non-empty line), read only for the entries shown."""
    if not ids:
        return {}
    marks = ", ".join("?" for _ in ids)
    rows = conn.execute(
        f"SELECT id, substr(text, 1, ?) FROM docs WHERE id IN ({marks})", (PROMPT_CHARS * 4, *ids)
    )
    return {doc: prompt_line(text) for doc, text in rows}


def prompt_line(text: str) -> str:
    """What an entry shows of the prompt that led to it: its first non-empty line, cut at
    :data:`PROMPT_CHARS` (the local index and the shared one alike)."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return shortened(line, PROMPT_CHARS)


@dataclass(slots=True)
class _Group:
    command: str
    in_command: bool = False
    sessions: set[int] = field(default_factory=set)
    projects: set[str] = field(default_factory=set)
    runs: int = 0
    ok: int = 0
    failed: int = 0
    last_time: float | None = None
    last_ref: str = ""
    last_exit: int | None = None
    example: str = ""
    via: str | None = None
    score: float = 0.0
    hit: int | None = None
    # Found through the meaning of what was asked before it ran, not its words (:func:`by_meaning`).
    meant: bool = False

    def led_by(self, led: _Led) -> None:
        """Record that runs of it followed a matching prompt or intent (the best one kept)."""
        if self.via is None or led.score < self.score:
            self.via, self.score, self.hit = led.kind, led.score, led.hit

    def add(self, row: tuple[Any, ...], in_command: bool) -> None:
        command, sess, ref, project, runs, ok, failed, last, last_exit = row
        self.in_command = self.in_command or in_command
        self.sessions.add(sess)
        self.projects.add(project)
        self.runs += runs
        self.ok += ok or 0
        self.failed += failed or 0
        if not self.example or (last is not None and (self.last_time is None or last > self.last_time)):
            self.last_time, self.last_ref, self.last_exit, self.example = last, ref, last_exit, command

    def matched_in(self) -> str:
        if self.meant:
            return "meaning"
        if self.in_command:
            return "command"
        if self.via is not None:
            return "intent" if self.via == "reply" else "prompt"
        return "output"

    def entry(self, prompt: str | None) -> HowEntry:
        known = self.ok + self.failed
        return HowEntry(
            command=self.command,
            example=self.example,
            matched_in=self.matched_in(),
            sessions=len(self.sessions),
            runs=self.runs,
            ok=self.ok,
            failed=self.failed,
            success_rate=self.ok / known if known else None,
            last_time=self.last_time,
            last_ref=self.last_ref,
            last_exit_code=self.last_exit,
            projects=sorted(self.projects),
            prompt=prompt,
        )


def how(
    conn: sqlite3.Connection, what: str, *, project: str | None = None, limit: int = 20
) -> list[HowEntry]:
    """The commands matching ``what`` that sessions (of ``project``, when given) really ran, best first.

    ``what`` is anything a person types (never an FTS5 error): words, ``"quoted phrases"``, ``OR``,
    ``-exclusions``, command fragments. Ranking and matching are in this module's docstring. Reads only.
    """
    from hermes_trail.index import plan  # as below

    parsed = query.with_flags(query.parse(what), what, functools.partial(plan.flag_in, conn))
    if parsed.root is None:
        return []
    words_only = content(parsed.root)
    asked = query.Query(words_only) if words_only is not None else parsed
    rows: dict[tuple[str, int], tuple[tuple[Any, ...], bool]] = {}
    # Told once a command: common words match the same few commands in tens of thousands of sessions.
    holds = functools.cache(lambda command: in_command(asked.root, command))
    words = query.to_fts(asked)
    # A word of Chinese, Japanese or Korean is found inside a run too (the bigram index beside the words).
    ids = _rowids(asked.root) if _asks_cjk(asked.root) else None
    if ids is not None:
        for row in _grouped_ids(conn, ids, project):
            rows[(row[0], row[1])] = (row, holds(row[0]))
    elif words:
        for row in _grouped(conn, "docs_fts", words, project):
            rows[(row[0], row[1])] = (row, holds(row[0]))
    trigram = query.to_trigram(asked)
    if trigram and (query.needs_trigram(asked) or not rows):
        for row in _grouped(conn, "docs_tri", trigram, project):
            rows[(row[0], row[1])] = (row, True)  # the trigram index holds a command doc's command only
    # A prompt must have the content words: a query of stop-words only matches no prompt.
    prompt_words = query.to_fts(query.Query(words_only)) if words_only is not None else None
    prompt_ids = _rowids(words_only) if _asks_cjk(words_only) else None
    if prompt_ids is not None:
        led = _led(conn, None, project, words_only, prompt_ids)
    else:
        led = _led(conn, prompt_words, project, words_only) if prompt_words else {}
    for key, found in led.items():
        # Counted by what matched it in the command pass, unless following prompts found more of its runs.
        if key not in rows or found.row[4] > rows[key][0][4]:
            rows[key] = (found.row, rows[key][1] if key in rows else False)
    groups: dict[str, _Group] = {}
    for key, (row, inside) in rows.items():
        name = normalize_command(row[0])
        group = groups.setdefault(name, _Group(name))
        group.add(row, inside)
        if key in led:
            group.led_by(led[key])
    best = min((g.score for g in groups.values() if g.matched_in() in ("prompt", "intent")), default=0.0)

    def rank(g: _Group) -> tuple[Any, ...]:
        tier = {"command": 2, "prompt": 1, "intent": 1}.get(g.matched_in(), 0)
        # How well the prompt matched, as a share of the best (BM25 is negative, lower better), in tenths:
        # prompts about as good leave the order to the evidence.
        strength = round(g.score / best, 1) if tier == 1 and best < 0 else 0.0
        known = g.ok + g.failed
        return (tier, strength, len(g.sessions), g.ok / known if known else -1.0, g.runs, g.last_time or 0.0)

    return _entries(conn, sorted(groups.values(), key=rank, reverse=True), limit)


def _entries(conn: sqlite3.Connection, ranked: list[_Group], limit: int) -> list[HowEntry]:
    """The first ``limit`` (0: all) of the groups ``ranked``, each with the prompt that led to it."""
    ranked = ranked[:limit] if limit > 0 else ranked
    texts = _prompt_texts(conn, [g.hit for g in ranked if g.hit is not None])
    return [g.entry(texts.get(g.hit) if g.hit is not None else None) for g in ranked]


# A question of fewer or more content words than these is not tried again without each of them: of two,
# one word alone is left, which says too little of the task. At most so many of the words it has are left
# out at once, each time leaving at least two.
FEWEST_WORDS, MOST_WORDS = 3, 8
LEFT_OUT = 2
_E = TypeVar("_E", bound=HowEntry)


def most_words(
    ask: Callable[[str], Sequence[_E]],
    what: str,
    counts: Callable[[list[str]], list[int]],
    limit: int,
    respell: Callable[[str], list[str]] | None = None,
) -> list[_E]:
    """What ``ask`` (a ``how`` of the local or the shared index) answers for ``what``; when no command on
    record matches every word of it, the commands that match the words some doc has (a word none has is
    left out, as a search leaves it), else all of those but one, else (of four or more) all but two, each
    saying the words it lacks (``lacks``). A person asks in the words of the task ("server ran out of
    disk"), and one word the prompt before the command did not say ("web-01 ran out of disk again") left
    nothing at all, as one missing word emptied a search before it fell back to the words that exist; so
    did two ("check kafka consumer lag" for a ``kafka-consumer-groups`` run asked for as "is the billing
    consumer keeping up").

    Only a question of plain words (no phrase, alternative, exclusion or prefix: those say exactly what
    to match) of :data:`FEWEST_WORDS` to :data:`MOST_WORDS` content words, and never down to one word.
    The most common words (``counts``: how many docs have each) are left out first, what is left saying
    the most; a command found
    in the command itself or in what led to it comes before one found only in its output, whichever word
    it lacks, and with two words left out one found only in its output is none (half a question in a
    program's output, "the process uses 9 GB" for "check which process uses a port", says nothing of
    the task). Before that, a word typed wrong (``respell``: the words one slip away from a word the index
    lacks, :mod:`~hermes_trail.index.spelling`) is asked for as those words, as a search does."""
    found = list(ask(what))
    if found:
        return found
    words = plain_words(what)
    spelled = {w: read for w in words if (read := respell(w))} if respell is not None else {}
    if spelled:  # a word typed wrong ("hexadecmal"): asked again with the words the history has for it
        again = list(ask(" ".join(_either(spelled.get(w, [w])) for w in words)))
        for entry in again:
            entry.spelled = spelled
        if again:
            return again
    if not FEWEST_WORDS <= len(words) <= MOST_WORDS:
        return []
    common = counts(words)
    # Words no doc has at all (not typed wrong either: those were asked for as the history spells them)
    # are left out first, as a search leaves them out: "check kafka consumer lag" where nothing says "lag".
    absent = [w for w, n in zip(words, common, strict=True) if n == 0 and w not in spelled]
    if len(words) - len(absent) < FEWEST_WORDS - 1:  # one word alone says too little of the task
        absent = []
    if absent:
        kept = [i for i, w in enumerate(words) if w not in absent]
        words, common = [words[i] for i in kept], [common[i] for i in kept]
        found = list(ask(" ".join(words)))
        for entry in found:
            entry.lacks = _lacking(entry, absent)
        if found:
            return found[:limit] if limit > 0 else found
    # Then all but one word, else (of four or more) all but two: the most common left out first.
    for dropped in range(1, LEFT_OUT + 1):
        if len(words) - dropped < FEWEST_WORDS - 1:
            break
        order = sorted(
            itertools.combinations(range(len(words)), dropped), key=lambda out: -sum(common[i] for i in out)
        )
        ranked: list[tuple[int, bool, int, int, _E]] = []
        seen: set[str] = set()
        for place, left_out in enumerate(order):
            rest = " ".join(w for i, w in enumerate(words) if i not in left_out)
            for position, entry in enumerate(ask(rest)):
                if entry.command in seen or (dropped > 1 and entry.matched_in == "output"):
                    continue
                seen.add(entry.command)
                entry.lacks = _lacking(entry, [*absent, *(words[i] for i in left_out)])
                ranked.append((len(entry.lacks), entry.matched_in == "output", place, position, entry))
        if ranked:
            chosen = [entry for *_, entry in sorted(ranked, key=lambda r: r[:4])]
            return chosen[:limit] if limit > 0 else chosen
    return []


def _lacking(entry: _E, words: list[str]) -> list[str]:
    """Of the words a command was found without, those neither it nor the prompt that led to it says: a
    ``terraform validate`` led to by "add an alarm on the load balancer" has every word of "validate the
    terraform for the load balancer alarm", though no one doc does."""
    said = f"{entry.command}\n{entry.prompt or ''}"
    return [w for w in words if not in_command(query.Term(w), said)]


def _either(words: list[str]) -> str:
    """Words as one alternative of a question: the word, or ``(a OR b)``; words the history writes apart
    ("billing api" for billingapi) as their phrase."""
    said = [f'"{w}"' if " " in w else w for w in words]
    return said[0] if len(said) == 1 else "(" + " OR ".join(said) + ")"


def local_respelled(conn: sqlite3.Connection, word: str) -> list[str]:
    """The words one slip away from ``word`` that the index has, or the word as it writes it otherwise
    ("pre-commit" for precommit, :mod:`~hermes_trail.index.variants`), when it lacks ``word`` itself."""
    from hermes_trail.index import plan

    return plan.stand_ins(
        word,
        lambda typed: plan.exists(conn, "docs_fts", query.leaf_fts(query.Term(typed)) or '""'),
        lambda term, tiers: plan.local_variant(conn, term, tiers),
        lambda typed: plan.respelled(conn, typed),
    )


def plain_words(what: str) -> list[str]:
    """The content words of ``what`` when it is only words (see :func:`most_words`), else none."""
    root = content(query.parse(what).root)
    nodes = root.nodes if isinstance(root, query.And) else (root,) if root is not None else ()
    if not all(isinstance(n, query.Term) and not n.prefix for n in nodes):
        return []
    return list(dict.fromkeys(n.text for n in nodes if isinstance(n, query.Term)))


# Words in more docs than this are all common alike to :func:`most_words` (counting further costs).
COMMON_FROM = 1_000


def local_counts(conn: sqlite3.Connection, words: list[str], cap: int = COMMON_FROM) -> list[int]:
    """How many docs of the local word index have each word (up to ``cap``): which is most common."""
    sql = f"SELECT count(*) FROM (SELECT 1 FROM docs_fts WHERE docs_fts MATCH ? LIMIT {int(cap)})"
    return [int(conn.execute(sql, (fts_string(w),)).fetchone()[0]) for w in words]


# The sessions a question's meaning leads ``how`` to (:func:`by_meaning`): the nearest, and those about as
# near (within so many standard deviations of its standing), at most so many.
MEANT_SESSIONS = 3
MEANT_WITHIN = 1.0
# A session's live prompts and commands read to tell which prompt the question meant.
MEANT_DOCS = 5_000
_K = TypeVar("_K")


def meant(standing: Iterable[tuple[_K, float, int | None]]) -> list[tuple[_K, float, int | None]]:
    """Of the sessions near a question's meaning (each with its standing, deviations above its crowd, and
    its nearest passage's first doc), those ``how`` follows, nearest first (:data:`MEANT_SESSIONS`,
    :data:`MEANT_WITHIN`)."""
    ranked = sorted(standing, key=lambda s: -s[1])
    if not ranked:
        return []
    top = ranked[0][1]
    return [s for s in ranked[:MEANT_SESSIONS] if s[1] >= top - MEANT_WITHIN]


def prompts_that_ran(docs: Iterable[tuple[int, str, str | None]]) -> list[tuple[int, str]]:
    """Of a session's live prompts and commands (each its place, kind and a prompt's text, in order), the
    prompts a command followed before the next prompt: the ones a question about how to do something can
    mean ("Work on it" before any command says nothing of how)."""
    out: list[tuple[int, str]] = []
    prompt: tuple[int, str] | None = None
    for at, kind, text in docs:
        if kind == "prompt":
            prompt = (at, text or "")
        elif prompt is not None:
            out.append(prompt)
            prompt = None
    return out


def nearest_prompt(
    question: str,
    prompts: Sequence[tuple[int, str]],
    near: int | None,
    nearness: Callable[[str, list[str]], list[float] | None] | None = None,
) -> int:
    """Of a session's prompts (place and text, in order: :func:`prompts_that_ran`), the one ``question``
    meant: the one with most of its words (as typed or without an ending); of those with as many, the
    nearest in meaning (``nearness``: each text's cosine to the question, :func:`prompt_nearness`), else
    the one its nearest passage opens at or follows (``near``), then the first. A passage is what the
    session says most about, prompts first, so it cannot tell a session's tasks apart: in a session that
    cleaned up docker, then asked "how much memory does the box have", "how much ram is installed" has
    none of either's words and followed the first."""
    said = _WORDS.findall(question.lower())
    asked = {_stem(w) for w in said if not is_stopword(w, said)}

    def shared(text: str) -> int:
        return len(asked & {_stem(w) for w in _WORDS.findall(text.lower())})

    before = [doc for doc, _ in prompts if near is not None and doc <= near]
    anchor = before[-1] if before else prompts[0][0]
    most = max(shared(text) for _, text in prompts)
    tied = [(doc, text) for doc, text in prompts if shared(text) == most]
    if len(tied) > 1 and nearness is not None:
        cosines = nearness(question, [text for _, text in tied[:MEANT_COMPARED]])
        if cosines is not None:
            return max(zip(tied, cosines, strict=False), key=lambda pair: pair[1])[0][0]
    return max(tied, key=lambda p: (p[0] == anchor, -p[0]))[0]


# The prompts of one session compared with a question by meaning, at most (each is encoded).
MEANT_COMPARED = 20


def prompt_nearness(question: str, texts: list[str]) -> list[float] | None:
    """Each text's cosine to ``question`` by the sentence model: the meaning server's vectors, else this
    process's encoder; ``None`` without one."""
    from hermes_trail.index import encoder, meaning_client

    first = meaning_client.vector(question)  # the rest only when the server answered the first
    served = [first, *(meaning_client.vector(t) for t in texts)] if first is not None else [None]
    if all(v is not None for v in served):
        import numpy as np

        matrix = np.asarray(served, dtype=np.float32)
    elif encoder.available():
        matrix = encoder.model().encode([question, *texts])
    else:
        return None
    return [float(matrix[0] @ row) for row in matrix[1:]]


_WORDS = re.compile(r"[^\W_]+")


def rank_meant(groups: Iterable[_Group]) -> list[_Group]:
    """Commands found through meaning, best first: by how near what led to them was (its standing), then
    by the evidence, as words rank theirs."""

    def rank(g: _Group) -> tuple[Any, ...]:
        known = g.ok + g.failed
        return (
            -round(g.score, 1),
            len(g.sessions),
            g.ok / known if known else -1.0,
            g.runs,
            g.last_time or 0.0,
        )

    return sorted(groups, key=rank, reverse=True)


def local_standing(
    conn: sqlite3.Connection, text: str, project: str | None
) -> list[tuple[int, float, int | None]]:
    """Each session of ``project`` near ``text`` in meaning, as the search's meaning pass stands it (the
    meaning server's, else this process's): its id, its standing and its nearest passage's first doc. Only
    sessions with passage vectors: one compared by its static gist (English words alone, made before its
    vectors are) is near too loosely to answer a question alone, and the shared index has no gists."""
    from hermes_trail.index import meaning_client
    from hermes_trail.index.filters import SearchFilters
    from hermes_trail.index.search import _on_sessions, meaning_standing

    filters = _on_sessions(SearchFilters(project=project))
    standing = meaning_client.standing(conn, text, filters)
    if standing is None:
        standing = meaning_standing(conn, text, filters)
    return [(sess, z, doc) for sess, (z, doc) in standing.items() if doc is not None]


def by_meaning(
    conn: sqlite3.Connection, what: str, *, project: str | None = None, limit: int = 20
) -> list[HowEntry]:
    """The commands run after the prompts nearest ``what`` in meaning, for a question whose words nothing
    on record has (:func:`most_words` found nothing): people ask "largest files" where the prompt said
    "find the biggest files" and the command was ``du -ah ~ | sort -rh``. The sessions are the meaning
    pass's (their passages' vectors, :mod:`.vectors`; :func:`meant`), each followed from the prompt the
    question meant (:func:`nearest_prompt`), as a matching prompt is; ``matched_in`` says ``meaning``.
    Nothing when the index has no vectors or none is near."""
    hits: list[tuple[int, float]] = []
    for sess, z, near in meant(local_standing(conn, what, project)):
        prompts = prompts_that_ran(
            conn.execute(
                "SELECT id, kind, CASE WHEN kind = 'prompt' THEN substr(text, 1, 2000) END FROM docs "
                "WHERE sess = ? AND rewound = 0 "
                "AND (kind = 'prompt' OR kind = 'command' AND command IS NOT NULL) ORDER BY id LIMIT ?",
                (sess, MEANT_DOCS),
            )
        )
        if prompts:
            hits.append((nearest_prompt(what, prompts, near, prompt_nearness), -z))
    groups: dict[str, _Group] = {}
    for found in _led_from(conn, hits, None).values():
        name = normalize_command(found.row[0])
        group = groups.setdefault(name, _Group(name, meant=True))
        group.add(found.row, False)
        group.led_by(found)
    return _entries(conn, rank_meant(groups.values()), limit)
