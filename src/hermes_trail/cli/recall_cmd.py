"""``trail recall``: a compact page of past sessions about a question, framed for an agent."""

import sys
from typing import Annotated

from hermes_trail.cli.common import (
    EXIT_OK,
    DbOption,
    HomeOption,
    JsonOption,
    PgOption,
    print_json,
    typed_words,
)
from hermes_trail.cli.indexing import IndexOption, indexed, say_unmatched
from hermes_trail.cli.params import Exit, Option, asked
from hermes_trail.cli.share_cmd import FleetOption, HostsOption
from hermes_trail.questions import QUESTIONS

_Q = QUESTIONS["recall"]  # its arguments: words, bounds and defaults shared with the MCP tool


def recall(
    query: Annotated[list[str], asked(_Q, "query")],
    budget: Annotated[int, Option("--budget", min=256, help="At most this many bytes (256 or more).")] = 4096,
    project: Annotated[str | None, asked(_Q, "project")] = _Q.param("project").cli_default,
    profile: Annotated[str | None, asked(_Q, "profile")] = _Q.param("profile").cli_default,
    limit: Annotated[int, asked(_Q, "limit", "-n")] = _Q.param("limit").cli_default,
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

    text = typed_words(query, phrases=True) or ""
    if (dsn := fleet_dsn(index, fleet)) is not None:  # the shared index of many machines (docs/fleet.md)
        from hermes_trail.service import search_filters

        filters = search_filters(project=project, profile=profile)
        recall_fleet(dsn, text, filters, host, budget, json_output, limit=limit)
    trail = indexed(index, home, db, pg)
    with meaning_client.served():
        page = trail.recall_page(text, project=project, profile=profile, limit=limit, budget=budget)
    if not page:  # a filter nothing matches: a typo, not an empty history
        say_unmatched(trail, project, profile)
    if json_output:
        print_json({"query": text, "budget": budget, "page": page, "bytes": len(page.encode())})
    elif page:
        sys.stdout.write(page + "\n")
    raise Exit(EXIT_OK)
