"""``trail blame --fleet``: every edit of a file in the shared index, by the local blame's rules
(:mod:`hermes_trail.index.blame`: a path matched as given or by its end on a ``/`` boundary, relative
paths read against the session's directory, moves followed back, the typed prompt behind each edit), each
entry saying the host it was pushed from.

Only the reading differs: candidates come through the ``pg_trgm`` index on ``docs.key`` (an edit's key is
its path and move target) instead of the local trigram index, and a prompt is looked for in the edit's
conversation on its own host.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hermes_trail.fleet import schema
from hermes_trail.index.blame import (
    BlameEntry,
    _action,
    _clean,
    _optional_int,
    alike_paths,
    file_name,
    follow_moves,
    name_forms,
    near_paths,
    resolve,
    without_position,
)
from hermes_trail.index.filters import like

if TYPE_CHECKING:
    import psycopg

_COLUMNS = (
    "id",
    "sess",
    "row",
    "part",
    "time",
    "tool",
    "path",
    "moved_to",
    "rewound",
    "action",
    "added",
    "removed",
    "applied",
    "host",
    "store",
    "session_id",
    "ref",
    "title",
    "project",
    "root",
)
_FROM_SESSION = {"host", "store", "session_id", "ref", "title", "project", "root"}


@dataclass(slots=True)
class FleetBlameEntry(BlameEntry):
    """An edit of the shared index: the local entry and the host that pushed it."""

    host: str = ""


def _candidates(
    conn: psycopg.Connection[Any], wanted: str, include_rewound: bool, hosts: list[str] | None
) -> list[dict[str, Any]]:
    """Edits whose path or move target might be ``wanted``: by the file's name as a substring of the
    key (``pg_trgm``), or by its end when the name is shorter than a trigram (exactness is checked after)."""
    name = file_name(wanted)
    forms = name_forms(name)  # composed and decomposed, as locally
    cols = ", ".join(f"{'s' if c in _FROM_SESSION else 'd'}.{c}" for c in _COLUMNS)
    clauses = ["d.kind = 'edit'"]
    params: list[Any] = []
    if len(name) >= 3:
        clauses.append("(" + " OR ".join("d.key ILIKE %s" for _ in forms) + ")")
        params += ["%" + like(form) + "%" for form in forms]
    else:
        ends = " OR ".join(
            "right(d.path, length(%s)) = %s OR right(d.moved_to, length(%s)) = %s" for _ in forms
        )
        clauses.append(f"d.path IS NOT NULL AND ({ends})")
        params += [value for form in forms for value in [form] * 4]
    if not include_rewound:
        clauses.append("NOT d.rewound")
    if hosts:
        clauses.append("d.host = ANY(%s)")
        params.append(list(hosts))
    sql = (
        f"SELECT {cols} FROM {schema.SCHEMA}.docs d JOIN {schema.SCHEMA}.sessions s ON s.id = d.sess "
        f"WHERE {' AND '.join(clauses)}"
    )
    return [dict(zip(_COLUMNS, row, strict=True)) for row in conn.execute(sql, params)]


def _walk(
    conn: psycopg.Connection[Any], wanted: str, include_rewound: bool, hosts: list[str] | None
) -> Iterable[tuple[dict[str, Any], str]]:
    """Every edit of ``wanted`` and of the paths it had before each move into it, as the local walk."""
    return follow_moves(wanted, lambda path: _candidates(conn, path, include_rewound, hosts))


def _prompt(conn: psycopg.Connection[Any], row: dict[str, Any]) -> tuple[str | None, float | None]:
    """The nearest typed prompt at or before the edit in its conversation (on its host)."""
    found = conn.execute(
        f"SELECT d.text, d.time FROM {schema.SCHEMA}.sessions s JOIN {schema.SCHEMA}.docs d ON d.sess = s.id "
        "WHERE s.host = %s AND s.store = %s AND s.root = %s AND d.kind = 'prompt' AND d.row <= %s "
        "AND (NOT d.rewound OR %s) ORDER BY d.row DESC, d.part DESC LIMIT 1",
        (row["host"], row["store"], row["root"], row["row"], bool(row["rewound"])),
    ).fetchone()
    return (found[0], found[1]) if found else (None, None)


def blame(
    conn: psycopg.Connection[Any],
    path: str,
    *,
    limit: int = 100,
    include_rewound: bool = False,
    hosts: list[str] | None = None,
) -> list[FleetBlameEntry]:
    """Every edit of ``path`` in the shared index (of ``hosts``, when given), newest first, at most
    ``limit`` (0: all), as :func:`hermes_trail.index.blame.blame` finds them locally."""
    wanted = _clean(path)
    if not wanted or wanted in (".", "/"):
        return []
    # Newest first; a V4A patch's files share a row and a time, and come in their order (the local ids').
    found = sorted(
        _walk(conn, wanted, include_rewound, hosts),
        key=lambda item: (item[0]["time"] or 0.0, item[0]["row"], item[0]["part"], item[0]["id"]),
        reverse=True,
    )
    if not found and (bare := without_position(path)) is not None:  # "src/app.py:42" (as locally)
        return blame(conn, bare, limit=limit, include_rewound=include_rewound, hosts=hosts)
    if limit > 0:
        found = found[:limit]
    entries = []
    for row, via in found:
        prompt, prompt_time = _prompt(conn, row)
        applied = row["applied"]
        entries.append(
            FleetBlameEntry(
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
                added=_optional_int(row["added"]),
                removed=_optional_int(row["removed"]),
                applied=bool(applied) if applied is not None else None,
                rewound=bool(row["rewound"]),
                prompt=prompt,
                prompt_time=prompt_time,
                host=row["host"],
            )
        )
    return entries


def fleet_near_paths(
    conn: psycopg.Connection[Any], path: str, include_rewound: bool = False, hosts: list[str] | None = None
) -> list[str]:
    """:func:`~hermes_trail.index.blame.near_paths` over the shared index's edits (of ``hosts``), as the
    local index reads them: the paths recorded, then the edits of those like the asked one."""
    clauses = ["d.kind = 'edit'", "d.path IS NOT NULL"]
    params: list[Any] = []
    if not include_rewound:
        clauses.append("NOT d.rewound")
    if hosts:
        clauses.append("d.host = ANY(%s)")
        params.append(list(hosts))
    where = " AND ".join(clauses)
    recorded = [
        r[0]
        for r in conn.execute(f"SELECT DISTINCT d.path FROM {schema.SCHEMA}.docs d WHERE {where}", params)
    ]
    chosen = alike_paths(recorded, path)
    if not chosen:
        return []
    rows = conn.execute(
        f"SELECT d.path, s.project, count(*) FROM {schema.SCHEMA}.docs d "
        f"JOIN {schema.SCHEMA}.sessions s ON s.id = d.sess WHERE {where} AND d.path = ANY(%s) "
        "GROUP BY d.path, s.project",
        [*params, chosen],
    )
    return near_paths(rows, path)
