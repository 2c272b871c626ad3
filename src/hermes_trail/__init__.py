"""hermes-trail: read everything Hermes Agent recorded, faithfully.

The public names below are loaded on first use (PEP 562), so importing the package, as every ``trail``
command does first, costs nothing until a name is needed.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hermes_trail.errors import AmbiguousSession, SessionNotFound, StoreUnreadable, TrailError
    from hermes_trail.history import History, open_history
    from hermes_trail.model import Session, Store, Stray, ToolCall, ToolResult, Turn, Usage

__version__ = "0.1.0"

_HOMES = {
    "AmbiguousSession": "hermes_trail.errors",
    "SessionNotFound": "hermes_trail.errors",
    "StoreUnreadable": "hermes_trail.errors",
    "TrailError": "hermes_trail.errors",
    "History": "hermes_trail.history",
    "open_history": "hermes_trail.history",
    "Session": "hermes_trail.model",
    "Store": "hermes_trail.model",
    "Stray": "hermes_trail.model",
    "ToolCall": "hermes_trail.model",
    "ToolResult": "hermes_trail.model",
    "Turn": "hermes_trail.model",
    "Usage": "hermes_trail.model",
}

__all__ = [
    "AmbiguousSession",
    "History",
    "Session",
    "SessionNotFound",
    "Store",
    "StoreUnreadable",
    "Stray",
    "ToolCall",
    "ToolResult",
    "TrailError",
    "Turn",
    "Usage",
    "open_history",
]


def __getattr__(name: str) -> Any:
    module = _HOMES.get(name)
    if module is None:
        raise AttributeError(f"module 'hermes_trail' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
