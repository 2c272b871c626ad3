"""Which sessions a listing shows: the filters of ``trail list``, over the model only."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from hermes_trail.errors import TrailError
from hermes_trail.model import Session

_RELATIVE = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(value: str, now: datetime | None = None) -> datetime:
    """A moment from ``7d``/``12h``/``30m``, an ISO date or an ISO time (naive means UTC).

    :raises TrailError: for anything else, saying what is accepted.
    """
    now = now or datetime.now(UTC)
    match = _RELATIVE.match(value)
    if match:
        return now - timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise TrailError(
            f"--since {value!r}: give a duration like 7d, 12h, 30m or a date like 2026-11-01"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def since_timestamp(value: str | None, option: str = "--since") -> float | None:
    """:func:`parse_since` as epoch seconds for the option named ``option`` (``None`` when not given).

    :raises TrailError: naming ``option`` in its message.
    """
    if not value:
        return None
    try:
        return parse_since(value).timestamp()
    except TrailError as exc:
        raise TrailError(str(exc).replace("--since", option)) from None


@dataclass(frozen=True, slots=True)
class SessionFilter:
    """The filters a listing applies; ``None`` means "any"."""

    profile: str | None = None
    project: str | None = None
    source: str | None = None
    since: datetime | None = None

    def accepts(self, session: Session) -> bool:
        if self.profile is not None and session.profile != self.profile:
            return False
        if self.source is not None and (session.source or "") != self.source:
            return False
        if self.project is not None and not project_matches(session.project, self.project):
            return False
        if self.since is not None:
            last = session.last_activity_at or session.started_at
            if last is None or last < self.since:
                return False
        return True


def project_matches(project: str, wanted: str) -> bool:
    """A project matches its full path, or a trailing part of it (``trail`` matches ``/src/trail``)."""
    project, wanted = project.rstrip("/"), wanted.rstrip("/")
    return project == wanted or project.endswith("/" + wanted)


def unknown_values(sessions: list[Session], flt: SessionFilter) -> str | None:
    """What is wrong when ``--profile`` or ``--source`` names something no session has: the message,
    with the known values; ``None`` when both are known (or not given). An empty history knows none."""
    if not sessions:
        return None
    for option, wanted, values in (
        ("--profile", flt.profile, {s.profile for s in sessions}),
        ("--source", flt.source, {s.source or "" for s in sessions}),
    ):
        if wanted is not None and wanted not in values:
            known = ", ".join(sorted(v for v in values if v)) or "none"
            return f"no session has {option} {wanted!r}; known: {known}"
    return None


def select(sessions: list[Session], flt: SessionFilter, limit: int | None) -> list[Session]:
    """Sessions that pass the filter, in the given order, at most ``limit`` (``None`` or 0: all)."""
    chosen = [s for s in sessions if flt.accepts(s)]
    return chosen[:limit] if limit else chosen
