"""``trail blame``: every session and edit that touched a file."""

from typing import Annotated

import typer

from hermes_trail.cli.common import DbOption, HomeOption, JsonOption, PgOption, answer
from hermes_trail.cli.indexing import IndexOption, read_index
from hermes_trail.questions import QUESTIONS

_Q = QUESTIONS["blame"]  # its words and bounds, shared with the MCP tool (questions.py)


def blame(
    path: Annotated[str, typer.Argument(help=_Q.help("path"))],
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, help=_Q.help("limit"))] = 50,
    include_rewound: Annotated[
        bool, typer.Option("--include-rewound", help=_Q.help("include_rewound"))
    ] = False,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """Every session and edit that touched a file, following moves, newest first, with the prompt behind it.

    \b
    Example:
        trail blame src/app.py
    """
    from hermes_trail.cli.tables import print_blame
    from hermes_trail.index.blame import blame as find_edits
    from hermes_trail.serialize import record_json

    with read_index(index, home, db, pg) as conn:
        entries = find_edits(conn, path, limit=limit, include_rewound=include_rewound)
    answer(
        bool(entries),
        json_output,
        lambda: {"path": path, "edits": record_json(entries)},
        lambda out: print_blame(out, path, entries),
    )
