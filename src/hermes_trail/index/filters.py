"""What a search may return: the filters every question about the index takes (a project, a profile, a
source, a time window, a role, a tool, a session). Apart from the search itself, so what only passes filters
on (the meaning server's client, the surfaces) does not import the search."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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

    def clauses(self, mark: str = "?") -> tuple[list[str], list[Any]]:
        """The filters as SQL conditions on the docs (``d``) and sessions (``s``) of an index, with their
        parameters, ``mark`` being the driver's placeholder (``?`` for SQLite, ``%s`` for PostgreSQL's
        shared index): one reading of each filter for every index that answers a search."""
        clauses: list[str] = []
        params: list[Any] = []
        if not self.include_rewound:
            clauses.append(f"d.rewound = {mark}")
            params.append(False)
        if self.project:
            clauses.append(f"(s.project = {mark} OR s.project LIKE {mark} ESCAPE '\\')")
            wanted = self.project.rstrip("/")
            params += [wanted, "%/" + like(wanted)]
        for column, value in (("s.profile", self.profile), ("s.source", self.source), ("d.tool", self.tool)):
            if value:
                clauses.append(f"{column} = {mark}")
                params.append(value)
        if self.since is not None:
            clauses.append(f"d.time >= {mark}")
            params.append(self.since)
        if self.until is not None:
            clauses.append(f"d.time < {mark}")
            params.append(self.until)
        if self.role:
            if self.role in ("tool", "output", "tool-output"):
                clauses.append("d.role = 'tool'")
            elif self.role in ("prompt", "user"):
                clauses.append("d.kind = 'prompt'")
            else:
                clauses.append(f"(d.role = {mark} OR d.kind = {mark})")
                params += [self.role, self.role]
        if self.session:
            clauses.append(f"(s.session_id = {mark} OR s.session_id LIKE {mark} ESCAPE '\\')")
            params += [self.session, like(self.session) + "%"]
        return clauses, params


def like(text: str) -> str:
    """``text`` as a LIKE pattern that matches it literally (with ``ESCAPE '\\'``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
