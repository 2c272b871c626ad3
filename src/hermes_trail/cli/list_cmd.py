"""``trail list``: every session of every store, newest activity first."""

from typing import Annotated

import typer

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
from hermes_trail.questions import QUESTIONS

_Q = QUESTIONS["sessions"]  # its words and bounds, shared with the MCP tool (questions.py)


def list_sessions(
    profile: Annotated[str | None, typer.Option(help=_Q.help("profile"))] = None,
    project: Annotated[str | None, typer.Option(help=_Q.help("project"))] = None,
    source: Annotated[str | None, typer.Option(help=_Q.help("source"))] = None,
    since: Annotated[str | None, typer.Option(help=_Q.help("since"))] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help=_Q.help("limit") + " 0: all of them.")] = 50,
    deleted: Annotated[
        bool, typer.Option("--deleted", help="Sessions gone from state.db that a snapshot or divert holds.")
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
        raise typer.Exit(code)
    with load(home, db, pg) as history:
        unknown = unknown_values(history.sessions, flt)
        if unknown:
            fail(unknown)
        chosen = select(history.sessions, flt, limit)
        matched = sum(1 for s in history.sessions if flt.accepts(s))
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
            print_sessions(chosen, matched=matched, total=len(history.sessions), previews=previews)
        code = exit_code(history)
    raise typer.Exit(code)
