"""``trail search``: everything Hermes recorded, by words and by meaning."""

from typing import Annotated

from hermes_trail.cli.common import DbOption, HomeOption, JsonOption, PgOption, answer, since_option
from hermes_trail.cli.indexing import IndexOption, synced_index
from hermes_trail.cli.params import Argument, Option
from hermes_trail.cli.share_cmd import FleetOption, HostsOption
from hermes_trail.questions import QUESTIONS

_Q = QUESTIONS["search"]  # its words and bounds, shared with the MCP tool (questions.py)


def search(
    query: Annotated[str, Argument(help=_Q.help("query"))],
    project: Annotated[str | None, Option(help=_Q.help("project"))] = None,
    profile: Annotated[str | None, Option(help=_Q.help("profile"))] = None,
    source: Annotated[str | None, Option(help=_Q.help("source"))] = None,
    since: Annotated[str | None, Option(help=_Q.help("since"))] = None,
    until: Annotated[str | None, Option(help=_Q.help("until"))] = None,
    role: Annotated[str | None, Option(help=_Q.help("role"))] = None,
    tool: Annotated[str | None, Option(help=_Q.help("tool"))] = None,
    session: Annotated[str | None, Option(help=_Q.help("session"))] = None,
    include_rewound: Annotated[bool, Option("--include-rewound", help=_Q.help("include_rewound"))] = False,
    limit: Annotated[int, Option("--limit", "-n", min=1, help=_Q.help("limit"))] = 10,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
    fleet: FleetOption = False,
    host: HostsOption = None,
) -> None:
    """Search everything Hermes recorded: prompts, replies, summaries, commands, edits, tool output.

    \b
    Example:
        trail search "connection refused" --project api --since 30d
    """
    from hermes_trail.index import meaning_client
    from hermes_trail.index.search import SearchFilters
    from hermes_trail.index.search import search as run_search

    filters = SearchFilters(
        project=project,
        profile=profile,
        source=source,
        since=since_option(since, "--since"),
        until=since_option(until, "--until"),
        role=role,
        tool=tool,
        session=session,
        include_rewound=include_rewound,
    )
    from hermes_trail.cli.share_cmd import fleet_dsn, search_fleet

    if (dsn := fleet_dsn(index, fleet)) is not None:  # the shared index of many machines (docs/fleet.md)
        search_fleet(dsn, query, filters, host, limit, json_output)
    path = synced_index(index, home, db, pg)
    with meaning_client.served():  # a one-shot command asks the meaning server, not a model of its own
        result = run_search(path, query, filters, limit=max(limit, 1))
    from hermes_trail.cli.tables import print_search
    from hermes_trail.serialize import search_json

    answer(
        bool(result.conversations),
        json_output,
        lambda: search_json(result),
        lambda out: print_search(out, result),
    )
