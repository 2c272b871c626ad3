"""``trail stats``: sessions, turns, tool calls, failing commands, tokens by kind, cost and active time,
grouped by project, model, profile, source or day."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

import typer

from hermes_trail.cli.app import app
from hermes_trail.cli.common import (
    DbOption,
    HomeOption,
    JsonOption,
    PgOption,
    exit_code,
    fail,
    load,
    print_json,
)

if TYPE_CHECKING:
    from hermes_trail.stats import Group, Report


@app.command("stats")
def stats_cmd(
    by: Annotated[str, typer.Option("--by", help="project, model, profile, source or day.")] = "project",
    since: Annotated[str | None, typer.Option(help="Active since: 7d, 12h, 30m or an ISO date.")] = None,
    profile: Annotated[str | None, typer.Option(help="Only this profile.")] = None,
    project: Annotated[str | None, typer.Option(help="Only this project (a path, or its end).")] = None,
    source: Annotated[str | None, typer.Option(help="Only this source (cli, cron, telegram, ...).")] = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """Where the work went: sessions, turns, tool calls, failing commands, tokens by kind, cost (the sum of
    the known, and how many are unknown) and active time, by project, model, profile, source or day.

    \b
    Example:
        trail stats --by day --since 30d
    """
    from hermes_trail.errors import TrailError
    from hermes_trail.listing import SessionFilter, parse_since
    from hermes_trail.stats import GROUPINGS, aggregate, measure_all

    if by not in GROUPINGS:
        fail(f"--by {by!r}: one of {', '.join(GROUPINGS)}")
    try:
        flt = SessionFilter(profile, project, source, parse_since(since) if since else None)
    except TrailError as exc:
        fail(str(exc))
    with load(home, db, pg) as history:
        chosen = [s for s in history.sessions if flt.accepts(s)]
        from hermes_trail.cli.progress import progress_bar

        with progress_bar("reading") as progress:
            figures = measure_all(history.load, chosen, progress=progress)
        report = aggregate(chosen, by, figures)
        if json_output:
            out = report.as_json()
            out["since"] = flt.since.isoformat().replace("+00:00", "Z") if flt.since else None
            print_json(out)
        else:
            print_report(report)
        code = exit_code(history)
    raise typer.Exit(code)


def _tokens(value: int) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    return f"{value:,}"


def _cost(group: Group) -> str:
    known = f"${group.cost_usd:,.2f}" if group.cost_known else ""
    if group.cost_unknown:
        unknown = f"{group.cost_unknown} unknown"
        return f"{known} + {unknown}" if known else unknown
    return known or "-"


def _row(group: Group) -> list[str]:
    from hermes_trail.transcript import safe, seconds

    tokens = group.tokens
    active = seconds(group.active_seconds) if group.measured else ""
    return [
        safe(group.key),
        f"{group.sessions:,}",
        f"{group.turns:,}",
        f"{group.tool_calls:,}",
        f"{group.failing_commands:,}" + (f" / {group.commands:,}" if group.commands else ""),
        f"{_tokens(tokens['input'])}/{_tokens(tokens['output'])}",
        f"{_tokens(tokens['cache_read'])}/{_tokens(tokens['cache_write'])}",
        _tokens(tokens["reasoning"]),
        _cost(group),
        active or "-",
    ]


def print_report(report: Report) -> None:
    """The groups as a table that fits the terminal (the least telling columns leave first), then the sums."""
    from rich.table import Table

    from hermes_trail.cli.tables import console

    out = console()
    names = [report.by, "sessions", "turns", "tool calls", "failing cmds", "tokens in/out", "cache r/w",
             "reasoning", "cost", "active"]  # fmt: skip
    rows = [_row(g) for g in report.groups]
    total = _row(report.overall)
    total[0] = "all"
    widths = [max(len(names[i]), *(len(r[i]) for r in [*rows, total])) for i in range(len(names))]
    shown = list(range(len(names)))
    for column in ("reasoning", "cache r/w", "turns", "tool calls", "active", "failing cmds"):
        if sum(min(widths[i], 40) + 2 for i in shown) <= out.width:
            break
        shown.remove(names.index(column))
    table = Table(box=None, pad_edge=False, header_style="bold", show_footer=True, footer_style="bold")
    for i in shown:
        justify: Literal["left", "right"] = "left" if i == 0 else "right"
        table.add_column(names[i], footer=total[i], justify=justify, no_wrap=True,
                         overflow="ellipsis", max_width=40 if i == 0 else None)  # fmt: skip
    for row in rows:
        table.add_row(*(row[i] for i in shown))
    out.print(table)
    if not report.groups:
        out.print("[dim]No session matches.[/dim]")
