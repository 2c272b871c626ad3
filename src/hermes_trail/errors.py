"""Every exception hermes-trail raises, under one base class so a surface can map them in one place."""

from __future__ import annotations


class TrailError(Exception):
    """Base class: the message is one line a person can act on."""


class StoreUnreadable(TrailError):
    """A store could not be opened or is not a Hermes store; the other stores are still read."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


class StoreLocked(StoreUnreadable):
    """A writer held the store locked for longer than the reader waits."""


class SessionNotFound(TrailError):
    """No session matches the id or prefix given."""

    def __init__(self, query: str) -> None:
        super().__init__(f"no session matches {query!r}")
        self.query = query


class AmbiguousSession(TrailError):
    """A prefix or bare id names more than one session; the candidates are listed."""

    def __init__(self, query: str, candidates: list[str]) -> None:
        super().__init__(f"{query!r} names {len(candidates)} sessions: " + ", ".join(candidates))
        self.query = query
        self.candidates = candidates


class ResumeRefused(TrailError):
    """Hermes cannot be made to reopen a session (its profile's name, its home); ``hint`` says what to run
    instead."""

    def __init__(self, message: str, hint: str) -> None:
        super().__init__(message)
        self.hint = hint
