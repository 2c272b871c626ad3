"""``pairing/<platform>-approved.json``: the platform users the messaging gateway lets drive the agent.

Hermes' ``PairingStore`` keeps, per platform, a JSON object keyed by user id, each
``{"user_name", "approved_at" (epoch s)}``, in ``pairing/`` or the newer ``platforms/pairing/`` of a home
(and of each profile). The ``<platform>-pending.json`` beside it holds live pairing codes: it is a
credential and is never opened (locate does not even list it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from hermes_trail.hermes.sidefiles.common import compact, epoch_time, read_json, record_stray
from hermes_trail.model import Stray


@dataclass(slots=True)
class ApprovedUser:
    platform: str
    user_id: str
    user_name: str | None
    approved_at: datetime | None
    number: int


def read_approved(path: Path, platform: str) -> tuple[list[ApprovedUser], list[Stray]]:
    """The approved users of one platform file, in file order, and the strays."""
    data, problems = read_json(path, dict, "a JSON object keyed by user id")
    if data is None:
        return [], problems
    users: list[ApprovedUser] = []
    strays: list[Stray] = []
    for number, (user_id, entry) in enumerate(data.items(), start=1):
        if not isinstance(entry, dict):
            strays.append(record_stray(path, number, "not an object", compact({user_id: entry})))
            continue
        name = entry.get("user_name")
        users.append(
            ApprovedUser(
                platform,
                user_id,
                name if isinstance(name, str) and name else None,
                epoch_time(entry.get("approved_at")),
                number,
            )
        )
    return users, strays
