"""Session classes: messaging, Bot Chat, cron, imported, worktree (issue 3; stub)."""

from __future__ import annotations

from typing import Any

from hermes_trail.model import Session


def classify_session(session: Session, row: dict[str, Any]) -> None:
    """Set ``kind``, ``messaging``, ``imported``, ``worktree`` and ``yolo`` from the session row."""
