"""Terminal output shared by commands: the console and the session table."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from hermes_trail.model import Session, Usage
from hermes_trail.transcript import clock, safe

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from hermes_trail.index.blame import BlameEntry
    from hermes_trail.index.fix import FixReport
    from hermes_trail.index.how import HowEntry
    from hermes_trail.index.search import SearchResult


def console() -> Console:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=False)


_NUMERIC = frozenset({"msgs", "tokens in/out", "cost", "cmp"})


def _count(value: int | None) -> str:
    if value is None:
        return "-"
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 10_000:
        return f"{value / 1000:.0f}k"
    if value >= 1000:
        return f"{value / 1000:.1f}k"
    return str(value)


def _money(usd: float | None) -> str:
    """Blank when unknown; small amounts keep their first digits instead of rounding to $0.00."""
    if usd is None:
        return ""
    return f"${usd:.4f}" if usd < 0.01 else f"${usd:,.2f}"


def _tokens(usage: Usage) -> str:
    if usage.input_tokens is None and usage.output_tokens is None:
        return ""
    return f"{_count(usage.input_tokens)}/{_count(usage.output_tokens)}"


def _short_project(project: str, width: int = 28) -> str:
    return project if len(project) <= width else "…" + project[-(width - 1):]


def print_sessions(sessions: list[Session], total: int) -> None:
    """The sessions as a table that fits the terminal, newest activity first."""
    from rich.table import Table

    out = console()
    rows = [
        (
            safe(s.id),
            safe(s.profile),
            safe(s.source or ""),
            safe(s.project),
            safe(s.title or ""),
            safe(s.model or ""),
            clock(s.started_at, with_date=True)[:16],
            clock(s.last_activity_at, with_date=True)[:16],
            "" if s.message_count is None else str(s.message_count),
            _tokens(s.usage),
            _money(s.usage.cost_usd),
            str(s.compactions) if s.compactions else "",
            "" if s.relation in (None, "root") else safe(s.relation or ""),
        )
        for s in sessions
    ]
    names = (
        "id", "profile", "source", "project", "title", "model", "started", "last activity", "msgs",
        "tokens in/out", "cost", "cmp", "relation",
    )  # fmt: skip
    widths = [max([len(name), *(len(r[i]) for r in rows)]) for i, name in enumerate(names)]
    flexible = {"project": 2, "title": 3, "model": 1}
    least = {"project": 12, "title": 24, "model": 10}  # below these, a fixed column leaves instead
    # Columns leave in this order until the table fits the terminal.
    drop_order = (
        "started", "model", "relation", "cmp", "tokens in/out", "cost", "profile", "source", "msgs", "project"
    )  # fmt: skip
    shown = list(range(len(names)))

    def needed() -> int:
        return sum(
            min(widths[i], least[names[i]]) if names[i] in flexible else widths[i] for i in shown
        ) + 2 * len(shown)

    for i, name in enumerate(names):  # a column with nothing in it says nothing
        if name not in ("id", "title", "project") and rows and not any(r[i] for r in rows):
            shown.remove(i)
    for name in drop_order:
        if names.index(name) not in shown:
            continue
        if needed() <= out.width:
            break
        shown.remove(names.index(name))
    flex = [i for i in shown if names[i] in flexible]
    spare = out.width - sum(widths[i] for i in shown if i not in flex) - 2 * (len(shown) - 1)
    total_ratio = sum(flexible[names[i]] for i in flex) or 1
    table = Table(box=None, pad_edge=False, header_style="bold", expand=False)
    column_width: dict[int, int] = {}
    for i in shown:
        name = names[i]
        if name in flexible:
            width = max(8, min(widths[i], spare * flexible[name] // total_ratio))
            column_width[i] = width
            table.add_column(name, overflow="ellipsis", no_wrap=True, width=width)
        else:
            if name in _NUMERIC:
                table.add_column(name, no_wrap=True, width=widths[i], justify="right")
            else:
                table.add_column(name, no_wrap=True, width=widths[i])
    project = names.index("project")
    for row in rows:
        cells = list(row)
        cells[project] = _short_project(cells[project], column_width.get(project, widths[project]))
        table.add_row(*(cells[i] for i in shown))
    out.print(table)
    if len(sessions) < total:
        out.print(f"[dim]{len(sessions)} of {total} sessions (--limit 0 shows all)[/dim]")


def _marked(snippet: str) -> Text:
    """A snippet with the index's match marks turned into bold, the rest shown as plain (escaped) text."""
    from rich.text import Text

    from hermes_trail.index.search import MARK_CLOSE, MARK_OPEN

    out = Text()
    for i, part in enumerate(safe(snippet.replace("\n", " ")).split(MARK_OPEN)):
        if i == 0:
            out.append(part)
            continue
        inside, _, rest = part.partition(MARK_CLOSE)
        out.append(inside, style="bold yellow")
        out.append(rest)
    return out


def print_search(out: Console, result: SearchResult) -> None:
    """Hits grouped by conversation: title, where and when, each matching turn, and how to resume."""
    from rich.padding import Padding
    from rich.text import Text

    if not result.conversations:
        out.print(f"No match for {safe(result.query)!r}.", highlight=False)
        if result.missing:
            out.print(f"[dim]Not found anywhere: {safe(', '.join(result.missing))}[/dim]", highlight=False)
        return
    if result.missing:
        words = ", ".join(result.missing)
        out.print(f"[yellow]Not found anywhere: {safe(words)}; showing what the other words find.[/yellow]\n",
                  highlight=False)  # fmt: skip
    for conversation in result.conversations:
        best = conversation.hits[0]
        head = Text(safe(best.title or "(untitled)"), style="bold")
        where = f"  {best.project} · {best.profile} · {best.source or '?'}"
        if best.origin != "session":  # Hermes' memory or a skill: where it is, not a session's facts
            where = f"  {best.label}"
        head.append(safe(where), style="dim")
        out.print(head)
        for hit in conversation.hits:
            when = clock(datetime.fromtimestamp(hit.time, tz=UTC) if hit.time else None, with_date=True)[:16]
            what = hit.kind + (f" exit {hit.exit_code}" if hit.kind == "command" else "")
            name = hit.session_id if hit.origin == "session" else hit.label
            line = Text(f"{when}  {safe(name)} #{hit.row}  {what}: ", style="dim")
            line.append_text(_marked(hit.snippet))
            out.print(Padding(line, (0, 0, 0, 2)))
        if best.resume:
            out.print(Padding(Text(f"resume: {safe(best.resume)}", style="cyan"), (0, 0, 0, 2)))
        out.print()
    if result.unencoded:
        out.print(f"[dim]{result.unencoded:,} sessions have no passages for search by meaning yet: "
                  "`trail index` encodes them.[/dim]", highlight=False)  # fmt: skip
    more = " (newest matches ranked)" if result.windowed else ""
    at_least = "" if result.matches_exact else "at least "
    turns = "matching turn" if result.matches == 1 else "matching turns"
    out.print(f"[dim]{at_least}{result.matches:,} {turns}{more} in {result.seconds * 1000:.0f} ms[/dim]")


def _day(when: float | None) -> str:
    return clock(datetime.fromtimestamp(when, tz=UTC) if when else None, with_date=True)[:16]


def print_fixes(out: Console, report: FixReport) -> None:
    """Each fix with how often it worked after the same failure, and an example of where."""
    from rich.text import Text

    if not report.fixes:
        found = f"{report.failures_total} matching failure(s)"
        if not report.failures_total:
            found = "no matching failure"
        out.print(f"Nothing on record fixed this ({found}).", highlight=False)
        return
    for fix in report.fixes:
        line = Text("$ ", style="green")
        line.append(safe(fix.command), style="bold green")
        confirmed = f", the failing command then passed {fix.confirmed}×" if fix.confirmed else ""
        line.append(f"  worked in {fix.worked} conversation(s){confirmed}", style="dim")
        out.print(line)
        for example in fix.examples[:2]:
            note = Text(f"  {_day(example.time)}  {safe(example.session_id)}  after ", style="dim")
            note.append(safe(example.failed_command[:80]), style="red")
            note.append(f" (exit {example.exit_code})", style="dim")
            out.print(note)
    total = f"{report.failures_total} matching failure(s) in {report.conversations} conversation(s)"
    out.print(f"[dim]{total}[/]")


def print_blame(out: Console, path: str, entries: list[BlameEntry]) -> None:
    """Each edit of the file, newest first, with the prompt that led to it."""
    from rich.text import Text

    if not entries:
        out.print(f"No edit of {safe(path)} on record.", highlight=False)
        return
    for entry in entries:
        line = Text(f"{_day(entry.time)}  {safe(entry.session_id)}  ", style="dim")
        counts = f" +{entry.added} -{entry.removed}" if entry.added is not None else ""
        target = f" → {entry.moved_to}" if entry.moved_to else ""
        line.append(safe(f"{entry.action} {entry.path}{target}{counts}"), style="bold")
        if entry.applied is False:
            line.append("  (not applied)", style="red")
        out.print(line)
        if entry.prompt:
            out.print(Text("    ▸ " + safe(entry.prompt.strip().splitlines()[0][:120]), style="cyan"))


def print_how(out: Console, what: str, entries: list[HowEntry]) -> None:
    """Commands that match, by sessions that ran them and their success rate."""
    from rich.text import Text

    if not entries:
        out.print(f"No command on record does {safe(what)!r}.", highlight=False)
        return
    for entry in entries:
        line = Text("$ ", style="green")
        line.append(safe(entry.command), style="bold")
        rate = "" if entry.success_rate is None else f", {entry.success_rate:.0%} ok"
        sessions = f"{entry.sessions} session" + ("" if entry.sessions == 1 else "s")
        runs = f"{entry.runs} run" + ("" if entry.runs == 1 else "s")
        line.append(f"  {sessions}, {runs}{rate}, last {_day(entry.last_time)}", style="dim")
        out.print(line)
        if entry.prompt:  # found through what was asked (or said) before it ran
            asked = "asked" if entry.matched_in == "prompt" else "said"
            out.print(Text(f"    {asked}: {safe(entry.prompt)}", style="cyan"), highlight=False)
