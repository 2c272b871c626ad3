"""The desktop app's ``connections.json``: the Hermes backends it drove besides its own.

The registry (``apps/desktop/electron/connection-registry.ts``, version 2) is ``{version, primary,
launchMode, lastUsed, connections: [...], quarantined: [{reason, entry}]}``. A connection has ``id``,
``kind`` (``local``, ``remote`` for a ``hermes serve`` gateway, ``ssh``, ``cloud`` for Hermes Cloud),
``label``, and by kind ``url``, ``authMode``, ``token``, ``headers``, ``org``, ``name``, ``host``,
``user``, ``port``, ``keyPath``, ``remoteHermesPath``, ``remoteProfile``.

``token`` and ``headers`` are gateway credentials (an OS-encrypted envelope, or plain text when the app's
secret storage is off): they are dropped as the file is parsed and never reach a caller, and neither does a
quarantined entry (only its reason) nor an unreadable entry's value.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hermes_trail.hermes.sidefiles.common import read_json, record_stray
from hermes_trail.model import Stray


@dataclass(slots=True)
class Connection:
    """A connection without its credentials."""

    number: int
    kind: str
    label: str | None
    url: str | None = None
    user: str | None = None
    host: str | None = None
    port: int | None = None
    org: str | None = None
    name: str | None = None
    remote_profile: str | None = None

    @property
    def where(self) -> str:
        """The URL, or ``user@host:port`` for SSH."""
        if self.kind == "ssh" or (self.url is None and self.host):
            target = f"{self.user}@{self.host}" if self.user else (self.host or "-")
            return f"{target}:{self.port}" if self.port is not None else target
        return self.url or "-"


@dataclass(slots=True)
class Registry:
    connections: list[Connection]
    quarantined: list[str]  # reasons only


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def read_connections(path: Path) -> tuple[Registry, list[Stray]]:
    """The registry's connections and quarantine reasons, and the strays (never with a value)."""
    empty = Registry([], [])
    data, problems = read_json(path, dict, "a JSON object")
    if data is None:
        return empty, problems
    strays: list[Stray] = []
    registry = Registry([], [])
    entries = data.get("connections")
    for number, entry in enumerate(entries if isinstance(entries, list) else [], start=1):
        if not isinstance(entry, dict):
            strays.append(record_stray(path, number, "not an object"))
            continue
        port = entry.get("port")
        registry.connections.append(
            Connection(
                number=number,
                kind=_text(entry.get("kind")) or "-",
                label=_text(entry.get("label")),
                url=_text(entry.get("url")),
                user=_text(entry.get("user")),
                host=_text(entry.get("host")),
                port=port if isinstance(port, int) and not isinstance(port, bool) else None,
                org=_text(entry.get("org")),
                name=_text(entry.get("name")),
                remote_profile=_text(entry.get("remoteProfile")),
            )
        )
    quarantined = data.get("quarantined")
    for number, entry in enumerate(quarantined if isinstance(quarantined, list) else [], start=1):
        reason = entry.get("reason") if isinstance(entry, dict) else None
        if isinstance(reason, str):
            registry.quarantined.append(reason)
        else:
            strays.append(record_stray(path, f"quarantined {number}", "not an object with a reason"))
    return registry, strays
