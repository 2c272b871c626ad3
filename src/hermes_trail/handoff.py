"""A compact Markdown brief of a conversation, to paste into another agent: what it was for, where it
stands, which files it was changing, what it last ran, and how to reopen it.

Read from the model only: the goal is the first prompt a person typed (never a compaction summary or an
injected notice), the latest request the last one; where it stands is what the assistant last concluded
(replies that called no tool, else the last replies); files are the edits of ``patch`` and ``write_file``
calls, grouped by file, newest first; commands are the last ``terminal`` calls with their exit codes, and
those that never ran with why; linked sessions are the sub-agents it delegated to and the branches made
from it, where more of its work is. A conversation that continued across compactions is read as one. Secrets
are redacted. Within the budget the brief keeps every section and shortens them, quotes first, and cuts
at a line only when even the shortest form does not fit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from hermes_trail.formatting import safe, shortened
from hermes_trail.model import Session, ToolCall, Turn
from hermes_trail.redact import redact

DEFAULT_BUDGET = 4000
MIN_BUDGET = 400


@dataclass(frozen=True, slots=True)
class _Detail:
    """How much of each section one rendering keeps."""

    quote: int  # characters of a quoted prompt or reply
    conclusions: int
    files: int
    commands: int
    command: int  # characters of one command
    footer: bool = True


# From the fullest brief to the shortest; the first that fits the budget is printed.
_DETAIL = (
    _Detail(1500, 3, 20, 10, 200),
    _Detail(700, 2, 12, 8, 120),
    _Detail(350, 1, 8, 6, 90),
    _Detail(160, 1, 5, 4, 70),
    _Detail(80, 1, 3, 2, 50, footer=False),
)
FOOTER = (
    "_Brief by hermes-trail from the Hermes session record; quotes are what was said then, secrets redacted._"
)


@dataclass(slots=True)
class _FileState:
    path: str
    actions: list[str]
    added: int
    removed: int
    failed: int
    last: datetime | None
    moved_to: str | None = None


@dataclass(frozen=True, slots=True)
class _Run:
    command: str
    outcome: str
    time: datetime | None


def brief(
    parts: list[Session],
    *,
    resume: str | None = None,
    no_resume: str | None = None,
    budget: int = DEFAULT_BUDGET,
) -> str:
    """The brief of the conversation whose sessions are ``parts`` (root to tip, each loaded).

    :param resume: the command that reopens it; ``no_resume`` says why there is none.
    :param budget: most bytes (UTF-8) the brief may take; at least :data:`MIN_BUDGET`.
    """
    reopen = _code(resume) if resume else f"_{no_resume or 'No command reopens it.'}_"
    budget = max(budget, MIN_BUDGET)
    turns = [t for part in parts for t in part.turns]
    text = ""
    for detail in _DETAIL:
        text = _render(parts, turns, reopen, detail)
        if len(text.encode()) <= budget:
            return text
    head, _, tail = text.rpartition("\n## Resume\n")
    return _cut(head, budget, "\n## Resume\n" + tail)  # how to reopen it is kept whatever is cut


def _render(parts: list[Session], turns: list[Turn], reopen: str, d: _Detail) -> str:
    tip = parts[-1]
    typed = [t for t in turns if t.typed and t.text.strip()]
    title = next((p.title for p in reversed(parts) if p.title), None)
    heading = title or (_one_line(typed[0].text, 70) if typed else tip.id)
    out = [f"# Handoff: {_clean(heading)}", "", _facts(parts, turns), ""]
    out += ["## Goal", "", _quote(typed[0].text, d.quote) if typed else "_No prompt was typed._", ""]
    if len(typed) > 1 and typed[-1].text.strip() != typed[0].text.strip():
        out += ["## Latest request", "", _quote(typed[-1].text, d.quote), ""]
    out += ["## Where it stands", ""]
    conclusions = _conclusions(turns, d.conclusions)
    for turn in conclusions:
        out += [f"{_when(turn.time)}:", _quote(turn.text, d.quote), ""]
    if not conclusions:
        out += ["_The assistant has not said anything yet._", ""]
    files = _files(turns)
    out += ["## Files in flight", ""]
    out += [_file_line(f) for f in files[: d.files]] or ["_No file was edited._"]
    if len(files) > d.files:
        out.append(f"- … and {len(files) - d.files} more")
    runs = _runs(turns)
    out += ["", "## Last commands", ""]
    shown = runs[-d.commands :]
    if len(runs) > len(shown):
        out.append(f"- … {len(runs) - len(shown)} earlier")
    lines = [f"- {_code(_one_line(r.command, d.command))} → {r.outcome}" for r in shown]
    out += lines or ["_No command ran._"]
    linked = _linked(parts)
    if linked:  # what it handed to sub-agents or branched into: where more of the work may be
        out += ["", "## Linked sessions", ""]
        out += [f"- {relation}: {_code(child)}" for relation, child in linked[: d.files]]
        if len(linked) > d.files:
            out.append(f"- … and {len(linked) - d.files} more")
    out += ["", "## Resume", "", reopen]
    if d.footer:
        out += ["", FOOTER]
    return safe(redact("\n".join(out))) + "\n"  # control characters shown: the brief is printed


def _facts(parts: list[Session], turns: list[Turn]) -> str:
    tip, root = parts[-1], parts[0]
    bits = [f"Session `{tip.id}`", f"profile {tip.profile}", f"project `{tip.project}`"]
    if tip.git_branch:
        bits.append(f"branch `{tip.git_branch}`")
    if tip.model:
        bits.append(f"model {tip.model}")
    line = " · ".join(bits)
    span = f"Started {_when(root.started_at)}, last active {_when(tip.last_activity_at or tip.started_at)}"
    size = f"{len(turns)} turns"
    if len(parts) > 1:
        size += f" in {len(parts)} parts (compacted; first part `{root.id}`)"
    return f"{line}  \n{span} · {size}"


def _linked(parts: list[Session]) -> list[tuple[str, str]]:
    """The sessions the conversation's parts led to (a sub-agent it delegated to, a branch, a reset), in
    the order they started; not the parts themselves (its continuations)."""
    own = {part.id for part in parts}
    return [(relation, child) for part in parts for relation, child in part.children if child not in own]


def _conclusions(turns: list[Turn], count: int) -> list[Turn]:
    """The assistant's last words: replies that called no tool, else any reply with text."""
    said = [t for t in turns if t.role == "assistant" and t.text.strip()]
    final = [t for t in said if not t.tool_calls]
    return (final or said)[-count:]


def _files(turns: list[Turn]) -> list[_FileState]:
    """Every edited file, the most recently edited first."""
    states: dict[str, _FileState] = {}
    for turn in turns:
        for call in turn.tool_calls:
            for edit in call.edits:
                state = states.pop(edit.path, None) or _FileState(edit.path, [], 0, 0, 0, None)
                if edit.action not in state.actions:
                    state.actions.append(edit.action)
                state.added += len(edit.added)
                state.removed += len(edit.removed)
                state.failed += edit.applied is False
                state.moved_to = edit.moved_to or state.moved_to
                state.last = turn.time or state.last
                states[edit.path] = state  # re-inserted: the dict ends with the latest edited
    return list(reversed(states.values()))


def _file_line(state: _FileState) -> str:
    path = _code(state.path) + (f" → {_code(state.moved_to)}" if state.moved_to else "")
    lines = f" (+{state.added} −{state.removed})" if state.added or state.removed else ""
    failed = f", {state.failed} not applied" if state.failed else ""
    return f"- {path}: {', '.join(state.actions)}{lines}{failed}, last {_when(state.last)}"


def _runs(turns: list[Turn]) -> list[_Run]:
    """The terminal commands in order: those that ran with their exit codes, the others with why not."""
    runs: list[_Run] = []
    for turn in turns:
        for call in turn.tool_calls:
            if call.command is not None:
                runs.append(_Run(call.command.command, _outcome(call), turn.time))
            elif call.name == "terminal":
                command = (call.arguments or {}).get("command")
                runs.append(_Run(str(command or call.arguments_text), _outcome(call), turn.time))
    return runs


def _outcome(call: ToolCall) -> str:
    command = call.command
    if command is None:
        permission = call.permission
        if permission is not None and permission.outcome == "blocked":
            return "never ran: blocked" + (f" by {permission.by}" if permission.by else "")
        if permission is not None and permission.outcome == "pending":
            return "never ran: waiting for approval"
        return "never ran" if call.result is not None else "no result recorded"
    if command.status == "background":
        return "started in the background"
    if command.exit_code is None:
        return command.status
    if command.status == "ok":
        return "exit 0"
    return f"exit {command.exit_code} ({command.status})"


_SPACE = re.compile(r"\s+")


def _one_line(text: str, most: int) -> str:
    """``text`` on one line of at most ``most`` characters, redacted before it is cut: a cut secret may
    no longer have the shape that finds it."""
    flat = _SPACE.sub(" ", redact(text)).strip()
    return shortened(flat, most)


def _quote(text: str, most: int) -> str:
    """``text`` as a Markdown quote of at most ``most`` characters, redacted before it is cut."""
    body = shortened(redact(text).strip(), most)
    return "\n".join("> " + line if line.strip() else ">" for line in body.splitlines())


def _code(text: str) -> str:
    """``text`` as an inline code span, whatever backticks it holds."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _clean(text: str) -> str:
    return _one_line(text, 120)


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "an unknown time"


def _cut(text: str, budget: int, tail: str) -> str:
    """``text`` cut at a line so that it, a note of the cut and ``tail`` fit in ``budget`` bytes."""
    note = f"\n… (cut to the {budget}-byte budget)\n"
    room = budget - len(note.encode()) - len(tail.encode())
    kept = text.encode()[: max(room, 0)].decode(errors="ignore")
    if "\n" in kept:
        kept = kept[: kept.rindex("\n")]
    return (kept + note + tail).encode()[:budget].decode(errors="ignore")
