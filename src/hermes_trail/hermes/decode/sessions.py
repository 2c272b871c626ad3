"""A ``sessions`` row as a :class:`~hermes_trail.model.Session`, and the project it belongs to.

The project is where the work happened: ``cwd`` when Hermes recorded one, else ``git_repo_root``, else
the profile's own bucket ``profiles/<profile>`` (a Bot Chat, cron or gateway session has no workspace,
and two bots must not collapse into one project), else the generic ``hermes``. An empty ``cwd`` is a
real session class (cron, Bot Chat, gateway), not missing data.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from hermes_trail.hermes.decode import classes, usage
from hermes_trail.hermes.decode.values import epoch, flag, integer, text
from hermes_trail.hermes.locate import DEFAULT_PROFILE
from hermes_trail.model import Session, Store

GENERIC_PROJECT = "hermes"


def project_of(cwd: str | None, git_repo_root: str | None, profile: str | None) -> str:
    """Name the project a session belongs to, by the rule in this module's docstring."""
    for candidate in (cwd, git_repo_root):
        if candidate and candidate.strip():
            return candidate
    if profile and profile != DEFAULT_PROFILE:
        return f"profiles/{profile}"
    return GENERIC_PROJECT


def _text_col(row: dict[str, Any], column: str, problems: list[str]) -> str | None:
    value, problem = text(row.get(column), column)
    if problem:
        problems.append(problem)
    return value


def session_id_of(row: dict[str, Any]) -> str | None:
    """The row's id as text, or ``None`` when it has none a person could name."""
    return id_text(row.get("id"))


def id_text(value: Any) -> str | None:
    """A session row's ``id`` value as text, or ``None`` when it is none a person could name."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def newest_of(*times: datetime | None) -> datetime | None:
    """The latest of the times that are known: a session's last activity is the newest of its
    ``last_activity_at`` and its messages' timestamps (a store may stamp the column behind its rows)."""
    known = [t for t in times if t is not None]
    return max(known) if known else None


def decode_session(row: dict[str, Any], store: Store, stats: tuple[int, Any, int] | None = None) -> Session:
    """Build a session from its row; ``stats`` is ``(row count, newest timestamp, inactive rows)`` of its
    messages."""
    problems: list[str] = []
    sid = session_id_of(row)
    assert sid is not None, "callers turn id-less rows into strays"
    started, p1 = epoch(row.get("started_at"), "started_at")
    ended, p2 = epoch(row.get("ended_at"), "ended_at")
    last, p3 = epoch(row.get("last_activity_at"), "last_activity_at")
    newest, p4 = epoch(stats[1], "messages.timestamp") if stats else (None, None)
    problems.extend(p for p in (p1, p2, p3, p4) if p)
    last = newest_of(last, newest) or ended or started
    cwd = _text_col(row, "cwd", problems)
    repo = _text_col(row, "git_repo_root", problems)
    profile_name = _text_col(row, "profile_name", problems)
    profile = store.profile if store.profile != DEFAULT_PROFILE else (profile_name or DEFAULT_PROFILE)
    count = integer(row.get("message_count"))
    if count is None and stats is not None:
        count = stats[0]
    session = Session(
        id=sid,
        store=store,
        source=_text_col(row, "source", problems),
        title=_text_col(row, "title", problems),
        model=_text_col(row, "model", problems),
        cwd=cwd,
        git_branch=_text_col(row, "git_branch", problems),
        git_repo_root=repo,
        profile=profile,
        project=project_of(cwd, repo, profile),
        started_at=started,
        ended_at=ended,
        last_activity_at=last,
        end_reason=_text_col(row, "end_reason", problems),
        parent_id=_text_col(row, "parent_session_id", problems),
        message_count=count,
        usage=usage.session_usage(row),
        archived=flag(row, "archived"),
        pinned=flag(row, "pinned"),
        hidden_flag=flag(row, "hidden"),
        relation="root" if not row.get("parent_session_id") else None,
        raw=row,
        problems=problems,
        row_stats=stats,
    )
    classes.classify_session(session, row)
    return session
