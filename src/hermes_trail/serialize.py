"""The model as JSON-ready dicts: the ``--json`` contract documented in ``docs/json.md``.

Keys only ever get added. Times are ISO 8601 in UTC (``...Z``) or ``null``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hermes_trail.hermes.locate import Note
from hermes_trail.model import Session, Stray, ToolCall, ToolResult, Turn


def iso(value: datetime | None) -> str | None:
    if value is None:
        return None
    return value.isoformat(timespec="microseconds").replace("+00:00", "Z")


def stray_json(stray: Stray) -> dict[str, Any]:
    return {
        "where": stray.where,
        "reason": stray.reason,
        "kind": stray.kind,
        "store": stray.store,
        "session_id": stray.session_id,
        "row": stray.row,
        "table": stray.table,
    }


def note_json(note: Note) -> dict[str, Any]:
    return {"where": note.path, "reason": note.reason}


def session_json(session: Session) -> dict[str, Any]:
    usage = session.usage
    return {
        "id": session.id,
        "ref": session.ref,
        "store": session.store.name,
        "store_path": session.store.path,
        "schema_version": session.store.schema_version,
        "profile": session.profile,
        "project": session.project,
        "source": session.source,
        "title": session.title,
        "model": session.model,
        "cwd": session.cwd,
        "git_branch": session.git_branch,
        "git_repo_root": session.git_repo_root,
        "started_at": iso(session.started_at),
        "ended_at": iso(session.ended_at),
        "last_activity_at": iso(session.last_activity_at),
        "end_reason": session.end_reason,
        "parent_id": session.parent_id,
        "message_count": session.message_count,
        "tokens": {
            "input": usage.input_tokens,
            "output": usage.output_tokens,
            "cache_read": usage.cache_read_tokens,
            "cache_write": usage.cache_write_tokens,
            "reasoning": usage.reasoning_tokens,
        },
        "archived": session.archived,
        "pinned": session.pinned,
        "hidden": session.hidden_flag,
        "problems": list(session.problems),
    }


def result_json(result: ToolResult, with_text: bool = True) -> dict[str, Any]:
    """A result; a ``tool`` turn's own result leaves out ``text``, which is the turn's ``text`` already."""
    out: dict[str, Any] = {
        "row": result.source_row,
        "call_id": result.call_id,
        "tool_name": result.tool_name,
        "time": iso(result.time),
        "orphan": result.orphan,
    }
    if with_text:
        out["text"] = result.text
    return out


def call_json(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "aliases": list(call.aliases),
        "name": call.name,
        "arguments": call.arguments,
        "arguments_text": call.arguments_text,
        "result": result_json(call.result) if call.result is not None else None,
    }


def turn_json(turn: Turn) -> dict[str, Any]:
    return {
        "uid": turn.uid,
        "row": turn.source_row,
        "role": turn.role,
        "text": turn.text,
        "time": iso(turn.time),
        "reasoning": turn.reasoning,
        "kind": turn.kind,
        "finish_reason": turn.finish_reason,
        "structured": turn.content is not None,
        "tool_calls": [call_json(c) for c in turn.tool_calls],
        "result": result_json(turn.result, with_text=False) if turn.result is not None else None,
        "rewound": turn.rewound,
        "compacted": turn.compacted,
        "problems": list(turn.problems),
    }


def transcript_json(session: Session) -> dict[str, Any]:
    return {
        "session": session_json(session),
        "turns": [turn_json(t) for t in session.turns],
        "hidden": [turn_json(t) for t in session.hidden],
        "strays": [stray_json(s) for s in session.strays],
    }
