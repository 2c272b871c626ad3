"""``config.yaml``: the standing ``command_allowlist``, and the ``timezone`` Hermes' clock uses.

An "always" answer to an approval prompt appends the command's pattern to the top-level
``command_allowlist`` (``tools/approval.py``), which Hermes' round-trip YAML writer saves as a block list:
``command_allowlist:`` then one ``- <scalar>`` per entry, plain, ``'single'`` (``''`` for a quote) or
``"double"`` quoted. Only that shape is read, line by line, without a YAML library: anything else under the
key (a flow list, a nested mapping, an anchor, a block scalar) stops the reading with one problem naming
the line, and the entries before it are kept. ``[]`` (the writer's empty list) is an empty list.

``timezone`` is read the same way, a top-level scalar, because cron run files are named in that zone.

The file is also where MCP server ``env`` values and headers live, so nothing else in it is read or shown:
a problem names only a line under ``command_allowlist``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from hermes_trail.hermes.sidefiles.common import read_text

_KEY = re.compile(r"\A(?P<key>[A-Za-z_][\w-]*)\s*:(?P<value>.*)\Z")
_ITEM = re.compile(r"\A(?P<indent>\s*)-(?:\s+(?P<value>.*))?\Z")
_DOUBLE_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    '"': '"',
    "\\": "\\",
    "/": "/",
    "0": "\0",
    " ": " ",
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "f": "\f",
    "v": "\v",
}
# Leading characters that start a YAML construct other than a plain scalar.
_NOT_PLAIN = tuple("[]{}&*!|>%@`")


@dataclass(slots=True)
class Allowlist:
    """The entries of ``command_allowlist`` (each with its line), and the problem that stopped the reading."""

    present: bool = False
    entries: list[tuple[str, int]] = field(default_factory=list)
    problem: str | None = None  # "<line as written>: <what is wrong>"
    problem_line: int | None = None


def scalar(text: str) -> tuple[str | None, str | None]:
    """One YAML scalar as Hermes' writer emits them, or ``None`` and why it is not one."""
    text = text.strip()
    if not text:
        return None, "an empty entry"
    if text[0] == "'":
        end = len(text) - 1
        if end < 1 or text[end] != "'":
            return None, "an unterminated single-quoted scalar"
        body = text[1:end]
        if re.search(r"(?<!')'(?!')", body.replace("''", "")):
            return None, "a single-quoted scalar with a stray quote"
        return body.replace("''", "'"), None
    if text[0] == '"':
        return _double(text)
    if text.startswith(_NOT_PLAIN) or text.startswith(("- ", "? ", ": ")) or text in ("-", "?", "~"):
        return None, "not a plain scalar"
    if re.search(r":\s|:\Z", text):
        return None, "a mapping, not a scalar"
    comment = re.search(r"\s#", text)
    return (text[: comment.start()] if comment else text).rstrip(), None


def _double(text: str) -> tuple[str | None, str | None]:
    out: list[str] = []
    i = 1
    while i < len(text):
        char = text[i]
        if char == '"':
            rest = text[i + 1 :].strip()
            if rest and not rest.startswith("#"):
                return None, "text after a double-quoted scalar"
            return "".join(out), None
        if char == "\\":
            if i + 1 >= len(text):
                break
            code = text[i + 1]
            if code in _DOUBLE_ESCAPES:
                out.append(_DOUBLE_ESCAPES[code])
                i += 2
                continue
            width = {"x": 2, "u": 4, "U": 8}.get(code)
            digits = text[i + 2 : i + 2 + width] if width else ""
            if not width or len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                return None, f"an unknown escape \\{code} in a double-quoted scalar"
            out.append(chr(int(digits, 16)))
            i += 2 + width
            continue
        out.append(char)
        i += 1
    return None, "an unterminated double-quoted scalar"


def _top_level(lines: list[str], key: str) -> tuple[int, str] | None:
    for index, line in enumerate(lines):
        match = _KEY.match(line)
        if match and match["key"] == key:
            return index, match["value"]
    return None


def read_allowlist(path: Path) -> tuple[Allowlist, str | None]:
    """The allowlist of a ``config.yaml``, and why the file could not be read at all."""
    text, stray = read_text(path)
    if text is None:
        return Allowlist(), stray.reason if stray else "unreadable file"
    return parse_allowlist(text.split("\n")), None


def parse_allowlist(lines: list[str]) -> Allowlist:
    """The ``command_allowlist`` block of a config's lines (see the module docstring)."""
    found = Allowlist()
    start = _top_level(lines, "command_allowlist")
    if start is None:
        return found
    found.present = True
    index, value = start
    inline = value.split(" #", 1)[0].strip()
    if inline in ("[]", "null", "~"):
        return found
    if inline:
        found.problem, found.problem_line = f"{lines[index].strip()}: not a block list", index + 1
        return found
    for number, line in enumerate(lines[index + 1 :], start=index + 2):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if line[:1] not in (" ", "\t", "-"):
            break  # the next top-level key: the block is over
        item = _ITEM.match(line)
        if item is None:
            found.problem, found.problem_line = f"{stripped}: not a '- <entry>' line", number
            return found
        entry, problem = scalar(item["value"] or "")
        if entry is None:
            found.problem, found.problem_line = f"{stripped}: {problem}", number
            return found
        found.entries.append((entry, number))
    return found


def read_timezone(path: Path) -> str | None:
    """The top-level ``timezone`` of a ``config.yaml``, when it is a scalar."""
    text, _ = read_text(path)
    if text is None:
        return None
    start = _top_level(text.split("\n"), "timezone")
    if start is None:
        return None
    value, _problem = scalar(start[1])
    return value.strip() if value and value.strip() else None
