"""``trail stats``: sessions, turns, tool calls, failing commands, tokens by kind, cost and active time,
grouped by project, model, profile, source or day."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from hermes_trail.cli.common import (
    EXIT_OK,
    EXIT_OVER_BUDGET,
    EXIT_SKIPPED,
    DbOption,
    HomeOption,
    JsonOption,
    PgOption,
    check_locations,
    err,
    fail,
    load,
    named,
    print_json,
    report_rows,
)
from hermes_trail.cli.params import Exit, Option

if TYPE_CHECKING:
    from hermes_trail.stats import Group, Report
    from hermes_trail.stats_sql import Cached

ESTIMATE_HELP = (
    "Also price the sessions of unknown cost from Hermes' own pricing table, shown apart from "
    "Hermes' figures (estimated by trail)."
)
BUDGET_HELP = "Exit 4 when the cost of the sessions shown (with --estimate, estimates too) passes USD."


def stats_cmd(
    by: Annotated[str, Option("--by", help="project, model, profile, source or day.")] = "project",
    since: Annotated[str | None, Option(help="Active since: 7d, 12h, 30m or an ISO date.")] = None,
    profile: Annotated[str | None, Option(help="Only this profile.")] = None,
    project: Annotated[str | None, Option(help="Only this project (a path, or its end).")] = None,
    source: Annotated[str | None, Option(help="Only this source (cli, cron, telegram, ...).")] = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
    estimate: Annotated[bool, Option("--estimate", help=ESTIMATE_HELP)] = False,
    budget: Annotated[float | None, Option("--budget", metavar="USD", min=0, help=BUDGET_HELP)] = None,
) -> None:
    """Where the work went: sessions, turns, tool calls, failing commands, tokens by kind, cost (the sum of
    the known, and how many are unknown) and active time, by project, model, profile, source or day.

    \b
    Example:
        trail stats --by day --since 30d
        trail stats --since 7d --estimate --budget 50   # exits 4 over $50 (for cron)
    """
    from hermes_trail.stats import GROUPINGS, RowSession, aggregate_rows, estimate_costs

    if by not in GROUPINGS:
        fail(f"--by {by!r}: one of {', '.join(GROUPINGS)}")
    flt = None
    if any(x is not None for x in (profile, project, source, since)):  # listing is imported only then
        from hermes_trail.errors import TrailError
        from hermes_trail.listing import SessionFilter, parse_since

        try:
            flt = SessionFilter(profile, project, source, parse_since(since) if since else None)
        except TrailError as exc:
            fail(str(exc))
    counted = counted_rows(home, db, pg)
    whole = flt is None or all(x is None for x in (profile, project, source, flt.since))
    report = counted.reports.get(by) if whole and not estimate else None
    estimates = None
    if report is None:
        rows = counted.rows
        if flt is not None and not whole:
            rows = [r for r in rows if flt.accepts(RowSession(r))]
        estimates = estimate_costs([RowSession(r) for r in rows]) if estimate else None
        if estimate and estimates is None:
            err("no Hermes found to read its pricing table from: nothing estimated")
        report = aggregate_rows(rows, by, estimates)
    spent = report.overall.cost_usd + (report.overall.estimated_usd if estimates is not None else 0.0)
    over = budget is not None and spent > budget
    if json_output:
        out = report.as_json()
        out["since"] = flt.since.isoformat().replace("+00:00", "Z") if flt and flt.since else None
        limit = {"usd": budget, "spent": round(spent, 6), "over": over}
        out["budget"] = None if budget is None else limit
        print_json(out)
    else:
        print_report(report)
    if over:
        from hermes_trail.formatting import dollars

        guessed = report.overall.estimated_usd if estimates is not None else 0.0
        part = f" (of which {dollars(guessed)} estimated by trail)" if guessed else ""
        period = f" since {since}" if since else ""
        err(f"over budget: {dollars(spent)}{part} spent{period}, budget {dollars(budget or 0.0)}")
    code = EXIT_OVER_BUDGET if over else EXIT_SKIPPED if counted.skipped else EXIT_OK
    raise Exit(code)


def counted_rows(homes: list[Path] | None, dbs: list[Path] | None, pgs: list[str] | None) -> Cached:
    """Every session of the stores named (or found) as a report row, from trail's cache while the stores
    are unchanged (``stats_sql.cached_rows``), else counted (``stats_sql.report_rows``) and kept; what
    opening the stores told the user is told again from the cache, as :func:`load` tells it."""
    import os

    from hermes_trail.hermes import locate
    from hermes_trail.stats_sql import Cached, cached_rows, fingerprint, report_rows, save_rows

    check_locations(homes, dbs, pgs)
    discovery = locate.discover(os.environ, homes=homes or (), dbs=dbs or (), pgs=pgs or ())
    demo = False
    if not discovery.stores and not named(homes, dbs, pgs):  # open_history's rule for the demo home
        from hermes_trail.history import demo_home

        discovery, demo = locate.discover({}, homes=[demo_home()]), True
    mark = fingerprint(discovery) if discovery.stores else None
    found = cached_rows(discovery, mark) if mark is not None else None
    if found is not None:
        _tell(found, demo)
        return found
    from hermes_trail.cli.progress import progress_bar
    from hermes_trail.history import PAGE

    with load(homes, dbs, pgs, catalog=PAGE) as history:
        strays = [(s.kind, s.where, s.reason) for s in history.strays]
        # The store counts what it can (stats_sql); the sessions it cannot are read, with a progress bar.
        with progress_bar("reading") as progress:
            rows = report_rows(history, progress)
        found = Cached(rows, strays, history.skipped, len(history.stores))
    # A store that could not be opened may open next time (a lock, a permission) though no file changed:
    # rows read beside one are not kept. Nor is nothing (no store at all).
    if mark is not None and found.stores and not any(kind == "store" for kind, _, _ in strays):
        save_rows(discovery, mark, found)
    return found


def _tell(found: Cached, demo: bool) -> None:
    """What :func:`load` told the user when the cached rows were counted: the demo home, what was passed
    over (a store with none is never cached, so never says "no Hermes store found")."""
    if demo:
        err("no Hermes home found; reading the demo home bundled with hermes-trail")
    for kind, where, reason in found.strays:
        if kind in ("store", "directory"):
            err(f"skipped {kind} {where}: {reason}")
    rows = [(where, reason) for kind, where, reason in found.strays if kind not in ("store", "directory")]
    if rows:
        from hermes_trail.model import Stray

        report_rows([Stray(where=where, reason=reason) for where, reason in rows])


def _tokens(value: int) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    return f"{value:,}"


def _cost(group: Group) -> str:
    from hermes_trail.formatting import dollars

    parts = [dollars(group.cost_usd)] if group.cost_known else []
    if group.estimated:
        parts.append(f"~{dollars(group.estimated_usd)} est.")
    if group.cost_unknown - group.estimated:
        parts.append(f"{group.cost_unknown - group.estimated} unknown")
    return " + ".join(parts) or "-"


def _row(group: Group) -> list[str]:
    from hermes_trail.formatting import safe
    from hermes_trail.transcript import seconds

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
    """The groups as a table that fits the terminal (the least telling columns leave first), then the sums
    in a last row. Drawn without rich (``cli/term.py``), as the other listings are."""
    import sys

    from hermes_trail.cli import term

    colored = term.color_enabled()
    width = term.width()
    names = [
        report.by,
        "sessions",
        "turns",
        "tool calls",
        "failing cmds",
        "tokens in/out",
        "cache r/w",
        "reasoning",
        "cost",
        "active",
    ]
    rows = [_row(g) for g in report.groups]
    total = _row(report.overall)
    total[0] = "all"
    widths = [
        max(term.cells(names[i]), *(term.cells(r[i]) for r in [*rows, total])) for i in range(len(names))
    ]
    widths[0] = min(widths[0], 40)
    shown = list(range(len(names)))
    for column in ("reasoning", "cache r/w", "turns", "tool calls", "active", "failing cmds"):
        if sum(widths[i] + 2 for i in shown) - 2 <= width:
            break
        shown.remove(names.index(column))
    room = [widths[i] for i in shown]
    spare = width - (sum(room) + 2 * (len(shown) - 1))
    if spare < 0:  # the first column gives way last
        room[0] = max(room[0] + spare, 8)
    cut = [[term.fit(r[i], room[j]) for j, i in enumerate(shown)] for r in rows]
    right = [i != 0 for i in shown]
    lines = term.table([names[i] for i in shown], cut, room, right, colored)
    if rows:
        footer = [term.fit(total[i], room[j]) for j, i in enumerate(shown)]
        lines.append(term.style(term.row(footer, room, right), "bold", colored))
    out = "\n".join(lines) + "\n"
    if not report.groups:
        out += term.style("No session matches.", "dim", colored) + "\n"
    if report.overall.estimating:
        n = report.overall.estimated
        note = (
            f"~ est.: estimated by trail from Hermes' own pricing table for {n} session(s) Hermes "
            "recorded no cost for; never added to Hermes' figures."
        )
        out += term.style(note, "dim", colored) + "\n"
    sys.stdout.write(out)
