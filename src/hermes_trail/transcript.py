"""A session as a readable transcript for a terminal: prompts, replies, folded reasoning, each tool call
with what it meant (a command and its exit code, the permission it needed, file edits as diffs), summaries
and compactions marked, model switches, durations, and what could not be read at the end.

Content is untrusted: it is shown as plain text (never as markup) and control characters are made
visible, so a transcript cannot move the cursor or recolour the terminal.
"""

from __future__ import annotations

from typing import ClassVar

from hermes_trail.formatting import clock, safe
from hermes_trail.hermes.decode.tooloutput import replay_text
from hermes_trail.hermes.decode.tools import call_subject
from hermes_trail.model import (
    Command,
    FileEdit,
    ModelChange,
    Permission,
    Session,
    ToolCall,
    Turn,
    Usage,
    _Frozen,
)
from hermes_trail.styled import Block, Rule, Styled, indented

_SUMMARY_CHARS = 400
_ROLE_STYLE = {
    "user": "bold cyan",
    "assistant": "bold green",
    "tool": "bold yellow",
    "summary": "bold magenta",
}


def seconds(value: float | None) -> str:
    """A duration for people: ``0.4 s``, ``12 s``, ``3 min 5 s``, ``2 h 10 min``."""
    if value is None:
        return ""
    if value < 10:
        return f"{value:.1f} s"
    if value < 60:
        return f"{value:.0f} s"
    minutes, secs = divmod(round(value), 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def money(usage: Usage) -> str:
    """Cost as recorded: a known amount, or ``unknown`` (never a reconstructed $0)."""
    if usage.cost_usd is None:
        status = usage.cost_status
        return "unknown" + (f" ({status})" if status and status != "unknown" else "")
    return f"${usage.cost_usd:.4f}" + (f" ({usage.cost_kind})" if usage.cost_kind else "")


def tokens(usage: Usage) -> str:
    parts = [
        ("in", usage.input_tokens),
        ("out", usage.output_tokens),
        ("cache read", usage.cache_read_tokens),
        ("cache write", usage.cache_write_tokens),
        ("reasoning", usage.reasoning_tokens),
    ]
    shown = [f"{name} {value:,}" for name, value in parts if value]
    return " · ".join(shown) if shown else "none recorded"


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class RenderOptions(_Frozen):
    """How much to show: reasoning unfolded, whole outputs, rows Hermes does not replay."""

    _fields: ClassVar[tuple[str, ...]] = ("reasoning", "full", "include_hidden", "output_lines")
    __slots__ = _fields
    reasoning: bool
    full: bool
    include_hidden: bool
    output_lines: int

    def __init__(
        self,
        reasoning: bool = False,
        full: bool = False,
        include_hidden: bool = False,
        output_lines: int = 12,
    ) -> None:
        object.__setattr__(self, "reasoning", reasoning)
        object.__setattr__(self, "full", full)
        object.__setattr__(self, "include_hidden", include_hidden)
        object.__setattr__(self, "output_lines", output_lines)


def _clip(text: str, lines: int, full: bool) -> tuple[str, int]:
    if full:
        return text, 0
    parts = text.splitlines()
    if len(parts) <= lines:
        return text, 0
    return "\n".join(parts[:lines]), len(parts) - lines


# A paragraph of what was said wraps at its own margin; a header field's value under the value.
_PROSE = 0
_KEY = 13


def _indent(block: Styled, by: int) -> Styled:
    return indented(block, by)


def _text(value: str, style: str = "", hang: int = 2) -> Styled:
    return Styled.of(safe(value), style, hang)


def _call_line(call: ToolCall) -> str:
    if call.edits:  # a patch names its files in its body: name them, not the arguments
        paths = ", ".join(dict.fromkeys(e.path for e in call.edits))
        return f"{call.name or '?'}  {paths}"
    subject = call_subject(call)
    return f"{call.name or '?'}  {subject if subject is not None else call.arguments_text}"


def render(session: Session, options: RenderOptions | None = None) -> list[Block]:
    """The transcript as styled blocks (``styled.py``), in Hermes' order."""
    opts = options or RenderOptions()
    out: list[Block] = [*_header(session)]
    out.extend(render_turns(session, opts))
    out.extend(_footer(session, opts))
    return out


def render_turns(session: Session, opts: RenderOptions) -> list[Block]:
    """The turns alone, rows kept aside shown in place when asked."""
    out: list[Block] = []
    events = {e.summary_row: e for e in session.compaction_events if e.summary_row is not None}
    changes = {c.source_row: c for c in session.model_changes}
    turns: list[Turn] = list(session.turns)
    if opts.include_hidden:
        turns = sorted(turns + session.hidden, key=lambda t: (t.source_row, t.part))
    for turn in turns:
        if turn.role == "tool" and turn.result is not None and not turn.result.orphan and not turn.rewound:
            continue  # shown under its call
        if turn.kind == "model_switch":
            out.append(_model_switch(turn, changes.get(turn.source_row)))
            out.append(Styled())
            continue
        event = events.get(turn.source_row) if turn.role == "summary" else None
        if event is not None:
            note = f"compaction at {clock(event.time)}: {event.archived} rows archived (--all shows them)"
            out.append(Rule(note, "magenta"))
        out.append(_turn_head(turn))
        if turn.reasoning:
            out.append(_indent(_reasoning(turn.reasoning, opts), 2))
        if turn.text:
            if turn.role == "summary" and not opts.full:
                # The handoff's standing preamble is the same every time; what was summarised starts at
                # its first heading.
                start = turn.text.find("\n## ")
                body = turn.text[start + 1 :] if start >= 0 else turn.text
                shown = body[:_SUMMARY_CHARS] + (" …" if len(body) > _SUMMARY_CHARS else "")
                out.append(_indent(_text(shown, "magenta", _PROSE), 2))
                out.append(_indent(_text("(--full shows the whole summary)", "dim italic"), 2))
            elif turn.role == "summary":
                out.append(_indent(_text(turn.text, "magenta", _PROSE), 2))
            else:  # what was said: a paragraph goes on at its own margin
                out.append(_indent(_text(turn.text, "dim" if turn.kind else "", _PROSE), 2))
        for call in turn.tool_calls:
            out.extend(_render_call(call, opts))
        if turn.result is not None and turn.result.orphan:
            note = f"⚠ orphan result for {turn.result.call_id or 'no id'} ({turn.result.tool_name or '?'})"
            out.append(_indent(_text(note, "red"), 2))
        for problem in turn.problems:
            if not problem.startswith("orphan tool result"):
                out.append(_indent(_text(f"⚠ {problem}", "red dim"), 2))
        out.append(Styled())
    return out


def _turn_head(turn: Turn) -> Styled:
    head = Styled()
    head.append(turn.role, style=_ROLE_STYLE.get(turn.role, "bold"))
    head.append(f"  {clock(turn.time)}  {safe(turn.row_label)}", style="dim")
    if turn.diverted is not None:
        head.append("  [found in the divert file, not in the store]", style="yellow")
    if turn.role == "summary":
        head.append("  compaction summary (not a prompt)", style="magenta")
    elif turn.kind:
        head.append(f"  ({safe(turn.kind)})", style="magenta")
    if turn.rewound:
        head.append("  [rewound]", style="red")
    if turn.compacted:
        head.append("  [archived by compaction]", style="red")
    if turn.copy_of is not None:
        head.append(f"  [compaction copy of #{turn.copy_of}]", style="dim")
    return head


def _reasoning(reasoning: str, opts: RenderOptions) -> Styled:
    if opts.reasoning:
        return _text(reasoning, "italic dim")
    first = reasoning.strip().splitlines()[0] if reasoning.strip() else ""
    return _text(f"▸ reasoning: {first[:100]}", "italic dim")


def _model_switch(turn: Turn, change: ModelChange | None) -> Styled:
    line = Styled.of("⇄ model switch", "bold magenta")
    if change is not None:
        via = f" via {change.provider}" if change.provider else ""
        line.append(safe(f" → {change.model}{via}"), style="magenta")
    line.append(f"  {clock(turn.time)}  #{turn.source_row}", style="dim")
    if turn.rewound:
        line.append("  [rewound]", style="red")
    return line


def _permission_line(permission: Permission, ran: bool) -> Styled:
    outcome = permission.outcome
    by = f" by {permission.by}" if permission.by else ""
    if outcome == "approved":
        text, style = f"✔ approved{by or ' by the user'}", "green"
    elif outcome == "auto_approved":
        text, style = f"✔ auto-approved{by or ' by smart approval'}", "green"
    elif outcome == "pending":
        pattern = f" ({permission.pattern_key})" if permission.pattern_key else ""
        text, style = f"… awaiting approval{pattern}", "yellow"
    else:
        text, style = f"✖ {outcome}{by}", "red"
    if permission.description:
        text += f": {permission.description}"
    if permission.user_summary:
        text += f" — {permission.user_summary}"
    elif permission.message and not permission.description:
        text += f" — {permission.message.strip().splitlines()[0][:160]}"
    if not ran:
        text += " (never ran)"
    return _text(text, style)


def _command_status(command: Command, duration: float | None) -> Styled:
    code = command.exit_code
    style = {"ok": "green", "timeout": "yellow", "killed": "magenta", "background": "cyan"}.get(
        command.status, "red"
    )
    label = f"exit {code}" if code is not None else command.status
    if command.status == "killed" and command.signal:
        label += f" (killed by signal {command.signal})"
    elif command.status not in ("ok", "failed", "unknown"):
        label += f" ({command.status})"
    if duration is not None:
        label += f" · {seconds(duration)}"
    return _text(label, style)


def _edit_lines(edit: FileEdit, opts: RenderOptions) -> list[Block]:
    head = f"✎ {edit.action} {edit.path}" + (f" → {edit.moved_to}" if edit.moved_to else "")
    if edit.applied is False:
        head += "  (not applied)"
    out: list[Block] = [_indent(_text(head, "bold blue"), 4)]
    diff = [("- " + line, "red") for line in edit.removed] + [("+ " + line, "green") for line in edit.added]
    limit = len(diff) if opts.full else opts.output_lines
    for line, style in diff[:limit]:
        out.append(_indent(_text(line, style), 6))
    if len(diff) > limit:
        out.append(_indent(_text(f"… {len(diff) - limit} more lines (--full)", "dim italic"), 6))
    return out


def _render_call(call: ToolCall, opts: RenderOptions) -> list[Block]:
    out: list[Block] = []
    if call.name == "terminal" and (call.command is not None or call.permission is not None):
        line = Styled.of("$ ", "yellow")
        shown = call.command.command if call.command else _call_line(call).removeprefix("terminal  ")
        line.append(safe(shown), style="yellow")
        out.append(_indent(line, 2))
        if call.permission is not None:
            out.append(_indent(_permission_line(call.permission, call.command is not None), 4))
        if call.command is not None:
            out.append(_indent(_command_status(call.command, call.duration), 4))
            body = call.command.output or call.command.error or ""
            out.extend(_body(body, opts))
        return out
    line = Styled.of("⚙ ", "yellow")
    line.append(safe(_call_line(call)), style="yellow")
    if call.duration is not None:
        line.append(f"  · {seconds(call.duration)}", style="dim")
    out.append(_indent(line, 2))
    for path in call.reads:
        out.append(_indent(_text(f"read {path}", "blue"), 4))
    for edit in call.edits:
        out.extend(_edit_lines(edit, opts))
    if call.result is None:
        out.append(_indent(_text("(no result recorded)", "dim"), 4))
    elif not call.edits or any(e.applied is False for e in call.edits):  # an edit's diff says it all
        result = call.result
        out.extend(_body(replay_text(result.output, result.text, result.data), opts))
    return out


def _body(text: str, opts: RenderOptions) -> list[Block]:
    text = text.rstrip("\r\n")  # a file's last line break is no line to show (read_file's output ends in one)
    if not text:
        return []
    shown, more = _clip(text, opts.output_lines, opts.full)
    out: list[Block] = [_indent(_text(shown, "dim"), 4)]
    if more:
        out.append(_indent(_text(f"… {more} more lines (--full)", "dim italic"), 4))
    return out


def _footer(session: Session, opts: RenderOptions) -> list[Block]:
    out: list[Block] = []
    hidden = [] if opts.include_hidden else session.hidden
    if hidden:
        kinds: dict[str, int] = {}
        for turn in hidden:
            key = turn.kind or "?"
            if turn.rewound or turn.compacted:
                key = "rewound" if turn.rewound else "archived by compaction"
            kinds[key] = kinds.get(key, 0) + 1
        summary = ", ".join(f"{n} {k}" for k, n in kinds.items())
        out.append(Styled.of(f"Rows kept but not replayed: {summary} (--all shows them)", "dim"))
    if session.children:
        out.append(Styled.of("Linked sessions:", "bold"))
        for relation, child in session.children:
            out.append(_indent(_text(f"{relation}: {child}"), 2))
    if session.strays:
        out.append(Styled.of("Strays (rows that could not be read):", "bold red"))
        for stray in session.strays:
            out.append(_indent(_text(f"{stray.where}: {stray.reason}", "red"), 2))
    return out


def _facts(session: Session) -> list[tuple[str, str]]:
    facts = [
        ("store", f"{session.store.name} ({session.store.path})"),
        ("project", session.project),
        ("source", (session.source or "?") + (f" · {session.kind}" if session.kind != "interactive" else "")),
        ("model", session.model or "?"),
        ("started", clock(session.started_at, with_date=True)),
        ("last activity", clock(session.last_activity_at, with_date=True)),
        ("messages", f"{len(session.turns)} replayed, {len(session.hidden)} kept aside"),
        ("tokens", tokens(session.usage)),
        ("cost", money(session.usage)),
    ]
    if session.messaging is not None:
        m = session.messaging
        where = " ".join(p for p in (m.platform, m.chat_type or "", m.chat_name or m.chat_id or "") if p)
        facts.append(("chat", where + (f" · {m.user_name or m.user_id}" if m.user_name or m.user_id else "")))
    if session.imported is not None:
        facts.append(("imported", f"from {session.imported.tool} {session.imported.path or ''}".strip()))
    if session.worktree:
        facts.append(("worktree", session.worktree))
    if session.active_seconds is not None:
        facts.append(("active time", seconds(session.active_seconds)))
    if session.compactions:
        facts.append(("compactions", str(session.compactions)))
    for use in session.model_usage:
        role = f"auxiliary: {use.task}" if use.auxiliary else "main loop"
        n = use.usage.api_calls
        calls = f", {n} call{'s' if n != 1 else ''}" if n else ""
        facts.append(("model usage", f"{use.model} ({role}{calls}) {tokens(use.usage)} · {money(use.usage)}"))
    flags = [
        name
        for name, on in (
            ("archived", session.archived),
            ("pinned", session.pinned),
            ("hidden", session.hidden_flag),
        )
        if on
    ]
    if flags:
        facts.append(("flags", ", ".join(flags)))
    for change in session.model_changes:
        via = f" via {change.provider}" if change.provider else ""
        facts.append(("model switch", f"{clock(change.time)} → {change.model}{via}"))
    if session.parent_id:
        facts.append(("parent", f"{session.parent_id} ({session.relation or 'child'})"))
    if len(session.chain) > 1:
        place = session.chain.index(session.id) + 1 if session.id in session.chain else 0
        facts.append(("conversation", f"part {place} of {len(session.chain)} (--lineage shows all)"))
    if session.yolo:
        facts.append(("approvals", "off (/yolo)"))
    if session.end_reason:
        facts.append(("ended", session.end_reason))
    return facts


def _header(session: Session) -> list[Block]:
    """The title, the id, and a field a line, each value going on under itself when it wraps."""
    head = Styled()
    head.append(safe(session.title or "(untitled)"), style="bold")
    head.append(f"\n{safe(session.id)}", style="dim")
    out: list[Block] = [head]
    for key, value in _facts(session):
        out.append(Styled([(f"{key:>{_KEY}}: ", "dim"), (safe(value), "")], hang=_KEY + 2))
    out.append(Styled())
    return out


def render_lineage(chain: list[Session], options: RenderOptions | None = None) -> list[Block]:
    """A continuation chain as one conversation: each part's turns under a divider naming the part."""
    opts = options or RenderOptions()
    if not chain:
        return []
    out: list[Block] = [*_header(chain[-1])]
    for index, part in enumerate(chain, start=1):
        title = f"part {index} of {len(chain)}: {safe(part.id)}"
        if index > 1:
            title += " (continued after compaction)"
        out.append(Rule(safe(title), "magenta"))
        out.extend(render_turns(part, opts))
    out.extend(_footer(chain[-1], opts))
    return out
