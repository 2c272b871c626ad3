"""What the index commands share: ``--index``, the front door (:class:`~hermes_trail.service.Trail`) over
what the options name, and a sync before every query (with a progress bar the first time, silent
afterwards)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from hermes_trail.cli.common import err, fail
from hermes_trail.cli.params import Option

if TYPE_CHECKING:
    from hermes_trail.service import Trail

IndexOption = Annotated[
    Path | None,
    Option(
        "--index", help="The index file (default: TRAIL_INDEX, else the user data dir).", show_default=False
    ),
]


def homes_or_demo(
    index: Path | None, homes: list[Path] | None, dbs: list[Path] | None, pgs: list[str] | None
) -> tuple[Path | None, list[Path], list[Path]]:
    """The index and the homes to index: the ones named, else Hermes' own, else the bundled demo (said on
    stderr) in its own index unless ``--index`` names one (:func:`~hermes_trail.index.schema.demo_index_path`:
    the default index keeps the homes it holds). Stores named go to the default index only when it would
    lose nothing by it (:func:`~hermes_trail.index.scoped.index_for`)."""
    from hermes_trail.cli.common import check_locations, named
    from hermes_trail.hermes import locate

    check_locations(homes, dbs, pgs)
    homes, dbs = list(homes or ()), list(dbs or ())
    if not named(homes, dbs, pgs) and not locate.discover(os.environ).stores:
        from hermes_trail.history import demo_home
        from hermes_trail.index.schema import demo_index_path

        err("no Hermes home found; searching the demo home bundled with hermes-trail")
        return index or demo_index_path(), [demo_home()], []
    from hermes_trail.index import scoped

    chosen = scoped.index_for(index, homes, dbs, pgs or ())
    if chosen is not None and index is None and not chosen.exists():
        err(f"indexing what you named in an index of its own, {chosen}: the default one keeps its homes")
    if chosen is None and (homes or dbs or pgs):  # the default index for what is named: not looked for again
        from hermes_trail.index.schema import default_index_path

        chosen = default_index_path()
    return chosen, homes, dbs


def door(
    index: Path | None,
    homes: list[Path] | None,
    dbs: list[Path] | None,
    pgs: list[str] | None,
    encode_behind: bool = True,
) -> Trail:
    """The front door over what ``--index``, ``--home``, ``--db`` and ``--pg`` name (the bundled demo home
    when nothing is named and Hermes has none, said on stderr), for one command: it syncs once, when
    :func:`synced` asks, and never again for the questions after."""
    import math

    from hermes_trail.errors import TrailError
    from hermes_trail.service import Trail

    try:
        index, homes, dbs = homes_or_demo(index, homes, dbs, pgs)
    except TrailError as exc:  # a home that cannot be looked into
        fail(str(exc))
    return Trail(
        index=index,
        homes=tuple(homes),
        dbs=tuple(dbs),
        pgs=tuple(pgs or ()),
        sync_interval=math.inf,
        encode_behind=encode_behind,
    )


def indexed(
    index: Path | None, homes: list[Path] | None, dbs: list[Path] | None, pgs: list[str] | None
) -> Trail:
    """:func:`door`, its index brought up to date (:func:`synced`): what a query command asks."""
    trail = door(index, homes, dbs, pgs)
    synced(trail)
    return trail


def synced_index(
    index: Path | None,
    homes: list[Path] | None,
    dbs: list[Path] | None,
    pgs: list[str] | None = None,
    include_recovered: bool | None = None,
    rebuild: bool = False,
    skipped: list[Any] | None = None,
    encode_behind: bool = True,
) -> Path:
    """Bring the index of what the options name up to date and return its path (:func:`synced`);
    ``encode_behind``: as :class:`~hermes_trail.service.Trail`'s."""
    return synced(door(index, homes, dbs, pgs, encode_behind), include_recovered, rebuild, skipped)


def synced(
    trail: Trail,
    include_recovered: bool | None = None,
    rebuild: bool = False,
    skipped: list[Any] | None = None,
) -> Path:
    """Bring ``trail``'s index up to date and return its path; the first build shows its progress on
    stderr, and what was passed over is said there. A sync that fails fails the command.

    :param include_recovered: index sessions only a snapshot or divert holds too (``None``: as before).
    :param rebuild: build a new index beside the old one and swap it in.
    :param skipped: gets the stores and directories passed over (each also said on stderr).
    """
    from hermes_trail.errors import TrailError

    path = trail.index_path
    bar = _IndexingBar(first=rebuild or not path.exists()) if sys.stderr.isatty() else None

    def notify(line: str) -> None:
        err(line)
        if bar is not None:
            bar.first = True  # a rebuild is a first build: it shows its progress

    failed: TrailError | None = None
    try:
        trail.sync(
            force=True, progress=bar, notify=notify, include_recovered=include_recovered, rebuild=rebuild
        )
    except TrailError as exc:
        failed = exc
    finally:
        shown = bar is not None and bar.stop()
    report = trail.last_sync
    if failed is not None or report is None:  # said once the bar is off the terminal
        fail(str(failed or "the index was not brought up to date"))
    if shown:
        err(
            f"indexed {report.messages_read:,} messages of {report.sessions_indexed:,} sessions "
            f"in {report.seconds:.1f} s ({path})"
        )
    if any(stray.kind == "index" for stray in report.strays):
        err("the index is being updated by another trail; results may be behind")
    for stray in report.strays:
        if stray.kind in ("store", "directory"):
            err(f"skipped {stray.kind} {stray.where}: {stray.reason} (what was indexed from it stays)")
            if skipped is not None:
                skipped.append(stray)
    return path


# A sync that reads at least this many messages shows its progress too (a big import, a Hermes upgrade
# that changed many sessions); a first build or a rebuild always does.
BAR_FROM = 20_000


class _IndexingBar:
    """The progress bar of a sync on a terminal (rate and time left), started only once there is enough to
    read to be worth it, so the syncs before ordinary queries stay silent."""

    def __init__(self, first: bool) -> None:
        self.first = first
        self._bar: Any = None
        self._task: Any = None

    def __call__(self, done: int, total: int) -> None:
        if self._bar is None:
            if not (self.first or total >= BAR_FROM):
                return
            self._start()
        speed = self._bar.tasks[0].speed
        rate = f"{speed:,.0f} msg/s" if speed else ""
        self._bar.update(self._task, completed=done, total=total, rate=rate)

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        columns = (
            TextColumn("indexing"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("messages"),
            TextColumn("[dim]{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
        )
        self._bar = Progress(*columns, console=Console(stderr=True), transient=True)
        self._task = self._bar.add_task("index", total=None, rate="")
        self._bar.start()

    def stop(self) -> bool:
        """Take the bar off the terminal; whether it was shown."""
        if self._bar is None:
            return False
        self._bar.stop()
        return True


def say_unmatched(trail: Trail, project: str | None = None, profile: str | None = None) -> None:
    """After a question that found nothing: on stderr, each filter no session matches at all (a typo in a
    project's or profile's name, a ``--host`` that never pushed), with the names there are."""
    from hermes_trail.errors import TrailError

    try:
        said = trail.unmatched(project=project, profile=profile)
    except TrailError:  # the question was answered; this is only a hint
        return
    for line in said:
        err(line)
