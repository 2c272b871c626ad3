"""``trail resume``: the ``hermes`` command that reopens a session, printed or run."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from hermes_trail.cli.common import (
    EXIT_OK,
    DbOption,
    HomeOption,
    JsonOption,
    PgOption,
    fail,
    like_it,
    load,
    print_json,
)
from hermes_trail.errors import AmbiguousSession, ResumeRefused, SessionNotFound, TrailError


def resume(
    session_id: Annotated[str, typer.Argument(help="A session id, a unique prefix, or <store>:<id>.")],
    run: Annotated[bool, typer.Option("--exec", help="Run the command instead of printing it.")] = False,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """Print the hermes command that reopens a session (-p <profile> when its store needs one).

    \b
    Example:
        trail resume 20261128_0914 --exec
    """
    from hermes_trail.resume import find_retired, plan_for
    from hermes_trail.serialize import resume_json

    if run and json_output:
        fail("--exec runs the command and --json prints it: choose one")
    from hermes_trail.recovery import Finder

    with (
        load(home, db, pg, catalog=False) as history,
        Finder(history, homes=home or (), dbs=db or ()) as finder,
    ):
        try:
            session = finder.find(session_id)  # a deleted one too: plan_for says why it cannot resume
        except AmbiguousSession as exc:
            fail(f"{session_id!r} is ambiguous; it could be:\n  " + "\n  ".join(exc.candidates))
        except SessionNotFound:
            gone = find_retired(history, session_id)
            if gone:
                store, fence = gone[0]
                when = f" on {fence.retired_at:%Y-%m-%d %H:%M} UTC" if fence.retired_at else ""
                how = "pruned by Hermes" if fence.swept else "deleted with hermes sessions delete"
                fail(
                    f"{fence.session_id} was {how}{when} (store {store.name}); its rows are gone and "
                    "Hermes cannot resume it (trail list shows the sessions left)"
                )
            fail(
                f"no session {session_id!r} in any store (deleted, or never there); "
                f"trail list shows the sessions, trail show replays one{like_it(finder, session_id)}"
            )
        try:
            plan = plan_for(session)
        except ResumeRefused as exc:
            fail(f"{exc}; {exc.hint}")
        except TrailError as exc:
            fail(str(exc))
    if json_output:
        print_json(resume_json(plan, session))
    elif run:
        sys.stdout.flush()
        try:
            os.execvpe(plan.argv[0], plan.argv, {**os.environ, **plan.env})
        except OSError as exc:  # not on PATH, or not runnable
            fail(f"cannot run {plan.argv[0]} ({exc.strerror or exc}); the command is: {plan.command}")
    else:
        sys.stdout.write(plan.command + "\n")
    raise typer.Exit(EXIT_OK)
