"""Terminal output of the listing and query commands: the session table, search hits, fixes, blame, how.
Drawn with ``cli/term.py``, without rich."""

from __future__ import annotations

import re
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from hermes_trail.cli.term import Printer, Segment, cells, fit, fit_left
from hermes_trail.formatting import clock, counted, dollars, listed, quoted, safe

if TYPE_CHECKING:
    from hermes_trail.index.blame import BlameEntry
    from hermes_trail.index.fix import EditExample, FixExample, FixReport
    from hermes_trail.index.how import HowEntry
    from hermes_trail.index.results import Hit, SearchResult
    from hermes_trail.model import Session, Usage


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
    return "" if usd is None else dollars(usd)


def _tokens(usage: Usage) -> str:
    if usage.input_tokens is None and usage.output_tokens is None:
        return ""
    return f"{_count(usage.input_tokens)}/{_count(usage.output_tokens)}"


def print_sessions(
    sessions: list[Session],
    matched: int,
    total: int,
    previews: dict[tuple[str, str], str] | None = None,
) -> None:
    """The sessions as a table that fits the terminal, newest activity first, then a line saying how many
    of how many are shown (``matched``: those the filters let through; ``total``: every session read).

    Drawn without rich (:mod:`hermes_trail.cli.term`): a listing is the command people run most. A session
    without a title shows its first prompt instead, as Hermes' own list does; the profile column stays
    whenever two profiles (or two rows with one id) are on screen; times show seconds when two rows share
    a minute.
    """
    from hermes_trail.cli import term

    colored = term.color_enabled()
    if not sessions:
        sys.stdout.write(term.style(_footer(0, matched, total), "dim", colored) + "\n")
        return
    width = term.width()
    previews = previews or {}
    stamps = [s.last_activity_at.astimezone() if s.last_activity_at else None for s in sessions]
    minutes = [t.strftime("%Y%m%d%H%M") for t in stamps if t is not None]
    with_seconds = len(minutes) != len(set(minutes))
    this_year = datetime.now().astimezone().year
    short_date = width < 100 and all(t is None or t.year == this_year for t in stamps)
    fmt = ("%m-%d %H:%M" if short_date else "%Y-%m-%d %H:%M") + (":%S" if with_seconds else "")
    ids = [s.id for s in sessions]
    several_profiles = len({s.profile for s in sessions}) > 1 or len(ids) != len(set(ids))

    def when(value: datetime | None) -> str:
        return value.astimezone().strftime(fmt) if value is not None else ""

    def title(s: Session) -> tuple[str, bool]:
        if s.title:
            return safe(s.title), False
        prompt = previews.get((s.store.key, s.id), "")
        return safe(prompt), bool(prompt)

    titles = [title(s) for s in sessions]
    columns: list[_Column] = [
        _Column("id", [safe(s.id) for s in sessions]),
        _Column("profile", [safe(s.profile) for s in sessions], most=10, least=5, keep=several_profiles),
        _Column("source", [safe(s.source or "") for s in sessions], most=8, least=4),
        _Column("project", [safe(s.project) for s in sessions], flex=2, least=10, want=16, left=True),
        _Column("title", [t for t, _ in titles], flex=3, least=12, want=36),
        _Column("model", [safe(s.model or "") for s in sessions], flex=1, least=10, want=14),
        _Column("started", [when(s.started_at) for s in sessions]),
        _Column("last active", [when(s.last_activity_at) for s in sessions]),
        _Column(
            "msgs", ["" if s.message_count is None else str(s.message_count) for s in sessions], right=True
        ),
        _Column("tokens in/out", [_tokens(s.usage) for s in sessions], right=True),
        _Column("cost", [_money(s.usage.cost_usd) for s in sessions], right=True),
        _Column("cmp", [str(s.compactions) if s.compactions else "" for s in sessions], right=True),
        _Column(
            "relation", ["" if s.relation in (None, "root") else safe(s.relation or "") for s in sessions]
        ),
    ]
    shown = [c for c in columns if c.name in ("id", "title", "last active") or c.keep or any(c.cells)]
    shown = [c for c in shown if c.name != "profile" or several_profiles]
    for name in ("started", "model", "relation", "cmp", "tokens in/out", "cost", "project", "msgs"):
        if _needed(shown) <= width:
            break
        shown = [c for c in shown if c.name != name]
    widths = _widths(shown, width)
    rows = []
    for i in range(len(sessions)):
        row = []
        for column, room in zip(shown, widths, strict=True):
            cell = column.cells[i]
            cell = term.fit_left(cell, room) if column.left else term.fit(cell, room)
            if column.name == "title" and titles[i][1]:
                cell = term.style(cell, "dim", colored)
            row.append(cell)
        rows.append(row)
    out = term.table([c.name for c in shown], rows, widths, [c.right for c in shown], colored)
    footer = _footer(len(sessions), matched, total)
    if footer:
        out.append(term.style(footer, "dim", colored))
    sys.stdout.write("\n".join(out) + "\n")


class _Column:
    """One column of the session table: its cells, and how it may shrink (``flex`` shares the room left,
    ``least`` is as narrow as it gets before it leaves, ``most`` caps a fixed column)."""

    def __init__(
        self,
        name: str,
        cells: list[str],
        flex: int = 0,
        least: int = 0,
        most: int = 0,
        want: int = 0,
        right: bool = False,
        left: bool = False,
        keep: bool = False,
    ) -> None:
        from hermes_trail.cli import term

        self.name, self.cells, self.flex, self.right, self.left, self.keep = (
            name,
            cells,
            flex,
            right,
            left,
            keep,
        )
        self.natural = max([term.cells(name), *(term.cells(c) for c in cells)])
        self.most = min(self.natural, most) if most else self.natural
        self.least = min(max(least, term.cells(name)), self.most) if least else self.most
        self.want = min(max(want, self.least), self.natural) if want else self.least


def _needed(columns: list[_Column]) -> int:
    """The room the columns want: an optional column stays only when the title (and project) still get
    a readable width beside it."""
    return sum(c.want for c in columns) + 2 * (len(columns) - 1)


def _widths(columns: list[_Column], width: int) -> list[int]:
    """Each column's width: fixed ones their natural width (capped), shrunk to their least when the room
    is short; the flexible ones share what is left by weight, none past its natural width."""
    widths = [c.most if not c.flex else c.least for c in columns]
    spare = width - sum(widths) - 2 * (len(columns) - 1)
    if spare < 0:  # shrink the shrinkable fixed columns (profile, source) toward their least
        for i, c in enumerate(columns):
            if not c.flex and c.least < widths[i] and spare < 0:
                give = min(widths[i] - c.least, -spare)
                widths[i] -= give
                spare += give
        return widths
    flex = [i for i, c in enumerate(columns) if c.flex]
    while spare > 0 and flex:
        weight = sum(columns[i].flex for i in flex)
        handed = 0
        for i in flex:
            share = max(spare * columns[i].flex // weight, 1)
            grow = min(share, columns[i].natural - widths[i], spare - handed)
            widths[i] += grow
            handed += grow
        spare -= handed
        flex = [i for i in flex if widths[i] < columns[i].natural]
        if not handed:
            break
    return widths


def _footer(shown: int, matched: int, total: int) -> str:
    """How many are shown of how many: the truth about the limit and the filters."""
    noun = "session" if total == 1 else "sessions"
    if total == 0:
        return "No sessions."
    if matched == 0 and shown == 0:
        return f"No session matches (of {total} {noun})."
    if shown < matched:
        of = f"{matched} matching ({total} in all)" if matched < total else f"{total} {noun}"
        return f"{shown} of {of} (--limit 0 shows all)"
    if matched < total:
        return f"{shown} of {total} {noun}"
    return ""


# Hits whose lines are lines of a program's text (a command and its output, an edit's lines, a tool's
# output): where one ends is shown, as a prompt's or a reply's line breaks are not.
LINED = frozenset({"command", "blocked", "edit", "tool"})
LINE_BREAK = " ⏎ "
_BLANKS = re.compile(r"[^\S\n]+")
_BREAKS = re.compile(r"\s*\n\s*")


def _marked(snippet: str, kind: str | None = None) -> list[Segment]:
    """A snippet on one line: the index's match marks turned into bold, the rest shown as plain (escaped)
    text, each run of blanks one space (an edit's indentation, a table's padding), and each line break a
    space, or a dim ``⏎`` in a hit of :data:`LINED` (where a command ends and its output begins)."""
    from hermes_trail.index.results import MARK_CLOSE, MARK_OPEN

    lined = kind in LINED
    text = _BREAKS.sub("\n" if lined else " ", _BLANKS.sub(" ", snippet.strip()))
    out: list[Segment] = []
    for i, part in enumerate(safe(text).split(MARK_OPEN)):
        if i == 0:
            out += _lines(part)
            continue
        inside, _, rest = part.partition(MARK_CLOSE)
        out += [(inside.replace("\n", " "), "bold yellow"), *_lines(rest)]
    return out


def _lines(text: str) -> list[Segment]:
    """Plain text, its line breaks shown as :data:`LINE_BREAK` (dim)."""
    out: list[Segment] = []
    for j, line in enumerate(text.split("\n")):
        if j:
            out.append((LINE_BREAK, "dim"))
        if line:
            out.append((line, ""))
    return out


def print_search(out: Printer, result: SearchResult, shared: bool = False, encoding: bool = False) -> None:
    """Hits grouped by conversation: title, where and when, each matching turn, and how to resume
    (``shared``: the shared index's answer, whose missing passages are the pushing hosts' to send;
    ``encoding``: a stage behind the queries is encoding this index's missing passages)."""
    if not result.conversations:
        out.line(f"No match for {quoted(result.query)}.")
        if result.when is not None:
            out.line((safe(result.when.explained()), "dim"))
        if result.missing:
            out.line((f"Not found anywhere: {safe(listed(result.missing))}", "dim"))
        _print_spelled(out, result.spelled, "dim")
        for said in result.unmatched:  # a filter nothing matches: a typo, not an empty history
            out.line((safe(said[0].upper() + said[1:]) + ".", "yellow"))
        _print_dictionary_hint(out, result)
        _print_unencoded(out, result, shared, encoding)  # a session not compared by meaning yet
        return
    if result.when is not None:  # a time the question named: what came from it
        out.line((safe(result.when.explained()), "yellow" if not result.when.within else "dim"))
    if result.places is not None:  # names alone: the conversations held there
        out.line((safe(result.places.explained()), "yellow"))
    if result.missing:
        words = safe(listed(result.missing))
        # no turn matched any word: what is shown was found by meaning alone
        # a quoted phrase no turn has as typed, whose words some have
        others = "its words" if all(m.startswith('"') for m in result.missing) else "the other words"
        shown = f"what {others} find" if result.matches else "what is nearest in meaning"
        out.line((f"Not found anywhere: {words}; showing {shown}.", "yellow"))
    _print_spelled(out, result.spelled, "yellow")
    if result.read_as:
        out.line((f"Also read as English: {safe(', '.join(result.read_as))}", "dim"))
    read_across = readings_shown(result)
    if read_across:
        out.line((f"Also read as Chinese or Japanese: {safe(', '.join(read_across))}", "dim"))
    hinted = _print_dictionary_hint(out, result)
    if (
        result.missing
        or result.spelled
        or result.read_as
        or read_across
        or hinted
        or result.when
        or result.places
    ):
        out.blank()
    from hermes_trail.resume import many_lines

    with many_lines():
        _print_conversations(out, result, shared, encoding)


def _print_spelled(out: Printer, spelled: dict[str, list[str]], style: str) -> None:
    """Each word typed that no turn has, and the words one slip away from it searched for instead."""
    for typed, words in spelled.items():
        out.line((f"Not found: {safe(typed)}; searched for {safe(' or '.join(words))}.", style))


def readings_shown(result: SearchResult) -> list[str]:
    """The Chinese or Japanese words an English question was also read as (``read_as_cjk``) that a turn
    or title shown has. An English question in a history with Japanese in it is read so whenever its words
    find few conversations, and most readings find nothing shown (ラン for "runs", 料金 for "charge"):
    listing those would say the answer came through a language it did not."""
    if not result.read_as_cjk:
        return []
    shown = [f"{h.snippet or ''} {h.title or ''}" for c in result.conversations for h in c.hits]
    return [w for w in result.read_as_cjk if any(w in text for text in shown)]


_KANA = re.compile(r"[\u3040-\u30ff]")


def _print_dictionary_hint(out: Printer, result: SearchResult) -> bool:
    """A question with kana, where the Japanese dictionary is not installed, says how to have it (its kana
    words were read by their bigrams and by meaning only); whether it did."""
    if not _KANA.search(result.query):
        return False
    from hermes_trail.index import lexicon

    if lexicon.japanese_source() is not None:
        return False
    out.line(("To read kana words as English: pip install 'hermes-trail[japanese]'", "dim"))
    return True


def _print_unencoded(out: Printer, result: SearchResult, shared: bool, encoding: bool) -> None:
    if not result.unencoded:
        return
    unencoded = counted(result.unencoded, "session")
    if shared:
        remedy = "`trail index` and `trail share` on their hosts send them"
    elif encoding:
        remedy = "they are being encoded in the background (`trail index` does it now)"
    else:
        remedy = "`trail index` encodes them"
    out.line((f"{unencoded} without passages for search by meaning yet: {remedy}.", "dim"))


def _print_conversations(out: Printer, result: SearchResult, shared: bool, encoding: bool) -> None:
    for conversation in result.conversations:
        best = conversation.hits[0]
        title, where = _heading(best, conversation.opening, out.width)
        out.line((title, "bold"), (where, "dim"))
        for hit in conversation.hits:
            what = hit.kind + (f" exit {hit.exit_code}" if hit.kind == "command" else "")
            name = hit.session_id if hit.origin == "session" else hit.label
            head = (f"{_day(hit.time)}  {safe(name)} #{hit.row}  {what}: ", "dim")
            out.line(head, *_marked(hit.snippet, hit.kind), indent=2)
        if conversation.superseded_by:
            later = f"superseded by the later {safe(conversation.superseded_by)}, which says it changed"
            out.line((later, "yellow"), indent=2)
        if best.resume:
            out.line((f"resume: {safe(best.resume)}", "cyan"), indent=2)
        out.blank()
    _print_unencoded(out, result, shared, encoding)
    more = " (newest matches ranked)" if result.windowed else ""
    at_least = "" if result.matches_exact else "at least "
    if result.session is not None:  # a session id asked: its conversation, its prompts counted
        said = f"{at_least}{counted(result.matches, 'prompt')} of session {safe(result.session)}"
        out.line((f"{said}, listed in {result.seconds * 1000:.0f} ms", "dim"))
        return
    if result.places is not None:  # a place's conversations: its prompts counted
        said = f"{counted(result.matches, 'prompt')} there"
        out.line((f"{said}, listed in {result.seconds * 1000:.0f} ms", "dim"))
        return
    if result.when is not None and result.when.listing:  # a time's conversations: its prompts counted
        said = f"{at_least}{counted(result.matches, 'prompt')} at that time"
        out.line((f"{said}, listed in {result.seconds * 1000:.0f} ms", "dim"))
        return
    if result.matches:
        tally = f"{at_least}{counted(result.matches, 'matching turn')}{more}"
    else:  # every conversation shown came by its title or by meaning: no turn to count
        found = counted(len(result.conversations), "conversation")
        tally = f"no turn has the words; {found} by title or meaning"
    out.line((f"{tally} in {result.seconds * 1000:.0f} ms", "dim"))


def _heading(best: Hit, opening: str | None, room: int) -> tuple[str, str]:
    """A conversation's title and where it is (project, profile, front end; or what memory or skill it is),
    on one line of ``room`` columns where it can be: a long title is cut to leave room for where it is, and
    a long project is cut from the left (its last folders say which one)."""
    title = safe(best.title or opening or "(untitled)")
    if best.origin != "session":  # Hermes' memory or a skill: where it is, not a session's facts
        return fit(title, max(room - cells(safe(best.label)) - 2, room // 2)), "  " + safe(best.label)
    rest = f" · {safe(best.profile or '')} · {safe(best.source or '?')}"
    project = safe(best.project or "")
    if cells(title) + 2 + cells(project) + cells(rest) <= room:
        return title, f"  {project}{rest}"
    # The project's last folder (after "…") is kept when the title can still have twenty columns.
    least = min(cells(project), cells(project.rstrip("/").rsplit("/", 1)[-1]) + 1)
    title = fit(title, max(room - 2 - least - cells(rest), min(cells(title), 20)))
    project = fit_left(project, max(room - cells(title) - 2 - cells(rest), least))
    return title, f"  {project}{rest}"


def _day(when: float | None) -> str:
    return clock(datetime.fromtimestamp(when, tz=UTC) if when else None, with_date=True)[:16]


def _cut(command: str, most: int = 80) -> str:
    return command if len(command) <= most else command[: most - 1] + "…"


def _print_after(out: Printer, example: FixExample | EditExample, indent: int) -> None:
    """When and where an example was, after which failure."""
    out.line(
        (f"{_day(example.time)}  {safe(example.session_id)}  after ", "dim"),
        (safe(_cut(example.failed_command)), "red"),
        (f" (exit {example.exit_code})", "dim"),
        indent=indent,
    )


def _within(path: str, project: str) -> str:
    """``path`` as its project knows it (``weather/units.py``), when it is under the project."""
    root = project.rstrip("/") + "/"
    return path[len(root) :] if project and path.startswith(root) and len(path) > len(root) else path


def print_fixes(out: Printer, report: FixReport) -> None:
    """Each fix with how often it worked after the same failure, and an example of where; then the
    failures it counted, so what "worked in 2" is out of can be checked."""
    failures = counted(report.failures_total, "matching failure")
    _print_spelled(out, report.spelled, "yellow")
    if not report.failures_total:
        out.line("Nothing on record failed this way.")
        return
    if report.missing:  # the failures below are of errors like it, not of it
        out.line(("Not found anywhere: ", "yellow"), (safe(", ".join(report.missing)), "bold yellow"))
    if report.by_meaning:
        out.line(
            ("Nothing on record failed with these words; the conversations nearest in meaning:", "yellow")
        )
    if not report.fixes and not report.edits:  # where it failed before is still worth seeing
        if any(f.said for f in report.failures):
            out.line("No command or edit on record fixed this; what was said after each failure:")
        else:
            out.line("Nothing on record fixed this.")
    projects = {(f.store, f.session_id): f.project for f in report.failures}
    for fix in report.fixes:
        confirmed = f", the failing command then passed {fix.confirmed}×" if fix.confirmed else ""
        worked = f"  worked in {counted(fix.worked, 'conversation')}{confirmed}"
        out.line(("$ ", "green"), (safe(fix.command), "bold green"), (worked, "dim"))
        for example in fix.examples[:2]:
            _print_after(out, example, 2)
            if example.edited:
                project = projects.get((example.store, example.session_id), "")
                changed = ", ".join(_within(path, project) for path in example.edited[:3])
                more = f" and {len(example.edited) - 3} more" if len(example.edited) > 3 else ""
                out.line((f"✎ having changed {safe(changed)}{more}", "dim"), indent=4)
    if report.edits:
        out.line(("Changed before the failing command passed:", "yellow"))
    for edit in report.edits:
        first = edit.examples[0] if edit.examples else None
        project = projects.get((first.store, first.session_id), "") if first else ""
        worked = f"  in {counted(edit.worked, 'conversation')}"
        out.line(
            ("✎ ", "green"), (safe(_within(edit.path, project)), "bold green"), (worked, "dim"), indent=2
        )
        for seen in edit.examples[:2]:
            _print_after(out, seen, 4)
            for line in seen.change.splitlines():  # what it changed: the first line removed and added
                out.line((safe(line), "red" if line.startswith("-") else "green"), indent=6)
    out.line((f"{failures} in {counted(report.conversations, 'conversation')}:", "dim"))
    for failure in report.failures:
        out.line(
            (f"{_day(failure.time)}  {safe(failure.session_id)}  ", "dim"),
            (safe(_cut(failure.command)), "red"),
            (f" (exit {failure.exit_code})", "dim"),
            indent=2,
        )
        if failure.said:  # what the agent concluded in that turn: often the fix no command shows
            said = _cut(failure.said, max(2 * out.width - 30, 80))  # two lines at most
            out.line(("then said: ", "dim"), safe(said), indent=4, hang=11)
    if report.failures_total > len(report.failures):
        out.line(
            (f"and {report.failures_total - len(report.failures):,} more (--limit shows more)", "dim"),
            indent=2,
        )


def print_blame(out: Printer, path: str, entries: list[BlameEntry], near: list[str] | None = None) -> None:
    """Each edit of the file, newest first, with the prompt that led to it; when there is none, the edited
    files under a path like it (``near``), to blame instead."""
    if not entries:
        out.line(f"No edit of {safe(path)} on record.")
        if near:
            out.line(("Edited files by a name like it:", "yellow"))
            for one in near:
                out.line(safe(one), indent=2)
        return
    for entry in entries:
        counts = f" +{entry.added} -{entry.removed}" if entry.added is not None else ""
        target = f" → {entry.moved_to}" if entry.moved_to else ""
        segments: list[Segment] = [
            (f"{_day(entry.time)}  {safe(entry.session_id)}  ", "dim"),
            (safe(f"{entry.action} {entry.path}{target}{counts}"), "bold"),
        ]
        if entry.applied is False:
            segments.append(("  (not applied)", "red"))
        out.line(*segments)
        if entry.prompt:
            first = entry.prompt.strip().splitlines()[0] if entry.prompt.strip() else ""
            out.line(("▸ " + safe(_cut(first, 120)), "cyan"), indent=4)


def print_how(out: Printer, what: str, entries: list[HowEntry]) -> None:
    """Commands that match, by sessions that ran them and their success rate."""
    if not entries:
        out.line(f"No command on record does {quoted(what)}.")
        return
    _print_spelled(out, entries[0].spelled, "yellow")
    if entries[0].lacks:
        most = max(len(e.lacks) for e in entries)
        left_out = "one word" if most == 1 else f"{most} words"
        out.line((f"Nothing on record does all of {safe(what)!r}; leaving out {left_out}:", "yellow"))
    elif entries[0].matched_in == "meaning":
        out.line(
            (
                f"No command on record has the words {safe(what)!r}; these ran after the requests "
                "nearest in meaning:",
                "yellow",
            )
        )
    for entry in entries:
        rate = "" if entry.success_rate is None else f", {entry.success_rate:.0%} ok"
        sessions, runs = counted(entry.sessions, "session"), counted(entry.runs, "run")
        out.line(
            ("$ ", "green"),
            (safe(entry.command), "bold"),
            (f"  {sessions}, {runs}{rate}, last {_day(entry.last_time)}", "dim"),
        )
        if entry.prompt:  # found through what was asked (or said) before it ran
            asked = "asked" if entry.matched_in in ("prompt", "meaning") else "said"
            out.line((f"{asked}: {safe(entry.prompt)}", "cyan"), indent=4)
        if entry.lacks:
            out.line((f"without: {safe(', '.join(entry.lacks))}", "dim"), indent=4)
