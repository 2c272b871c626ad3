"""``trail recall``: a compact page of past sessions about a question, framed for an agent."""

import sys
from typing import Annotated

import typer

from hermes_trail.cli.common import EXIT_OK, DbOption, HomeOption, JsonOption, PgOption, print_json
from hermes_trail.cli.indexing import IndexOption, synced_index
from hermes_trail.cli.share_cmd import FleetOption, HostsOption
from hermes_trail.questions import QUESTIONS

_Q = QUESTIONS["recall"]  # its words and bounds, shared with the MCP tool (questions.py)


def recall(
    query: Annotated[str, typer.Argument(help=_Q.help("query"))],
    budget: Annotated[
        int, typer.Option("--budget", min=256, help="At most this many bytes (256 or more).")
    ] = 4096,
    project: Annotated[str | None, typer.Option(help=_Q.help("project"))] = None,
    profile: Annotated[str | None, typer.Option(help=_Q.help("profile"))] = None,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
    fleet: FleetOption = False,
    host: HostsOption = None,
) -> None:
    """A compact page of past sessions about QUERY, for an agent: framed as untrusted history.

    \b
    Example:
        trail recall "how did we deploy the staging db" --budget 2000
    """
    from hermes_trail.cli.share_cmd import fleet_dsn, recall_fleet
    from hermes_trail.index import meaning_client
    from hermes_trail.index.search import SearchFilters, search
    from hermes_trail.recall import recall_page

    filters = SearchFilters(project=project, profile=profile)
    if (dsn := fleet_dsn(index, fleet)) is not None:  # the shared index of many machines (docs/fleet.md)
        recall_fleet(dsn, query, filters, host, budget, json_output)
    path = synced_index(index, home, db, pg)
    with meaning_client.served():
        result = search(path, query, filters, limit=8)
    page = recall_page(result, budget=budget)
    if json_output:
        print_json({"query": query, "budget": budget, "page": page, "bytes": len(page.encode())})
    elif page:
        sys.stdout.write(page + "\n")
    raise typer.Exit(EXIT_OK)
