"""What every command shares: where to read from, ``--json``, and how problems become exit codes.

Exit codes: 0 everything was read; 1 the command could not do what was asked (unknown session, bad
option value, nothing readable); 2 usage error (from click); 3 the output is complete for what could be
read, but something was passed over (a store, a row, a directory), each named on stderr.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from hermes_trail.hermes import locate
from hermes_trail.history import History, open_history
from hermes_trail.model import Stray

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_SKIPPED = 3

HomeOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--home",
        help="A Hermes home or root to read (repeatable). Default: resolved as Hermes resolves HERMES_HOME.",
        show_default=False,
    ),
]
DbOption = Annotated[
    list[Path] | None,
    typer.Option("--db", help="Read only this state.db (repeatable).", show_default=False),
]
PgOption = Annotated[
    list[str] | None,
    typer.Option(
        "--pg",
        metavar="DSN",
        help="Read only this PostgreSQL database, by DSN (repeatable; combines with --db). Its password is "
        "never printed.",
        show_default=False,
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON (keys documented in docs/json.md).")]


def err(message: str) -> None:
    """One line on stderr, for a person."""
    sys.stderr.write(f"trail: {message}\n")


def fail(message: str, code: int = EXIT_ERROR) -> NoReturn:
    err(message)
    raise typer.Exit(code)


def load(
    homes: list[Path] | None, dbs: list[Path] | None, pgs: list[str] | None = None, catalog: bool = True
) -> History:
    """Open every store, telling the user on stderr about the demo and anything passed over.

    :param catalog: read every session row (a listing); a command about one session looks it up instead.
    """
    history = open_history(homes=homes or (), dbs=dbs or (), pgs=pgs or (), demo_fallback=True,
                           catalog=catalog)  # fmt: skip
    if history.demo:
        err("no Hermes home found; reading the demo home bundled with hermes-trail")
    for stray in history.strays:
        if stray.kind in ("store", "directory"):
            err(f"skipped {stray.kind} {stray.where}: {stray.reason}")
    report_rows([s for s in history.strays if s.kind not in ("store", "directory")])
    if not history.stores and not history.demo and not history.strays:
        err("no Hermes store found (looked at: " + ", ".join(str(h) for h, _ in _homes(homes)) + ")")
    return history


def report_rows(strays: list[Stray], shown: int = 10) -> None:
    """Rows that could not be read: one line each, the first ``shown`` of them, then a count."""
    for stray in strays[:shown]:
        err(f"unreadable row {stray.where}: {stray.reason}")
    if len(strays) > shown:
        err(f"... and {len(strays) - shown} more row(s) (see --json \"strays\")")


def _homes(homes: list[Path] | None) -> list[tuple[Path, str]]:
    return locate.resolve_roots(os.environ, homes=homes or ())


def exit_code(history: History) -> int:
    return EXIT_SKIPPED if history.skipped else EXIT_OK


def print_json(value: Any) -> None:
    from hermes_trail.transcript import json_safe

    sys.stdout.write(json_safe(json.dumps(value, ensure_ascii=False, indent=None)))
    sys.stdout.write("\n")
