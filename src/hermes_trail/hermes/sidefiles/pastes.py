"""``pastes/pending.json``: debug reports ``hermes debug share`` uploaded and will delete.

Hermes' ``_record_pending`` keeps a JSON list of ``{"url", "expire_at"}``, merged by URL keeping the later
time; ``expire_at`` is the upload time plus 21600 seconds (6 hours). An entry leaves the list once its
paste is deleted, so the file shows what left the host in the last day or so.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from hermes_trail.hermes.sidefiles.common import compact, epoch_time, read_json, record_stray
from hermes_trail.model import Stray

# hermes_cli/debug.py _AUTO_DELETE_SECONDS: how long after the upload a paste is deleted.
AUTO_DELETE = timedelta(seconds=21600)


@dataclass(slots=True)
class Paste:
    url: str
    uploaded_at: datetime | None  # expire_at minus the six hours
    number: int


def read_pastes(path: Path) -> tuple[list[Paste], list[Stray]]:
    """The uploads of a pending list, in file order, and the strays."""
    data, problems = read_json(path, list, "a JSON list")
    if data is None:
        return [], problems
    pastes: list[Paste] = []
    strays: list[Stray] = []
    for number, entry in enumerate(data, start=1):
        url = entry.get("url") if isinstance(entry, dict) else None
        if not isinstance(url, str) or not url:
            strays.append(record_stray(path, number, "not an object with a url", compact(entry)))
            continue
        expire = epoch_time(entry.get("expire_at"))
        pastes.append(Paste(url, expire - AUTO_DELETE if expire else None, number))
    return pastes, strays
