"""``trail how``: real commands that did what you want to do."""

from typing import Annotated

from hermes_trail.cli.common import DbOption, HomeOption, JsonOption, PgOption, answer, question
from hermes_trail.cli.indexing import IndexOption, indexed, say_unmatched
from hermes_trail.cli.params import asked
from hermes_trail.cli.share_cmd import FleetOption, HostsOption
from hermes_trail.questions import QUESTIONS

_Q = QUESTIONS["how"]  # its arguments: words, bounds and defaults shared with the MCP tool


def how(
    what: Annotated[list[str], asked(_Q, "what")],
    project: Annotated[str | None, asked(_Q, "project")] = _Q.param("project").cli_default,
    limit: Annotated[int, asked(_Q, "limit", "-n")] = _Q.param("limit").cli_default,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
    fleet: FleetOption = False,
    host: HostsOption = None,
) -> None:
    """Real commands that did WHAT, by how many sessions ran them and how often they succeeded.

    \b
    Example:
        trail how "run the migrations" --project api
    """
    from hermes_trail.cli.share_cmd import asked_fleet, fleet_dsn
    from hermes_trail.cli.tables import print_how

    text = question(what, "say what to do ('run the migrations') or give a command fragment ('alembic')")
    if (dsn := fleet_dsn(index, fleet)) is not None:  # the shared index of many machines (docs/fleet.md)
        trail, entries = asked_fleet(dsn, host, lambda t: t.how_commands(text, project=project, limit=limit))
    else:
        trail = indexed(index, home, db, pg)
        entries = trail.how_commands(text, project=project, limit=limit)
    if not entries:
        say_unmatched(trail, project)
    answer(
        bool(entries),
        json_output,
        lambda: {"what": text, "commands": trail.records_json(entries)},
        lambda out: print_how(out, text, entries),
    )
