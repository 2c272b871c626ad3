"""Compaction: summaries, archived runs and the copies an in-place compaction writes (issue 3; stub)."""

from __future__ import annotations

from hermes_trail.model import Session


def apply(session: Session, has_compacted_column: bool) -> None:
    """Mark summaries, fold compaction copies into ``hidden`` and count compaction events."""
