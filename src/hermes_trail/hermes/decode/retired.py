"""Deletion fences: what Hermes keeps of a session it deleted.

Newer Hermes (``hermes_state_mutation_retirement.py``) writes, before any delete path removes a session's
rows, a ``state_meta`` row keyed ``gateway.retired_session.v1.<session id>`` whose value is a JSON object
with ``retired_at`` (epoch seconds) and, for a prune sweep rather than a user's delete, ``"expires":
true``. A user's fence is permanent; a sweep's is dropped after a week. Hermes 0.19 writes none: there a
deleted session leaves no trace at all.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, ClassVar

from hermes_trail.hermes.decode.values import epoch
from hermes_trail.model import _Frozen

RETIRED_PREFIX = "gateway.retired_session.v1."


# Written out on the model's record (``model._Record``), not ``@dataclass``: importing ``dataclasses`` (and so
# ``inspect``) cost some 9 ms of every start of ``trail`` (issue 15).
class Retirement(_Frozen):
    """One deleted session: its id, when it was deleted and whether a prune sweep (not a person) did it."""

    _fields: ClassVar[tuple[str, ...]] = ("session_id", "retired_at", "swept")
    __slots__ = _fields
    session_id: str
    retired_at: datetime | None
    swept: bool

    def __init__(self, session_id: str, retired_at: datetime | None, swept: bool) -> None:
        object.__setattr__(self, "session_id", session_id)
        object.__setattr__(self, "retired_at", retired_at)
        object.__setattr__(self, "swept", swept)


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
