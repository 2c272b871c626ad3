"""Secondary sources that repeat what a session holds: each copy pairs with the session's row once.

The prompt history, the cron run archive, the response store and the trajectory files hold turns that are
often also rows of a session. Such a copy *pairs* with the row and is left out of the timeline; what does
not pair (a session since deleted, pruned or never stored) stays. A copy pairs with at most one row, the
nearest in time among those that qualify, and a row with at most one copy:

- a history entry with a ``user`` row of the same home and text, within 2 s for the TUI's UTC stamps and
  within 14 h 2 s for the classic CLI's host-local ones (every zone offset);
- a cron run's prompt and response with the ``user`` and ``assistant`` rows of a cron session of the same
  home, within 14 h 2 s of the run file's host-local time;
- a response-store message with a row of the session its response names;
- a trajectory turn with a row of a session that ran in the trajectory's directory.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from hermes_trail.timeline.rows import COMPACTED, REWOUND, Row

# Stored copies of live times (snapshots, diverts, the response store, trajectories) are exact or absent.
TOLERANCE = 2.0
# Host-local times written without a zone may be off by any zone offset (UTC-12 to UTC+14).
LOCAL_TOLERANCE = 14 * 3600 + TOLERANCE


@dataclass(slots=True)
class Pending:
    """A row a secondary source would add, unless a session's row pairs with it."""

    row: Row
    text: str
    window: float | None = None
    home: str | None = None
    session_id: str | None = None
    project: str | None = None
    cron_only: bool = False
    paired: bool = False


def normalized(text: str) -> str:
    return text.removeprefix(REWOUND).removeprefix(COMPACTED).strip()


class Matcher:
    """Pending copies by turn type and text; :meth:`offer` pairs a session row with the best one."""

    def __init__(self) -> None:
        self._by: dict[tuple[str, str], list[Pending]] = {}
        self._all: list[Pending] = []

    def __bool__(self) -> bool:
        return bool(self._all)

    def want(self, pending: Pending) -> None:
        self._all.append(pending)
        if pending.text:
            self._by.setdefault((pending.row.turn_type, pending.text), []).append(pending)

    def offer(self, row: Row, home: str | None, cron: bool) -> None:
        """A session row: the nearest pending copy that it qualifies for is paired (and no longer shown)."""
        found = self._by.get((row.turn_type, normalized(row.text)))
        if not found:
            return
        best: Pending | None = None
        best_gap = float("inf")
        for pending in found:
            if pending.paired:
                continue
            if pending.home is not None and pending.home != home:
                continue
            if pending.session_id is not None and pending.session_id != row.session_id:
                continue
            if pending.project is not None and pending.project != row.project_path:
                continue
            if pending.cron_only and not cron:
                continue
            gap = 0.0
            if pending.window is not None and pending.row.ts is not None and row.ts is not None:
                gap = abs(pending.row.ts - row.ts)
                if gap > pending.window:
                    continue
            if gap < best_gap:
                best, best_gap = pending, gap
        if best is not None:
            best.paired = True

    def unpaired(self) -> Iterator[Row]:
        for pending in self._all:
            if not pending.paired:
                yield pending.row
