"""How a session relates to its parent, as Hermes tells it (issue 3; stub)."""

from __future__ import annotations

from hermes_trail.model import Session


def classify(session: Session, parent: Session | None) -> tuple[str, bool]:
    """``(relation, marked)``: root, continuation, branch, reset, delegate or tool."""
    return ("root" if not session.parent_id else "delegate"), False


def link(sessions: list[Session]) -> None:
    """Set every session's ``relation``, ``children`` and continuation ``chain`` within one store."""
    by_id = {s.id: s for s in sessions}
    for session in sessions:
        session.relation, session.relation_marked = classify(session, by_id.get(session.parent_id or ""))
