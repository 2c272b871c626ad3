"""How did this project do X: the real commands it ran that match, by how many sessions ran them and how
often they worked.

A person asking "how do we run the tests here" wants the command that was actually typed, not a guess, and
the best evidence for it is that many sessions ran it and it usually succeeded. So matching ``terminal``
commands (``docs.kind = 'command'``; a ``blocked`` command never ran and is left out, and so are rewound
ones) are grouped by their normalized text (:func:`normalize_command`) and ranked by:

1. where the query matched: in the command itself before only in its output. The word index covers a
   command's output too, so ``how pytest`` also finds ``cat pyproject.toml``, whose output names pytest;
   that is a real answer to another question ("what produced this"), so it stays, after the commands that
   are themselves pytest runs.
2. how many distinct sessions ran it (one session looping on a command is one piece of evidence);
3. its success rate (exit code 0 among the runs whose exit code is known);
4. how many times it ran, then how recently.

Matching: the query is read as the search box reads it (:mod:`hermes_trail.index.query`: words, quoted
phrases, ``OR``, ``-exclusions``, ``prefix*``) and matched against the word index (``docs_fts``, over a
command with its output: stemmed, so ``tests`` finds ``test``); and, when it looks like a command fragment
(``manage.py``, ``--no-cache``, ``./x``: what the word index splits) or the words find nothing (the start
of a word such as ``migrat``), its terms as substrings of the command through the trigram index over
``docs.key`` (for a command doc, the command alone).
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from hermes_trail.index import query

# A leading ``cd <dir> &&`` says where a command ran, not what it was: the same fix in two checkouts is one.
_LEADING_CD = re.compile(r"\A(?:cd\s+(?:\"[^\"]*\"|'[^']*'|[^\s;&|]+)\s*&&\s*)+")
_SPACES = re.compile(r"\s+")
# Endings a stemmer would drop, tried when telling whether a word matched in the command itself.
_ENDINGS = ("ations", "ation", "ings", "ing", "ies", "ied", "ed", "es", "s")


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
    :param matched_in: ``command`` when the query matched the command itself, ``output`` when only its
        output (or error) matched.
    :param sessions: distinct sessions that ran it.
    :param runs: times it ran; ``ok`` of them exited 0, ``failed`` with another code (killed and timed-out
        runs included); the rest have no exit code (still running in the background, no result).
    :param success_rate: ``ok / (ok + failed)``, ``None`` when no run has an exit code.
    :param last_time: when it last ran (epoch seconds), with that session's ``last_ref`` and the
        ``last_exit_code`` it had.
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
    clause, params = project_clause("s.project", project)
    # The bare ``d.exit_code`` beside ``max(d.time)`` is SQLite's: the value from the row holding the max.
    sql = f"WITH hits(id) AS (SELECT rowid FROM {table} WHERE {table} MATCH ?)"
    sql += _GROUPED.format(project=clause)
    return conn.execute(sql, (expression, *params)).fetchall()


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

    def entry(self) -> HowEntry:
        known = self.ok + self.failed
        return HowEntry(
            command=self.command,
            example=self.example,
            matched_in="command" if self.in_command else "output",
            sessions=len(self.sessions),
            runs=self.runs,
            ok=self.ok,
            failed=self.failed,
            success_rate=self.ok / known if known else None,
            last_time=self.last_time,
            last_ref=self.last_ref,
            last_exit_code=self.last_exit,
            projects=sorted(self.projects),
        )


def how(
    conn: sqlite3.Connection, what: str, *, project: str | None = None, limit: int = 20
) -> list[HowEntry]:
    """The commands matching ``what`` that sessions (of ``project``, when given) really ran, best first.

    ``what`` is anything a person types (never an FTS5 error): words, ``"quoted phrases"``, ``OR``,
    ``-exclusions``, command fragments. Ranking and matching are in this module's docstring. Reads only.
    """
    parsed = query.parse(what)
    if parsed.root is None:
        return []
    rows: dict[tuple[str, int], tuple[tuple[Any, ...], bool]] = {}
    words = query.to_fts(parsed)
    if words:
        for row in _grouped(conn, "docs_fts", words, project):
            rows[(row[0], row[1])] = (row, in_command(parsed.root, row[0]))
    trigram = query.to_trigram(parsed)
    if trigram and (query.needs_trigram(parsed) or not rows):
        for row in _grouped(conn, "docs_tri", trigram, project):
            rows[(row[0], row[1])] = (row, True)  # the trigram index holds a command doc's command only
    groups: dict[str, _Group] = {}
    for row, inside in rows.values():
        key = normalize_command(row[0])
        groups.setdefault(key, _Group(key)).add(row, inside)
    entries = [g.entry() for g in groups.values()]
    entries.sort(
        key=lambda e: (
            e.matched_in == "command",
            e.sessions,
            e.success_rate if e.success_rate is not None else -1.0,
            e.runs,
            e.last_time or 0.0,
        ),
        reverse=True,
    )
    return entries[:limit] if limit > 0 else entries
