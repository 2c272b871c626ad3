"""Blame a file: every session and edit that touched it, following moves, newest first, each with the
prompt that led to it.

Which edits are the file's. A path is asked for as a person has it at hand: absolute, or relative to
some checkout (``src/app.py``). An edit (``docs.kind = 'edit'``: a ``write_file``, a ``patch`` in either
mode, one file of a V4A patch) names its path as the tool call gave it, which Hermes resolves against the
session's working directory; so a relative recorded path is read against the session's project when that
is a directory (``project`` is the ``cwd`` Hermes recorded), and the asked path matches a recorded one that
equals it or ends with it on a ``/`` boundary (``src/app.py`` is ``/home/u/proj/src/app.py``, never
``/home/u/proj/mysrc/app.py``). A path that names several files (two checkouts) blames them all. An
accented letter is one letter whether written composed or, as macOS names files, as its letter and the
accent apart (``Über``): a path pasted from the Finder or recorded from a Mac's file system finds the
edits of the other spelling (:func:`name_forms`). A session on Windows is read as Windows resolves its
paths (:func:`resolve`: either separator, any case, Git Bash's ``/c/`` as the drive), and a path pasted
with the line an error gives after it (``src/app.py:42``) is the file (:func:`without_position`).

Moves. A V4A ``Move File: a -> b`` is an edit with ``path`` a and ``moved_to`` b. Blaming b takes in that
move and then a's edits up to the move (a file later created again at a is another file), and so on back
through every earlier move; the move is shown once, as a ``move``. A move *away* from the asked path is
one of its edits too (it is where the file went).

The prompt of an edit is the nearest typed user turn before it in its conversation (``kind = 'prompt'``,
at or before the edit's row; ``messages.id`` grows through a store, so across a continuation chain too,
whose later parts start with a summary rather than a prompt). Rewound edits are left out unless asked for:
a rewound turn is one Hermes no longer shows, though what it wrote may still be on disk.

What the index does not hold yet: the edit's action (``add``, ``update``, ``delete``, ``replace``), its
line counts and whether it applied. When the ``docs`` table has ``action``, ``added``, ``removed`` and
``applied`` columns they are read; until then the action is ``move`` (a ``moved_to``), ``write`` (a
``write_file``) or ``edit``, and the counts are ``None``.
"""

from __future__ import annotations

import difflib
import ntpath
import posixpath
import re
import sqlite3
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from hermes_trail.index.how import fts_string

_COLUMNS = (
    "id",
    "sess",
    "row",
    "time",
    "tool",
    "path",
    "moved_to",
    "rewound",
    "store",
    "session_id",
    "ref",
    "title",
    "project",
    "root",
)
_TABLE_OF = {"store": "s", "session_id": "s", "ref": "s", "title": "s", "project": "s", "root": "s"}
# Columns a later index format may add to ``docs`` for edits; read when present.
_EXTRA_COLUMNS = ("action", "added", "removed", "applied")


@dataclass(slots=True)
class BlameEntry:
    """One edit that touched the file (or one of the paths it had before a move).

    :param path: the path as the edit named it; ``moved_to`` where a move sent it.
    :param resolved: ``path`` read against the session's working directory, the form matched.
    :param via: the path this edit was found under: the asked one's match, or an earlier name of the file.
    :param action: ``move``, ``write``, ``add``, ``update``, ``delete``, ``replace`` (when the index records
        it), else ``edit``.
    :param added, removed: line counts, ``None`` while the index does not record them.
    :param applied: whether the tool reported it applied, ``None`` when unknown.
    :param prompt: the typed prompt that led to the edit (``prompt_time`` when it was sent), ``None`` when
        the conversation has none before it.
    """

    doc: int
    store: str
    session_id: str
    ref: str
    title: str | None
    project: str
    time: float | None
    row: int
    tool: str | None
    path: str
    moved_to: str | None
    resolved: str
    via: str
    action: str
    added: int | None
    removed: int | None
    applied: bool | None
    rewound: bool
    prompt: str | None
    prompt_time: float | None


def _clean(path: str) -> str:
    path = unicodedata.normalize("NFC", path.strip())
    if not path:
        return path
    cleaned = posixpath.normpath(path)
    return cleaned.removeprefix("./") if cleaned != "." else path


# The line, and the column, a compiler, a linter, grep or a traceback writes after a path ("src/app.py:42",
# "src/app.py:42:7:", "Checkout.tsx(44,17)", 'File "src/app.py", line 42, in main'): pasted with it, the
# path was "no edit on record".
_POSITION = r"(?::\d+){1,2}:?|\(\d+(?:,\d+)?\)"
_FRAME = r'\s*File "([^"]+)", line \d+(?:, in \S+)?\s*'


def without_position(path: str) -> str | None:
    """``path`` without the line and column written after it (:data:`_POSITION`), or the path of a line
    of a Python traceback; ``None`` when it has neither. Asked for only when the path as typed has no edit
    (a file may be named so)."""
    if frame := re.fullmatch(_FRAME, path):
        return frame[1]
    bare = re.sub(rf"(?<=[^\s:]){_POSITION}$", "", path.strip())
    return bare if bare != path.strip() else None


def name_forms(name: str) -> list[str]:
    """``name`` composed and decomposed ("Über" as one character or two): macOS names files decomposed,
    so a path pasted from its Finder, or recorded from its file system, spells an accented letter so, and
    one blamed in the other form was "no edit on record". Each once."""
    return list(dict.fromkeys((unicodedata.normalize("NFC", name), unicodedata.normalize("NFD", name))))


# A path of Windows, where Hermes runs natively and resolves a file tool's path as Windows does (``ntpath``):
# on a drive ("C:\Users\me\app.py", "C:/Users/me") or a share ("\\host\share"); and Git Bash's name of a
# drive ("/c/Users/me"), which Hermes reads as that drive.
_DRIVE = re.compile(r"[A-Za-z]:[\\/]|\\\\")
_GIT_BASH = re.compile(r"/([A-Za-z])/")
_SEPARATORS = re.compile(r"[\\/]")


def on_windows(path: str) -> bool:
    """Whether ``path`` is one of Windows (:data:`_DRIVE`)."""
    return _DRIVE.match(path) is not None


def resolve(path: str, project: str) -> str:
    """A recorded path as Hermes resolved it: a relative one against the session's directory when the
    project is one (it is the session's ``cwd``); ``~`` and anything else as recorded. In a session on
    Windows as Windows resolves it (``src\\app.py`` in ``C:\\proj``: ``C:\\proj\\src\\app.py``; Git
    Bash's ``/c/proj``: ``C:\\proj``)."""
    path = path.strip()
    if on_windows(project) or on_windows(path):
        if (drive := _GIT_BASH.match(path)) is not None and on_windows(project):
            path = f"{drive[1].upper()}:\\{path[3:]}"
        if not ntpath.isabs(path) and not path.startswith("~") and on_windows(project):
            path = ntpath.join(project, path)
        return unicodedata.normalize("NFC", ntpath.normpath(path))
    if path.startswith(("/", "~")) or not project.startswith("/"):
        return _clean(path)
    return _clean(posixpath.join(project, path))


def matches(wanted: str, resolved: str) -> bool:
    """Whether a resolved recorded path is the wanted one (composed, :func:`_clean`): equal, or ending with
    it on a ``/`` boundary, its accented letters composed or not (:func:`name_forms`). A path of Windows
    with either separator and in any case, as Windows reads it (``src/app.py`` is
    ``C:\\Proj\\SRC\\app.py``)."""
    if not resolved.isascii():
        resolved = unicodedata.normalize("NFC", resolved)
    if on_windows(resolved):
        resolved, wanted = (_SEPARATORS.sub("/", p).casefold() for p in (resolved, wanted))
    return resolved == wanted or resolved.endswith("/" + wanted.lstrip("/"))


def file_name(path: str) -> str:
    """The last part of ``path`` (after a ``/``, or a ``\\`` of Windows), or the path when it has none."""
    return _SEPARATORS.split(path)[-1] or path


def _columns(conn: sqlite3.Connection) -> set[str]:
    return {row[1] for row in conn.execute("PRAGMA table_info(docs)")}


def _candidates(
    conn: sqlite3.Connection, wanted: str, extra: list[str], include_rewound: bool
) -> list[dict[str, Any]]:
    """Edits whose path or move target might be ``wanted``: found through the trigram index by the file's
    name (exactness is checked after), or by scanning edits when the name is too short for trigrams."""
    name = file_name(wanted)
    names = [*_COLUMNS, *extra]
    cols = ", ".join([*(f"{_TABLE_OF.get(n, 'd')}.{n}" for n in names)])
    rewound = "" if include_rewound else " AND d.rewound = 0"
    forms = name_forms(name)
    if len(name) >= 3:
        sql = (
            f"SELECT {cols} FROM docs_tri t CROSS JOIN docs d ON d.id = t.rowid "
            f"CROSS JOIN sessions s ON s.id = d.sess WHERE docs_tri MATCH ? AND d.kind = 'edit'{rewound}"
        )
        params: tuple[Any, ...] = (" OR ".join(map(fts_string, forms)),)
    else:
        # ``path IS NOT NULL`` lets SQLite walk the partial index of paths instead of every doc's text.
        ends = " OR ".join(
            "substr(d.path, -length(?)) = ? OR substr(d.moved_to, -length(?)) = ?" for _ in forms
        )
        sql = (
            f"SELECT {cols} FROM docs d JOIN sessions s ON s.id = d.sess WHERE d.path IS NOT NULL "
            f"AND d.kind = 'edit'{rewound} AND ({ends})"
        )
        params = tuple(value for form in forms for value in [form] * 4)
    return [dict(zip(names, row, strict=True)) for row in conn.execute(sql, params)]


def _action(row: dict[str, Any]) -> str:
    if row.get("action"):
        return str(row["action"])
    if row["moved_to"]:
        return "move"
    if row["tool"] == "write_file":
        return "write"
    return "edit"


def _prompt(
    conn: sqlite3.Connection, store: str, root: str, row: int, rewound: bool
) -> tuple[str | None, float | None]:
    found = conn.execute(
        "SELECT d.text, d.time FROM sessions s CROSS JOIN docs d ON d.sess = s.id "
        "WHERE s.store = ? AND s.root = ? AND d.kind = 'prompt' AND d.row <= ? AND (d.rewound = 0 OR ?) "
        "ORDER BY d.row DESC, d.part DESC LIMIT 1",
        (store, root, row, int(rewound)),
    ).fetchone()
    return (found[0], found[1]) if found else (None, None)


def _before(row: dict[str, Any], until: float | None) -> bool:
    return until is None or row["time"] is None or row["time"] <= until


def _optional_int(value: Any) -> int | None:
    return int(value) if value is not None else None


def _walk(
    conn: sqlite3.Connection, wanted: str, extra: list[str], include_rewound: bool
) -> Iterable[tuple[dict[str, Any], str]]:
    """Every edit of ``wanted`` and of the paths it had before each move into it (:func:`follow_moves`)."""
    return follow_moves(wanted, lambda path: _candidates(conn, path, extra, include_rewound))


def follow_moves(
    wanted: str, candidates: Callable[[str], Iterable[dict[str, Any]]]
) -> Iterable[tuple[dict[str, Any], str]]:
    """Every edit of ``wanted`` and of the paths it had before each move into it, with the path it was
    found under, from ``candidates`` (the edit rows that may touch a path: the local index's or the
    shared one's). A path reached through a move counts only up to that move."""
    queue: list[tuple[str, float | None]] = [(wanted, None)]
    followed: dict[str, float | None] = {wanted: None}
    seen: set[int] = set()
    while queue:
        path, until = queue.pop(0)
        for row in candidates(path):
            if not _before(row, until):
                continue
            source = resolve(row["path"], row["project"])
            target = resolve(row["moved_to"], row["project"]) if row["moved_to"] else None
            into = target is not None and matches(path, target)
            if not (matches(path, source) or into):
                continue
            if row["id"] not in seen:
                seen.add(row["id"])
                yield row, path
            if into and source not in followed:
                followed[source] = row["time"]
                queue.append((source, row["time"]))


def blame(
    conn: sqlite3.Connection, path: str, *, limit: int = 100, include_rewound: bool = False
) -> list[BlameEntry]:
    """Every edit that touched ``path`` (or the file under an earlier name), newest first, at most ``limit``
    (0: all). Matching, moves and prompts are as this module's docstring says. Reads only."""
    wanted = _clean(path)
    if not wanted or wanted in (".", "/"):
        return []
    extra = [c for c in _EXTRA_COLUMNS if c in _columns(conn)]
    found = sorted(
        _walk(conn, wanted, extra, include_rewound),
        key=lambda item: (item[0]["time"] or 0.0, item[0]["row"], item[0]["id"]),
        reverse=True,
    )
    if not found and (bare := without_position(path)) is not None:  # "src/app.py:42", as a compiler says
        return blame(conn, bare, limit=limit, include_rewound=include_rewound)
    if limit > 0:
        found = found[:limit]
    entries = []
    for row, via in found:
        prompt, prompt_time = _prompt(conn, row["store"], row["root"], row["row"], bool(row["rewound"]))
        applied = row.get("applied")
        entries.append(
            BlameEntry(
                doc=row["id"],
                store=row["store"],
                session_id=row["session_id"],
                ref=row["ref"],
                title=row["title"],
                project=row["project"],
                time=row["time"],
                row=row["row"],
                tool=row["tool"],
                path=row["path"],
                moved_to=row["moved_to"],
                resolved=resolve(row["path"], row["project"]),
                via=via,
                action=_action(row),
                added=_optional_int(row.get("added")),
                removed=_optional_int(row.get("removed")),
                applied=bool(applied) if applied is not None else None,
                rewound=bool(row["rewound"]),
                prompt=prompt,
                prompt_time=prompt_time,
            )
        )
    return entries


# How many files a blame that found nothing offers instead, and how like the asked path an edited one must
# be to be offered: its file name, or its end of as many parts as were asked (a ratio of matching
# characters, case folded: "nwe.py" is 0.83 of "new.py", "tmux.cnf" 0.94 of "tmux.conf"; "a.py" only 0.75
# of "b.py").
NEAR_MOST = 3
NEAR_RATIO = 0.8
# A path longer than this is compared with none (each comparison costs its length times theirs).
NEAR_LONGEST = 1024


def _alike(wanted: str, path: str) -> float:
    """How like the asked path (lower case, no ``/`` at its ends) a path is: its file name's and its end's
    ratios of matching characters together, or 0 when neither reaches :data:`NEAR_RATIO`."""
    parts = _SEPARATORS.split(unicodedata.normalize("NFC", path).lower().rstrip("/\\"))
    depth = len(_SEPARATORS.findall(wanted)) + 1
    by_name = difflib.SequenceMatcher(None, posixpath.basename(wanted), parts[-1], autojunk=False).ratio()
    by_end = difflib.SequenceMatcher(None, wanted, "/".join(parts[-depth:]), autojunk=False).ratio()
    return by_name + by_end if max(by_name, by_end) >= NEAR_RATIO else 0.0


def _asked(path: str) -> str | None:
    """The path a blame asked for, as :func:`near_paths` compares it; ``None`` for none a person types."""
    wanted = _clean(path).lower().strip("/")
    return wanted if wanted and len(wanted) <= NEAR_LONGEST else None


def alike_paths(recorded: Iterable[str], path: str) -> list[str]:
    """Of the paths edits recorded (as recorded: relative ones too), those like ``path``: the few
    :func:`near_paths` reads the edits of."""
    wanted = _asked(path)
    return [] if wanted is None else [one for one in recorded if one and _alike(wanted, one)]


def near_paths(edited: Iterable[tuple[str, str, int]], path: str, most: int = NEAR_MOST) -> list[str]:
    """The files edited under a path like ``path`` when none is edited under it (a name remembered or
    typed wrong: ``vat_rats.yaml``, ``lib/app.py`` for ``src/app.py``), most alike first (by the name and
    the end together), then most edited: the paths to blame instead, as Hermes resolved them.
    ``edited``: each (recorded path, the session's project, how many edits), of the paths
    :func:`alike_paths` chose, as both indexes read them."""
    wanted = _asked(path)
    if wanted is None:
        return []
    counts: dict[str, int] = {}
    for recorded, project, edits in edited:
        resolved = resolve(recorded, project)
        counts[resolved] = counts.get(resolved, 0) + edits
    alike = []
    asked = _clean(path)  # as the blame matched it: a path of another case only is no match on POSIX
    for resolved, edits in counts.items():
        if (score := _alike(wanted, resolved)) and not matches(asked, resolved):
            alike.append((-score, -edits, resolved))
    return [resolved for *_, resolved in sorted(alike)[:most]]


def local_near_paths(conn: sqlite3.Connection, path: str, include_rewound: bool = False) -> list[str]:
    """:func:`near_paths` over this index's edits: the paths recorded read through the covering index of
    paths (milliseconds at a million messages; grouping every edit with its session took 0.3 s), then
    the edits of the paths like the asked one."""
    recorded = [row[0] for row in conn.execute("SELECT DISTINCT path FROM docs WHERE path IS NOT NULL")]
    chosen = alike_paths(recorded, path)
    if not chosen:
        return []
    rewound = "" if include_rewound else " AND d.rewound = 0"
    marks = ", ".join("?" for _ in chosen)
    rows = conn.execute(
        "SELECT d.path, s.project, count(*) FROM docs d JOIN sessions s ON s.id = d.sess "
        f"WHERE d.path IN ({marks}) AND d.kind = 'edit'{rewound} GROUP BY d.path, s.project",
        chosen,
    )
    return near_paths(rows, path)
