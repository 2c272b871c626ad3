"""What a tool result keeps as its output (issue 3; stub)."""

from __future__ import annotations

from typing import Any


def kept_output(text: str) -> tuple[str, Any]:
    """The text a result keeps, and its decoded JSON value when it is one."""
    return text, None
