"""``trail list``: every session of every store, newest activity first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from hermes_trail.cli.common import (
    EXIT_SKIPPED,
    DbOption,
    HomeOption,
    JsonOption,
    PgOption,
    err,
    exit_code,
    fail,
    load,
    print_json,
    since_option,
    store_door,
)
from hermes_trail.cli.params import Exit, Option, asked
from hermes_trail.questions import QUESTIONS

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hermes_trail.history import History
    from hermes_trail.model import Session

_Q = QUESTIONS["sessions"]  # its arguments: words, bounds and defaults shared with the MCP tool


def list_sessions(
    profile: Annotated[str | None, asked(_Q, "profile")] = _Q.param("profile").cli_default,
    project: Annotated[str | None, asked(_Q, "project")] = _Q.param("project").cli_default,
    source: Annotated[str | None, asked(_Q, "source")] = _Q.param("source").cli_default,
    since: Annotated[str | None, asked(_Q, "since")] = _Q.param("since").cli_default,
    limit: Annotated[int, asked(_Q, "limit", "-n")] = _Q.param("limit").cli_default,
    deleted: Annotated[
        bool, Option("--deleted", help="Sessions gone from state.db that a snapshot or divert holds.")
    ] = False,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """List every session of every store, newest activity first (--deleted: recovered ones).

    \b
    Example:
        trail list --since 7d --project hermes-trail
    """
    stamp = since_option(since, "--since")  # a time it cannot read fails the command, in the option's words
    if limit < 0:
        fail("--limit must be 0 (all) or more")
    if deleted:
        from datetime import UTC, datetime

        from hermes_trail.cli.recovered import list_deleted
        from hermes_trail.listing import SessionFilter

        when = datetime.fromtimestamp(stamp, tz=UTC) if stamp is not None else None
        with load(home, db, pg) as history:
            skipped = list_deleted(
                history, home, db, SessionFilter(profile, project, source, when), limit, json_output
            )
            code = EXIT_SKIPPED if skipped else exit_code(history)
        raise Exit(code)
    trail = store_door(home, db, pg)
    with load(home, db, pg, catalog=trail.catalog_for(project, limit)) as history:
        listing = trail.listing(
            history, profile=profile, project=project, source=source, since=since, limit=limit
        )
        if listing.unknown:
            fail(listing.unknown)
        _print(history, listing.sessions, listing.matched, listing.total, json_output)
        if project and not listing.matched and not json_output:
            _say_projects(history, project)
        if since and not listing.matched and not json_output:
            from hermes_trail.listing import last_active_said

            if said := last_active_said(_listed(history), profile, project, source, since):
                err(said)
        code = exit_code(history)
    raise Exit(code)


def _print(history: History, chosen: list[Session], matched: int, total: int, json_output: bool) -> None:
    if json_output:
        from hermes_trail.serialize import note_json, session_json, stray_json

        print_json(
            {
                "sessions": [session_json(s) for s in chosen],
                "total": matched,
                "strays": [stray_json(s) for s in history.strays],
                "notes": [note_json(n) for n in history.notes],
                "demo": history.demo,
            }
        )
    else:
        from hermes_trail.cli.tables import print_sessions

        untitled = [s for s in chosen if not s.title]
        previews = history.first_prompts((s.store, s.id) for s in untitled) if untitled else {}
        print_sessions(chosen, matched=matched, total=total, previews=previews)


def _listed(history: History) -> Sequence[Any]:
    """What the listing read of every session: the sessions, or the catalog's entries."""
    return history.sessions if history.catalog_read else history.entries


def _say_projects(history: History, project: str) -> None:
    """After a listing that ``--project`` left empty: on stderr, when no session is in that project at all,
    the projects whose name has the word typed (``billing`` for ``~/work/billing-service``) or is spelled
    near it (``webshp``)."""
    from hermes_trail.listing import SessionFilter, said_projects

    listed = _listed(history)
    if any(SessionFilter(project=project).accepts(s) for s in listed):
        return
    if said := said_projects(project, (s.project for s in listed)):
        err(f"No session has project {project!r}{said}.")
