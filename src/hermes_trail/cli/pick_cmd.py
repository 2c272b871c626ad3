"""``trail pick``: choose a session in an interactive list and resume, show, export or copy it."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from hermes_trail.cli.common import EXIT_OK, DbOption, HomeOption, PgOption, err, fail, load
from hermes_trail.cli.indexing import IndexOption

if TYPE_CHECKING:
    from hermes_trail.history import History
    from hermes_trail.pick import Picked

EXIT_USAGE = 2


def pick(
    query: Annotated[str, typer.Argument(help="Start with this query typed.", show_default=False)] = "",
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
) -> None:
    """Pick a session as you type (titles, first prompts, search hits), Enter resumes it in Hermes.

    In the list: type to narrow it, up/down (ctrl-p/ctrl-n, page up/down) to move, enter to resume the
    session in its directory (the command trail resume runs), ctrl-o to show it (trail show), ctrl-x to
    export it as Markdown into the current directory, ctrl-y to copy its id (printed, and sent to the
    terminal's clipboard), esc to leave.

    \b
    Example:
        trail pick zebracorn
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        fail(
            "trail pick needs a terminal (stdin and stdout); trail list and trail search print instead",
            EXIT_USAGE,
        )
    from hermes_trail import pick as picker

    history = load(home, db, pg, catalog=False)
    with history:
        screenful = max(_rows(), 10)
        known = len(history.strays)
        first = picker.list_choices(history, limit=screenful)
        for stray in history.strays[known:]:  # said before the picker takes the screen, seen after it
            err(f"skipped store {stray.where}: {stray.reason}")
        if not first:
            fail("no session to pick (trail list shows what each store holds)")
        whole = len(history.stores) <= 1 and len(first) < screenful  # the first read was all there is
        with picker.painted(sys.stdout, first, query, f"{len(first)}{'' if whole else '+'} sessions"):
            chosen = picker.run_picker(history, first, full=whole, index=_index(index), query=query)
        if chosen is None:
            raise typer.Exit(EXIT_OK)
        if chosen.action != picker.SHOW:
            _act(history, chosen)
    if chosen.action == picker.SHOW:
        from hermes_trail.cli.show_cmd import show

        show(chosen.choice.ref, home=home, db=db, pg=pg)  # exits as trail show does
    raise typer.Exit(EXIT_OK)


def _act(history: History, chosen: Picked) -> None:
    """Resume (this process becomes ``hermes``), export or copy the chosen session."""
    from hermes_trail import pick as picker
    from hermes_trail.errors import ResumeRefused, TrailError

    choice = chosen.choice
    try:
        if chosen.action == picker.RESUME:
            plan, cwd = picker.resume_target(history, choice)
            if cwd is None:
                err(f"resuming in {Path.cwd()} (the session recorded no directory that still exists)")
            try:
                picker.resume(plan, cwd)
            except OSError as exc:  # not on PATH, or not runnable
                fail(f"cannot run {plan.argv[0]} ({exc.strerror or exc}); the command is: {plan.command}")
        elif chosen.action == picker.EXPORT:
            path = picker.export_markdown(history, choice, Path.cwd())
            err(f"exported {choice.ref} as md to {path} (secrets redacted)")
        elif chosen.action == picker.COPY:
            if sys.stderr.isatty() and os.environ.get("TERM") != "dumb":
                sys.stderr.write(picker.osc52(choice.id))  # the terminal's clipboard, where it allows it
            sys.stdout.write(choice.id + "\n")
    except ResumeRefused as exc:
        fail(f"{exc}; {exc.hint}")
    except TrailError as exc:  # an export refused or not written, a store gone
        fail(str(exc))


def _rows() -> int:
    try:
        return os.get_terminal_size(sys.stdout.fileno()).lines
    except OSError:
        return 24


def _index(given: Path | None) -> Path | None:
    """The search index to ask while typing, as the last sync left it (a sync would delay the list);
    none when it was never built."""
    from hermes_trail.index.schema import default_index_path

    path = given or default_index_path()
    return path if path.is_file() else None
