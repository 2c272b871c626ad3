"""Files read and edited by ``read_file``, ``write_file`` and ``patch`` calls (issue 3; stub)."""

from __future__ import annotations

from hermes_trail.model import ToolCall


def interpret_files(call: ToolCall) -> None:
    """Set ``call.reads`` and ``call.edits``."""
