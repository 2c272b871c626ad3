"""``trail search``: everything Hermes recorded, by words and by meaning."""

from typing import TYPE_CHECKING, Annotated, Any

from hermes_trail.cli.common import (
    DbOption,
    HomeOption,
    JsonOption,
    PgOption,
    answer,
    question,
    role_option,
    window_options,
)
from hermes_trail.cli.indexing import IndexOption, indexed
from hermes_trail.cli.params import asked
from hermes_trail.cli.share_cmd import FleetOption, HostsOption
from hermes_trail.questions import QUESTIONS

if TYPE_CHECKING:
    from hermes_trail.service import Trail

_Q = QUESTIONS["search"]  # its arguments: words, bounds and defaults shared with the MCP tool


def search(
    query: Annotated[list[str], asked(_Q, "query")],
    project: Annotated[str | None, asked(_Q, "project")] = _Q.param("project").cli_default,
    profile: Annotated[str | None, asked(_Q, "profile")] = _Q.param("profile").cli_default,
    source: Annotated[str | None, asked(_Q, "source")] = _Q.param("source").cli_default,
    since: Annotated[str | None, asked(_Q, "since")] = _Q.param("since").cli_default,
    until: Annotated[str | None, asked(_Q, "until")] = _Q.param("until").cli_default,
    role: Annotated[str | None, asked(_Q, "role")] = _Q.param("role").cli_default,
    tool: Annotated[str | None, asked(_Q, "tool")] = _Q.param("tool").cli_default,
    session: Annotated[str | None, asked(_Q, "session")] = _Q.param("session").cli_default,
    include_rewound: Annotated[bool, asked(_Q, "include_rewound")] = _Q.param("include_rewound").cli_default,
    limit: Annotated[int, asked(_Q, "limit", "-n")] = _Q.param("limit").cli_default,
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
    text = question(query, "give something to search for: words, a phrase, a path", phrases=True)
    from hermes_trail.index import meaning_client

    window_options(since, until)  # a time it cannot read, or bounds swapped, fail the command
    role_option(role)
    asked_for: dict[str, Any] = {  # the question's filters, as declared
        "project": project,
        "profile": profile,
        "source": source,
        "since": since,
        "until": until,
        "role": role,
        "tool": tool,
        "session": session,
        "include_rewound": include_rewound,
    }
    from hermes_trail.cli.share_cmd import fleet_dsn, search_fleet

    if (dsn := fleet_dsn(index, fleet)) is not None:  # the shared index of many machines (docs/fleet.md)
        from hermes_trail.service import search_filters

        search_fleet(dsn, text, search_filters(**asked_for), host, limit, json_output)
    trail = indexed(index, home, db, pg)
    with meaning_client.served():  # a one-shot command asks the meaning server, not a model of its own
        result = trail.search_result(text, limit=limit, **asked_for)
    from hermes_trail.cli.tables import print_search
    from hermes_trail.serialize import search_json

    answer(
        bool(result.conversations),
        json_output,
        lambda: search_json(result),
        lambda out: print_search(out, result, encoding=_encoding(trail, result.unencoded)),
    )


def _encoding(trail: "Trail", unencoded: int | None) -> bool:
    """Whether the passages the search lacked are being encoded now: a stage behind the queries this sync
    started, or any stage at work on the index (index/behind.py)."""
    if not unencoded:
        return False
    from hermes_trail.index import vectors

    return trail.encoding_behind or vectors.held(trail.index_path)
