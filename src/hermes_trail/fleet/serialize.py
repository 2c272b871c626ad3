"""The fleet's ``--json``: the local search's shapes (``serialize.search_json``) with ``host`` added on
every hit and conversation, and what ``trail share`` did (docs/json.md)."""

from __future__ import annotations

from typing import Any

from hermes_trail.fleet.push import PushReport
from hermes_trail.fleet.search import FleetHit
from hermes_trail.index.search import SearchResult


def fleet_search_json(result: SearchResult) -> dict[str, Any]:
    """``trail search --fleet --json``: the local document, each hit and conversation with its ``host``."""
    from hermes_trail.serialize import search_json

    out = search_json(result)
    for conversation, shown in zip(result.conversations, out["conversations"], strict=True):
        for hit, printed in zip(conversation.hits, shown["hits"], strict=True):
            printed["host"] = hit.host if isinstance(hit, FleetHit) else None
        shown["host"] = shown["hits"][0]["host"] if shown["hits"] else None
    return out


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
    }
