"""Deletion fences: what Hermes keeps of a session it deleted.

Newer Hermes (``hermes_state_mutation_retirement.py``) writes, before any delete path removes a session's
rows, a ``state_meta`` row keyed ``gateway.retired_session.v1.<session id>`` whose value is a JSON object
with ``retired_at`` (epoch seconds) and, for a prune sweep rather than a user's delete, ``"expires":
true``. A user's fence is permanent; a sweep's is dropped after a week. Hermes 0.19 writes none: there a
deleted session leaves no trace at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hermes_trail.hermes.decode.values import epoch

RETIRED_PREFIX = "gateway.retired_session.v1."


@dataclass(frozen=True, slots=True)
class Retirement:
    """One deleted session: its id, when it was deleted and whether a prune sweep (not a person) did it."""

    session_id: str
    retired_at: datetime | None
    swept: bool


def retirement(row: dict[str, Any]) -> Retirement | None:
    """The fence a ``state_meta`` row holds, or ``None`` when the row is no deletion fence."""
    key = row.get("key")
    if not isinstance(key, str) or not key.startswith(RETIRED_PREFIX) or len(key) == len(RETIRED_PREFIX):
        return None
    try:
        value = json.loads(row.get("value") or "")
    except (TypeError, ValueError):
        value = None
    value = value if isinstance(value, dict) else {}
    when, _ = epoch(value.get("retired_at"), "retired_at")
    return Retirement(key[len(RETIRED_PREFIX) :], when, value.get("expires") is True)
