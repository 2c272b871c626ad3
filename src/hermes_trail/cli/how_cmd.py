"""``trail how``: real commands that did what you want to do."""

from typing import Annotated

import typer

from hermes_trail.cli.common import DbOption, HomeOption, JsonOption, PgOption, answer
from hermes_trail.cli.indexing import IndexOption, read_index
from hermes_trail.questions import QUESTIONS

_Q = QUESTIONS["how"]  # its words and bounds, shared with the MCP tool (questions.py)


def how(
    what: Annotated[str, typer.Argument(help=_Q.help("what"))],
    project: Annotated[str | None, typer.Option(help=_Q.help("project"))] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help=_Q.help("limit"))] = 10,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """Real commands that did WHAT, by how many sessions ran them and how often they succeeded.

    \b
    Example:
        trail how "run the migrations" --project api
    """
    from hermes_trail.cli.tables import print_how
    from hermes_trail.index.how import how as find_commands
    from hermes_trail.serialize import record_json

    with read_index(index, home, db, pg) as conn:
        entries = find_commands(conn, what, project=project, limit=limit)
    answer(
        bool(entries),
        json_output,
        lambda: {"what": what, "commands": record_json(entries)},
        lambda out: print_how(out, what, entries),
    )
