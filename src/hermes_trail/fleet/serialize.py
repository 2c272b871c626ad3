"""The fleet's ``--json``: the local shapes (``serialize.search_json``, ``serialize.record_json``) with
``host`` added on every hit and conversation, failure, fix example, edit and command, and what
``trail share`` did (docs/json.md)."""

from __future__ import annotations

from typing import Any

from hermes_trail.fleet.hits import FleetHit
from hermes_trail.fleet.push import PushReport
from hermes_trail.index.results import SearchResult


def fleet_search_json(result: SearchResult) -> dict[str, Any]:
    """``trail search --fleet --json``: the local document, each hit and conversation with its ``host``."""
    from hermes_trail.serialize import search_json

    out = search_json(result)
    for conversation, shown in zip(result.conversations, out["conversations"], strict=True):
        for hit, printed in zip(conversation.hits, shown["hits"], strict=True):
            printed["host"] = hit.host if isinstance(hit, FleetHit) else None
        shown["host"] = shown["hits"][0]["host"] if shown["hits"] else None
    return out


# Keys a fleet record adds to its local twin's (``serialize.RECORD_KEYS``), by the local class's name.
FLEET_KEYS: dict[str, tuple[str, ...]] = {
    "Failure": ("host",),
    "FixExample": ("host",),
    "EditExample": ("host",),
    "BlameEntry": ("host",),
    "HowEntry": ("host", "hosts"),
}


def fleet_record_json(value: Any) -> Any:
    """A fleet answer of fix, blame or how as JSON: the local keys (``record_json``'s map, read for the
    local class a fleet record extends) and :data:`FLEET_KEYS` after them."""
    import dataclasses
    from datetime import UTC, datetime

    from hermes_trail.serialize import RECORD_KEYS, iso, record_json

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        local = next((c.__name__ for c in type(value).__mro__ if c.__name__ in RECORD_KEYS), None)
        if local is None:
            return record_json(value)  # raises: its keys must be chosen
        out: dict[str, Any] = {}
        for key, attribute in RECORD_KEYS[local].items():
            item = getattr(value, attribute)
            if (key == "time" or key.endswith("_time")) and isinstance(item, int | float):
                out[key] = iso(datetime.fromtimestamp(item, tz=UTC))
            else:
                out[key] = fleet_record_json(item) if isinstance(item, list) else record_json(item)
        for key in FLEET_KEYS.get(local, ()):
            out[key] = list(getattr(value, key)) if key == "hosts" else getattr(value, key, None)
        return out
    if isinstance(value, list | tuple):
        return [fleet_record_json(v) for v in value]
    return record_json(value)


def push_json(report: PushReport) -> dict[str, Any]:
    """``trail share --json``."""
    return {
        "dsn": report.dsn,
        "host": report.host,
        "sessions": report.sessions,
        "pushed": report.pushed,
        "vectors_only": report.vectors_only,
        "removed": report.removed,
        "unchanged": report.unchanged,
        "docs": report.docs,
        "passages": report.passages,
        "vector": report.vector,
        "seconds": round(report.seconds, 3),
        "notes": list(report.notes),
        "writers": report.writers,
        "writers_found": report.writers_found,
    }
