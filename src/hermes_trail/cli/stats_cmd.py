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
from hermes_trail.cli.params import Exit, Option, asked
from hermes_trail.questions import QUESTIONS

if TYPE_CHECKING:
    from hermes_trail.hermes.locate import Discovery
    from hermes_trail.service import Trail
    from hermes_trail.stats import Group, Report
    from hermes_trail.stats_sql import Cached

_Q = QUESTIONS["stats"]  # its arguments: words and defaults shared with the web's /api/ask/stats
BUDGET_HELP = "Exit 4 when the cost of the sessions shown (with --estimate, estimates too) passes USD."


def stats_cmd(
    by: Annotated[str, asked(_Q, "by")] = _Q.param("by").cli_default,
    since: Annotated[str | None, asked(_Q, "since")] = None,
    profile: Annotated[str | None, asked(_Q, "profile")] = None,
    project: Annotated[str | None, asked(_Q, "project")] = None,
    source: Annotated[str | None, asked(_Q, "source")] = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
    estimate: Annotated[bool, asked(_Q, "estimate")] = _Q.param("estimate").cli_default,
    budget: Annotated[float | None, Option("--budget", metavar="USD", min=0, help=BUDGET_HELP)] = None,
) -> None:
    """Where the work went: sessions, turns, tool calls, failing commands, tokens by kind, cost (the sum of
    the known, and how many are unknown) and active time, by project, model, profile, source or day.

    \b
    Example:
        trail stats --by day --since 30d
        trail stats --since 7d --estimate --budget 50   # exits 4 over $50 (for cron)
    """
    from hermes_trail.service import ServiceError

    check_locations(home, db, pg)
    trail, discovery = _door(home, db, pg)
    counted: list[Cached] = []

    def count() -> Cached:
        counted.append(counted_rows(trail, discovery, home, db, pg))
        return counted[0]

    try:
        answer = trail.stats_report(
            by=by,
            since=since,
            profile=profile,
            project=project,
            source=source,
            estimate=estimate,
            counted=count,
        )
    except ServiceError as exc:
        fail(exc.args[0])
    if answer.unpriced:
        err("no Hermes found to read its pricing table from: nothing estimated")
    spent = answer.spent
    over = budget is not None and spent > budget
    if json_output:
        from hermes_trail.serialize import stats_json

        print_json(stats_json(answer, budget))
    else:
        print_report(answer.report)
        if since and not answer.report.groups:  # a window after the history: when it was last active
            from hermes_trail.listing import last_active_said
            from hermes_trail.stats import RowSession

            rows = (RowSession(row) for row in counted[0].rows)
            if said := last_active_said(rows, profile, project, source, since):
                err(said)
    if over:
        from hermes_trail.formatting import dollars

        overall = answer.report.overall
        guessed = overall.estimated_usd if overall.estimating else 0.0
        part = f" (of which {dollars(guessed)} estimated by trail)" if guessed else ""
        period = f" since {since}" if since else ""
        err(f"over budget: {dollars(spent)}{part} spent{period}, budget {dollars(budget or 0.0)}")
    code = EXIT_OVER_BUDGET if over else EXIT_SKIPPED if counted[0].skipped else EXIT_OK
    raise Exit(code)


def _door(homes: list[Path] | None, dbs: list[Path] | None, pgs: list[str] | None) -> tuple[Trail, Discovery]:
    """The front door over the stores named, else every store found, else the bundled demo home (the
    rule of :func:`load`), and the stores it reads."""
    import os

    from hermes_trail.hermes import locate
    from hermes_trail.service import Trail

    discovery = locate.discover(os.environ, homes=homes or (), dbs=dbs or (), pgs=pgs or ())
    if not discovery.stores and not named(homes, dbs, pgs):
        trail = Trail(demo=True)
        return trail, locate.discover({}, homes=trail.homes)
    return Trail(homes=tuple(homes or ()), dbs=tuple(dbs or ()), pgs=tuple(pgs or ())), discovery


def counted_rows(
    trail: Trail,
    discovery: Discovery,
    homes: list[Path] | None,
    dbs: list[Path] | None,
    pgs: list[str] | None,
) -> Cached:
    """Every session of the stores ``discovery`` found as a report row (:meth:`Trail.counted_rows`): read
    the command line's way (:func:`load` says what it passed over, with a progress bar while counting),
    or from trail's cache, what opening the stores told the user then told again."""
    from hermes_trail.cli.progress import progress_bar
    from hermes_trail.history import PAGE

    return trail.counted_rows(
        discovery=discovery,
        opened=lambda: load(homes, dbs, pgs, catalog=PAGE),
        counting=lambda: progress_bar("reading"),
        cached=lambda found: _tell(found, trail.demo),
    )


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
    # A project is a path: cut from the left, its last folders say which one ("…/projects/weather-cli").
    first = term.fit_left if report.by == "project" else term.fit
    cut = [[(first if i == 0 else term.fit)(r[i], room[j]) for j, i in enumerate(shown)] for r in rows]
    right = [i != 0 for i in shown]
    lines = term.table([names[i] for i in shown], cut, room, right, colored)
    if rows:
        footer = [term.fit(total[i], room[j]) for j, i in enumerate(shown)]
        lines.append(term.style(term.row(footer, room, right), "bold", colored))
    out = "\n".join(lines) + "\n"
    if not report.groups:
        out += term.style("No session matches.", "dim", colored) + "\n"
    if report.overall.estimating:
        from hermes_trail.formatting import counted

        n = report.overall.estimated
        note = (
            f"~ est.: estimated by trail from Hermes' own pricing table for {counted(n, 'session')} Hermes "
            "recorded no cost for; never added to Hermes' figures."
        )
        out += term.style(note, "dim", colored) + "\n"
    sys.stdout.write(out)
