"""The shared index's rows as search hits: which tables, which columns, a doc row and its session as a
:class:`FleetHit` (the local hit and the host that pushed it), hits grouped into conversations. What the
shared index's search and its meaning pass read alike."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hermes_trail.fleet import schema
from hermes_trail.index.filters import SearchFilters
from hermes_trail.index.results import Conversation, Hit

if TYPE_CHECKING:
    import psycopg


class FleetHit(Hit):
    """A hit of the shared index: the local hit's fields, the host it was pushed from, and the command
    that resumes it there (made on that host when it pushed)."""

    # Written out on Hit (a record, as the model's classes are, not a dataclass): Hit's fields, then these.
    _fields = (*Hit._fields, "host", "resume_command")
    __slots__ = ("host", "resume_command")
    host: str
    resume_command: str

    def __init__(self, *args: Any, host: str = "", resume_command: str = "", **kwargs: Any) -> None:
        Hit.__init__(self, *args, **kwargs)
        self.host = host
        self.resume_command = resume_command

    @property
    def resume(self) -> str:
        """The command that reopens the conversation in Hermes, on its host (empty when there is none)."""
        return self.resume_command


_D = f"{schema.SCHEMA}.docs"


_S = f"{schema.SCHEMA}.sessions"


_DOC_COLUMNS = "d.id, d.sess, d.row, d.part, d.role, d.kind, d.tool, d.time, d.exit_code, d.path, d.rewound"


_SESSION_COLUMNS = "id, host, store, session_id, ref, profile, project, source, kind, root, title, resume"


def _where(filters: SearchFilters, hosts: list[str] | None) -> tuple[list[str], list[Any]]:
    """The filters as SQL on ``d`` (docs) and ``s`` (sessions), as the local search applies them
    (:meth:`SearchFilters.clauses`), and the hosts asked for."""
    clauses, params = filters.clauses("%s")
    if hosts:
        clauses.insert(0, "d.host = ANY(%s)")
        params.insert(0, list(hosts))
    return clauses, params


def _conversations(conn: psycopg.Connection[Any], sessions: list[int]) -> int:
    """How many conversations (continuation chains) these sessions make."""
    sql = f"SELECT count(*) FROM (SELECT DISTINCT host, store, root FROM {_S} WHERE id = ANY(%s)) c"
    row = conn.execute(sql, (sessions,)).fetchone()
    return int(row[0]) if row else 0


def _sessions(conn: psycopg.Connection[Any], ids: set[int]) -> dict[int, tuple[Any, ...]]:
    if not ids:
        return {}
    sql = f"SELECT {_SESSION_COLUMNS} FROM {_S} WHERE id = ANY(%s)"
    return {int(r[0]): r[1:] for r in conn.execute(sql, (list(ids),))}


def _hit(doc: tuple[Any, ...], session: tuple[Any, ...], score: float) -> FleetHit:
    """A hit from a row of :data:`_DOC_COLUMNS` and one of :data:`_SESSION_COLUMNS` (without its id)."""
    host, store, session_id, ref, profile, project, source, kind, root, title, resume = session
    row, part, role, doc_kind, tool, at, exit_code, path, rewound = doc[2:11]
    return FleetHit(
        doc=doc[0],
        store=store,
        session_id=session_id,
        ref=ref,
        profile=profile,
        project=project,
        source=source,
        session_kind=kind,
        root=root,
        title=title,
        row=row,
        part=part,
        role=role,
        kind=doc_kind,
        tool=tool,
        time=at,
        exit_code=exit_code,
        path=path,
        rewound=bool(rewound),
        score=score,
        host=host,
        resume_command=resume,
    )


def _group(hits: list[FleetHit]) -> dict[tuple[str, str], Conversation]:
    """Hits by conversation (a continuation chain), a conversation of each host apart: its store key is
    ``host`` + store, so two hosts' stores at the same path stay two."""
    groups: dict[tuple[str, str], Conversation] = {}
    for hit in hits:
        key = (f"{hit.host}\x00{hit.store}", hit.root)
        groups.setdefault(key, Conversation(key[0], hit.root)).hits.append(hit)
    return groups
