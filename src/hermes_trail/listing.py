"""Which sessions a listing shows: the filters of ``trail list``, over the model only."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, Protocol, TypeVar

from hermes_trail.errors import TrailError
from hermes_trail.model import _Frozen


class Listed(Protocol):
    """What the filters read: a :class:`~hermes_trail.model.Session`, or a
    :class:`~hermes_trail.history.Entry` of one not yet decoded (which knows its project once decoded)."""

    @property
    def profile(self) -> str: ...
    @property
    def source(self) -> str | None: ...
    @property
    def project(self) -> str: ...
    @property
    def last_activity_at(self) -> datetime | None: ...
    @property
    def started_at(self) -> datetime | None: ...


L = TypeVar("L", bound=Listed)

_RELATIVE = re.compile(r"^\s*(\d+)\s*([smhdw])\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(value: str, now: datetime | None = None, end: bool = False) -> datetime:
    """A moment from ``7d``/``12h``/``30m``, an ISO date or an ISO time (naive means UTC), or a time said
    as a question says it (``yesterday``, ``last week``, ``3 days ago``, ``monday``, ``gestern``: read by
    :func:`hermes_trail.index.when.span_of`, in local time): its start, or with ``end`` (``--until``) its
    end, so ``--since "last week" --until yesterday`` is last Monday to the end of yesterday. Such words
    were refused, though a question with them in it was read so.

    :raises TrailError: for anything else, saying what is accepted.
    """
    now = now or datetime.now(UTC)
    match = _RELATIVE.match(value)
    if match:
        return now - timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        from hermes_trail.index import when

        span = when.span_of(value, now.timestamp())
        if span is None:
            raise TrailError(
                f"--since {value!r}: give a duration like 7d, 12h, 30m, a date like 2026-11-01 or a time "
                "like yesterday or 'last week'"
            ) from None
        return datetime.fromtimestamp(span[1] if end else span[0], tz=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def since_timestamp(value: str | None, option: str = "--since") -> float | None:
    """:func:`parse_since` as epoch seconds for the option named ``option`` (``None`` when not given): the
    end of a time said in words for ``--until``.

    :raises TrailError: naming ``option`` in its message.
    """
    if not value:
        return None
    try:
        return parse_since(value, end="until" in option).timestamp()
    except TrailError as exc:
        raise TrailError(str(exc).replace("--since", option)) from None


def window_timestamps(
    since: str | None, until: str | None, names: tuple[str, str] = ("--since", "--until")
) -> tuple[float | None, float | None]:
    """``since`` and ``until`` as epoch seconds (:func:`since_timestamp`), the options named ``names``.

    :raises TrailError: either cannot be read, or ``since`` is after ``until``: no time is in both, and
        "No match" would take the swapped bounds for an empty history.
    """
    start, end = since_timestamp(since, names[0]), since_timestamp(until, names[1])
    if start is not None and end is not None and start > end:
        from hermes_trail.formatting import minute

        raise TrailError(
            f"{names[0]} {since!r} ({minute(start)}) is after {names[1]} {until!r} ({minute(end)}): "
            "no time is in both; swap them"
        )
    return start, end


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class SessionFilter(_Frozen):
    """The filters a listing applies; ``None`` means "any"."""

    _fields: ClassVar[tuple[str, ...]] = ("profile", "project", "source", "since")
    __slots__ = _fields
    profile: str | None
    project: str | None
    source: str | None
    since: datetime | None

    def __init__(
        self,
        profile: str | None = None,
        project: str | None = None,
        source: str | None = None,
        since: datetime | None = None,
    ) -> None:
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "project", project)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "since", since)

    def accepts(self, session: Listed) -> bool:
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
    """A project matches its full path, a directory above it (``/src`` matches ``/src/trail/tests``), or a
    trailing part of it (``trail`` matches ``/src/trail``): as search, ``how`` and ``fix`` read
    ``--project``."""
    project, wanted = project.rstrip("/"), wanted.strip().rstrip("/")
    if not wanted:
        return project.startswith("/") or project == ""
    return project == wanted or project.startswith(wanted + "/") or project.endswith("/" + wanted)


def unknown_values(sessions: Sequence[Listed], flt: SessionFilter) -> str | None:
    """What is wrong when ``--profile`` or ``--source`` names something no session has: the message,
    with the known values; ``None`` when both are known (or not given). An empty history knows none."""
    if not sessions:
        return None
    for option, wanted in (("--profile", flt.profile), ("--source", flt.source)):
        if wanted is None:  # gathered only for an option given: a page reads its profiles only then
            continue
        values = (
            {s.profile for s in sessions} if option == "--profile" else {s.source or "" for s in sessions}
        )
        if wanted not in values:
            known = ", ".join(sorted(v for v in values if v)) or "none"
            return f"no session has {option} {wanted!r}; known: {known}"
    return None


def _last_name(project: str) -> str:
    """A project's last folder (``billing-service`` of ``~/work/billing-service/``), either separator."""
    return re.split(r"[\\/]", project.rstrip("/\\"))[-1]


def projects_named(value: str, projects: Iterable[str | None]) -> list[str]:
    """The ``projects`` whose last name has ``value`` in it (their path, when ``value`` has a ``/``),
    sorted: said after a ``--project`` no session matches. ``billing`` is not ``~/work/billing-service``,
    which the filter takes whole or by its end, and a person who typed it wants the name to type."""
    wanted = value.strip().strip("/").casefold()
    if not wanted:
        return []
    found = set()
    for project in projects:
        if not project:
            continue
        name = project if "/" in wanted else _last_name(project)
        if wanted in name.casefold():
            found.add(project)
    return sorted(found)


def last_active_said(
    sessions: Iterable[Any], profile: str | None, project: str | None, source: str | None, since: str
) -> str | None:
    """After a listing or count that ``--since`` left empty: when the last of ``sessions`` that pass the
    other filters was active, as a sentence (``None`` when none passes them): a history whose newest
    session is older than the window is not an empty one."""
    others = SessionFilter(profile=profile, project=project, source=source)
    times = [t for s in sessions if others.accepts(s) and (t := s.last_activity_at or s.started_at)]
    if not times:
        return None
    from hermes_trail.formatting import minute

    return f"No session was active since {since!r}; the last was active {minute(max(times))}."


def projects_spelled_near(value: str, projects: Iterable[str | None]) -> list[str]:
    """The ``projects`` whose last name is spelled near ``value`` (``webshp`` for ``~/src/webshop``), sorted:
    said after a ``--project`` no session matches and no project's name has."""
    from difflib import get_close_matches

    wanted = value.strip().strip("/").casefold()
    named: dict[str, set[str]] = {}
    for project in projects:
        if project:
            named.setdefault(_last_name(project).casefold(), set()).add(project)
    if not wanted or "/" in wanted:
        return []
    return sorted(p for name in get_close_matches(wanted, list(named), n=5, cutoff=0.75) for p in named[name])


def said_projects(value: str, projects: Iterable[str | None]) -> str:
    """The projects of ``projects`` a ``--project value`` no session matches may have meant, as the end of
    a sentence (empty for none), at most five named: those whose name has it (:func:`projects_named`),
    else those whose name is spelled near it."""
    projects = list(projects)
    found, how = projects_named(value, projects), "whose name has it"
    if not found:
        found, how = projects_spelled_near(value, projects), "named like it"
    shown = ", ".join(found[:5]) + (", ..." if len(found) > 5 else "")
    return f" (projects {how}: {shown})" if shown else ""


def select(sessions: Sequence[L], flt: SessionFilter, limit: int | None) -> list[L]:
    """Sessions that pass the filter, in the given order, at most ``limit`` (``None`` or 0: all)."""
    chosen = [s for s in sessions if flt.accepts(s)]
    return chosen[:limit] if limit else chosen
