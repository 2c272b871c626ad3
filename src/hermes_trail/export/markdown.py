"""A session as Markdown, from its replay view: headings per turn, commands and outputs in code blocks,
edits as ``diff`` blocks, reasoning folded in ``<details>``.

Transcript text is hostile input for whatever renders the Markdown later: HTML in a prompt would become
markup, and an image reference would load a remote picture when the file is opened. So prose keeps its
Markdown but loses both: ``<``, ``>`` and ``&`` outside code are escaped (so a literal ``&amp;`` stays
as written), an image ``![alt](url)`` becomes a plain link that loads only when clicked, a link to anything
but ``http``, ``https`` or ``mailto`` (``javascript:``) is left as text, a line that would be a heading
(``# ``, or ``===``/``---`` under a line) is escaped so a prompt cannot restructure the document, and every
code block is fenced longer than any backtick run inside it. A compaction summary, Markdown written by a
model, is shown as the text it is, in a fenced block.
"""

from __future__ import annotations

import re
from typing import Any

from hermes_trail.transcript import seconds

_IMAGE = re.compile(r"!\[([^\]\n]*)\]\(([^)\s]*)[^)\n]*\)")
_FENCE_LINE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_HTML_CHARS = str.maketrans({"<": "&lt;", ">": "&gt;", "&": "&amp;"})
# ``[text](scheme:...`` and a reference definition ``[id]: scheme:...``, for the schemes no link may have
_LINK = re.compile(r"\[([^\]\n]*)\]\(\s*<?\s*([A-Za-z][A-Za-z0-9+.-]*):")
_REFERENCE = re.compile(r"^(\s{0,3})\[([^\]\n]+)\]:\s*<?\s*([A-Za-z][A-Za-z0-9+.-]*):", re.MULTILINE)
_SAFE_SCHEMES = frozenset({"http", "https", "mailto"})
_HEADING = re.compile(r"^(\s{0,3})(#{1,6}(?:[ \t]|$))")
_UNDERLINE = re.compile(r"^(\s{0,3})(=+|-+)[ \t]*$")


def fence(text: str, info: str = "") -> str:
    """``text`` in a fenced block whose fence no line of it can close; its last line breaks are not kept
    (an output ending in one would show an empty last line)."""
    text = text.rstrip("\r\n")
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{info}\n{text}\n{marks}"


def _escape_span(text: str) -> str:
    """Prose outside code: HTML made inert, images made links."""
    out: list[str] = []
    last = 0
    for match in _INLINE_CODE.finditer(text):
        out.append(_prose(text[last : match.start()]))
        out.append(match.group(0))
        last = match.end()
    out.append(_prose(text[last:]))
    return "".join(out)


def _inert_link(match: re.Match[str]) -> str:
    if match.group(2).lower() in _SAFE_SCHEMES:
        return match.group(0)
    return "\\[" + match.group(1) + "\\]" + match.group(0)[len(match.group(1)) + 2 :]


def _inert_reference(match: re.Match[str]) -> str:
    if match.group(3).lower() in _SAFE_SCHEMES:
        return match.group(0)
    return match.group(1) + "\\" + match.group(0)[len(match.group(1)) :]


def _prose(text: str) -> str:
    text = _IMAGE.sub(lambda m: f"[image: {m.group(1) or 'no description'}]({m.group(2)})", text)
    text = text.translate(_HTML_CHARS)
    text = _LINK.sub(_inert_link, text)
    return _REFERENCE.sub(_inert_reference, text)


def _no_headings(lines: list[str]) -> list[str]:
    """Lines outside code that would be headings (ATX ``# ``, or a setext underline) escaped."""
    out = []
    for i, line in enumerate(lines):
        line = _HEADING.sub(lambda m: m.group(1) + "\\" + m.group(2), line)
        if i and lines[i - 1].strip() and _UNDERLINE.match(line):
            line = _UNDERLINE.sub(lambda m: m.group(1) + "\\" + m.group(2), line)
        out.append(line)
    return out


def prose(text: str) -> str:
    """Markdown from the transcript, safe to render: fenced code kept as written, the rest escaped."""
    out: list[str] = []
    block: list[str] = []
    opener: str | None = None
    for line in text.split("\n"):
        match = _FENCE_LINE.match(line)
        if opener is None:
            if match:
                if block:
                    out.append(_escape_span("\n".join(_no_headings(block))))
                    block = []
                opener = match.group(1)
                out.append(line)
            else:
                block.append(line)
        else:
            out.append(line)
            if match and match.group(1)[0] == opener[0] and len(match.group(1)) >= len(opener):
                opener = None
    if block:
        out.append(_escape_span("\n".join(_no_headings(block))))
    if opener is not None:  # an unclosed fence would swallow the rest of the file
        out.append(opener)
    return "\n".join(out)


def _inline(text: str | None) -> str:
    """A value inside a sentence: one line, code-quoted, never markup."""
    value = (text or "").replace("\n", " ")
    ticks = "`" * (max((len(m) for m in re.findall(r"`+", value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{ticks}{pad}{value}{pad}{ticks}" if value else "``"


def _cell(value: str) -> str:
    return value.replace("|", "\\|")


def _call(call: dict[str, Any]) -> list[str]:
    out: list[str] = []
    command = call["command"]
    permission = call["permission"]
    duration = f" · {seconds(call['duration'])}" if call["duration"] is not None else ""
    if command is not None or (call["name"] == "terminal" and permission is not None):
        shown = command["command"] if command else call["subject"] or call["arguments"]
        out.append(fence(f"$ {shown}", "console"))
        if permission is not None:
            by = f" by {permission['by']}" if permission["by"] else ""
            line = f"permission: {permission['outcome']}{by}"
            reason = permission["description"] or permission["user_summary"] or permission["message"]
            if reason:
                line += " — " + reason.strip().splitlines()[0][:200]
            if command is None:
                line += " (never ran)"
            out.append(f"> {_escape_span(line)}")
        if command is not None:
            code = command["exit_code"]
            out.append(f"*exit {code if code is not None else '?'} · {command['status']}{duration}*")
    else:
        subject = f" {_inline(call['subject'])}" if call["subject"] else ""
        out.append(f"**⚙ {_escape_span(call['name'])}**{subject}{duration}")
    for path in call["reads"]:
        out.append(f"read {_inline(path)}")
    for edit in call["edits"]:
        moved = f" → {_inline(edit['moved_to'])}" if edit["moved_to"] else ""
        applied = " (not applied)" if edit["applied"] is False else ""
        out.append(f"✎ {edit['action']} {_inline(edit['path'])}{moved}{applied}")
        diff = [f"-{line}" for line in edit["removed"]] + [f"+{line}" for line in edit["added"]]
        if diff:
            out.append(fence("\n".join(diff), "diff"))
    shows_diff = call["edits"] and all(e["applied"] is not False for e in call["edits"])
    if call["output"] and not shows_diff:
        out.append(fence(call["output"], "text"))
    elif call["output"] is None and command is None:
        out.append("*(no result recorded)*")
    return out


def _when(iso: str | None) -> str | None:
    """A time for people: ``2026-11-30 04:58:51 UTC`` (the view's times are UTC), as given when unreadable."""
    if not iso:
        return None
    from datetime import UTC, datetime

    try:
        value = datetime.fromisoformat(iso)
    except ValueError:
        return iso
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%d %H:%M:%S UTC")


def _heading(turn: dict[str, Any]) -> str:
    role = "compaction summary (not a prompt)" if turn["role"] == "summary" else turn["role"]
    marks = [f"#{turn['row']}" if not turn.get("divert") else f"{turn['divert']} (found in the divert file)"]
    if turn["kind"] and turn["role"] != "summary":
        marks.append(turn["kind"])
    for flag, label in (("rewound", "rewound"), ("compacted", "archived by compaction")):
        if turn[flag]:
            marks.append(label)
    if turn["copy_of"] is not None:
        marks.append(f"copy of #{turn['copy_of']}")
    return f"### {role} · {_when(turn['time']) or 'no time'} · {' · '.join(marks)}"


def render(view: dict[str, Any]) -> str:
    """The whole session as one Markdown document."""
    facts = view["session"]
    out = [f"# {_escape_span((facts['title'] or '(untitled)').replace(chr(10), ' '))}", ""]
    rows = [
        ("id", _inline(facts["id"])),
        ("profile", _inline(facts["profile"])),
        ("project", _inline(facts["project"])),
        ("source", _inline(facts["source"] or "?")),
        ("model", _inline(facts["model"] or "?")),
        ("started", _when(facts["started_at"]) or "?"),
        ("last activity", _when(facts["last_activity_at"]) or "?"),
        (
            "tokens",
            ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in facts["tokens"].items() if v) or "none",
        ),
        ("cost", facts["cost_text"]),
        ("active time", seconds(facts["active_seconds"]) or "?"),
        ("resume", _inline(view["resume"])),
    ]
    lineage = view["lineage"]
    if lineage["parent"]:
        parent = lineage["parent"]
        rows.append(("parent", f"{_inline(parent['id'])} ({parent['relation'] or 'child'})"))
    for child in lineage["children"]:
        rows.append((child["relation"], _inline(child["id"])))
    out.extend(["| | |", "| --- | --- |"])
    out.extend(f"| {key} | {_cell(value)} |" for key, value in rows)
    out.append("")
    if view["redacted"]:
        out.extend(["*Secrets are redacted.*", ""])
    for turn in view["turns"]:
        if turn["hidden"]:
            continue
        event = turn["event"]
        if event and event["type"] == "compaction":
            out.extend([f"---\n\n**Compaction**: {event['archived']} rows archived", ""])
        if event and event["type"] == "model_switch":
            out.extend([f"**⇄ model switch** → {_inline(event['model'])}", ""])
            continue
        out.extend([_heading(turn), ""])
        if turn["reasoning"]:
            out.extend(
                [
                    "<details><summary>reasoning</summary>",
                    "",
                    fence(turn["reasoning"], "text"),
                    "",
                    "</details>",
                    "",
                ]
            )
        if turn["text"] and turn["role"] == "summary":
            out.extend([fence(turn["text"], "text"), ""])
        elif turn["text"]:
            out.extend([prose(turn["text"]), ""])
        for call in turn["calls"]:
            out.extend([*_call(call), ""])
        if turn["orphan"]:
            out.extend(
                [
                    f"*orphan result for {_inline(turn['orphan']['call_id'] or 'no id')}*",
                    fence(turn["orphan"]["output"] or "", "text"),
                    "",
                ]
            )
    counts = view["hidden_counts"]
    if counts:
        kept = ", ".join(f"{n} {k}" for k, n in counts.items())
        out.extend([f"*Rows kept but not replayed: {kept}.*", ""])
    for stray in view["strays"]:
        out.append(f"- unreadable: {_inline(stray['where'])}: {_escape_span(stray['reason'])}")
    return "\n".join(out).rstrip() + "\n"
