"""The ``state.db`` tables beside the transcript that still tell what happened.

- **Deletion fences** (``state_meta``): every delete path, the prune sweep included, first writes the key
  ``gateway.retired_session.v1.<session id>``. Its value is ``{"retired_at": <epoch s>, "own": true}``,
  with ``"expires": true`` when a sweep rather than a delete removed the session (newer builds; earlier
  ones wrote ``{}``, no time). The fence outlives the rows: it is the one record of the id and when.
- **Conversation generations**: ``conversation_generations (source, session_key, generation)``, one row
  per messaging routing peer, never deleted: it names every platform chat that ever had a conversation.
- **Bot Mode rooms**: ``hosted_room_events (room_id, seq, event_id, kind, actor_json, payload_json,
  created_at)``, an append-only room log, with the room's name in ``hosted_rooms``.

A JSON cell that does not decode to an object is a bad record naming the table and column.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, ClassVar

from hermes_trail.errors import StoreUnreadable
from hermes_trail.hermes.sidefiles.common import compact, epoch_time, record_stray
from hermes_trail.hermes.store import SqliteStore
from hermes_trail.model import Stray, _Record

FENCE_PREFIX = "gateway.retired_session.v1."


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class Fence(_Record):
    _fields: ClassVar[tuple[str, ...]] = ("session_id", "retired_at", "swept", "row")
    __slots__ = _fields
    session_id: str
    retired_at: datetime | None
    swept: bool
    row: int

    def __init__(self, session_id: str, retired_at: datetime | None, swept: bool, row: int) -> None:
        self.session_id = session_id
        self.retired_at = retired_at
        self.swept = swept
        self.row = row


class Generation(_Record):
    _fields: ClassVar[tuple[str, ...]] = ("source", "session_key", "generation")
    __slots__ = _fields
    source: str
    session_key: str
    generation: Any

    def __init__(self, source: str, session_key: str, generation: Any) -> None:
        self.source = source
        self.session_key = session_key
        self.generation = generation


class RoomEvent(_Record):
    _fields: ClassVar[tuple[str, ...]] = (
        "room_id",
        "room_name",
        "seq",
        "kind",
        "actor",
        "payload",
        "created_at",
    )
    __slots__ = _fields
    room_id: str
    room_name: str | None
    seq: Any
    kind: str
    actor: dict[str, Any]
    payload: dict[str, Any]
    created_at: datetime | None

    def __init__(
        self,
        room_id: str,
        room_name: str | None,
        seq: Any,
        kind: str,
        actor: dict[str, Any],
        payload: dict[str, Any],
        created_at: datetime | None,
    ) -> None:
        self.room_id = room_id
        self.room_name = room_name
        self.seq = seq
        self.kind = kind
        self.actor = actor
        self.payload = payload
        self.created_at = created_at


def _object(value: Any) -> tuple[dict[str, Any] | None, str | None]:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if not isinstance(value, str):
        return None, f"a {type(value).__name__}, not JSON text"
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError) as exc:
        return None, f"not JSON: {exc}"
    if not isinstance(parsed, dict):
        return None, "not an object"
    return parsed, None


def read_fences(reader: SqliteStore) -> tuple[list[Fence], list[Stray]]:
    """The deletion fences of a store, in table order."""
    if not reader.has_table("state_meta") or not {"key", "value"} <= set(reader.columns("state_meta")):
        return [], []
    try:
        rows = reader.rows(
            "SELECT rowid AS _row, key, value FROM state_meta WHERE key >= ? AND key < ? ORDER BY rowid",
            (FENCE_PREFIX, FENCE_PREFIX + "\U0010ffff"),
        )
    except StoreUnreadable as exc:
        return [], [Stray(where=str(reader.path), reason=f"SQLite error: {exc.reason}", kind="file")]
    fences: list[Fence] = []
    strays: list[Stray] = []
    for row in rows:
        sid = str(row["key"])[len(FENCE_PREFIX) :]
        value, problem = _object(row["value"])
        if value is None:
            reason = f"state_meta.value: {problem}"
            strays.append(
                record_stray(
                    reader.path,
                    row["_row"],
                    reason,
                    compact(row["value"]),
                    table="state_meta",
                    session_id=sid,
                )
            )
            continue
        swept = value.get("expires") is True
        fences.append(Fence(sid, epoch_time(value.get("retired_at")), swept, row["_row"]))
    return fences, strays


def read_generations(reader: SqliteStore) -> list[Generation]:
    """Every routing peer's generation row, in table order."""
    if not reader.has_table("conversation_generations"):
        return []
    try:
        rows = reader.rows("SELECT * FROM conversation_generations ORDER BY rowid")
    except StoreUnreadable:
        return []
    return [
        Generation(str(r.get("source") or "-"), str(r.get("session_key") or "-"), r.get("generation"))
        for r in rows
    ]


def read_room_events(reader: SqliteStore) -> tuple[list[RoomEvent], list[Stray]]:
    """Every Bot Mode room event, by room and sequence."""
    if not reader.has_table("hosted_room_events"):
        return [], []
    try:
        names: dict[Any, Any] = {}
        if reader.has_table("hosted_rooms") and "name" in reader.columns("hosted_rooms"):
            names = {r["room_id"]: r["name"] for r in reader.rows("SELECT room_id, name FROM hosted_rooms")}
        rows = reader.rows("SELECT rowid AS _row, * FROM hosted_room_events ORDER BY room_id, seq")
    except StoreUnreadable as exc:
        return [], [Stray(where=str(reader.path), reason=f"SQLite error: {exc.reason}", kind="file")]
    events: list[RoomEvent] = []
    strays: list[Stray] = []
    for row in rows:
        parsed: dict[str, dict[str, Any]] = {}
        for column in ("actor_json", "payload_json"):
            value, problem = _object(row.get(column))
            if value is None:
                reason = f"hosted_room_events.{column}: {problem}"
                strays.append(
                    record_stray(
                        reader.path, row["_row"], reason, compact(row.get(column)), table="hosted_room_events"
                    )
                )
            parsed[column] = value or {}
        name = names.get(row.get("room_id"))
        events.append(
            RoomEvent(
                str(row.get("room_id") or "-"),
                name if isinstance(name, str) else None,
                row.get("seq"),
                str(row.get("kind") or "-"),
                parsed["actor_json"],
                parsed["payload_json"],
                epoch_time(row.get("created_at")),
            )
        )
    return events, strays
