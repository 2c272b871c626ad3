"""A live session's divert file read beside its store: the rows Hermes wrote only to ``sessions/<id>.jsonl``.

When Hermes finds its ``state.db`` replaced under a running session, the messages it could not write go to
``sessions/<id>.jsonl`` (:mod:`hermes_trail.hermes.sidefiles.diverts`); the session may still be in the
store that is live now (the copy it was restored from holds its earlier rows). Those lines belong in the
session's replay. A line is the same message as a store row when both have the same role, text (decoded
as Hermes decodes it), call ids, and time; a line without a ``timestamp`` of its own matches on the rest.
Every other line is a diverted row: it is numbered past the store's rows (its line plus
:data:`~hermes_trail.model.DIVERT_ROW_BASE`) so it is replayed after them and paired with their calls, and
its turn says which file and line it was found in.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hermes_trail.hermes.decode.content import decode_content
from hermes_trail.hermes.decode.toolcalls import decode_tool_calls
from hermes_trail.hermes.decode.values import epoch, integer
from hermes_trail.model import DIVERT_ROW_BASE, Session

Key = tuple[Any, ...]


def _scalar(value: Any) -> Any:
    """A value as a key can hold it: a divert line is JSON anyone may have written, so its ``role`` or
    ``tool_call_id`` can be a list or an object (compared by its JSON text then; a store row's are text)."""
    if value is None or isinstance(value, str | int | float):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _keys(row: dict[str, Any]) -> tuple[Key, Key]:
    """A row's exact key (with its time) and its loose key (without)."""
    role = row.get("role")
    content = decode_content(row.get("content"), role if isinstance(role, str) else None).text
    calls = tuple(c.id for c in decode_tool_calls(row.get("tool_calls")).calls)
    loose = (_scalar(role), content, calls, _scalar(row.get("tool_call_id")))
    stamp, _ = epoch(row.get("timestamp"), "timestamp")
    return (*loose, stamp.timestamp() if stamp is not None else None), loose


def merge_rows(rows: list[dict[str, Any]], lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The store's ``rows`` followed by the divert ``lines`` (rows as :func:`~.diverts.row_of` makes them)
    that are not already among them, each renumbered past :data:`DIVERT_ROW_BASE`."""
    exact: set[Key] = set()
    loose: set[Key] = set()
    for row in rows:
        full, part = _keys(row)
        exact.add(full)
        loose.add(part)
    merged = list(rows)
    for line in lines:
        full, part = _keys(line)
        if (full in exact) if line.get("timestamp") is not None else (part in loose):
            continue
        merged.append({**line, "id": DIVERT_ROW_BASE + (integer(line.get("id")) or 0)})
    return merged


def mark(session: Session, path: Path | str) -> None:
    """Say on each turn read from the divert file at ``path`` (numbered by :func:`merge_rows`) where it
    was found."""
    for turn in [*session.turns, *session.hidden]:
        if turn.source_row > DIVERT_ROW_BASE:
            turn.diverted = str(path)
            turn.divert_line = turn.source_row - DIVERT_ROW_BASE
