"""``trail handoff``: a compact Markdown brief of a session, to paste into another agent."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from hermes_trail.cli.common import EXIT_OK, DbOption, HomeOption, PgOption, fail, like_it, load
from hermes_trail.errors import AmbiguousSession, ResumeRefused, SessionNotFound, TrailError


def handoff(
    session_id: Annotated[str, typer.Argument(help="A session id, a unique prefix, or <store>:<id>.")],
    budget: Annotated[
        int, typer.Option("--budget", min=400, help="At most this many bytes (400 or more).")
    ] = 4000,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
) -> None:
    """A Markdown brief of a session for another agent: goal, where it stands, files, commands, resume.

    \b
    Example:
        trail handoff 20261128_0914 --budget 3000 | pbcopy
    """
    from hermes_trail.handoff import brief
    from hermes_trail.recovery import Finder
    from hermes_trail.resume import plan_for

    with (
        load(home, db, pg, catalog=False) as history,
        Finder(history, homes=home or (), dbs=db or ()) as finder,
    ):
        try:
            parts = finder.conversation(finder.find(session_id))  # live, else a deleted one recovered
        except AmbiguousSession as exc:
            fail(f"{session_id!r} is ambiguous; it could be:\n  " + "\n  ".join(exc.candidates))
        except SessionNotFound:
            fail(f"no session {session_id!r} (trail list shows the sessions){like_it(finder, session_id)}")
        except TrailError as exc:
            fail(str(exc))
        resume, no_resume = None, None
        try:
            resume = plan_for(parts[-1]).command
        except ResumeRefused as exc:
            no_resume = f"{exc}; {exc.hint}"
        sys.stdout.write(brief(parts, resume=resume, no_resume=no_resume, budget=budget))
    raise typer.Exit(EXIT_OK)
