"""A session as a readable transcript for a terminal: prompts, replies, folded reasoning, each tool call
with its result, and what could not be read at the end.

Content is untrusted: it is shown as plain text (never as markup) and control characters are made
visible, so a transcript cannot move the cursor or recolour the terminal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from hermes_trail.model import Session, ToolCall, Turn

if TYPE_CHECKING:
    from rich.console import RenderableType

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe(text: str) -> str:
    """Text with every control character but newline and tab shown as an escape (``\\x1b``)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def clock(value: datetime | None, with_date: bool = False) -> str:
    if value is None:
        return "--:--:--"
    local = value.astimezone()
    return local.strftime("%Y-%m-%d %H:%M:%S" if with_date else "%H:%M:%S")


@dataclass(frozen=True, slots=True)
class RenderOptions:
    """How much to show: reasoning unfolded, whole tool output, rows Hermes does not replay."""

    reasoning: bool = False
    full: bool = False
    include_hidden: bool = False
    output_lines: int = 12


def _clip(text: str, lines: int, full: bool) -> tuple[str, int]:
    if full:
        return text, 0
    parts = text.splitlines()
    if len(parts) <= lines:
        return text, 0
    return "\n".join(parts[:lines]), len(parts) - lines


def _call_line(call: ToolCall) -> str:
    args = call.arguments
    if args:
        for key in ("command", "path", "file_path", "query", "url", "pattern", "goal"):
            if isinstance(args.get(key), str):
                return f"{call.name or '?'}  {args[key]}"
    return f"{call.name or '?'}  {call.arguments_text}"


def render(session: Session, options: RenderOptions | None = None) -> list[RenderableType]:
    """The transcript as rich renderables, in Hermes' order."""
    from rich.text import Text

    opts = options or RenderOptions()
    out: list[RenderableType] = [_header(session)]
    turns: list[Turn] = list(session.turns)
    if opts.include_hidden:
        turns = sorted(turns + session.hidden, key=lambda t: t.source_row)
    for turn in turns:
        if turn.role == "tool" and turn.result is not None and not turn.result.orphan and not turn.rewound:
            continue  # shown under its call
        head = Text()
        style = {"user": "bold cyan", "assistant": "bold green", "tool": "bold yellow"}.get(turn.role, "bold")
        head.append(f"{turn.role}", style=style)
        head.append(f"  {clock(turn.time)}  #{turn.source_row}", style="dim")
        for flag in ("rewound", "compacted"):
            if getattr(turn, flag):
                head.append(f"  [{flag}]", style="red")
        if turn.kind:
            head.append(f"  ({turn.kind})", style="magenta")
        out.append(head)
        if turn.reasoning:
            if opts.reasoning:
                out.append(_indent(Text(safe(turn.reasoning), style="italic dim"), 2))
            else:
                first = safe(turn.reasoning.strip().splitlines()[0]) if turn.reasoning.strip() else ""
                out.append(_indent(Text(f"▸ reasoning: {first[:100]}", style="italic dim"), 2))
        if turn.text:
            out.append(_indent(Text(safe(turn.text)), 2))
        for call in turn.tool_calls:
            out.extend(_render_call(call, opts))
        if turn.result is not None and turn.result.orphan:
            note = f"⚠ orphan result for {turn.result.call_id or 'no id'} ({turn.result.tool_name or '?'})"
            out.append(_indent(Text(note, style="red"), 2))
        for problem in turn.problems:
            if not problem.startswith("orphan tool result"):
                out.append(_indent(Text(f"⚠ {problem}", style="red dim"), 2))
        out.append(Text(""))
    hidden = [t for t in session.hidden if not opts.include_hidden]
    if hidden:
        kinds: dict[str, int] = {}
        for turn in hidden:
            key = turn.kind or "?"
            if turn.rewound or turn.compacted:
                key = "rewound" if turn.rewound else "archived by compaction"
            kinds[key] = kinds.get(key, 0) + 1
        summary = ", ".join(f"{n} {k}" for k, n in kinds.items())
        out.append(Text(f"Rows kept but not replayed: {summary} (--all shows them)", style="dim"))
    if session.strays:
        out.append(Text("Strays (rows that could not be read):", style="bold red"))
        for stray in session.strays:
            out.append(_indent(Text(f"{stray.where}: {safe(stray.reason)}", style="red"), 2))
    return out


def _indent(renderable: RenderableType, by: int) -> RenderableType:
    from rich.padding import Padding

    return Padding(renderable, (0, 0, 0, by), expand=False)


def _render_call(call: ToolCall, opts: RenderOptions) -> list[RenderableType]:
    from rich.text import Text

    line = Text("⚙ ", style="yellow")
    line.append(safe(_call_line(call)), style="yellow")
    out: list[RenderableType] = [_indent(line, 2)]
    if call.result is None:
        out.append(_indent(Text("(no result recorded)", style="dim"), 4))
        return out
    shown, more = _clip(call.result.text, opts.output_lines, opts.full)
    out.append(_indent(Text(safe(shown), style="dim"), 4))
    if more:
        out.append(_indent(Text(f"… {more} more lines (--full)", style="dim italic"), 4))
    return out


def _header(session: Session) -> RenderableType:
    from rich.text import Text

    head = Text()
    head.append(safe(session.title or "(untitled)"), style="bold")
    head.append(f"\n{session.id}", style="dim")
    facts = [
        ("store", f"{session.store.name} ({session.store.path})"),
        ("project", session.project),
        ("source", session.source or "?"),
        ("model", session.model or "?"),
        ("started", clock(session.started_at, with_date=True)),
        ("last activity", clock(session.last_activity_at, with_date=True)),
        ("messages", f"{len(session.turns)} replayed, {len(session.hidden)} kept aside"),
    ]
    if session.parent_id:
        facts.append(("parent", session.parent_id))
    if session.end_reason:
        facts.append(("ended", session.end_reason))
    for key, value in facts:
        head.append(f"\n{key:>13}: ", style="dim")
        head.append(safe(value))
    head.append("\n")
    return head
