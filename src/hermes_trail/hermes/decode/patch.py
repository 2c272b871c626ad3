"""Hermes' V4A patch format, parsed as its own parser reads it (issue 3; stub)."""

from __future__ import annotations

from hermes_trail.model import FileEdit


def parse_v4a(text: str) -> list[FileEdit]:
    """The file edits a V4A patch describes."""
    return []
