"""What a search may return: the filters every question about the index takes (a project, a profile, a
source, a time window, a role, a tool, a session). Apart from the search itself, so what only passes filters
on (the meaning server's client, the surfaces) does not import the search."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Which docs a search may return. ``None`` means any; times are epoch seconds."""

    project: str | None = None
    profile: str | None = None
    source: str | None = None
    since: float | None = None
    until: float | None = None
    role: str | None = None
    tool: str | None = None
    session: str | None = None
    include_rewound: bool = False
