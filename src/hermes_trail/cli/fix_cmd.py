"""``trail fix``: what fixed this error before."""

import sys
from typing import Annotated

import typer

from hermes_trail.cli.common import DbOption, HomeOption, JsonOption, PgOption, answer, fail
from hermes_trail.cli.indexing import IndexOption, read_index
from hermes_trail.questions import QUESTIONS

_Q = QUESTIONS["fix"]  # its words and bounds, shared with the MCP tool (questions.py)


def fix(
    error: Annotated[str | None, typer.Argument(help=_Q.help("error") + " Or pipe it in.")] = None,
    project: Annotated[str | None, typer.Option(help=_Q.help("project"))] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help=_Q.help("limit"))] = 5,
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
