"""A session as an Agent Session Format file (ChristopherDavenport/agentsession RFC 0001, draft 0.10):
a header line, then entries whose payloads are Open Responses items, each entry named by the hash of its
envelope.

How Hermes' record maps onto the format (this module is a *converter*, and the format asks a converter
to say what it maps and what it drops):

- The first entry is a ``config`` with the session's model and system prompt; a model switch is a
  ``config`` delta before its marker row. The title is an ``info`` entry.
- A ``user``/``system`` row is a ``message`` item; an ``assistant`` row is a ``reasoning`` item (its
  reasoning), a ``message`` item (its text) and a ``function_call`` item per call; a paired ``tool`` row
  is a ``function_call_output`` item. A command's permission outcome is a ``decision`` before its output
  (``reject`` for a denied or blocked command that never ran, ``hold`` for one still awaiting approval,
  ``proceed`` for an approved one).
- A rewind is a branch: rewound rows hang off the entry before them, and the conversation goes on from
  that entry; when the file's last line is not on the live branch, a ``leaf`` label names it.
- A compaction summary is a ``compaction`` entry. Hermes' protected head (the rows it copies before the
  summary) are its ``pinned`` items and its protected tail (copied after the summary) is kept by
  ``first_kept`` naming the archived originals, so each row is written once; where the copies do not map
  onto the originals that way, they are written again as items after the compaction. The format puts
  pinned items after the summary; Hermes sends its head before it: the one difference in what the
  rebuilt request holds.
- Lineage: the header's ``parent_session`` names the parent; a continuation, reset or sub-agent child
  is a ``link`` at the parent's leaf (``continued_in``, ``subsession``), and a branch names its origin
  with a ``fork_of`` link.
- Rows Hermes keeps but does not replay (its bookkeeping, a superseded model-switch marker) and results
  no call answers to are ``custom`` entries (``ns`` ``hermes``), so nothing read is dropped; strays (rows
  that could not be read) are ``custom`` entries too.
- Hermes' own detail (row ids, the native call id or tool name where the format needs another, durations,
  exit codes) is kept in a ``hermes`` member beside the item, which the format preserves and ignores.
- Dropped: per-call usage, response ids and request hashes, which Hermes does not record; the header
  therefore makes no ``records`` promise. Session ids become UUIDv5 (Hermes' ids are unique per store
  only); the native id is in the header's ``hermes`` member.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from hermes_trail import __version__
from hermes_trail.export.jcs import canonical_bytes
from hermes_trail.model import Permission, Session, ToolCall, Turn
from hermes_trail.redact import redact
from hermes_trail.serialize import cost_json, tokens_json

FORMAT = "agentsession/0.10"
PAYLOAD = "openresponses/2026-04-24"
HARNESS = {"name": "hermes-trail", "version": __version__}
# The names an entry's envelope owns; a body must not carry them at its top level.
RESERVED = frozenset({"id", "type", "parent", "parents", "ts", "content"})
# Session ids are derived in this namespace, so one Hermes session exports under one id everywhere.
NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/NousResearch/hermes-agent#session")
_CALL_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_FUNCTION_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")
_MAX_SAFE = 2**53


def _uuid(profile: str, session_id: str) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{profile}/{session_id}"))


def session_uuid(session: Session) -> str:
    """The session's id in the format: a UUIDv5 of its profile and Hermes id (a family shares a store,
    so a parent or child is named the same way from either side)."""
    return _uuid(session.profile, session.id)


def timestamp(value: datetime) -> str:
    """RFC 3339 in the one spelling the format hashes: UTC, ``Z``, a fraction only when non-zero."""
    moment = value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += "." + f"{moment.microsecond:06d}".rstrip("0")
    return text + "Z"


def content_hash(body: Mapping[str, Any]) -> str:
    return "sha256:" + hashlib.sha256(canonical_bytes(dict(body))).hexdigest()


def envelope_id(kind: str, parent: str | None, ts: str, body: Mapping[str, Any]) -> str:
    """The entry's id: the hash of its envelope, which names the body by its content hash."""
    envelope = {"type": kind, "parent": parent, "ts": ts, "content": content_hash(body)}
    return "sha256:" + hashlib.sha256(canonical_bytes(envelope)).hexdigest()


def _pointer(path: list[str | int]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def normalise(body: dict[str, Any]) -> dict[str, Any]:
    """The body made I-JSON as the format asks of a writer: a lone surrogate becomes U+FFFD and a whole
    number a double cannot hold is rounded, each change recorded in ``normalised`` (sorted by pointer)."""
    changes: list[dict[str, Any]] = []

    def walk(value: Any, path: list[str | int]) -> Any:
        if isinstance(value, str) and _LONE_SURROGATE.search(value):
            changes.append({"at": _pointer(path), "was": json.dumps(value, ensure_ascii=True)})
            return _LONE_SURROGATE.sub("\ufffd", value)
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _MAX_SAFE:
            if float(value) != value:
                changes.append({"at": _pointer(path), "was": str(value)})
                return float(value)
            return value
        if isinstance(value, dict):
            return {k: walk(v, [*path, k]) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, [*path, i]) for i, v in enumerate(value)]
        return value

    out = walk(body, [])
    if changes:
        out["normalised"] = sorted(changes, key=lambda c: c["at"].encode("utf-16-be", "surrogatepass"))
    return dict(out)


def _no_surrogates(value: Any) -> Any:
    """A header value with lone surrogates replaced (the header is not hashed, but it is UTF-8)."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {k: _no_surrogates(v) for k, v in value.items()}
    return value


@dataclass
class _File:
    """The entries written so far, the leaf of the live branch, and every entry's parent (for paths)."""

    lines: list[dict[str, Any]] = field(default_factory=list)
    parents: dict[str, str | None] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    items: dict[str, dict[str, Any]] = field(default_factory=dict)
    leaf: str | None = None
    last_ts: str = ""

    def add(self, kind: str, body: dict[str, Any], ts: str | None, parent: str | None) -> str:
        assert not RESERVED & body.keys(), f"body carries a reserved name: {RESERVED & body.keys()}"
        when = ts or self.last_ts
        self.last_ts = when
        clean = normalise(body)
        entry_id = envelope_id(kind, parent, when, clean)
        if entry_id in self.parents:  # the same entry twice is one entry
            return entry_id
        self.lines.append({"type": kind, "id": entry_id, "parent": parent, "ts": when, **clean})
        self.parents[entry_id] = parent
        self.kinds[entry_id] = kind
        if kind == "item":
            self.items[entry_id] = clean["item"]
        return entry_id

    def append(self, kind: str, body: dict[str, Any], ts: str | None) -> str:
        """Add under the live leaf, which the new entry becomes."""
        self.leaf = self.add(kind, body, ts, self.leaf)
        return self.leaf

    def path_items(self, count: int) -> list[str]:
        """The last ``count`` item entries on the live path, oldest first (fewer when the path is shorter)."""
        found: list[str] = []
        node = self.leaf
        while node is not None and len(found) < count:
            if self.kinds[node] == "item":
                found.append(node)
            node = self.parents[node]
        return found[::-1]

    def on_path(self, entry: str) -> bool:
        node = self.leaf
        while node is not None:
            if node == entry:
                return True
            node = self.parents[node]
        return False


def _message(role: str, text: str, images: list[str] | None = None) -> dict[str, Any]:
    """An Open Responses message item (the request's input shape)."""
    if role == "assistant":
        parts: list[dict[str, Any]] = [{"type": "output_text", "text": text, "annotations": []}]
    else:
        parts = [{"type": "input_text", "text": text}]
        parts.extend({"type": "input_image", "image_url": url} for url in images or [])
    return {"type": "message", "role": role, "content": parts}


def _images(turn: Turn) -> list[str]:
    """The image URLs of a structured user message (data URLs, as stored: a file never fetches them)."""
    out: list[str] = []
    if isinstance(turn.content, list):
        for part in turn.content:
            if isinstance(part, dict) and part.get("type") in ("image_url", "input_image"):
                url = part.get("image_url")
                url = url.get("url") if isinstance(url, dict) else url
                if isinstance(url, str):
                    out.append(url)
    return out


def _decision(permission: Permission) -> tuple[str, str | None] | None:
    """The verdict and decider of a command's permission outcome, in the format's closed vocabulary."""
    by = {"user": "human", "smart": "agent"}.get(permission.by or "", "policy" if permission.by else None)
    if permission.outcome == "blocked":
        return "reject", by
    if permission.outcome == "pending":
        return "hold", None
    if permission.outcome == "approved":
        return "proceed", by or "human"
    if permission.outcome == "auto_approved":
        return "proceed", by or "agent"
    return None


@dataclass
class _Call:
    call_id: str
    entry: str
    call: ToolCall


class _Converter:
    def __init__(self, session: Session, redacting: bool, now: datetime) -> None:
        self.session = session
        self.redacting = redacting
        self.redactions = False
        self.out = _File()
        self.now = now
        self.model = session.model
        self.instructions: str | None = None
        self.call_ids: set[str] = set()
        self.calls_by_result: dict[int, _Call] = {}
        self.entries_of: dict[int, list[str]] = {}  # a row's entries (a copy: its original's)
        self.branch: str | None = None  # tip of the rewound branch being written
        self.rows_copied: set[int] = set()

    # -- text ---------------------------------------------------------------------------------------
    def text(self, value: str | None) -> str:
        if not value:
            return ""
        if not self.redacting:
            return value
        hidden = redact(value)
        self.redactions = self.redactions or hidden != value
        return hidden

    def ts(self, turn: Turn | None = None) -> str | None:
        if turn is not None and turn.time is not None:
            return timestamp(turn.time)
        return None

    # -- ids ----------------------------------------------------------------------------------------
    def call_id(self, call: ToolCall, row: int, index: int) -> str:
        native = call.id or ""
        if _CALL_ID.match(native) and native not in self.call_ids:
            chosen = native
        else:
            chosen, n = f"call_{row}_{index}", 2
            while chosen in self.call_ids:
                chosen, n = f"call_{row}_{index}_{n}", n + 1
        self.call_ids.add(chosen)
        return chosen

    # -- entries ------------------------------------------------------------------------------------
    def hermes(self, turn: Turn, **extra: Any) -> dict[str, Any]:
        facts: dict[str, Any] = {"row": turn.source_row}
        if turn.part:
            facts["part"] = turn.part
        for flag in ("rewound", "compacted"):
            if getattr(turn, flag):
                facts[flag] = True
        if turn.copy_of is not None:
            facts["copy_of"] = turn.copy_of
        if turn.kind:
            facts["kind"] = turn.kind
        if turn.problems:
            facts["problems"] = list(turn.problems)
        facts.update({k: v for k, v in extra.items() if v is not None})
        return facts

    def put(self, kind: str, body: dict[str, Any], turn: Turn | None) -> str:
        """Add an entry on the branch the turn belongs to: the live one, or the rewound one it started."""
        ts = self.ts(turn)
        if turn is not None and turn.rewound:
            if self.branch is None:
                self.branch = self.out.leaf
            self.branch = self.out.add(kind, body, ts, self.branch)
            return self.branch
        self.branch = None
        return self.out.append(kind, body, ts)

    def item(self, item: dict[str, Any], turn: Turn, **extra: Any) -> str:
        entry = self.put("item", {"item": item, "hermes": self.hermes(turn, **extra)}, turn)
        self.entries_of.setdefault(turn.source_row, []).append(entry)
        return entry

    def custom(self, data: dict[str, Any], turn: Turn | None) -> str:
        return self.put("custom", {"ns": "hermes", "data": data}, turn)

    # -- a turn at a time ---------------------------------------------------------------------------
    def assistant(self, turn: Turn) -> None:
        suffix = f"{turn.source_row}" + (f"_{turn.part}" if turn.part else "")
        if turn.reasoning:
            text = self.text(turn.reasoning)
            reasoning = {
                "type": "reasoning",
                "id": f"rs_{suffix}",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": text}],
            }
            self.item(reasoning, turn)
        if turn.text or not turn.tool_calls:
            self.item(_message("assistant", self.text(turn.text)), turn, finish_reason=turn.finish_reason)
        for index, call in enumerate(turn.tool_calls):
            call_id = self.call_id(call, turn.source_row, index)
            name = (
                call.name
                if _FUNCTION_NAME.match(call.name or "")
                else (re.sub(r"[^A-Za-z0-9_-]", "_", call.name or "")[:64] or "unknown")
            )
            item = {
                "type": "function_call",
                "call_id": call_id,
                "name": name,
                "arguments": self.text(call.arguments_text),
            }
            entry = self.item(
                item,
                turn,
                call_id=call.id if call.id != call_id else None,
                name=call.name if call.name != name else None,
            )
            if call.result is not None:
                self.calls_by_result[call.result.source_row] = _Call(call_id, entry, call)

    def tool(self, turn: Turn) -> None:
        result = turn.result
        paired = self.calls_by_result.get(result.source_row) if result is not None else None
        if result is None or result.orphan or paired is None:
            self.custom(
                {
                    "event": "orphan_result",
                    "row": turn.source_row,
                    "call_id": result.call_id if result else None,
                    "tool_name": result.tool_name if result else None,
                    "text": self.text(turn.text),
                    "rewound": turn.rewound or None,
                },
                turn,
            )
            return
        call = paired.call
        if call.permission is not None:
            decided = _decision(call.permission)
            if decided is not None:
                verdict, by = decided
                body: dict[str, Any] = {"call_id": paired.call_id, "target": paired.entry, "verdict": verdict}
                if by:
                    body["by"] = by
                why = call.permission
                reason = why.message or why.description or why.user_summary
                if reason or verdict == "reject":
                    body["reason"] = self.text(reason) or call.permission.outcome
                self.put("decision", body, turn)
        command = call.command
        output = {"type": "function_call_output", "call_id": paired.call_id, "output": self.text(turn.text)}
        self.item(
            output,
            turn,
            duration=call.duration,
            exit_code=command.exit_code if command else None,
            status=command.status if command else None,
        )

    def plain_turn(self, turn: Turn) -> None:
        role = turn.role if turn.role in ("user", "system", "developer") else "user"
        self.item(_message(role, self.text(turn.text), _images(turn)), turn)

    def model_switch(self, turn: Turn) -> None:
        change = next((c for c in self.session.model_changes if c.source_row == turn.source_row), None)
        if change is not None and not turn.rewound:
            self.model = change.model
            facts = {"row": turn.source_row, "provider": change.provider}
            self.put("config", {"model": change.model, "hermes": facts}, turn)

    def config_checkpoint(self) -> dict[str, Any]:
        config: dict[str, Any] = {}
        if self.model:
            config["model"] = self.model
        if self.instructions:
            config["instructions"] = self.instructions
        return config

    def _originals(self, turns: list[Turn]) -> list[str] | None:
        """The item entries that already hold these turns (a copy's are its original's), or ``None``."""
        found: list[str] = []
        for turn in turns:
            entries = self.entries_of.get(turn.copy_of if turn.copy_of is not None else turn.source_row)
            if not entries:
                return None
            found.extend(e for e in entries if self.out.kinds[e] == "item")
        return found

    def compaction(self, summary: Turn, head: list[Turn], tail: list[Turn]) -> list[Turn]:
        """Write a compaction at ``summary``; return the copies that still need writing as items.

        ``head`` are the turns Hermes replays before the summary since the last one, ``tail`` the copies
        right after it. The head becomes ``pinned`` when its entries are on the path; the tail is kept by
        ``first_kept`` when its originals are the last items on the path, in order.
        """
        kept, pinned = self._originals(tail), self._originals(head)
        if pinned is not None and not all(self.out.on_path(e) for e in pinned):
            pinned = None
        kept_ok = kept is not None and self.out.path_items(len(kept)) == kept
        if kept_ok and kept and pinned is not None and set(pinned) & set(kept):
            kept_ok = False
        role = str(summary.raw.get("role") or "user")
        event = next((e for e in self.session.compaction_events if e.summary_row == summary.source_row), None)
        body: dict[str, Any] = {
            "summary": _message("assistant" if role == "assistant" else "user", self.text(summary.text)),
            "config": self.config_checkpoint(),
        }
        if kept_ok and kept:
            body["first_kept"] = kept[0]
        else:
            # Nothing before the compaction is kept: the first kept entry is a record holding no item.
            body["first_kept"] = self.custom(
                {"event": "compaction_boundary", "row": summary.source_row}, summary
            )
        if pinned:
            body["pinned"] = [self.out.items[e] for e in pinned]
        body["hermes"] = self.hermes(
            summary, event=event.kind if event else None, archived=event.archived if event else None
        )
        self.put("compaction", body, summary)
        leftover = [] if kept_ok else list(tail)
        if pinned is None:
            leftover = [t for t in head if t.copy_of is not None] + leftover
        written = {id(t) for t in leftover}
        for turn in (*head, *tail):
            if turn.copy_of is not None and id(turn) not in written:
                self.entries_of[turn.source_row] = self.entries_of.get(turn.copy_of, [])
        return leftover

    def write_turn(self, turn: Turn, hidden: bool) -> None:
        if hidden and not (turn.rewound or turn.compacted) and turn.kind != "model_switch":
            self.custom(
                {
                    "event": "not_replayed",
                    "row": turn.source_row,
                    "role": turn.role,
                    "kind": turn.kind,
                    "text": self.text(turn.text),
                },
                turn,
            )
            return
        if turn.kind == "model_switch":
            self.model_switch(turn)
            if hidden and not turn.rewound:
                self.custom(
                    {
                        "event": "not_replayed",
                        "row": turn.source_row,
                        "role": turn.role,
                        "kind": turn.kind,
                        "text": self.text(turn.text),
                    },
                    turn,
                )
                return
        if turn.role == "assistant":
            self.assistant(turn)
        elif turn.role == "tool":
            self.tool(turn)
        else:
            self.plain_turn(turn)

    # -- the whole session --------------------------------------------------------------------------
    def header(self) -> dict[str, Any]:
        session = self.session
        created = session.started_at or session.last_activity_at or self.now
        header: dict[str, Any] = {
            "type": "session",
            "format": FORMAT,
            "id": session_uuid(session),
            "created_at": timestamp(created),
            "payload": PAYLOAD,
            "harness": dict(HARNESS),
        }
        if session.cwd:
            header["cwd"] = self.text(session.cwd)
        if session.parent_id:
            header["parent_session"] = _uuid(session.profile, session.parent_id)
        header["hermes"] = {
            "session_id": session.id,
            "profile": session.profile,
            "store": session.store.name,
            "schema_version": session.store.schema_version,
            "source": session.source,
            "kind": session.kind,
            "title": self.text(session.title) or None,
            "project": self.text(session.project),
            "model": session.model,
            "git_branch": session.git_branch,
            "started_at": timestamp(session.started_at) if session.started_at else None,
            "ended_at": timestamp(session.ended_at) if session.ended_at else None,
            "end_reason": session.end_reason,
            "relation": session.relation,
            "parent_id": session.parent_id,
            "tokens": tokens_json(session.usage),
            "api_calls": session.usage.api_calls,
            "cost": cost_json(session.usage),
            "active_seconds": session.active_seconds,
        }
        return header

    def convert(self) -> list[dict[str, Any]]:
        session = self.session
        start = timestamp(session.started_at or session.last_activity_at or self.now)
        prompt = session.raw.get("system_prompt")
        self.instructions = self.text(prompt) if isinstance(prompt, str) and prompt else None
        self.out.last_ts = start
        self.out.append("config", self.config_checkpoint(), start)
        if session.title:
            self.out.append("info", {"name": self.text(session.title)}, start)
        if session.relation == "branch" and session.parent_id:
            self.link("fork_of", session.parent_id, start)
        ordered = sorted(
            [(t, False) for t in session.turns] + [(t, True) for t in session.hidden],
            key=lambda pair: (pair[0].source_row, pair[0].part),
        )
        replayed = [t for t, hidden in ordered if not hidden]
        boundary = 0  # index in ``replayed`` after the last compaction summary
        index = 0
        skip: set[int] = set()
        while index < len(ordered):
            turn, hidden = ordered[index]
            index += 1
            if id(turn) in skip:
                continue
            if turn.role == "summary" and not hidden and not turn.rewound:
                at = replayed.index(turn)
                head = replayed[boundary:at]
                tail: list[Turn] = []
                for later, later_hidden in ordered[index:]:
                    if later_hidden or later.copy_of is None:
                        break
                    tail.append(later)
                boundary = at + 1 + len(tail)
                leftover = self.compaction(turn, head, tail)
                skip.update(id(t) for t in tail)
                for copy in leftover:
                    self.write_turn(copy, hidden=False)
                continue
            if turn.copy_of is not None and not hidden:
                continue  # a head copy: the compaction after it pins it, or writes it again
            self.write_turn(turn, hidden)
        for stray in session.strays:
            self.custom({"event": "stray", "where": self.text(stray.where), "reason": stray.reason}, None)
        for relation, child in session.children:
            rel = {
                "continuation": "continued_in",
                "reset": "continued_in",
                "delegate": "subsession",
                "tool": "subsession",
            }.get(relation)
            if rel:
                self.link(rel, child, None, relation)
        live = self.out.leaf
        if live is not None and self.out.lines[-1]["id"] != live:
            self.out.add("label", {"target": live, "label": "leaf"}, None, live)
        return self.out.lines

    def link(self, rel: str, other: str, ts: str | None, relation: str | None = None) -> None:
        body = {
            "rel": rel,
            "session": _uuid(self.session.profile, other),
            "hermes": {"session_id": other, "relation": relation},
        }
        self.out.append("link", body, ts)


def session_lines(
    session: Session,
    *,
    redacting: bool = True,
    now: Callable[[], datetime] | None = None,
) -> Iterator[str]:
    """The file's lines (without newlines): the header, then every entry in order.

    :param session: a loaded session whose family was linked (``History.family``).
    """
    convert = _Converter(session, redacting, (now or (lambda: datetime.now(UTC)))())
    entries = convert.convert()
    header = convert.header()
    if convert.redactions:
        header["redacted"] = True
    header = {k: _no_surrogates(v) for k, v in header.items()}
    yield json.dumps(header, ensure_ascii=False, separators=(",", ":"))
    for entry in entries:
        yield json.dumps(entry, ensure_ascii=False, separators=(",", ":"))
