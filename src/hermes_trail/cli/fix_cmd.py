"""``trail fix``: what fixed this error before."""

import sys
from typing import Annotated

import typer

from hermes_trail.cli.common import DbOption, HomeOption, JsonOption, PgOption, answer, fail
from hermes_trail.cli.indexing import IndexOption, read_index


def fix(
    error: Annotated[str | None, typer.Argument(help="The error text (or pipe the output in).")] = None,
    project: Annotated[str | None, typer.Option(help="Only this project.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help="Fixes to show.")] = 5,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """What fixed this error before: past commands that failed the same way, and what then worked.

    \b
    Example:
        pytest 2>&1 | tail -20 | trail fix
    """
    text = error if error is not None else ("" if sys.stdin.isatty() else sys.stdin.read())
    if not text.strip():
        fail("give the error text as an argument or on standard input")
    from hermes_trail.cli.tables import print_fixes
    from hermes_trail.index.fix import find_fixes
    from hermes_trail.serialize import record_json

    with read_index(index, home, db, pg) as conn:
        report = find_fixes(conn, text, project=project, limit=limit)
    answer(bool(report.fixes), json_output, lambda: record_json(report), lambda out: print_fixes(out, report))
