"""``trail fix``: what fixed this error before."""

from typing import Annotated

from hermes_trail.cli.common import DbOption, HomeOption, JsonOption, PgOption, answer, question
from hermes_trail.cli.indexing import IndexOption, indexed, say_unmatched
from hermes_trail.cli.params import asked
from hermes_trail.cli.share_cmd import FleetOption, HostsOption
from hermes_trail.questions import QUESTIONS

_Q = QUESTIONS["fix"]  # its arguments: words, bounds and defaults shared with the MCP tool


def fix(
    error: Annotated[list[str] | None, asked(_Q, "error")] = None,  # None: read it from standard input
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
    """What fixed this error before: past commands that failed the same way, what then worked, and the
    files changed before the failing command passed.

    \b
    Example:
        pytest 2>&1 | tail -20 | trail fix
    """
    text = question(error, "give the error text as an argument or on standard input", piped=True)
    from hermes_trail.cli.share_cmd import asked_fleet, fleet_dsn, hosts_for_people
    from hermes_trail.cli.tables import print_fixes

    if (dsn := fleet_dsn(index, fleet)) is not None:  # the shared index of many machines (docs/fleet.md)
        trail, report = asked_fleet(dsn, host, lambda t: t.fix_report(text, project=project, limit=limit))
    else:
        trail = indexed(index, home, db, pg)
        report = trail.fix_report(text, project=project, limit=limit)
    if not report.fixes and not report.edits:
        say_unmatched(trail, project)
    answer(
        bool(report.fixes or report.edits),
        json_output,
        lambda: trail.records_json(report),
        lambda out: print_fixes(out, hosts_for_people(report) if dsn else report),
    )
