"""``response_store.db``: the API server's history for the OpenAI Responses API.

Hermes' ``ResponseStore`` keeps table ``responses (response_id, data, accessed_at)`` and table
``conversations (name, response_id)``, the 100 most recently used responses. ``data`` is JSON:
``{"response": <Responses envelope: id, object, status, created_at (epoch s), model, output, usage>,
"conversation_history": [<chat-completions message dicts>], "instructions", "session_id"}``. The history is
cumulative: each response holds the whole conversation up to it. Its messages carry no time. No session
delete touches the file, so it outlives a deleted ``api_server`` session.

Opened with the same read-only store reader as ``state.db`` (nothing is created beside it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from hermes_trail.errors import StoreUnreadable
from hermes_trail.hermes.sidefiles.common import compact, epoch_time, file_stray, record_stray
from hermes_trail.hermes.store import SqliteStore
from hermes_trail.model import Stray


@dataclass(slots=True)
class StoredResponse:
    """One stored response: its envelope's facts and the history it held."""

    response_id: str
    row: int
    created_at: datetime | None
    status: str | None
    model: str | None
    session_id: str | None
    conversations: list[str] = field(default_factory=list)
    history: list[dict[str, Any] | None] = field(default_factory=list)  # None: an entry not an object


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def store_problem(reason: str) -> str:
    """How an unopenable response store is named on a bad-line row."""
    if "not a SQLite database" in reason or "empty file" in reason or "truncated SQLite" in reason:
        return "not a SQLite database"
    if "no responses table" in reason:
        return "no responses table"
    return f"SQLite error: {reason}"


def read_response_store(path: Path) -> tuple[list[StoredResponse], list[Stray]]:
    """Every stored response, oldest ``created_at`` first (undated ones last, by row), and the strays."""
    try:
        reader = SqliteStore(path, required=("responses",))
    except StoreUnreadable as exc:
        return [], [file_stray(path, store_problem(exc.reason))]
    strays: list[Stray] = []
    out: list[StoredResponse] = []
    with reader:
        try:
            rows = reader.rows("SELECT rowid AS _row, * FROM responses ORDER BY rowid")
            names: dict[str, list[str]] = {}
            if reader.has_table("conversations"):
                for conv in reader.rows("SELECT * FROM conversations ORDER BY rowid"):
                    if isinstance(conv.get("response_id"), str) and isinstance(conv.get("name"), str):
                        names.setdefault(conv["response_id"], []).append(conv["name"])
        except StoreUnreadable as exc:
            return [], [file_stray(path, store_problem(exc.reason))]
    for row in rows:
        number = int(row["_row"])
        response_id = _text(row.get("response_id")) or f"#{number}"
        raw = row.get("data")
        try:
            data = json.loads(raw) if isinstance(raw, str | bytes) else None
        except (ValueError, RecursionError) as exc:
            strays.append(
                record_stray(
                    path, number, f"responses.data: not JSON: {exc}", compact(raw), table="responses"
                )
            )
            continue
        if not isinstance(data, dict):
            strays.append(
                record_stray(path, number, "responses.data: not an object", compact(raw), table="responses")
            )
            continue
        found = data.get("response")
        envelope: dict[str, Any] = found if isinstance(found, dict) else {}
        stored = StoredResponse(
            response_id=response_id,
            row=number,
            created_at=epoch_time(envelope.get("created_at")),
            status=_text(envelope.get("status")),
            model=_text(envelope.get("model")),
            session_id=_text(data.get("session_id")),
            conversations=names.get(response_id, []),
        )
        history = data.get("conversation_history")
        for index, message in enumerate(history if isinstance(history, list) else []):
            if isinstance(message, dict):
                stored.history.append(message)
            else:
                strays.append(
                    record_stray(
                        path,
                        number,
                        f"responses.data conversation_history {index}: not an object",
                        compact(message),
                        table="responses",
                        session_id=stored.session_id,
                    )
                )
                stored.history.append(None)
        out.append(stored)
    out.sort(key=lambda r: (r.created_at is None, r.created_at.timestamp() if r.created_at else 0.0, r.row))
    return out, strays
