"""A session as the replay shows it: plain, redacted text in a small dict that the web viewer, the
self-contained HTML export and the Markdown export all render.

Everything here is data, never markup: each string is redacted (unless asked not to), has its terminal
escape sequences removed and its other control characters made visible, and may be cut to a length. A
``tool`` row paired with its call is not a turn of its own here: its output is shown under the call, as
the terminal transcript shows it. Rows Hermes does not replay (rewound, archived by compaction, its own
bookkeeping) are kept, marked ``hidden``, so a viewer can show them in place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from hermes_trail.formatting import TERMINAL_ESCAPES, safe
from hermes_trail.hermes.decode.tooloutput import replay_text
from hermes_trail.hermes.decode.tools import call_subject
from hermes_trail.model import Command, FileEdit, Image, Permission, Session, ToolCall, Turn
from hermes_trail.redact import redact, redact_lines
from hermes_trail.serialize import cost_json, iso, tokens_json
from hermes_trail.transcript import money

VIEW_VERSION = 1


def plain(text: str) -> str:
    """Terminal escape sequences removed; every other control character but newline and tab made visible,
    bidirectional controls included (``formatting.safe``), so an override cannot reorder what follows."""
    return safe(TERMINAL_ESCAPES.sub("", text.replace("\r\n", "\n")))


def resume_command(session: Session) -> str:
    """The command that reopens the session in Hermes (``-p`` for a named profile)."""
    profile = f" -p {session.profile}" if session.profile != "default" else ""
    return f"hermes{profile} --resume {session.id}"


class Cleaner:
    """Makes each string shown: plain, redacted unless ``redacting`` is off, cut to ``limit`` characters.

    ``changed`` records whether redaction replaced anything.
    """

    def __init__(self, redacting: bool = True, limit: int | None = None) -> None:
        self.redacting = redacting
        self.limit = limit
        self.changed = False

    def __call__(self, text: str | None) -> str | None:
        if text is None:
            return None
        out = self.shape(text)
        if self.redacting:
            hidden = redact(out)
            self.changed = self.changed or hidden != out
            out = hidden
        if self.limit is not None and len(out) > self.limit:
            out = f"{out[: self.limit]}\n… [{len(out) - self.limit:,} more characters]"
        return out

    def text(self, text: str | None) -> str:
        return self(text) or ""

    def lines(self, lines: list[str]) -> list[str]:
        """Each line shown, redacted as one text (``redact_lines``): no single line of a private key
        written by an edit has the shape that finds it."""
        if not self.redacting or len(lines) < 2:
            return [self.text(line) for line in lines]
        shown = [self.shape(line) for line in lines]
        hidden = redact_lines(shown)
        self.changed = self.changed or hidden != shown
        return [self.text(line) for line in hidden]

    def shape(self, text: str) -> str:
        """What is done to a string before redaction: terminal escapes out, control characters shown."""
        return plain(text)


def _permission(permission: Permission | None, clean: Cleaner) -> dict[str, Any] | None:
    if permission is None:
        return None
    return {
        "outcome": permission.outcome,
        "by": permission.by,
        "message": clean(permission.message),
        "description": clean(permission.description),
        "user_summary": clean(permission.user_summary),
        "pattern_key": clean(permission.pattern_key),
    }


def _command(command: Command | None, clean: Cleaner) -> dict[str, Any] | None:
    if command is None:
        return None
    return {
        "command": clean.text(command.command),
        "exit_code": command.exit_code,
        "status": command.status,
        "signal": command.signal,
        "background": command.background,
        "workdir": clean(command.workdir),
    }


def _edit(edit: FileEdit, clean: Cleaner) -> dict[str, Any]:
    return {
        "path": clean.text(edit.path),
        "action": edit.action,
        "moved_to": clean(edit.moved_to),
        "removed": clean.lines(edit.removed),
        "added": clean.lines(edit.added),
        "applied": edit.applied,
    }


def _call(call: ToolCall, clean: Cleaner) -> dict[str, Any]:
    result = call.result
    if call.command is not None:
        output: str | None = call.command.output or call.command.error or ""
    elif result is not None:
        output = replay_text(result.output, result.text, result.data)
    else:
        output = None
    subject = call_subject(call)
    if call.edits:
        subject = ", ".join(dict.fromkeys(e.path for e in call.edits))
    return {
        "name": clean.text(call.name) or "?",
        "id": call.id,
        "subject": clean(subject),
        "arguments": clean.text(call.arguments_text),
        "duration": call.duration,
        "command": _command(call.command, clean),
        "permission": _permission(call.permission, clean),
        "output": clean(output),
        "edits": [_edit(e, clean) for e in call.edits],
        "reads": [clean.text(p) for p in call.reads],
        "result_row": result.source_row if result is not None else None,
        "result_time": iso(result.time) if result is not None else None,
    }


def _turn(
    turn: Turn, index: int, hidden: bool, events: Mapping[int, dict[str, Any]], clean: Cleaner
) -> dict[str, Any]:
    orphan = None
    if turn.result is not None and turn.result.orphan:
        kept = turn.result.output if turn.result.output is not None else turn.text
        orphan = {"call_id": turn.result.call_id, "tool_name": turn.result.tool_name, "output": clean(kept)}
    return {
        "n": index,
        "row": turn.source_row,
        "part": turn.part,
        "uid": turn.uid,
        "role": turn.role,
        "kind": turn.kind,
        "time": iso(turn.time),
        "text": clean.text(turn.text) if orphan is None else "",
        "reasoning": clean(turn.reasoning),
        "hidden": hidden,
        "rewound": turn.rewound,
        "compacted": turn.compacted,
        "copy_of": turn.copy_of,
        "problems": [clean.text(p) for p in turn.problems if not p.startswith("orphan tool result")],
        "event": events.get(turn.source_row) if turn.part == 0 or turn.role == "summary" else None,
        "calls": [_call(c, clean) for c in turn.tool_calls],
        "orphan": orphan,
        "divert": turn.found_in,
        "images": [_image(i) for i in turn.images],
    }


# A data: URL a page may load as a picture: a raster image type and base64 data, nothing else.
_SHOWN_IMAGE = re.compile(
    r"\Adata:image/(?:png|jpeg|jpg|gif|webp|bmp);base64,[A-Za-z0-9+/=\s]*\Z", re.IGNORECASE
)


def _image(image: Image) -> dict[str, Any]:
    """An image part: its label, and the image itself (``src``) when it is a raster ``data:`` URL."""
    shown = _SHOWN_IMAGE.match(image.url) is not None
    return {
        "label": plain(image.label) if not shown else image.label,
        "media_type": image.media_type,
        "bytes": image.size,
        "src": image.url if shown else None,
    }


def _events(session: Session) -> dict[int, dict[str, Any]]:
    """What happened at a row: a compaction (at its summary) or a model switch (at its marker)."""
    out: dict[int, dict[str, Any]] = {}
    for event in session.compaction_events:
        if event.summary_row is not None:
            out[event.summary_row] = {
                "type": "compaction",
                "kind": event.kind,
                "time": iso(event.time),
                "archived": event.archived,
            }
    for change in session.model_changes:
        out[change.source_row] = {
            "type": "model_switch",
            "model": change.model,
            "provider": change.provider,
            "time": iso(change.time),
        }
    return out


def _shown(turn: Turn) -> bool:
    """A paired ``tool`` row is shown under its call, not as a turn."""
    return not (turn.role == "tool" and turn.result is not None and not turn.result.orphan)


def replay_order(session: Session) -> list[tuple[Turn, bool]]:
    """The turns a replay shows, each with whether it is kept aside, in ``messages.id`` order (a paired
    tool row is shown under its call)."""
    ordered = sorted(
        [(t, False) for t in session.turns] + [(t, True) for t in session.hidden],
        key=lambda pair: (pair[0].source_row, pair[0].part),
    )
    return [pair for pair in ordered if _shown(pair[0])]


def cut_head(shown: list[tuple[Turn, bool]], head: int) -> list[tuple[Turn, bool]]:
    """``shown`` up to its ``head``-th replayed turn, with the rows kept aside before it (all of it when it
    has fewer)."""
    seen = 0
    for cut, (_, hidden) in enumerate(shown):
        seen += not hidden
        if seen >= head:
            return shown[: cut + 1]
    return shown


def _link(member: Session | None, sid: str, store: str, **extra: Any) -> dict[str, Any]:
    return {"id": sid, "ref": f"{store}:{sid}", "title": member.title if member else None, **extra}


def lineage(session: Session, family: Mapping[str, Session]) -> dict[str, Any]:
    """Parent, continuation chain and children, each with its title when the family has it."""
    store = session.store.name
    parent = None
    if session.parent_id:
        parent = _link(family.get(session.parent_id), session.parent_id, store, relation=session.relation)
    chain = [_link(family.get(sid), sid, store, current=sid == session.id) for sid in session.chain]
    children = [_link(family.get(cid), cid, store, relation=rel) for rel, cid in session.children]
    return {"parent": parent, "chain": chain if len(chain) > 1 else [], "children": children}


def session_view(
    session: Session,
    family: Mapping[str, Session] | None = None,
    *,
    redacting: bool = True,
    limit: int | None = None,
    now: Callable[[], datetime] | None = None,
    head: int | None = None,
    counted: bool = True,
) -> dict[str, Any]:
    """The replay of a loaded session, as plain data (see the module docstring).

    :param family: the sessions linked with it (``History.family``), for the titles of its lineage.
    :param limit: cut each string to this many characters (the web viewer); ``None`` keeps them whole.
    :param head: only the turns up to the ``head``-th replayed one (and the rows kept aside before it),
        marked ``partial``: what a page draws first, while the whole view is made.
    :param counted: ``False`` when only the session's first rows were decoded (enough for ``head``, as
        ``web/first_turns.py`` reads them): what only every row tells (the turn and row counts, the
        active time, the compactions and model switches, the rows that could not be read) is ``None``, so
        a page says it is still counting rather than show the first rows' figures, until the whole view
        comes.
    """
    clean = Cleaner(redacting=redacting, limit=limit)
    events = _events(session)
    shown = replay_order(session)
    counts = {"shown": sum(1 for _, hidden in shown if not hidden), "hidden": sum(1 for _, h in shown if h)}
    if head is not None:
        shown = cut_head(shown, head)
    turns = [_turn(t, i, hidden, events, clean) for i, (t, hidden) in enumerate(shown)]
    hidden_counts: dict[str, int] = {}
    for turn in session.hidden:
        key = "rewound" if turn.rewound else "archived" if turn.compacted else turn.kind or "other"
        hidden_counts[key] = hidden_counts.get(key, 0) + 1
    usage = session.usage
    system_prompt = session.raw.get("system_prompt")
    facts = {
        "id": session.id,
        "ref": session.ref,
        "store": session.store.name,
        "profile": session.profile,
        "project": clean.text(session.project),
        "source": session.source,
        "kind": session.kind,
        "title": clean(session.title),
        "model": session.model,
        "cwd": clean(session.cwd),
        "git_branch": clean(session.git_branch),
        "started_at": iso(session.started_at),
        "last_activity_at": iso(session.last_activity_at),
        "ended_at": iso(session.ended_at),
        "end_reason": session.end_reason,
        "relation": session.relation,
        "parent_id": session.parent_id,
        "message_count": session.message_count,
        # as ``trail show`` counts them: the turns replayed, the rows kept aside (rewound, archived, ...)
        "replayed": len(session.turns),
        "kept_aside": len(session.hidden),
        "tokens": tokens_json(usage),
        "api_calls": usage.api_calls,
        "cost": cost_json(usage),
        "cost_text": money(usage),
        "active_seconds": session.active_seconds,
        "compactions": session.compactions,
        "model_changes": [
            {"model": c.model, "provider": c.provider, "time": iso(c.time), "row": c.source_row}
            for c in session.model_changes
        ],
        "model_usage": [
            {
                "model": m.model,
                "task": m.task,
                "tokens": tokens_json(m.usage),
                "api_calls": m.usage.api_calls,
                "cost": cost_json(m.usage),
                "cost_text": money(m.usage),
            }
            for m in session.model_usage
        ],
        "messaging": None
        if session.messaging is None
        else {
            "platform": session.messaging.platform,
            "chat": clean(session.messaging.chat_name or session.messaging.chat_id),
            "user": clean(session.messaging.user_name or session.messaging.user_id),
        },
        "worktree": clean(session.worktree),
        "yolo": session.yolo,
        "archived": session.archived,
        "system_prompt": clean(system_prompt) if isinstance(system_prompt, str) else None,
    }
    stamp = (now or (lambda: datetime.now(UTC)))()
    view = {
        "version": VIEW_VERSION,
        "session": facts,
        "resume": resume_command(session),
        "lineage": lineage(session, family or {}),
        "turns": turns,
        "turn_counts": counts,
        "partial": len(turns) < counts["shown"] + counts["hidden"] or not counted,
        "counted": counted,
        "hidden_counts": hidden_counts,
        "strays": [{"where": clean.text(s.where), "reason": clean.text(s.reason)} for s in session.strays]
        if counted
        else None,
        "generated_at": iso(stamp),
        "redacted": redacting,
    }
    if not counted:  # the first rows' figures are not the session's
        for name in ("replayed", "kept_aside", "active_seconds", "compactions", "model_changes"):
            facts[name] = None
        view["turn_counts"] = view["hidden_counts"] = None
    view["redactions"] = clean.changed
    return view
