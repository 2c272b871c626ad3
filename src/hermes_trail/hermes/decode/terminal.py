"""``terminal`` calls as commands with exit codes and permission outcomes (issue 3; stub)."""

from __future__ import annotations

from hermes_trail.model import ToolCall


def interpret_terminal(call: ToolCall, yolo: bool = False) -> None:
    """Set ``call.command`` and ``call.permission`` from a ``terminal`` call and its result."""
