"""Writing timeline rows: JSON lines or CSV, one row at a time (nothing is held in memory)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import IO, Any

from hermes_trail.formatting import json_safe, safe
from hermes_trail.timeline.build import FIELDS

FORMATS = ("jsonl", "csv")


def write_rows(rows: Iterable[dict[str, Any]], stream: IO[str], fmt: str = "jsonl") -> int:
    """Write ``rows`` (dicts with :data:`FIELDS`) to ``stream``; returns how many were written.

    JSON lines keep ``null`` for an absent time or line; CSV writes a header and empty cells for them.
    """
    count = 0
    if fmt == "csv":
        writer = csv.writer(stream, lineterminator="\n")
        writer.writerow(FIELDS)
        for row in rows:  # CSV is read by people and spreadsheets: control characters shown, not sent
            writer.writerow(["" if row[f] is None else safe(str(row[f])) for f in FIELDS])
            count += 1
        return count
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    for row in rows:
        stream.write(json_safe(dumps(row)))
        stream.write("\n")
        count += 1
    return count
