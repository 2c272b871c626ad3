"""A progress bar on stderr for work over many sessions, shown only to a person at a terminal.

The bar appears after :data:`DELAY` seconds, so work that finishes sooner prints nothing, and it leaves no
trace when done (``transient``): stdout stays the command's output alone.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

DELAY = 0.5

Progress = Callable[[int, int], None]


@contextmanager
def progress_bar(label: str, unit: str = "sessions") -> Iterator[Progress]:
    """Yields ``progress(done, total)``; draws nothing when stderr is not a terminal."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import (
        Progress as Bar,
    )

    started = time.monotonic()
    columns = (
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(unit),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
    )
    bar = Bar(*columns, console=Console(stderr=True), transient=True)
    task = bar.add_task(label, total=None)
    shown = False

    def advance(done: int, total: int) -> None:
        nonlocal shown
        if not shown and time.monotonic() - started >= DELAY:
            bar.start()
            shown = True
        bar.update(task, completed=done, total=total)

    try:
        yield advance
    finally:
        if shown:
            bar.stop()
