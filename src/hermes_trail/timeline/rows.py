"""Timeline rows of one session, from the model: what it was, which model, where, every message.

Rules (docs/timeline.md), in the order a session's rows are made:

- a *start* row at ``started_at``: source, title, parent and relation, end reason, and ``| imported from``
  / ``| archived=1`` when they apply;
- *model* rows: the main loop's ``session_model_usage`` rows by ``first_seen`` (``model: <m>``, then
  ``model: <old> -> <new>``, with `` provider=<p>``), or one ``model: <sessions.model>`` at ``started_at``;
- a *relay* row for a messaging session, a *scratch directory* row for one that ran in a worktree Hermes
  made or a Hermes scratch directory, a ``yolo_mode`` *permission setting* row when ``model_config`` has it;
- one row per message in ``messages.id`` order, rewound and archived rows included (``[rewound]`` /
  ``[compacted]``); an assistant message gives an ``assistant`` row when it has text, a ``thinking`` row
  when it has reasoning (if asked for) and a ``tool_use`` row per call; a terminal result is followed by
  its *permission decision*; a model-switch marker is a ``model:`` row, another injected notice a system
  row prefixed with its kind; compaction copies (read once, from the original) and ``session_meta`` rows
  give none;
- *parser* rows for what could not be read (a ``tool_calls`` cell, a ``model_config`` or ``origin_json``
  that is not a JSON object), undated.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

from hermes_trail.hermes.decode import tools
from hermes_trail.hermes.decode.conversation import KIND_SESSION_META
from hermes_trail.hermes.decode.relations import json_object
from hermes_trail.hermes.decode.usage import KIND_MODEL_SWITCH, parse_marker
from hermes_trail.hermes.sidefiles.common import compact
from hermes_trail.model import Permission, Session, ToolCall, Turn

# The arguments that say best what a call was about, first found wins.
SCRATCH_DIRS = (("cache", "scratch"), ("sandboxes",))
REWOUND = "[rewound] "
COMPACTED = "[compacted] "


class Row(NamedTuple):
    """A timeline row before output: the 14 fields (less ``host`` and ``agent``, the same on every row)
    and ``profile``; ``ts`` is epoch seconds or ``None``."""

    ts: float | None
    user: str
    session_id: str
    project_path: str
    git_branch: str
    turn_type: str
    model: str
    tool_name: str
    tool_use_id: str
    text: str
    source_file: str
    source_line: int | None
    profile: str


def ts_of(moment: datetime | None) -> float | None:
    return moment.timestamp() if moment is not None else None


class SessionRows:
    """Makes one session's rows (see the module docstring)."""

    def __init__(
        self,
        session: Session,
        source_file: str,
        user: str,
        home: str | None = None,
        include_thinking: bool = False,
    ) -> None:
        self.session = session
        self.source_file = source_file
        self.user = user
        self.home = home
        self.include_thinking = include_thinking
        self.project = session.cwd or session.git_repo_root or ""
        self.out: list[Row] = []

    def add(
        self,
        ts: float | None,
        turn_type: str,
        text: str,
        *,
        model: str | None = None,
        tool_name: str = "",
        tool_use_id: str = "",
        line: int | None = None,
    ) -> None:
        s = self.session
        self.out.append(
            Row(
                ts,
                self.user,
                s.id,
                self.project,
                s.git_branch or "",
                turn_type,
                model if model is not None else (s.model or ""),
                tool_name,
                tool_use_id,
                text,
                self.source_file,
                line,
                s.profile,
            )
        )

    def build(self) -> list[Row]:
        s = self.session
        start = ts_of(s.started_at)
        self.add(start, "system", self.start_text())
        self.model_rows(start)
        if s.messaging is not None:
            self.add(start, "system", self.relay_text())
        scratch = self.scratch_text()
        if scratch:
            self.add(start, "system", scratch)
        config, problem = json_object(s.raw.get("model_config"), "model_config")
        if "yolo_mode" in config:
            value = "true" if config["yolo_mode"] else "false"
            self.add(
                start,
                "system",
                f"permission setting: yolo_mode={value} (from state.db sessions.model_config, started_at)",
            )
        origin_problem = json_object(s.raw.get("origin_json"), "origin_json")[1]
        bad = [(c, p) for c, p in (("model_config", problem), ("origin_json", origin_problem)) if p]
        self.messages()
        for column, why in bad:
            why = why.removeprefix(f"{column} ")
            self.add(
                None,
                "system",
                f"parser: unparseable record {s.id} (sessions.{column}: {why}): {compact(s.raw.get(column))}",
            )
        return self.out

    # -- session rows ----------------------------------------------------------------------------------
    def start_text(self) -> str:
        s = self.session
        text = f"session start: source={s.source or '-'} title={s.title or '-'}"
        if s.parent_id:
            text += f" parent={s.parent_id} ({s.relation or 'child'})"
        if s.end_reason:
            text += f" end_reason={s.end_reason}"
        if s.imported is not None and s.raw.get("origin_json"):
            imp = s.imported
            text += f" | imported from {imp.tool} {imp.path or '-'} session {imp.original_id or '-'}"
        if s.archived:
            text += " | archived=1"
        return text

    def model_rows(self, start: float | None) -> None:
        s = self.session
        main = sorted(
            (m for m in s.model_usage if not m.auxiliary),
            key=lambda m: (m.first_seen is None, ts_of(m.first_seen) or 0.0),
        )
        previous: str | None = None
        for usage in main:
            same = previous is None or previous == usage.model  # a new billing route of the same model
            text = f"model: {usage.model}" if same else f"model: {previous} -> {usage.model}"
            if usage.provider:
                text += f" provider={usage.provider}"
            self.add(ts_of(usage.first_seen), "system", text, model=usage.model)
            previous = usage.model
        if not main and s.model:
            self.add(start, "system", f"model: {s.model}")

    def relay_text(self) -> str:
        s = self.session
        m = s.messaging
        assert m is not None
        return (
            f"session relayed: {s.source or m.platform} chat {m.chat_id or '-'} "
            f"type {m.chat_type or '-'} thread {m.thread_id or '-'} user {m.user_id or '-'} "
            f"name {m.user_name or '-'} display {m.chat_name or '-'} "
            "(from state.db sessions, started_at)"
        )

    def scratch_text(self) -> str | None:
        s = self.session
        if s.worktree and s.cwd:
            return (
                f"scratch directory: {s.cwd} (git worktree the agent created in {s.project}, "
                f"branch {s.git_branch})"
            )
        if s.cwd and self.home:
            for parts in SCRATCH_DIRS:
                base = str(Path(self.home).joinpath(*parts))
                if s.cwd == base or s.cwd.startswith(base + "/"):
                    return f"scratch directory: {s.cwd} (Hermes' {'/'.join(parts)} under its home)"
        return None

    # -- message rows ----------------------------------------------------------------------------------
    def messages(self) -> None:
        s = self.session
        turns = sorted([*s.turns, *s.hidden], key=lambda t: (t.source_row, t.part))
        calls_of: dict[int, ToolCall] = {}
        previous_model: str | None = None
        main = sorted(
            (m for m in s.model_usage if not m.auxiliary),
            key=lambda m: (m.first_seen is None, ts_of(m.first_seen) or 0.0),
        )
        for turn in turns:
            if turn.copy_of is not None or turn.kind == KIND_SESSION_META:
                continue
            ts = ts_of(turn.time)
            if turn.kind == KIND_MODEL_SWITCH:
                previous_model = self.switch_row(turn, ts, previous_model, main)
                continue
            mark = REWOUND if turn.rewound else COMPACTED if turn.compacted else ""
            line = turn.source_row
            if turn.role == "assistant":
                if turn.text:
                    self.add(ts, "assistant", mark + turn.text, line=line)
                if turn.reasoning and self.include_thinking:
                    self.add(ts, "thinking", mark + turn.reasoning, line=line)
                for call in turn.tool_calls:
                    calls_of[id(call.result)] = call
                    self.add(
                        ts,
                        "tool_use",
                        mark + call_subject(call),
                        tool_name=call.name,
                        tool_use_id=call.id or "",
                        line=line,
                    )
            elif turn.role == "tool":
                result = turn.result
                paired = calls_of.get(id(result)) if result is not None else None
                name = (result.tool_name if result else None) or (paired.name if paired else "")
                use_id = (result.call_id if result else None) or ""
                self.add(ts, "tool_result", mark + turn.text, tool_name=name, tool_use_id=use_id, line=line)
                if paired is not None and paired.permission is not None:
                    self.add(
                        ts,
                        "system",
                        permission_text(paired.permission),
                        tool_name=name,
                        tool_use_id=use_id,
                        line=line,
                    )
            elif turn.role == "user" and turn.kind is None:
                self.add(ts, "user", mark + turn.text, line=line)
            elif turn.role == "summary":
                self.add(ts, "system", mark + "compaction summary: " + turn.text, line=line)
            elif turn.kind is not None:
                self.add(ts, "system", f"{mark}{turn.kind}: {turn.text}", line=line)
            else:
                self.add(ts, "system", mark + turn.text, line=line)
        raws = {t.source_row: t.raw for t in turns}
        for stray in s.strays:
            if stray.row is None or stray.table != "messages":
                continue
            value = raws.get(stray.row, {}).get("tool_calls")
            self.add(
                None,
                "system",
                f"parser: unparseable record {stray.row} ({stray.reason}): {compact(value)}",
                line=stray.row,
            )

    def switch_row(self, turn: Turn, ts: float | None, previous: str | None, main: list[Any]) -> str | None:
        parsed = parse_marker(turn.text)
        if parsed is None:
            self.add(ts, "system", f"model_switch: {turn.text}", line=turn.source_row)
            return previous
        model, provider = parsed
        old = previous
        if old is None:
            earlier = [
                m.model
                for m in main
                if m.first_seen is not None
                and ts is not None
                and ts_of(m.first_seen) is not None
                and (ts_of(m.first_seen) or 0.0) < ts
            ]
            old = earlier[-1] if earlier else None
        text = f"model: {model}" if old is None or old == model else f"model: {old} -> {model}"
        if provider:
            text += f" provider={provider}"
        self.add(ts, "system", text, model=model, line=turn.source_row)
        return model


def call_subject(call: ToolCall) -> str:
    """A ``tool_use`` row's text: the call's subject (:func:`~hermes_trail.hermes.decode.tools.call_subject`,
    the replay's rule), else its arguments as stored."""
    subject = tools.call_subject(call)
    return subject if subject is not None else call.arguments_text


def permission_text(permission: Permission) -> str:
    """A terminal result's permission outcome as a timeline row's text."""
    if permission.outcome in ("approved", "auto_approved"):
        return f"permission decision: approved ({permission.message or '-'})"
    if permission.outcome == "blocked":
        text = f"permission decision: blocked {permission.message or '-'}"
        if permission.user_summary:
            text += f" user_summary={permission.user_summary}"
        return text
    smart = "true" if permission.smart_denied else "false"
    return f"permission decision: pending pattern={permission.pattern_key or '-'} smart_denied={smart}"
