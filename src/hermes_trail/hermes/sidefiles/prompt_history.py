"""``.hermes_history``: every line typed into the classic CLI or the TUI, slash commands included.

The file is prompt_toolkit's ``FileHistory`` format (3.0.52, the version Hermes pins), which both front ends
append to: per entry a blank line, ``# <time>``, and the entry's lines each prefixed ``+``. The two writers
stamp the time differently, and the number of fraction digits tells them apart:

- the classic CLI (prompt_toolkit's ``store_string``) writes ``datetime.now()``: host-local wall-clock time
  with six fraction digits (none when the microsecond is zero), no zone;
- the TUI (``ui-tui/src/lib/history.ts``) writes ``new Date().toISOString()`` without ``T``/``Z``: UTC with
  three fraction digits, and trims the entry first.

prompt_toolkit's own reader takes any run of ``+`` lines as an entry and any other line as a separator, so a
line that is neither blank, ``#`` nor ``+`` is silently lost to Hermes; here it is a bad line. No session id,
project or profile is written, and no delete touches the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from pathlib import Path

from hermes_trail.hermes.sidefiles.common import line_stray, local_to_utc, read_text
from hermes_trail.model import Stray

WRITER_TUI = "tui"
WRITER_CLI = "cli"
_STAMP = re.compile(r"\A(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\s*\Z")


@dataclass(slots=True)
class HistoryEntry:
    """One typed entry: its text (lines joined by newlines), the line its ``#`` stamp is on, and its time.

    :param writer: ``tui`` (UTC, milliseconds), ``cli`` (host-local, microseconds) or ``None`` when the
        stamp is missing or in neither form.
    """

    text: str
    line: int
    stamp: str | None
    time: datetime | None
    writer: str | None

    @property
    def is_command(self) -> bool:
        """A slash command (``/model``, ``/yolo``, ``/snapshot``): no store repeats it."""
        return self.text.startswith("/")


def parse_stamp(stamp: str, zone: tzinfo | None) -> tuple[datetime | None, str | None]:
    """The UTC time of a ``#`` stamp and which writer wrote it."""
    match = _STAMP.match(stamp)
    if match is None:
        return None, None
    try:
        base = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S")
    except ValueError:
        return None, None
    digits = match.group(2) or ""
    moment = base.replace(microsecond=int(digits.ljust(6, "0"))) if digits else base
    if len(digits) == 3:
        return moment.replace(tzinfo=UTC), WRITER_TUI
    if len(digits) in (0, 6):
        return local_to_utc(moment, zone), WRITER_CLI
    return local_to_utc(moment, zone), None


def read_prompt_history(path: Path, zone: tzinfo | None = None) -> tuple[list[HistoryEntry], list[Stray]]:
    """Every entry of a history file in file order, and each line that is not a FileHistory line.

    :param zone: the zone of the classic CLI's host-local stamps (``None``: this host's zone).
    """
    text, problem = read_text(path)
    if text is None:
        return [], [problem] if problem else []
    entries: list[HistoryEntry] = []
    strays: list[Stray] = []
    stamp: str | None = None
    stamp_line = 0
    lines: list[str] = []
    first_line = 0

    def flush() -> None:
        nonlocal stamp, stamp_line, lines
        if lines:
            moment, writer = parse_stamp(stamp, zone) if stamp is not None else (None, None)
            entries.append(HistoryEntry("\n".join(lines), stamp_line or first_line, stamp, moment, writer))
            stamp, stamp_line = None, 0
        lines = []

    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if line.startswith("+"):
            if not lines:
                first_line = number
            lines.append(line[1:])
            continue
        flush()
        if line.startswith("#"):
            stamp, stamp_line = line[1:].strip(), number
        elif line.strip():
            strays.append(line_stray(path, number, "unparseable line (not a FileHistory line)", line))
            stamp, stamp_line = None, 0
    flush()
    return entries, strays
