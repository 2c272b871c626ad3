"""The machines of a shared index (``trail share --hosts``): each host registered or pushed, when it last
pushed, what it holds there and the trail it pushed with. What a person asks when ``--fleet`` does not
find what they did on another machine: has it pushed since?"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple

from hermes_trail.fleet import schema
from hermes_trail.fleet.connection import FleetError, clean, connect
from hermes_trail.hermes import dsn as dsns

if TYPE_CHECKING:
    from datetime import datetime


class Machine(NamedTuple):
    """One host of the shared index, as its last push left its row (``hosts``)."""

    host: str
    registered: bool  # a login pushes for it (``add_host``); else an administrator's push named it
    pushed_at: datetime | None  # when its last push ended; ``None``: registered, never pushed
    sessions: int
    docs: int
    passages: int
    trail_version: str | None  # the hermes-trail that pushed last


def machines(dsn: str) -> list[Machine]:
    """Every host of the shared index at ``dsn``, by name (any login may ask: a reader's is enough).

    :raises FleetError: the database cannot be reached or read, or is not migrated.
    """
    import psycopg

    conn = connect(dsn)
    try:
        schema.require(conn, dsn)
        rows = conn.execute(
            "SELECT host, role IS NOT NULL, pushed_at, sessions, docs, passages, trail_version "
            f"FROM {schema.SCHEMA}.hosts ORDER BY host"
        ).fetchall()
    except psycopg.Error as exc:
        raise FleetError(f"{dsns.shown(dsn)}: cannot read its hosts ({clean(exc, dsn)})") from exc
    finally:
        conn.close()
    return [Machine(str(h), bool(r), p, int(s), int(d), int(v), t) for h, r, p, s, d, v, t in rows]


def machine_json(machine: Machine) -> dict[str, Any]:
    """One host as ``trail share --hosts --json`` gives it (docs/json.md)."""
    return {
        "host": machine.host,
        "registered": machine.registered,
        "pushed_at": machine.pushed_at.isoformat() if machine.pushed_at else None,
        "sessions": machine.sessions,
        "docs": machine.docs,
        "passages": machine.passages,
        "trail_version": machine.trail_version,
    }
