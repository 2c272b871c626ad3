"""``trail share``: push this machine's index into a shared PostgreSQL index, and the ``--fleet`` side of
``trail search``, ``recall``, ``fix``, ``blame`` and ``how`` (docs/fleet.md)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

from hermes_trail.cli.common import (
    EXIT_OK,
    EXIT_USAGE,
    DbOption,
    HomeOption,
    JsonOption,
    PgOption,
    err,
    fail,
    print_json,
)
from hermes_trail.cli.indexing import IndexOption, say_unmatched
from hermes_trail.cli.params import Argument, Exit, Option
from hermes_trail.formatting import counted

if TYPE_CHECKING:
    from hermes_trail.fleet.push import PushReport
    from hermes_trail.index.filters import SearchFilters
    from hermes_trail.index.results import SearchResult
    from hermes_trail.integrations.hermes.configured import Configured
    from hermes_trail.service import Trail

T = TypeVar("T")

# The shared index `--fleet` answers from, when no `--index postgresql://…` names one.
FLEET_VARIABLE = "TRAIL_FLEET"

HostOption = Annotated[
    str | None,
    Option(
        "--host",
        help="Push as this host (default: the host the login is registered for, else this machine's name).",
        show_default=False,
    ),
]
HostsOption = Annotated[
    list[str] | None,
    Option("--host", help="With --fleet: only what these hosts pushed (repeatable).", show_default=False),
]
FleetOption = Annotated[
    bool,
    Option("--fleet", help=f"Answer from the shared index ${FLEET_VARIABLE} names (see docs/fleet.md)."),
]


def share(
    dsn: Annotated[
        str | None,
        Argument(
            help="The shared index's PostgreSQL database (URI or key=value); its password is never printed. "
            "Default: the Hermes home's setting plugins.entries.hermes-trail.settings.share (config.yaml).",
            show_default=False,
        ),
    ] = None,
    migrate: Annotated[
        bool,
        Option(
            "--migrate",
            help="Create or migrate the shared index's tables and roles (administrator), then stop.",
        ),
    ] = False,
    hosts: Annotated[
        bool,
        Option(
            "--hosts",
            help="List the machines of the shared index (when each last pushed, what it holds there), "
            "then stop. Any login may ask.",
        ),
    ] = False,
    host: HostOption = None,
    writers: Annotated[
        int | None,
        Option(
            "--writers",
            min=1,
            max=32,
            help="Connections writing at once. The server turns each doc into tsvectors, about one core a "
            "connection: by default a push starts on 2 and adds one while that makes it faster (up to 8).",
        ),
    ] = None,
    index: IndexOption = None,
    home: HomeOption = None,
    db: DbOption = None,
    pg: PgOption = None,
    json_output: JsonOption = False,
) -> None:
    """Push this machine's search index (redacted as it is) into a shared PostgreSQL index.

    Only the sessions that changed since the last push are sent; a push cut short and run again ends
    the same. Other machines then find them with `trail search --fleet`.

    \b
    Examples:
        trail share "postgresql://trail_laptop@db.example.com/trail?sslmode=require"
        trail share "postgresql://admin@db.example.com/trail" --migrate
        trail share        # to the DSN the Hermes home's config.yaml sets (docs/fleet.md)
        trail share --writers 8   # exactly eight connections writing (by default found by measuring)
        trail share --hosts       # which machines push, and when each last did
    """
    from hermes_trail.errors import TrailError
    from hermes_trail.hermes import dsn as dsns

    if migrate and hosts:
        fail("--migrate and --hosts: one at a time", EXIT_USAGE)
    if dsn is None:
        if migrate:
            fail("--migrate needs the administrator's DSN: trail share DSN --migrate", EXIT_USAGE)
        dsn = configured_share(home)
    if hosts:
        _list_machines(dsn, json_output)

    if migrate:
        try:
            _migrate(dsn, json_output)
        except TrailError as exc:
            fail(str(exc))
        raise Exit(EXIT_OK)
    from hermes_trail.cli.common import named
    from hermes_trail.cli.indexing import synced_index
    from hermes_trail.cli.progress import progress_bar
    from hermes_trail.fleet.push import push
    from hermes_trail.fleet.serialize import push_json
    from hermes_trail.hermes import locate

    if not named(home, db, pg) and not locate.discover(os.environ).stores:
        # Where a query would read the bundled demo home, a push would put it in everyone's results.
        fail(
            "no Hermes home found on this machine: nothing to share (the demo home bundled with "
            "hermes-trail is never pushed); name a home with --home, a store with --db or --pg"
        )
    path = synced_index(index, home, db, pg)
    try:
        with progress_bar(f"pushing to {dsns.shown(dsn)}", unit="sessions") as bar:
            report = push(
                path, dsn, host, progress=lambda done, total, _docs: bar(done, total), writers=writers
            )
    except TrailError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        err(
            "interrupted: what was pushed is kept whole, session by session; `trail share` goes on from there"
        )
        raise Exit(130) from None
    for note in report.notes:
        err(note)
    if json_output:
        print_json(push_json(report))
    else:
        err(pushed_line(report))
    raise Exit(EXIT_OK)


# A push of at least this many docs says how fast it went (a smaller one's rate says little).
RATE_FROM = 1_000


def pushed_line(report: PushReport) -> str:
    """What a push sent, in one line: the sessions written with their docs (and passages, when the shared
    index holds them), the sessions that only had new passages to send, and those left as they were."""
    passages = f", {counted(report.passages, 'passage')}" if report.vector else ""
    if not report.pushed and not report.vectors_only and not report.removed:
        sent = "nothing new"
    elif report.vectors_only and not report.pushed:  # the vector stage ran since: passages alone
        many = counted(report.passages, "passage")
        sent = f"the new passages of {counted(report.vectors_only, 'session')} ({many})"
    else:
        sent = f"{counted(report.pushed, 'session')} ({counted(report.docs, 'doc')}{passages})"
        if report.vectors_only:
            sent += f" and the new passages of {report.vectors_only:,} more"
    # How fast a large push went, on how many writers: what `--writers` is weighed by.
    found = ", found by measuring" if report.writers_found else ""
    rate = (
        f" ({report.docs / report.seconds:,.0f} docs/s on {report.writers} writers{found})"
        if report.docs >= RATE_FROM and report.seconds > 0
        else ""
    )
    return (
        f"pushed {sent} as host {report.host!r} to {report.dsn}; {report.unchanged:,} unchanged, "
        f"{report.removed:,} removed, in {report.seconds:.1f} s{rate}"
    )


def _list_machines(dsn: str, json_output: bool) -> NoReturn:
    """``trail share --hosts``: the shared index's machines, or why they cannot be read."""
    from hermes_trail.errors import TrailError
    from hermes_trail.fleet.machines import machine_json, machines
    from hermes_trail.hermes import dsn as dsns

    try:
        found = machines(dsn)
    except TrailError as exc:
        fail(str(exc))
    if json_output:
        print_json({"dsn": dsns.shown(dsn), "hosts": [machine_json(m) for m in found]})
        raise Exit(EXIT_OK)
    if not found:
        err(f"no machine has pushed to {dsns.shown(dsn)} yet, nor is one registered (trail_fleet.add_host)")
        raise Exit(EXIT_OK)
    for line in machines_table(found):
        print(line)
    raise Exit(EXIT_OK)


def machines_table(found: list[Any], now: float | None = None) -> list[str]:
    """The machines as lines of a table, each column as wide as what it holds: each host, its last push
    (when, and how long ago), its sessions, docs and passages there and the trail that pushed them."""
    import time

    now = time.time() if now is None else now
    rows = [("host", "last push", "sessions", "docs", "passages", "trail")]
    for m in found:
        if m.pushed_at is None:
            when = "never (registered)" if m.registered else "never"
        else:
            when = f"{m.pushed_at.astimezone():%Y-%m-%d %H:%M} ({_ago(now - m.pushed_at.timestamp())})"
        rows.append(
            (m.host, when, f"{m.sessions:,}", f"{m.docs:,}", f"{m.passages:,}", m.trail_version or "")
        )
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    lines = []
    for row in rows:
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [row[i].rjust(widths[i]) for i in (2, 3, 4)]
        lines.append("  ".join([*cells, row[5]]).rstrip())
    return lines


def _ago(seconds: float) -> str:
    """How long ago, as a person says it: "now", "5 min ago", "3 h ago", "9 days ago"."""
    if seconds < 60:
        return "now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 2 * 86400:
        return f"{int(seconds // 3600)} h ago"
    return f"{int(seconds // 86400)} days ago"


def _migrate(dsn: str, json_output: bool) -> None:
    from hermes_trail.fleet import schema
    from hermes_trail.fleet.connection import connect
    from hermes_trail.hermes import dsn as dsns

    conn = connect(dsn)
    try:
        report = schema.migrate(conn, dsn)
    finally:
        conn.close()
    if json_output:
        print_json(
            {
                "dsn": dsns.shown(dsn),
                "before": report.before,
                "after": report.after,
                "vector": report.vector,
                "notes": report.notes,
            }
        )
    else:
        for note in report.notes:
            err(note)
        err(migrated_line(dsns.shown(dsn), report.before, report.after))


def migrated_line(shown: str, before: int, after: int) -> str:
    """What ``--migrate`` did; after creating the shared index, what its administrator does next."""
    if before == 0:
        return (
            f"shared index at {shown}: created at version {after}\n"
            "Next, as this administrator (psql): a login for each machine that pushes,\n"
            "and one for those that only search:\n"
            "  SELECT trail_fleet.add_host('laptop', 'trail_laptop');\n"
            "  SELECT trail_fleet.add_reader('trail_search');\n"
            "Each machine then runs `trail share` with its own login (docs/fleet.md)."
        )
    done = "already at" if before == after else f"migrated from {before} to"
    return f"shared index at {shown}: {done} version {after}"


# -- the --fleet side of search and recall -----------------------------------------------------------------
def home_settings(home: list[Path] | None) -> Configured:
    """hermes-trail's settings in the Hermes home a command reads (``config.yaml``'s
    ``plugins.entries.hermes-trail.settings`` of the one ``--home`` named, else of the home Hermes would
    use; none for several), each problem with them said."""
    from hermes_trail.integrations.hermes import configured

    where = home[0] if home and len(home) == 1 else None if home else configured.hermes_home()
    found = configured.read(where) if where is not None else configured.Configured()
    for problem in found.problems:
        err(f"warning: {problem}")
    return found


def configured_share(home: list[Path] | None) -> str:
    """The DSN the Hermes home's own settings push to (:func:`home_settings`' ``share``); a usage error when
    there is none."""
    from hermes_trail.integrations.hermes.configured import WHERE

    found = home_settings(home)
    if not found.share:
        fail(
            f"no DSN to push to: name one (trail share DSN), or set {WHERE}.share in the Hermes home",
            EXIT_USAGE,
        )
    return found.share


def fleet_dsn(index: Path | str | None, fleet: bool) -> str | None:
    """The shared index a query answers from: ``--index`` naming a PostgreSQL database, else with
    ``--fleet`` the one :data:`FLEET_VARIABLE` names; ``None``: the local index answers.

    A ``Path`` option folds the URI's ``//`` into ``/``; it is put back here (a ``str`` option avoids it).
    """
    from hermes_trail.fleet.connection import is_fleet_dsn

    if index is not None:
        text = str(index)
        for scheme in ("postgresql:/", "postgres:/"):
            if text.startswith(scheme) and not text.startswith(scheme + "/"):
                text = scheme + "/" + text[len(scheme) :]
        if is_fleet_dsn(text):
            return text
        if fleet:
            fail("--fleet answers from the shared index: give --index a postgresql:// DSN or leave it out")
        return None
    if not fleet:
        return None
    value = os.environ.get(FLEET_VARIABLE, "").strip()
    if not value:
        fail(f"--fleet: set {FLEET_VARIABLE} to the shared index's DSN, or give --index postgresql://…")
    return value


def fleet_trail(dsn: str, hosts: list[str] | None) -> Trail:
    """The front door over the shared index at ``dsn`` (of ``hosts``, when named)."""
    from hermes_trail.service import Trail

    return Trail(fleet=dsn, hosts=tuple(hosts or ()))


def fleet_result(
    dsn: str, query: str, filters: SearchFilters, hosts: list[str] | None, limit: int
) -> SearchResult:
    """What the shared index answers; a problem with it ends the command with one line (password hidden)."""
    from hermes_trail.errors import TrailError
    from hermes_trail.fleet.search import search
    from hermes_trail.index import meaning_client

    try:
        with meaning_client.served():  # the question's vector from the meaning server, not a model here
            return search(dsn, query, filters, hosts=hosts, limit=max(limit, 1))
    except TrailError as exc:
        fail(str(exc))


def search_fleet(
    dsn: str, query: str, filters: SearchFilters, hosts: list[str] | None, limit: int, json_output: bool
) -> NoReturn:
    """``trail search --fleet``: as ``trail search`` prints, each conversation saying its host."""
    from hermes_trail.cli.common import answer
    from hermes_trail.cli.tables import print_search
    from hermes_trail.fleet.search import named_by_host
    from hermes_trail.fleet.serialize import fleet_search_json

    result = fleet_result(dsn, query, filters, hosts, limit)
    answer(
        bool(result.conversations),
        json_output,
        lambda: fleet_search_json(result),
        lambda out: print_search(out, named_by_host(result), shared=True),
    )


def recall_fleet(
    dsn: str,
    query: str,
    filters: SearchFilters,
    hosts: list[str] | None,
    budget: int,
    json_output: bool,
    limit: int = 8,
) -> NoReturn:
    """``trail recall --fleet``: the same page of ``limit`` conversations, each line's session named with
    its host (``laptop/default:<id>``)."""
    from hermes_trail.errors import TrailError
    from hermes_trail.index import meaning_client

    trail = fleet_trail(dsn, hosts)
    try:
        with meaning_client.served():
            page = trail.recall_page(
                query, project=filters.project, profile=filters.profile, limit=limit, budget=budget
            )
    except TrailError as exc:
        fail(str(exc))
    if not page:
        say_unmatched(trail, filters.project, filters.profile)
    if json_output:
        print_json({"query": query, "budget": budget, "page": page, "bytes": len(page.encode())})
    elif page:
        sys.stdout.write(page + "\n")
    raise Exit(EXIT_OK)


def asked_fleet(dsn: str, hosts: list[str] | None, question: Callable[[Trail], T]) -> tuple[Trail, T]:
    """``question`` asked of the shared index (``trail fix/blame/how --fleet``); a problem with it ends the
    command with one line (password hidden)."""
    from hermes_trail.errors import TrailError

    trail = fleet_trail(dsn, hosts)
    try:
        return trail, question(trail)
    except TrailError as exc:
        fail(str(exc))


def hosts_for_people(value: T) -> T:
    """A copy of a fix or blame answer whose sessions are named with their host where a person reads them
    (``laptop/<id>``); the ``--json`` keeps ``session_id`` and ``host`` apart."""
    import dataclasses

    if isinstance(value, list):
        return [hosts_for_people(v) for v in value]  # type: ignore[return-value]
    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return value
    changes: dict[str, object] = {}
    for field in dataclasses.fields(value):
        item = getattr(value, field.name)
        if isinstance(item, list) and item and dataclasses.is_dataclass(item[0]):
            changes[field.name] = hosts_for_people(item)
    host = getattr(value, "host", "")
    if host and isinstance(getattr(value, "session_id", None), str):
        changes["session_id"] = f"{host}/{value.session_id}"  # type: ignore[attr-defined]
    return dataclasses.replace(value, **changes) if changes else value
