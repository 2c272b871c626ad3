"""``state-snapshots/<id>/state.db``: whole older copies of ``state.db``.

Hermes' ``create_quick_snapshot`` (``hermes backup --quick``, ``/snapshot``, and before ``hermes update``)
copies ``state.db`` through SQLite's backup API into ``state-snapshots/<id>/`` and keeps the last 20; the
id is ``<YYYYmmdd-HHMMSS>`` in UTC, with ``-<label>`` when one was given. A copy is the whole database at
that moment, so it still holds what a later delete, prune, ``VACUUM`` or replaced file lost, and its rows
are the live rows byte for byte (same ids, times and text). It is read with the same read-only store
reader as ``state.db``; ``manifest.json`` beside it is not needed, the time is in the id.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

_ID_TIME = re.compile(r"\A(\d{8}-\d{6})")


def snapshot_time(snapshot_id: str) -> datetime | None:
    """The UTC time a snapshot id starts with, or ``None`` when it starts with none."""
    match = _ID_TIME.match(snapshot_id)
    if match is None:
        return None
    try:
        return datetime.strptime(match.group(1), "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None
