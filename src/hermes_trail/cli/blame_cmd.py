"""``trail blame``: every session and edit that touched a file."""

from typing import Annotated

from hermes_trail.cli.common import DbOption, HomeOption, JsonOption, PgOption, answer
from hermes_trail.cli.indexing import IndexOption, indexed
from hermes_trail.cli.params import asked
from hermes_trail.cli.share_cmd import FleetOption, HostsOption
from hermes_trail.questions import QUESTIONS

_Q = QUESTIONS["blame"]  # its arguments: words, bounds and defaults shared with the MCP tool


def blame(
    path: Annotated[str, asked(_Q, "path")],
    limit: Annotated[int, asked(_Q, "limit", "-n")] = _Q.param("limit").cli_default,
    include_rewound: Annotated[bool, asked(_Q, "include_rewound")] = _Q.param("include_rewound").cli_default,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
    fleet: FleetOption = False,
    host: HostsOption = None,
) -> None:
    """Every session and edit that touched a file, following moves, newest first, with the prompt behind it.

    \b
    Example:
        trail blame src/app.py
    """
    from hermes_trail.cli.share_cmd import asked_fleet, fleet_dsn, hosts_for_people
    from hermes_trail.cli.tables import print_blame

    if (dsn := fleet_dsn(index, fleet)) is not None:  # the shared index of many machines (docs/fleet.md)
        trail, entries = asked_fleet(
            dsn, host, lambda t: t.blame_edits(path, limit=limit, include_rewound=include_rewound)
        )
    else:
        trail = indexed(index, home, db, pg)
        entries = trail.blame_edits(path, limit=limit, include_rewound=include_rewound)
    near = [] if entries else trail.near_paths(path, include_rewound=include_rewound)
    answer(
        bool(entries),
        json_output,
        lambda: {"path": path, "edits": trail.records_json(entries), "near": near},
        lambda out: print_blame(out, path, hosts_for_people(entries) if dsn else entries, near),
    )
