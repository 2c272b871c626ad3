"""``trail show``: replay one session (or its whole chain)."""

from typing import Annotated

from hermes_trail.cli.common import (
    EXIT_SKIPPED,
    DbOption,
    HomeOption,
    JsonOption,
    PgOption,
    exit_code,
    fail,
    like_it,
    load,
    print_json,
    report_rows,
    store_door,
)
from hermes_trail.cli.params import Exit, Option, asked
from hermes_trail.questions import QUESTIONS

# Its arguments, shared with the MCP tool; an agent's paging (offset, limit) is a person's pager.
_Q = QUESTIONS["show"]


def show(
    session_id: Annotated[str, asked(_Q, "session_id")],
    reasoning: Annotated[bool, Option("--reasoning", help="Unfold reasoning.")] = False,
    full: Annotated[bool, Option("--full", help="Show whole tool outputs.")] = False,
    show_all: Annotated[bool, Option("--all", help="Also show rewound and archived rows, marked.")] = False,
    lineage: Annotated[
        bool, Option("--lineage", help="Show the whole conversation: every part of its chain.")
    ] = False,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """Replay one session: prompts, replies, reasoning folded, each tool call with what it did.

    \b
    Example:
        trail show 20261130_0458 --lineage
    """
    from hermes_trail.errors import AmbiguousSession, SessionNotFound, TrailError

    trail = store_door(home, db, pg)
    with load(home, db, pg, catalog=False) as history, trail.finder(history) as finder:
        try:
            try:
                # a live session, else a deleted one a snapshot or divert holds
                replay = trail.replay(finder, session_id, lineage=lineage)
            finally:
                from hermes_trail.cli.recovered import report_recovery

                report_recovery(finder)
        except AmbiguousSession as exc:
            fail(f"{session_id!r} is ambiguous; it could be:\n  " + "\n  ".join(exc.candidates))
        except SessionNotFound:
            fail(
                f"no session {session_id!r} (trail list shows the sessions, trail list --deleted the "
                f"deleted ones a snapshot or divert holds){like_it(finder, session_id)}"
            )
        except TrailError as exc:
            fail(str(exc))
        session, chain = replay.session, replay.chain
        if json_output:
            from hermes_trail.serialize import transcript_json

            if lineage:
                print_json({"chain": [transcript_json(part) for part in chain]})
            else:
                print_json(transcript_json(session))
        else:
            from hermes_trail.cli.term import Printer, show
            from hermes_trail.transcript import RenderOptions, render, render_lineage

            out = Printer()
            options = RenderOptions(reasoning=reasoning, full=full, include_hidden=show_all)
            parts = render_lineage(chain, options) if lineage else render(session, options)
            for part in parts:
                show(out, part)
        strays = [stray for part in chain for stray in part.strays]
        report_rows(strays)
        code = EXIT_SKIPPED if strays else exit_code(history)
    raise Exit(code)
