"""``trail list``: every session of every store, newest activity first."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

from hermes_trail.cli.common import (
    EXIT_SKIPPED,
    DbOption,
    HomeOption,
    JsonOption,
    PgOption,
    exit_code,
    fail,
    load,
    print_json,
)
from hermes_trail.cli.params import Exit, Option
from hermes_trail.questions import QUESTIONS

if TYPE_CHECKING:
    from hermes_trail.history import History
    from hermes_trail.listing import SessionFilter
    from hermes_trail.model import Session

_Q = QUESTIONS["sessions"]  # its words and bounds, shared with the MCP tool (questions.py)


def list_sessions(
    profile: Annotated[str | None, Option(help=_Q.help("profile"))] = None,
    project: Annotated[str | None, Option(help=_Q.help("project"))] = None,
    source: Annotated[str | None, Option(help=_Q.help("source"))] = None,
    since: Annotated[str | None, Option(help=_Q.help("since"))] = None,
    limit: Annotated[int, Option("--limit", "-n", help=_Q.help("limit") + " 0: all of them.")] = 50,
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
    from hermes_trail.errors import TrailError
    from hermes_trail.listing import SessionFilter, parse_since, select, unknown_values

    try:
        flt = SessionFilter(profile, project, source, parse_since(since) if since else None)
    except TrailError as exc:
        fail(str(exc))
    if limit < 0:
        fail("--limit must be 0 (all) or more")
    if deleted:
        from hermes_trail.cli.recovered import list_deleted

        with load(home, db, pg) as history:
            skipped = list_deleted(history, home, db, flt, limit, json_output)
            code = EXIT_SKIPPED if skipped else exit_code(history)
        raise Exit(code)
    if flt.project is None and 0 < limit <= PAGE_MOST:
        _list_page(home, db, pg, flt, limit, json_output)
    with load(home, db, pg) as history:
        unknown = unknown_values(history.sessions, flt)
        if unknown:
            fail(unknown)
        chosen = select(history.sessions, flt, limit)
        matched = sum(1 for s in history.sessions if flt.accepts(s))
        _print(history, chosen, matched, len(history.sessions), json_output)
        code = exit_code(history)
    raise Exit(code)


# A listing of at most this many sessions decodes only those (History.page); one of more reads them all.
PAGE_MOST = 1000


def _list_page(
    home: list[Path] | None,
    db: list[Path] | None,
    pg: list[str] | None,
    flt: SessionFilter,
    limit: int,
    json_output: bool,
) -> NoReturn:
    """The listing of a page of sessions: every row ordered and counted, only the page decoded."""
    from hermes_trail.history import PAGE
    from hermes_trail.listing import select, unknown_values

    with load(home, db, pg, catalog=PAGE) as history:
        if flt.profile is not None:
            history.read_profiles()
        unknown = unknown_values(history.entries, flt)
        if unknown:
            fail(unknown)
        chosen = history.page(select(history.entries, flt, limit))
        matched = sum(1 for e in history.entries if flt.accepts(e))
        _print(history, chosen, matched, len(history.entries), json_output)
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
