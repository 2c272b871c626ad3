"""Plain terminal output without rich: width, cell widths, styles that honour ``NO_COLOR``, and tables.

Rich costs about 45 ms to import, more than the rest of ``trail list``; the session table and the other
one-screen listings need only columns cut to fit, so they are drawn here, and rich stays for the replay.
Every line ends at its last visible character (no padding), and nothing here writes an escape sequence
unless standard output is a terminal that wants them.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
import unicodedata
from collections.abc import Sequence
from typing import TextIO

from hermes_trail.styled import Block, Rule

DEFAULT_WIDTH = 80
ELLIPSIS = "…"

_SGR = re.compile(r"\x1b\[[0-9;]*m")
_STYLES = {"bold": "1", "dim": "2", "yellow": "33", "bold yellow": "1;33", "red": "31", "green": "32"}


def width() -> int:
    """The terminal's width in columns: ``COLUMNS`` when it is a sensible number, else the terminal's
    own, else 80 (a ``COLUMNS`` of 0 or 1, or a pipe)."""
    value = os.environ.get("COLUMNS", "")
    if value.isdigit() and int(value) >= 20:
        return int(value)
    if value:  # set but unusable (0, 1, junk): the documented fallback, not the terminal's guess
        return DEFAULT_WIDTH
    size = shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    return size if size >= 20 else DEFAULT_WIDTH


def color_enabled(stream: object = None) -> bool:
    """Whether to write escape sequences: never with ``NO_COLOR`` set (any value, https://no-color.org),
    ``TERM=dumb`` or a stream that is not a terminal; ``FORCE_COLOR`` turns them on anyway."""
    if "NO_COLOR" in os.environ:
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    stream = stream if stream is not None else sys.stdout
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def style(text: str, name: str, enabled: bool) -> str:
    """``text`` in a style (``bold``, ``dim``, ``bold yellow``, ...) when styles are enabled."""
    code = _STYLES.get(name)
    if not enabled or not code or not text:
        return text
    return f"\x1b[{code}m{text}\x1b[0m"


def cells(text: str) -> int:
    """How many terminal columns ``text`` takes: wide East Asian characters two, combining marks none, the
    style escapes :func:`style` adds none (text from the history never holds one: ``formatting.safe``)."""
    if "\x1b" in text:
        text = _SGR.sub("", text)
    if text.isascii():
        return len(text)
    total = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        total += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return total


def fit(text: str, room: int) -> str:
    """``text`` cut to ``room`` columns, ending in "…" when cut."""
    if cells(text) <= room:
        return text
    if room <= 0:
        return ""
    out, used = [], 0
    for char in text:
        w = cells(char)
        if used + w > room - 1:
            break
        out.append(char)
        used += w
    return "".join(out).rstrip() + ELLIPSIS


def fit_left(text: str, room: int) -> str:
    """``text`` cut from the left to ``room`` columns, starting with "…" when cut (paths keep their end)."""
    if cells(text) <= room:
        return text
    if room <= 0:
        return ""
    out: list[str] = []
    used = 0
    for char in reversed(text):
        w = cells(char)
        if used + w > room - 1:
            break
        out.append(char)
        used += w
    return ELLIPSIS + "".join(reversed(out))


def pad(text: str, room: int, right: bool = False) -> str:
    gap = max(room - cells(text), 0)
    return " " * gap + text if right else text + " " * gap


def row(cells_: Sequence[str], widths: Sequence[int], right: Sequence[bool], gap: int = 2) -> str:
    """One line of a table: cell ``i`` padded to ``widths[i]`` (right-aligned where ``right[i]``), the
    cells already cut to fit; no trailing spaces."""
    parts = [pad(cell, widths[j], right[j]) for j, cell in enumerate(cells_)]
    return (" " * gap).join(parts).rstrip()


def table(
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    widths: Sequence[int],
    right: Sequence[bool],
    colored: bool,
    gap: int = 2,
) -> list[str]:
    """Lines of a table (:func:`row` each), its header in bold."""
    return [style(row(headers, widths, right, gap), "bold", colored)] + [
        row(r, widths, right, gap) for r in rows
    ]


Segment = tuple[str, str]  # (text, style name or "")


class Printer:
    """Lines of styled segments to standard output, wrapped at the terminal's width with a hanging indent,
    styled only when :func:`color_enabled`."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream: TextIO = stream if stream is not None else sys.stdout
        self.colored = color_enabled(self.stream)
        self.width = width()

    def line(self, *segments: Segment | str, indent: int = 0, hang: int = 2) -> None:
        """One logical line: wrapped at word boundaries, continuation lines indented ``indent + hang``."""
        parts = [(s, "") if isinstance(s, str) else s for s in segments]
        for row in wrap(parts, self.width, indent, hang):
            text = " " * indent + "".join(style(t, name, self.colored) for t, name in row)
            self.stream.write(text.rstrip() + "\n")

    def blank(self) -> None:
        self.stream.write("\n")


def wrap(segments: list[Segment], room: int, indent: int = 0, hang: int = 2) -> list[list[Segment]]:
    """Styled segments as rows of at most ``room`` columns (the first after ``indent``, the rest after
    ``indent + hang``); a word longer than a row is cut across rows. A word is what lies between spaces,
    whatever its styles: a highlighted match inside ``test_forecast`` does not make a place to break."""
    limit = max(room, indent + 10)
    hang = max(min(hang, limit - indent - 10), 0)  # a narrow terminal keeps ten columns for the words
    lead = (" " * hang, "")
    rows: list[list[Segment]] = [[]]
    used = indent
    for word in _styled_words(segments):
        blank = word[0][0].isspace()
        size = sum(cells(text) for text, _ in word)
        if used + size > limit and rows[-1] and not blank:
            rows.append([lead])
            used = indent + hang
        if blank and rows[-1] == [lead]:
            continue  # a continuation row starts at its indent, not with the spaces it broke at
        if blank and used + size > limit:  # the row ends at its last word; what follows starts the next
            if rows[-1]:
                rows.append([lead])
                used = indent + hang
            continue
        while not blank and used + size > limit and size > 1:  # one word wider than a row: cut it
            whole = "".join(text for text, _ in word)
            head = _break_before(whole, fit(whole, limit - used)[:-1] or whole[:1])
            cut, word = _split_segments(word, len(head))
            rows[-1].extend(cut)
            size = sum(cells(text) for text, _ in word)
            rows.append([lead])
            used = indent + hang
        rows[-1].extend(word)
        used += size
    if len(rows) > 1 and rows[-1] == [lead]:  # spaces at the end broke a row for nothing
        rows.pop()
    return rows


def _styled_words(segments: list[Segment]) -> list[list[Segment]]:
    """The segments cut into words and runs of spaces, in order, each a list of its styled pieces: a word
    goes on across segments until a space."""
    out: list[list[Segment]] = []
    for text, name in segments:
        for piece in _words(text):
            if out and not piece.isspace() and not out[-1][-1][0].isspace():
                out[-1].append((piece, name))  # the same word, another style
            else:
                out.append([(piece, name)])
    return out


def _split_segments(word: list[Segment], at: int) -> tuple[list[Segment], list[Segment]]:
    """``word``'s styled pieces cut after its first ``at`` characters."""
    head: list[Segment] = []
    for i, (text, name) in enumerate(word):
        if at < len(text):
            if at:
                head.append((text[:at], name))
            return head, [(text[at:], name), *word[i + 1 :]]
        head.append((text, name))
        at -= len(text)
    return head, []


# What a row may not start with (a comma, a full stop, a closing bracket, a small kana) and not end with
# (an opening bracket): the line-breaking rules of Chinese and Japanese text, which has no spaces to break
# at, so a long run of it is cut wherever the row ends.
_NO_ROW_START = frozenset(
    "、。，．：；？！）」』】〉》〕］｝〙〗〟’”・ー…‥ゝゞヽヾぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮヵヶ,.:;?!)]}"
)
_NO_ROW_END = frozenset("（「『【〈《〔［｛〘〖〝‘“([{")


def _break_before(piece: str, head: str) -> str:
    """Where to cut ``piece``, whose first ``head`` characters fit the row: a character or two earlier when
    the cut would start the next row with a comma or end this one with an opening bracket."""
    cut = len(head)
    for _ in range(2):  # a closing bracket and the comma after it go down together
        if cut > 1 and (piece[cut : cut + 1] in _NO_ROW_START or piece[cut - 1] in _NO_ROW_END):
            cut -= 1
        else:
            break
    return piece[:cut]


def _words(text: str) -> list[str]:
    """``text`` cut into words and the runs of spaces between them, kept in order."""
    out: list[str] = []
    current = ""
    for char in text:
        if (char == " ") != (current[:1] == " ") and current:
            out.append(current)
            current = ""
        current += char
    if current:
        out.append(current)
    return out


def show(printer: Printer, block: Block) -> None:
    """Print one block of a transcript (``styled.py``): a rule across the width, or styled lines with
    their indent (a run's newlines start new lines)."""
    if isinstance(block, Rule):
        title = fit(f" {block.title} ", max(printer.width - 8, 10))
        left = (printer.width - cells(title)) // 2
        right = max(printer.width - left - cells(title), 0)
        printer.stream.write(style("─" * left + title + "─" * right, block.style, printer.colored) + "\n")
        return
    lines: list[list[Segment]] = [[]]
    for text, name in block.runs:
        for i, piece in enumerate(text.split("\n")):
            if i:
                lines.append([])
            if piece:
                lines[-1].append((piece, name))
    for segments in lines:
        if segments:
            printer.line(*segments, indent=block.indent, hang=block.hang)
        else:
            printer.blank()
