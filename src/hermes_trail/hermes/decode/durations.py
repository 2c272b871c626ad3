"""Per-tool durations and a session's active time (issue 3; stub)."""

from __future__ import annotations

from hermes_trail.model import Session


def apply(session: Session) -> None:
    """Set each call's ``duration`` and the session's ``active_seconds``."""
