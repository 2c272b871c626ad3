"""What a search may return: the filters every question about the index takes (a project, a profile, a
source, a time window, a role, a tool, a session). Apart from the search itself, so what only passes filters
on (the meaning server's client, the surfaces) does not import the search."""

from __future__ import annotations

from typing import Any, ClassVar

from hermes_trail.model import _Frozen


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class SearchFilters(_Frozen):
    """Which docs a search may return. ``None`` means any; times are epoch seconds."""

    _fields: ClassVar[tuple[str, ...]] = (
        "project",
        "profile",
        "source",
        "since",
        "until",
        "role",
        "tool",
        "session",
        "include_rewound",
    )
    __slots__ = _fields
    project: str | None
    profile: str | None
    source: str | None
    since: float | None
    until: float | None
    role: str | None
    tool: str | None
    session: str | None
    include_rewound: bool

    def __init__(
        self,
        project: str | None = None,
        profile: str | None = None,
        source: str | None = None,
        since: float | None = None,
        until: float | None = None,
        role: str | None = None,
        tool: str | None = None,
        session: str | None = None,
        include_rewound: bool = False,
    ) -> None:
        object.__setattr__(self, "project", project)
        object.__setattr__(self, "profile", profile)
        object.__setattr__(self, "source", source)
        object.__setattr__(self, "since", since)
        object.__setattr__(self, "until", until)
        object.__setattr__(self, "role", role)
        object.__setattr__(self, "tool", tool)
        object.__setattr__(self, "session", session)
        object.__setattr__(self, "include_rewound", include_rewound)

    def as_dict(self) -> dict[str, Any]:
        """The filters by name: what the meaning server's client sends, and ``SearchFilters(**…)`` reads."""
        return dict(zip(self._fields, self._values(), strict=True))

    def clauses(self, mark: str = "?") -> tuple[list[str], list[Any]]:
        """The filters as SQL conditions on the docs (``d``) and sessions (``s``) of an index, with their
        parameters, ``mark`` being the driver's placeholder (``?`` for SQLite, ``%s`` for PostgreSQL's
        shared index): one reading of each filter for every index that answers a search."""
        clauses: list[str] = []
        params: list[Any] = []
        if not self.include_rewound:
            clauses.append(f"d.rewound = {mark}")
            params.append(False)
        if self.project:  # the project, a directory under it (Hermes run in its tests/), or its end ('api')
            escaped = f"LIKE {mark} ESCAPE '\\'"
            clauses.append(f"(s.project = {mark} OR s.project {escaped} OR s.project {escaped})")
            wanted = self.project.strip().rstrip("/") or "/"
            under = like(wanted if wanted.endswith("/") else wanted + "/")
            params += [wanted, under + "%", "%/" + like(wanted)]
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


# What ``role`` may be (:meth:`SearchFilters.clauses`): a turn's role, or the kind of doc it is indexed as
# (a prompt, a reply, a command, an edit, a tool's output), or their other names.
ROLES = frozenset({
    "user", "prompt", "assistant", "reply", "tool", "output", "tool-output", "command", "edit", "summary",
    "system", "notice", "memory", "skill",
})  # fmt: skip


def active_in(mark: str = "?") -> str:
    """The condition that a session (``s``) was active in a window: started before its end and last active
    after its start (bound in that order: ``until``, then ``since``), ``mark`` being the driver's
    placeholder. The local index's and the shared one's, for a time's conversations and a place's."""
    return f"coalesce(s.started, s.last_activity) < {mark} AND coalesce(s.last_activity, s.started) >= {mark}"


def like(text: str) -> str:
    """``text`` as a LIKE pattern that matches it literally (with ``ESCAPE '\\'``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# The names of the tools any call used, in the local index (``schema.LATER_PARTS``): a handful of rows
# where the docs' own ``tool`` has no index (every doc read, 2.5 s at a million messages).
LOCAL_TOOLS = "SELECT name FROM tools"
HAS_TOOLS = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'tools'"  # an index made before it

# The filters on sessions a person types a name for, with how an empty answer names each and the column
# whose values it lists (none for a project, a path's end, or a session id's start).
_NAMED = (("project", "project", None), ("profile", "profile", "profile"), ("source", "source", "source"))


def unmatched(
    conn: Any, filters: SearchFilters, mark: str = "?", table: str = "sessions", tools: str = LOCAL_TOOLS
) -> list[str]:
    """For a search that found nothing: each session filter of ``filters`` that no session of the index
    at ``conn`` matches at all (SQLite; the shared index's PostgreSQL with ``mark`` ``%s`` and its
    ``table`` of sessions), a tool no call used (``tools``: the query of the tool names there are) and a
    window no session was active in, said as a person reads it (``no session has profile 'wrok'
    (profiles: default, work)``), so that a typo is not taken for an empty history."""
    said: list[str] = []
    if filters.tool:
        if tools == LOCAL_TOOLS and not conn.execute(HAS_TOOLS).fetchone():
            tools = "SELECT DISTINCT tool FROM docs"  # made by a later sync (``schema.add_later_parts``)
        names = sorted(str(row[0]) for row in conn.execute(tools) if row[0])
        if filters.tool not in names:
            known = f" ({_said_known('tool', names)})" if names else ": no call used any"
            said.append(f"no call used tool {filters.tool!r}{known}")

    if filters.since is not None or filters.until is not None:
        said += _outside(conn, filters, table)

    def none_match(**one: Any) -> bool:
        clauses, params = SearchFilters(include_rewound=True, **one).clauses(mark)
        found = conn.execute(f"SELECT 1 FROM {table} s WHERE {' AND '.join(clauses)} LIMIT 1", params)
        return found.fetchone() is None

    for field, name, column in _NAMED:
        value = getattr(filters, field)
        if not value or not none_match(**{field: value}):
            continue
        known = ""
        if field == "project":
            known = _projects_like(conn, str(value), table)
        elif column is not None:
            sql = f"SELECT DISTINCT {column} FROM {table} ORDER BY 1 LIMIT 21"
            values = [str(r[0]) for r in conn.execute(sql) if r[0]]
            known = f" ({_said_known(name, values)})" if values else ""
        said.append(f"no session has {name} {value!r}{known}")
    if filters.session and none_match(session=filters.session):
        said.append(f"no session id is or starts with {filters.session!r}")
    return said


def _outside(conn: Any, filters: SearchFilters, table: str) -> list[str]:
    """A window (``--since``, ``--until``) wholly after the last session's activity or before the first
    session began, said with when that was: the history is not empty, it is older (or newer)."""
    first, last = conn.execute(
        f"SELECT min(coalesce(s.started, s.last_activity)), max(coalesce(s.last_activity, s.started)) "
        f"FROM {table} s WHERE s.kind NOT IN ('memory', 'skill')"  # Hermes' files: when last written
    ).fetchone()
    from hermes_trail.formatting import minute

    if filters.since is not None and last is not None and last < filters.since:
        return [f"no session was active since {minute(filters.since)} (the last: {minute(float(last))})"]
    if filters.until is not None and first is not None and first >= filters.until:
        return [f"no session was active before {minute(filters.until)} (the first: {minute(float(first))})"]
    return []


def _said_known(name: str, values: list[str], most: int = 20) -> str:
    """The values there are of a filter, at most ``most`` (``profiles: default, work``)."""
    return f"{name}s: " + ", ".join(values[:most]) + (", ..." if len(values) > most else "")


def _projects_like(conn: Any, value: str, table: str) -> str:
    """The projects of the index whose name has ``value`` or is spelled near it
    (:func:`~hermes_trail.listing.said_projects`), said after a ``--project`` no session matches."""
    from hermes_trail.listing import said_projects

    projects = (r[0] for r in conn.execute(f"SELECT DISTINCT project FROM {table}"))
    return said_projects(value, projects)
