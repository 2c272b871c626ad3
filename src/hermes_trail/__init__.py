"""hermes-trail: read everything Hermes Agent recorded, faithfully."""

from hermes_trail.errors import AmbiguousSession, SessionNotFound, StoreUnreadable, TrailError
from hermes_trail.history import History, open_history
from hermes_trail.model import Session, Store, Stray, ToolCall, ToolResult, Turn, Usage

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
__version__ = "0.1.0"
